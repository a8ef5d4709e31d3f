"""The sandbox's Discord: one server, one channel, four people, kept in a folder between runs.

The bot's database holds the ids of the server, its channels, its people and its own messages
(a game knows its thread, its board message, its players). So that a game begun yesterday goes
on today, the fake Discord's state is saved beside the database when the sandbox stops (and
now and then while it runs) and loaded at the next start, with the same ids.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .models import FakeGuild, FakeMember
from .server import FakeDiscord

__all__ = ["PEOPLE", "STATE_FILE", "SandboxWorld", "WorldError", "load_world", "new_world",
           "rebase_attachments", "save_world", "tidy"]

log = logging.getLogger("bot.sandbox")

PEOPLE = ("Alice", "Bob", "Carol", "Dave")
"""The members created at the first start; the page's user switcher plays any of them."""

BOT_NAME = "Spite & Malice"
STATE_FILE = "discord-state.pickle"
"""The fake Discord's state in the data folder (beside the bot's SQLite database)."""

_STATE_VERSION = 1
_FIELDS = ("application_id", "bot_user", "owner", "users", "guilds", "dm_channels",
           "messages_by_id", "attachments")


@dataclass
class SandboxWorld:
    """The fake and the sandbox's server in it."""

    fake: FakeDiscord
    guild: FakeGuild
    saved_base: str | None = None
    """The fake's address when the state was saved (attachment URLs name it)."""

    @property
    def people(self) -> list[FakeMember]:
        """Alice, Bob, Carol and Dave (the humans of the server), in that order."""
        humans = [m for m in self.guild.members.values()
                  if not m.user.bot and m.user.global_name in PEOPLE]
        return sorted(humans, key=lambda m: PEOPLE.index(m.user.global_name or ""))


def new_world(fake: FakeDiscord) -> SandboxWorld:
    """A server "Sandbox" with ``#general`` and Alice (its owner), Bob, Carol and Dave."""
    users = [fake.add_user(name.lower(), global_name=name) for name in PEOPLE]
    guild = fake.add_guild("Sandbox", channels=("general",), owner=users[0])  # Alice joins
    for user in users[1:]:
        fake.add_member(guild, user.username, user=user)
    return SandboxWorld(fake, guild)


def save_world(world: SandboxWorld, folder: Path) -> None:
    """Write the fake's state to ``folder`` (atomically: a crash leaves the last good copy)."""
    fake = world.fake
    tidy(fake)
    state: dict[str, Any] = {"version": _STATE_VERSION, "snowflake": fake.state.snowflake._last,
                             "base": fake.http_base, "saved_at": time.time()}
    state.update({name: getattr(fake.state, name) for name in _FIELDS})
    path = folder / STATE_FILE
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        pickle.dump(state, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)


class WorldError(Exception):
    """The saved state can't be read; the message says what to do."""


def load_world(fake: FakeDiscord, folder: Path) -> SandboxWorld | None:
    """The world saved in ``folder`` put into ``fake`` (not started yet), or ``None`` if there
    is none. Only the sandbox writes this file, in a folder of the user's own."""
    path = folder / STATE_FILE
    if not path.exists():
        return None
    try:
        with path.open("rb") as source:
            state = pickle.load(source)  # noqa: S301 - our own file, written by save_world
        if state.get("version") != _STATE_VERSION:
            raise ValueError(f"version {state.get('version')}")
    except Exception as exc:
        raise WorldError(f"the sandbox's saved Discord in {path} can't be read ({exc}); start "
                         "with --fresh, or with another --data folder") from exc
    for name in _FIELDS:
        setattr(fake.state, name, state[name])
    # As in Discord, private answers don't outlive the session they were shown in.
    fake.state.messages_by_id = {
        i: m for i, m in fake.state.messages_by_id.items() if not m.ephemeral}
    fake.state.snowflake._last = max(fake.state.snowflake._last, int(state["snowflake"]))
    guild = next(iter(fake.guilds.values()))
    return SandboxWorld(fake, guild, saved_base=str(state["base"]))


def rebase_attachments(world: SandboxWorld) -> None:
    """Once the fake is started: attachment URLs name its port, which changes between runs."""
    old, new = world.saved_base, world.fake.http_base
    if old is None or old == new:
        return
    for attachment in world.fake.state.attachments.values():
        if attachment.url.startswith(old):
            attachment.url = new + attachment.url[len(old):]


INTERACTION_LIFETIME = 15 * 60.0
"""Seconds an interaction's token works (Discord's limit); older records can go."""


def tidy(fake: FakeDiscord, now: float | None = None) -> None:
    """Forget what the fake keeps for tests' assertions, which a long sandbox session would
    otherwise pile up in memory (and in the saved state): the record of every REST call (with
    every picture uploaded), interactions whose tokens have expired, every earlier state of
    every message, and the pictures nothing shows any more."""
    now = time.time() if now is None else now
    del fake.requests[:-100]
    del fake.rejected[:-100]
    for record in fake.requests:
        record.files = []
    live = [i for i in fake.interactions if now - i.created_wall < INTERACTION_LIFETIME]
    fake.interactions[:] = live
    fake.state._interactions_by_id = {i.id: i for i in live}
    fake.state._interactions_by_token = {i.token: i for i in live}
    for session in fake.state.sessions:
        del session.history[:-1000]  # a RESUME replays what a short disconnection missed
    shown: dict[int, Any] = {}
    for message in fake.state.messages_by_id.values():
        # The first state says whether the message was a "thinking…" placeholder (the page
        # doesn't call its answer an edit), the last that it was edited; none needs pictures.
        if len(message.history) > 2:
            message.history[:] = [message.history[0], message.history[-1]]
        message.history[:] = [dataclasses.replace(r, attachments=[]) for r in message.history]
        if message.deleted:
            message.attachments = []
        shown.update((a.id, a) for a in message.attachments)
    fake.state.attachments = shown
