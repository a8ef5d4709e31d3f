"""A fake Discord (REST + gateway) for end-to-end tests of discord.py bots.

See ``server.py`` for the overview (and how its modules divide the work). Public names:

* :class:`FakeDiscord` - the server and its state; user actions (``slash``, ``click``,
  ``select``, ``autocomplete``, ``submit_modal``...); gateway control.
* :class:`InteractionRecord` / :class:`CallbackRecord` - what the bot answered.
* :func:`running_bot` / :func:`start_bot` / :class:`BotHandle` - run a client against it.
* :class:`ErrorLogGuard` - fail on logged errors (discord.py swallows handler exceptions).
* :class:`FaultPlan` / :class:`Fault` / :class:`GatewayChaos` - faults injected into REST calls
  (``fake.faults``) and the gateway (``faults.py``).
* Model classes (``FakeGuild``, ``FakeMessage``...) and :class:`Upload`.
* Fixtures live in ``tests/fake_discord_fixtures.py`` (import them explicitly).

Over it, ``python -m bot sandbox``: a web page in which people play the bot in a browser
(``web.py`` and ``static/``), the sandbox's server and people, kept between runs (``world.py``),
and the start and stop of it all (``session.py``). Nothing here imports the bot.
"""

from __future__ import annotations

from .discord_state import LatencyReport, RequestRecord, Upload
from .fake_errors import ApiError, FakeDiscordError, FakeDiscordTimeout
from .faults import OK, Fault, FaultPlan, GatewayChaos, InjectedFault, route_kind
from .interactions import CallbackRecord, CallbackType, InteractionRecord, InteractionType
from .logguard import ErrorLogGuard
from .models import (
    ChannelType,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageFlags,
    MessageRevision,
    Perm,
    RegisteredCommand,
)
from .runner import BotHandle, running_bot, start_bot
from .server import FakeDiscord

__all__ = [
    "ApiError",
    "BotHandle",
    "CallbackRecord",
    "CallbackType",
    "ChannelType",
    "ErrorLogGuard",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeDiscordTimeout",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Fault",
    "FaultPlan",
    "GatewayChaos",
    "InjectedFault",
    "InteractionRecord",
    "InteractionType",
    "LatencyReport",
    "MessageFlags",
    "MessageRevision",
    "OK",
    "Perm",
    "RegisteredCommand",
    "RequestRecord",
    "Upload",
    "route_kind",
    "running_bot",
    "start_bot",
]
