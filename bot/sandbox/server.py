"""``FakeDiscord``: an in-process Discord (REST + gateway) for end-to-end bot tests.

The real, unmodified discord.py client talks to it over HTTP and websockets on
127.0.0.1. Only two class attributes of discord.py are redirected (see
:meth:`FakeDiscord.configure_client`): ``discord.http.Route.BASE`` (every REST and
webhook URL is built from it) and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``.

Typical use (see ``fixtures.py`` / ``runner.py`` for the pytest glue)::

    async with FakeDiscord() as fake, fake.configure_client():   # (fixture does this)
        guild = fake.add_guild("Test Guild")
        alice = fake.add_member(guild, "alice")
        async with running_bot(fake, make_bot()):
            inter = await fake.slash(alice, guild.channel("general"), "ping")
            assert (await inter.message()).content == "pong"

Design notes
------------
* One concern a module, imported one way (as aiohttp's ``web_app``, ``web_request``...):
  the state (``discord_state.py``, over ``waiting.py``), the servers and people in it
  (``guild_setup.py``), the bot's messages, answers and commands (``message_store.py``), what
  people do (``user_actions.py``), the REST API (``rest.py``, its handlers in ``rest_*.py``),
  the gateway (``gateway_endpoint.py``, its sessions in ``gateway.py``), and this module,
  which serves them on one port. ``FakeDiscord`` is the one object tests hold: a facade for
  what a test does, holding the parts as attributes (``fake.state``, ``fake.setup``,
  ``fake.store``, ``fake.people``, ``fake.gateway``, ``fake.rest``), each given only the
  parts it needs (the REST handlers get the store and the state, the gateway the state).
  Composed, not inherited, so no class is the sum of the others. The sandbox's page
  (``web.py``) sits above it all.
* State lives in plain dataclasses (``models.py``) that tests can inspect directly.
* Everything the bot sends is validated against Discord's limits (``validation.py``);
  violations get Discord's own 400 answers so the bot logs an error, as in production.
* Anything the fake does not implement answers ``404`` *and* is recorded in
  :attr:`FakeDiscord.unhandled`; :meth:`FakeDiscord.assert_clean` fails on it.
* All waiting goes through :meth:`FakeDiscord.wait_for`, which re-checks a predicate
  whenever the fake's state changes (plus a short poll for bot-side state) - tests
  never need ``asyncio.sleep``.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import yarl
from aiohttp import web

from .discord_state import Actor, DiscordState, RequestRecord
from .fake_errors import FakeDiscordError
from .faults import FaultPlan
from .gateway_endpoint import GatewayEndpoint
from .guild_setup import GuildSetup
from .interactions import InteractionRecord
from .message_store import MessageStore
from .models import JSON, FakeChannel, FakeGuild, FakeMember, FakeMessage, FakeRole, FakeUser
from .rest import RestApi
from .user_actions import UserActions

log = logging.getLogger("fakediscord")

T = TypeVar("T")


class FakeDiscord:
    """A fake Discord API + gateway bound to 127.0.0.1 on a free port.

    Takes the options of :class:`~.discord_state.DiscordState` (the token, the bot's name, the
    gateway's compression and resume policy, the interaction deadline...).

    What a test does is here (start and stop it, set up a server, act as its people, wait,
    read the messages); the rest is in its parts: :attr:`state` (what it holds, and lookups),
    :attr:`setup` (servers, channels, roles), :attr:`store` (what the bot's REST calls change:
    messages, answers, commands), :attr:`people` (every kind of interaction a user makes),
    :attr:`gateway` (dropping and invalidating sessions) and :attr:`rest`.
    """

    _runner: web.AppRunner | None = None

    def __init__(self, **options: Any) -> None:
        self.state = DiscordState(**options)
        self.setup = GuildSetup(self.state)
        self.store = self._new_store()
        self.people = UserActions(self.state, self.store)
        self.rest = RestApi(self.store)
        self.gateway = GatewayEndpoint(self.state)

    def _new_store(self) -> MessageStore:
        return MessageStore(self.state)

    # ------------------------------------------------------------------ what it holds

    @property
    def faults(self) -> FaultPlan:
        """Faults injected into REST calls (``faults.py``); none unless a test adds some."""
        return self.rest.faults

    @property
    def guilds(self) -> dict[int, FakeGuild]:
        return self.state.guilds

    @property
    def guild(self) -> FakeGuild:
        """The first guild (convenience for single-guild tests)."""
        if not self.state.guilds:
            raise FakeDiscordError("no guild: call fake.add_guild() first")
        return next(iter(self.state.guilds.values()))

    @property
    def users(self) -> dict[int, FakeUser]:
        return self.state.users

    @property
    def bot_user(self) -> FakeUser:
        return self.state.bot_user

    @property
    def owner(self) -> FakeUser:
        return self.state.owner

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def interactions(self) -> list[InteractionRecord]:
        return self.state.interactions

    @property
    def requests(self) -> list[RequestRecord]:
        """Every REST call the bot made, in order."""
        return self.state.requests

    @property
    def unhandled(self) -> list[RequestRecord]:
        return self.state.unhandled

    @property
    def rejected(self) -> list[RequestRecord]:
        return self.state.rejected

    @property
    def errors(self) -> list[str]:
        return self.state.errors

    @property
    def port(self) -> int:
        return self.state.port

    @property
    def http_base(self) -> str:
        return self.state.http_base

    @property
    def api_base(self) -> str:
        return self.state.api_base

    @property
    def gateway_url(self) -> str:
        return self.state.gateway_url

    # ------------------------------------------------------------------ setting up

    def add_user(self, name: str, *, bot: bool = False, global_name: str | None = None) -> FakeUser:
        return self.setup.add_user(name, bot=bot, global_name=global_name)

    def add_guild(
        self,
        name: str = "Test Guild",
        *,
        channels: Sequence[str] = ("general",),
        owner: FakeUser | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """See :meth:`GuildSetup.add_guild`."""
        return self.setup.add_guild(name, channels=channels, owner=owner, shard=shard)

    def add_member(
        self,
        guild: FakeGuild,
        name: str,
        *,
        bot: bool = False,
        nick: str | None = None,
        roles: Sequence[FakeRole] = (),
        user: FakeUser | None = None,
    ) -> FakeMember:
        """See :meth:`GuildSetup.add_member`."""
        return self.setup.add_member(guild, name, bot=bot, nick=nick, roles=roles, user=user)

    # ------------------------------------------------------------------ acting

    async def slash(
        self, user: Actor, channel: FakeChannel, command: str, /, *, locale: str = "en-US",
        **options: Any,
    ) -> InteractionRecord:
        """See :meth:`UserActions.slash`."""
        return await self.people.slash(user, channel, command, locale=locale, **options)

    async def click(
        self, user: Actor, message: FakeMessage, custom_id: str, *, force: bool = False
    ) -> InteractionRecord:
        """See :meth:`UserActions.click`."""
        return await self.people.click(user, message, custom_id, force=force)

    async def select(
        self, user: Actor, message: FakeMessage, custom_id: str, values: Sequence[Any], *,
        force: bool = False,
    ) -> InteractionRecord:
        """See :meth:`UserActions.select`."""
        return await self.people.select(user, message, custom_id, values, force=force)

    async def autocomplete(
        self, user: Actor, channel: FakeChannel, command: str, focused: str, value: str, /, *,
        timeout: float = 5.0, **options: Any,
    ) -> list[JSON]:
        """See :meth:`UserActions.autocomplete`."""
        return await self.people.autocomplete(
            user, channel, command, focused, value, timeout=timeout, **options)

    async def submit_modal(
        self, user: Actor, opened_by: InteractionRecord, values: dict[str, Any], *,
        force: bool = False,
    ) -> InteractionRecord:
        """See :meth:`UserActions.submit_modal`."""
        return await self.people.submit_modal(user, opened_by, values, force=force)

    # ------------------------------------------------------------------ waiting and reading

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        description: str = "condition",
        poll: float = 0.02,
    ) -> T:
        """See :meth:`Waiting.wait_for`."""
        return await self.state.wait_for(
            predicate, timeout=timeout, description=description, poll=poll)

    def messages(
        self,
        channel: FakeChannel,
        *,
        include_deleted: bool = False,
        include_ephemeral: bool = True,
        visible_to: Actor | None = None,
    ) -> list[FakeMessage]:
        """See :meth:`DiscordState.messages`."""
        return self.state.messages(channel, include_deleted=include_deleted,
                                   include_ephemeral=include_ephemeral, visible_to=visible_to)

    def assert_clean(self, *, allow_rejected: bool = True) -> None:
        """See :meth:`DiscordState.assert_clean`."""
        self.state.assert_clean(allow_rejected=allow_rejected)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        """Bind 127.0.0.1 on a free port and start serving."""
        if self._runner is not None:
            raise RuntimeError("FakeDiscord already started")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn)
        app.router.add_route("*", "/{tail:.*}", self.rest.handle)
        # No access log: it would drown test output; requests are in ``self.requests``.
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.state._port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        self._runner = runner
        log.debug("fake discord listening on %s", self.state.http_base)
        return self

    async def stop(self) -> None:
        """Close bots still running (a failed test may not have), every gateway
        connection, and shut the server down."""
        for handle in self.state.bots:
            if not handle.task.done():
                try:
                    await handle.stop()
                except Exception as exc:
                    self.state._internal_error("stopping a leftover bot", exc)
        for conn in list(self.state.connections):
            conn.close(1001)
        for session in self.state.sessions:
            session.ended = True
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for conn in list(self.state.connections):
            await conn.aclose()
        self.state.connections.clear()
        self.state.cancel_waiters()

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def configure_client(self) -> Iterator[FakeDiscord]:
        """Point discord.py at this fake for the duration of the ``with`` block.

        Both are class attributes, so this affects every client in the process;
        the previous values are restored on exit (nesting is safe).
        """
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.state.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.state.gateway_url)
        try:
            yield self
        finally:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    async def _cdn(self, request: web.Request) -> web.Response:
        attachment = self.state.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )

