"""Sharding, end to end: the fake Discord routes each server to the shard that owns it, one
process runs several shards, and shard processes share one PostgreSQL database with each
server's games looked after by exactly one of them.

Discord sends a server's events to shard ``(guild_id >> 22) % shard_count`` only; the bot
(``SHARD_COUNT``/``SHARD_IDS``) loads and looks after the games of its own shards' servers.
Players act only through interactions; the database is read only to check.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord

from bot.client import ShardedSpiteBot, new_bot
from bot.config import Config
from bot.shards import ShardSet, shard_of
from tests.fakediscord import FakeDiscord, FakeGuild, FakeMember, FakeMessage, start_bot
from tests.fakediscord import fixtures as _fixtures
from tests.fakediscord.fixtures import FakeDiscordFactory
from tests.support import Clock

from .conftest import select_options
from .test_bot_play import choose

ROOT = Path(__file__).resolve().parents[2]

make_fake_discord = _fixtures.make_fake_discord


# ---------------------------------------------------------------------- helpers


@dataclass
class Table:
    """A server on a chosen shard, with Alice and Bob (the same two people on every server)."""

    guild: FakeGuild
    alice: FakeMember
    bob: FakeMember

    @property
    def channel(self) -> Any:
        return self.guild.channel("general")

    def public(self, fake: FakeDiscord) -> list[FakeMessage]:
        """Every public message of the server (its channels and threads), oldest first."""
        return sorted((m for c in self.guild.channels.values() for m in fake.messages(c)
                       if not m.ephemeral), key=lambda m: m.id)

    def reminders(self, fake: FakeDiscord, game_id: int) -> list[FakeMessage]:
        return [m for m in self.public(fake)
                if "⏰" in m.content and f"(game #{game_id})" in m.content]

    def game_ids(self, fake: FakeDiscord) -> list[int]:
        """The games whose boards are up on this server, oldest first."""
        ids = {int(c.rsplit(":", 1)[1]) for m in self.public(fake) for c in m.custom_ids()
               if c.startswith("sm:hand:")}
        return sorted(ids)


def _tables(fake: FakeDiscord, shard_count: int) -> list[Table]:
    """One server per shard; Alice and Bob are members of all of them."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    tables = []
    for shard in range(shard_count):
        guild = fake.add_guild(f"Shard {shard} Guild", shard=(shard, shard_count))
        assert shard_of(guild.id, shard_count) == shard
        tables.append(Table(guild, fake.add_member(guild, "alice", user=alice),
                            fake.add_member(guild, "bob", user=bob)))
    return tables


async def _reply(fake: FakeDiscord, user: Any, channel: Any, command: str,
                 **options: Any) -> FakeMessage:
    return await (await fake.slash(user, channel, command, **options)).message(timeout=15)


async def _start_game(fake: FakeDiscord, table: Table, **options: Any) -> int:
    """Alice challenges Bob, Bob accepts; returns the game's id once its board is up."""
    before = set(table.game_ids(fake))
    challenge = await _reply(fake, table.alice, table.channel, "challenge", opponent=table.bob,
                             **options)
    assert "A challenge!" in challenge.text(), challenge.text()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    await (await fake.click(table.bob, challenge, accept)).settled(timeout=15)
    new = await fake.wait_for(lambda: set(table.game_ids(fake)) - before, timeout=20,
                              description=f"the board of the new game in {table.guild.name}")
    (game_id,) = new
    return game_id


async def _moves(fake: FakeDiscord, table: Table, count: int) -> list[str]:
    """Whoever is on turn moves (``/hand``, then ``/play`` or ``/pass``) until ``count`` moves
    are acknowledged with ✅; returns them."""
    made: list[str] = []
    seat = 0
    for step in itertools.count(1):
        assert step < 20 * count, f"only {made} acknowledged in {table.guild.name}"
        if len(made) == count:
            return made
        user = (table.alice, table.bob)[seat]
        hand = await _reply(fake, user, table.channel, "hand")
        options = select_options(hand)
        has_pass = any(c.endswith(":pass") for c in hand.custom_ids())
        if not options and not has_pass:
            seat = 1 - seat  # not this player's turn
            continue
        choice = choose(options, has_pass, step)
        if choice is None:
            text, reply = "pass", await _reply(fake, user, table.channel, "pass")
        else:
            text = f"{choice[0]}>{choice[1]}"
            reply = await _reply(fake, user, table.channel, "play", card=choice[0], to=choice[1])
        assert "✅" in reply.content, (table.guild.name, text, reply.content)
        made.append(text)
    raise AssertionError("unreachable")


async def _resign(fake: FakeDiscord, table: Table, user: FakeMember, game_id: int) -> None:
    confirm = await _reply(fake, user, table.channel, "resign")
    assert confirm.ephemeral
    await (await fake.click(user, confirm, f"sm:rs:{game_id}")).settled(timeout=15)


def _dollars(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


# ---------------------------------------------------------------------- the fake Discord


class Listener(discord.AutoShardedClient):
    """A bare sharded client that notes which servers' messages reach it."""

    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **options)
        self.heard: list[int] = []

    async def on_message(self, message: discord.Message) -> None:
        assert message.guild is not None
        self.heard.append(message.guild.id)


async def test_the_fake_routes_each_server_to_the_shard_that_owns_it(
        make_fake_discord: FakeDiscordFactory, no_error_logs: Any) -> None:
    fake = await make_fake_discord(populate=False)
    tables = _tables(fake, 3)
    guilds = [t.guild for t in tables]
    first = await start_bot(fake, Listener(shard_count=3, shard_ids=[0, 2]))
    second = await start_bot(fake, Listener(shard_count=3, shard_ids=[1]))
    try:
        by_shard = {s.shard: s for s in fake.sessions}
        assert sorted(by_shard) == [(0, 3), (1, 3), (2, 3)]
        for (shard, _), session in by_shard.items():
            assert session.identify["shard"] == [shard, 3]
            ready = next(f["d"] for f in session.history if f["t"] == "READY")
            assert ready["shard"] == [shard, 3]
            created = [int(f["d"]["id"]) for f in session.history if f["t"] == "GUILD_CREATE"]
            assert [int(g["id"]) for g in ready["guilds"]] == created == [guilds[shard].id]
        assert {g.id for g in first.bot.guilds} == {guilds[0].id, guilds[2].id}
        assert {g.id for g in second.bot.guilds} == {guilds[1].id}
        for table in tables:
            await fake.send_user_message(table.alice, table.channel, "hello")
        await fake.wait_for(lambda: len(first.bot.heard) + len(second.bot.heard) == 3,
                            description="three messages heard")
        assert sorted(first.bot.heard) == sorted([guilds[0].id, guilds[2].id])
        assert second.bot.heard == [guilds[1].id]
        # A server that joins later goes to its shard's connection only.
        late = fake.add_guild("Late Guild", shard=(1, 3))
        await fake.wait_for(lambda: second.bot.get_guild(late.id), description="late guild")
        assert first.bot.get_guild(late.id) is None
    finally:
        await first.stop()
        await second.stop()


async def test_gateway_bot_recommends_the_configured_shard_count(
        make_fake_discord: FakeDiscordFactory, no_error_logs: Any) -> None:
    fake = await make_fake_discord(populate=False, recommended_shards=2)
    tables = _tables(fake, 2)
    handle = await start_bot(fake, Listener())  # no shard_count: Discord's recommendation
    try:
        assert ("GET", "/gateway/bot") in [(r.method, r.path) for r in fake.requests]
        assert handle.bot.shard_count == 2
        assert sorted(s.shard for s in fake.sessions if s.connected) == [(0, 2), (1, 2)]
        assert {g.id for g in handle.bot.guilds} == {t.guild.id for t in tables}
    finally:
        await handle.stop()


# ---------------------------------------------------------------------- one process, two shards


async def test_one_process_runs_two_shards_on_sqlite(
        make_fake_discord: FakeDiscordFactory, tmp_path: Path, no_error_logs: Any) -> None:
    fake = await make_fake_discord(populate=False)
    tables = _tables(fake, 2)
    clock = Clock()
    seeds = itertools.count(31)
    config = Config(token=fake.token, database=str(tmp_path / "bot.sqlite3"), board_delay=0.01,
                    computer_delay=0.0, tick=0.05, shards=ShardSet(2, frozenset({0, 1})))
    bot = new_bot(config, seed_source=lambda: next(seeds), clock=clock)
    assert isinstance(bot, ShardedSpiteBot)
    handle = await start_bot(fake, bot)
    try:
        assert sorted(s.shard for s in fake.sessions if s.connected) == [(0, 2), (1, 2)]
        assert {g.id for g in bot.guilds} == {t.guild.id for t in tables}
        # Both servers play at once, each through its own shard's connection.
        games = await asyncio.gather(*(_start_game(fake, t, rules="kings") for t in tables))
        played = await asyncio.gather(*(_moves(fake, t, 4) for t in tables))
        assert [len(moves) for moves in played] == [4, 4]
        for table, game_id in zip(tables, games, strict=True):
            row = await bot.storage.get_game(game_id)
            assert row is not None and row.guild_id == table.guild.id and row.version >= 4
        # Twelve hours later the player on turn in each game is reminded, once.
        clock.now += 13 * 3600
        for table, game_id in zip(tables, games, strict=True):
            await fake.wait_for(lambda t=table, g=game_id: t.reminders(fake, g), timeout=10,
                                description=f"the reminder of game {game_id}")
        await asyncio.sleep(0.5)  # ten more rounds of housekeeping
        for table, game_id in zip(tables, games, strict=True):
            assert len(table.reminders(fake, game_id)) == 1, table.reminders(fake, game_id)
    finally:
        await handle.stop()
