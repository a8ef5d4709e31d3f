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
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord

from bot.app.client import ShardedSpiteBot, new_bot
from bot.ops.config import Config
from bot.sandbox import FakeDiscord, FakeGuild, FakeMember, FakeMessage, start_bot
from bot.shards import ShardSet, shard_of
from tests import fake_discord_fixtures as _fixtures
from tests.fake_discord_fixtures import FakeDiscordFactory
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

    def posted(self, fake: FakeDiscord) -> list[tuple[int, int]]:
        """Each public message of the server with its number of edits."""
        return [(m.id, len(m.history)) for m in self.public(fake)]

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
    await (await fake.click(user, confirm, f"sm:rs:v1:{game_id}")).settled(timeout=15)


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
        # Every shard's connection drops: each RESUMEs its own session and gets what it missed.
        fake.disconnect_all()
        await fake.send_user_message(tables[1].alice, tables[1].channel, "while away")
        await fake.wait_for(lambda: len(second.bot.heard) == 2, description="the missed message")
        await fake.wait_connected(3)
        assert len(fake.sessions) == 3 and first.bot.heard.count(guilds[1].id) == 0
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
            row = await bot.storage.games.get_game(game_id)
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


# ---------------------------------------------------------------------- shard processes


async def _postgresql_tables(url: str) -> set[str]:
    """The tables in the schema of ``url``: proof that the bot keeps its data there."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = "
                                "current_schema()")
    finally:
        await conn.close()
    return {str(r["tablename"]) for r in rows}


class ShardProcess:
    """``python -m bot`` as shard ``shard`` of ``count``, on a shared database."""

    def __init__(self, fake: FakeDiscord, tmp: Path, database: str, shard: int,
                 count: int) -> None:
        self.fake = fake
        self.tmp = tmp
        self.database = database
        self.shard = (shard, count)
        # The default place: shard processes in one directory keep a heartbeat each.
        self.heartbeat = tmp / "data" / f"spite-malice.shards-{shard}.heartbeat"
        self.proc: asyncio.subprocess.Process | None = None
        self.runs = 0

    @property
    def connected(self) -> bool:
        return any(s.connected and s.shard == self.shard for s in self.fake.sessions)

    async def start(self) -> None:
        """Start the process; return once its housekeeping runs (its first heartbeat)."""
        self.runs += 1
        self.heartbeat.unlink(missing_ok=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "SHARD_", "HEARTBEAT_")) and k != "LOG_LEVEL"}
        env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=self.fake.token,
                   DISCORD_API_BASE=self.fake.api_base, DISCORD_GATEWAY_URL=self.fake.gateway_url,
                   DATABASE=self.database, SHARD_COUNT=str(self.shard[1]),
                   SHARD_IDS=str(self.shard[0]),
                   TICK_SECONDS="0.2", BOARD_DELAY_SECONDS="0.05", COMPUTER_DELAY_SECONDS="0")
        log = open(self._log(self.runs), "wb")  # noqa: SIM115 (the process owns it)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=self.tmp, env=env, stdout=log, stderr=log)
        log.close()
        proc = self.proc
        await self.fake.wait_for(lambda: self.heartbeat.exists() or proc.returncode is not None,
                                 timeout=90, description=f"shard {self.shard} ready")
        assert proc.returncode is None, self.logs()[-3000:]
        assert self.connected

    async def kill(self) -> None:
        """``kill -9``."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()
        self.proc = None
        await self.fake.wait_for(lambda: not self.connected, timeout=10,
                                 description=f"shard {self.shard}'s connection dropped")

    async def stop(self) -> int:
        """A clean stop (``docker stop``); returns the exit code."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            # The bot stops within 10 s of SIGTERM (docker's limit); 60 s leaves room for a
            # machine many times oversubscribed, and a stop that hangs says where it was.
            code = await asyncio.wait_for(self.proc.wait(), timeout=60)
        except TimeoutError:
            raise AssertionError(f"shard {self.shard} didn't stop within 60 s of SIGTERM; "
                                 f"its log:\n{self.logs()[-4000:]}") from None
        self.proc = None
        return code

    def _log(self, run: int) -> Path:
        return self.tmp / f"shard{self.shard[0]}-run{run}.log"

    def logs(self) -> str:
        return "".join(self._log(n).read_text(errors="replace") for n in range(1, self.runs + 1))


@contextlib.asynccontextmanager
async def _shard_processes(fake: FakeDiscord, tmp: Path, database: str,
                           count: int) -> AsyncIterator[list[ShardProcess]]:
    shards = [ShardProcess(fake, tmp, database, n, count) for n in range(count)]
    try:
        yield shards
    finally:
        for shard in shards:
            if shard.proc is not None and shard.proc.returncode is None:
                shard.proc.kill()
                await shard.proc.wait()


async def test_two_shard_processes_share_one_postgresql(postgres_url: str,
                                                        tmp_path: Path) -> None:
    from bot.storage import Storage

    fake = FakeDiscord(token="shard-token-" + "s" * 40)
    await fake.start()
    tables = _tables(fake, 2)
    storage = None
    try:
        async with _shard_processes(fake, tmp_path, postgres_url, 2) as shards:
            # Started together, as docker compose starts them.
            await asyncio.gather(*(shard.start() for shard in shards))
            assert sorted(s.shard for s in fake.sessions if s.connected) == [(0, 2), (1, 2)]
            # The slash commands are the bot's, not a shard's: shard 0's process uploads them.
            uploads = [r for r in fake.requests
                       if r.method == "PUT" and r.path.endswith("/commands")]
            assert len(uploads) == 1, [r.path for r in uploads]
            tables_there = await _postgresql_tables(postgres_url)
            assert tables_there >= {"games", "ledger"}, (
                f"the bot keeps no games in PostgreSQL (tables: {sorted(tables_there)})")
            storage = await Storage.open(postgres_url)

            # Both servers play staked games at once, each on its own shard's process.
            games = await asyncio.gather(*(
                _start_game(fake, t, rules="classic", stake="0.50", per_card=".05")
                for t in tables))
            await asyncio.gather(*(_moves(fake, t, 4) for t in tables))
            # A game is touched by its server's process only, even when named by its id.
            reply = await _reply(fake, tables[0].alice, tables[0].channel, "hand", game=games[1])
            assert "played in another server" in reply.content and not select_options(reply)

            # kill -9 of shard 1: shard 0's games go on, and nothing touches shard 1's.
            await shards[1].kill()
            rows = [await storage.games.get_game(g) for g in games]
            assert all(r is not None for r in rows)
            before = [r.version for r in rows if r is not None]
            seen = tables[1].posted(fake)  # counted with the process dead: nothing in flight
            await _moves(fake, tables[0], 4)
            await asyncio.sleep(1.0)  # five rounds of shard 0's housekeeping
            row = await storage.games.get_game(games[0])
            assert row is not None and row.version >= before[0] + 4
            row = await storage.games.get_game(games[1])
            assert row is not None and row.version == before[1]
            assert tables[1].posted(fake) == seen, "shard 0 posted in shard 1's server"

            # Restarted, shard 1's game goes on where it stopped.
            await shards[1].start()
            await _moves(fake, tables[1], 3)
            row = await storage.games.get_game(games[1])
            assert row is not None and row.version >= before[1] + 3

            # The same two people finish a staked game on each server at the same moment:
            # one ledger line per game, and each server's notebook sums them.
            await asyncio.gather(*(_resign(fake, t, t.bob, g)
                                   for t, g in zip(tables, games, strict=True)))
            total = 0
            for table, game_id in zip(tables, games, strict=True):
                entry = await storage.ledger.game_entry(table.guild.id, game_id)
                assert entry is not None
                assert (entry.debtor_id, entry.creditor_id) == (table.bob.id, table.alice.id)
                assert entry.amount_cents >= 50
                owed = await storage.ledger.pair_balance(
                    table.guild.id, table.bob.id, table.alice.id)
                assert owed == entry.amount_cents
                reply = await _reply(fake, table.bob, table.channel, "ledger")
                assert f"you owe {_dollars(entry.amount_cents)} · 1 game" in reply.content
                total += entry.amount_cents
            owed_in_all = [await storage.ledger.pair_balance(t.guild.id, t.bob.id, t.alice.id)
                           for t in tables]
            assert sum(owed_in_all) == total

            # Housekeeping once per game: with a one-second reminder, each new game's player
            # on turn is reminded by the process of its server, once.
            for table in tables:
                await storage.settings.update_settings(table.guild.id, reminder_s=1, claim_s=3600)
            fresh = await asyncio.gather(*(_start_game(fake, t, rules="kings")
                                           for t in tables))
            for table, game_id in zip(tables, fresh, strict=True):
                await fake.wait_for(lambda t=table, g=game_id: t.reminders(fake, g),
                                    timeout=15, description=f"the reminder of game {game_id}")
            await asyncio.sleep(2.0)  # ten more rounds of each process's housekeeping
            for table, game_id in zip(tables, fresh, strict=True):
                assert len(table.reminders(fake, game_id)) == 1, table.reminders(fake, game_id)

            codes = await asyncio.gather(*(shard.stop() for shard in shards))
            assert codes == [0, 0]
            for shard in shards:
                logs = shard.logs()
                assert f"running shards {shard.shard[0]} of 2" in logs
                assert "Traceback" not in logs, logs[-3000:]
                errors = [line for line in logs.splitlines() if " ERROR " in line]
                assert not errors, errors
                assert fake.token not in logs
            fake.assert_clean(allow_rejected=False)
    finally:
        if storage is not None:
            await storage.close()
        await fake.stop()


async def test_a_shard_already_running_is_not_started_twice(postgres_url: str,
                                                             tmp_path: Path) -> None:
    fake = FakeDiscord(token="shard-token-" + "t" * 40)
    await fake.start()
    try:
        async with _shard_processes(fake, tmp_path, postgres_url, 2) as shards:
            await shards[0].start()
            # The same shard again (a second `docker compose up` of it, a typo in SHARD_IDS):
            # it would remind, expire and claim everything twice; it says so and stops.
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("DISCORD_", "SHARD_", "HEARTBEAT_"))}
            env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=fake.token,
                       DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
                       DATABASE=postgres_url, SHARD_COUNT="2", SHARD_IDS="0",
                       HEARTBEAT_FILE=str(tmp_path / "second.heartbeat"))
            second = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await asyncio.wait_for(second.communicate(), timeout=90)
            assert second.returncode == 2, err.decode()[-2000:]
            message = err.decode()
            assert "already runs shard 0" in message and "Traceback" not in message
            assert fake.token not in message and fake.token not in out.decode()
            assert shards[0].connected  # the first one goes on
            assert await shards[0].stop() == 0
            # Gone (even by kill -9, the server drops its locks): the shard can start again.
            await shards[0].start()
            await shards[0].kill()
            await shards[0].start()
            assert await shards[0].stop() == 0
    finally:
        await fake.stop()
