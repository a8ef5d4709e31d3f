"""The bot while its database is away: PostgreSQL stopped mid-play (a private server of the
test's own, never the shared one), a SQLite disk that fills up or a file that turns
read-only. Players get a polite answer within Discord's 3 s, nothing is half-saved, and play
resumes by itself when the database is back."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.bench.pgserver import PrivatePostgres
from bot.pictures.text import DB_DOWN
from bot.sandbox import FakeDiscord
from tests.support import Clock

from .conftest import World, option_targets, select_options
from .test_bot_play import hand, live_game, start_challenge


@pytest.fixture
async def pg_world(fake_discord: FakeDiscord, private_postgres: PrivatePostgres
                   ) -> AsyncIterator[World]:
    counter = itertools.count(11)
    world = World(fake_discord, private_postgres.url, Clock(),  # type: ignore[arg-type]
                  lambda: next(counter))
    await world.start()
    assert world.bot is not None
    world.bot.retry_base = 0.05
    try:
        yield world
    finally:
        while world.handles:
            await world.stop()


async def _move(world: World) -> tuple[str, str, float]:
    """The player on turn tries a move; (the move, the reply, seconds until the reply)."""
    live = live_game(world) if world.bot and world.bot.service.live._live else None
    user = world.alice if live is None or live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    options = select_options(message)
    if not options:  # the other player's turn (the game was reloaded)
        user = world.bob if user is world.alice else world.alice
        message = await hand(world, user)
        options = select_options(message)
    if not options:  # the hand itself wasn't shown (the database not answering)
        return "", message.content, 0.0
    option = options[0]
    token, target = option["value"], option_targets(option)[0]
    started = time.monotonic()
    record = await world.fake.slash(user, world.channel, "play", card=token, to=target)
    reply = await record.message(timeout=10)
    return f"{token}>{target}", reply.content, time.monotonic() - started


async def _moves_stored(world: World, game_id: int) -> list[str]:
    assert world.bot is not None
    return [text for _, _, _, text in await world.bot.storage.games.move_log(game_id)]


async def test_postgresql_stopped_mid_play_then_back(
        pg_world: World, private_postgres: PrivatePostgres,
        caplog: pytest.LogCaptureFixture) -> None:
    world = pg_world
    assert world.bot is not None
    await start_challenge(world, "kings")
    game_id = live_game(world).id
    acked = []
    for _ in range(2):
        move, reply, _ = await _move(world)
        assert "✅" in reply
        acked.append(move)
    version = live_game(world).version
    hand_before = await hand(world, world.alice)  # shown from memory while the server is up

    private_postgres.stop()
    refusals = []
    for _ in range(3):
        move, reply, took = await _move(world)
        assert "✅" not in reply, "a move acknowledged while the database was down"
        assert DB_DOWN in reply, reply
        refusals.append(took)
    assert max(refusals) < 3.0, refusals
    reply = (await (await world.fake.slash(world.bob, world.channel, "hand")).message()).content
    assert "Your hand" in reply or DB_DOWN in reply, reply
    assert hand_before is not None

    private_postgres.start()
    # No restart of the bot: the pool connects again; a player tries again in a moment.
    resumed = None
    for _ in range(20):
        move, reply, _ = await _move(world)
        if "✅" in reply:
            resumed = move
            break
        assert DB_DOWN in reply, reply
        await asyncio.sleep(0.2)
    assert resumed is not None, "play did not resume"
    assert "damaged" not in caplog.text, "a database away is not a damaged game"
    assert not [r for r in caplog.records if r.levelno >= 40 and r.name.startswith("bot")]
    acked.append(resumed)
    await world.settle()
    stored = await _moves_stored(world, game_id)
    assert len(stored) == version + 1, "nothing half-saved while the database was away"
    assert stored[:2] == acked[:2] and stored[-1] == resumed
    row = await world.bot.storage.games.get_game(game_id)
    assert row is not None
    deadline = time.monotonic() + 10
    while row.board_version != row.version:  # the board is redrawn once the database is back
        assert time.monotonic() < deadline, "the board never caught up"
        await asyncio.sleep(0.1)
        row = await world.bot.storage.games.get_game(game_id)
        assert row is not None


async def _set(world: World, pragma: str) -> None:
    assert world.bot is not None
    async with world.bot.storage._db.connection() as conn:
        await conn.execute(f"PRAGMA {pragma}")


@pytest.mark.parametrize("fault", ["full", "read-only"])
async def test_sqlite_full_or_read_only_refuses_politely_and_loses_nothing(
        world: World, fault: str) -> None:
    assert world.bot is not None
    world.bot.retry_base = 0.05
    await start_challenge(world, "kings")
    game_id = live_game(world).id
    acked: list[str] = []
    for _ in range(2):
        move, reply, _ = await _move(world)
        assert "✅" in reply
        acked.append(move)
    if fault == "full":
        # SQLITE_FULL on every write, as SQLite raises it when the disk has no room (a real
        # full disk needs a small file system mounted, which a test can't count on).
        db = world.bot.storage._db._db._conn  # sqlite3's connection, under aiosqlite's
        real = db.execute

        def full(sql: str, *args: Any) -> Any:
            if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
                error = sqlite3.OperationalError("database or disk is full")
                error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
                raise error
            return real(sql, *args)

        db.execute = full  # type: ignore[method-assign]
    else:
        await _set(world, "query_only = ON")  # SQLITE_READONLY on every write
    refused = 0
    for _ in range(30):
        move, reply, took = await _move(world)
        if "✅" in reply:
            acked.append(move)  # a move that found room in a page already there
            continue
        assert DB_DOWN in reply, reply
        assert took < 3.0
        refused += 1
        if refused == 2:
            break
    assert refused == 2, "the database never refused a move"
    if fault == "full":
        db.execute = real  # type: ignore[method-assign]
    else:
        await _set(world, "query_only = OFF")
    move, reply, _ = await _move(world)
    assert "✅" in reply, reply
    acked.append(move)
    await world.settle()
    assert await _moves_stored(world, game_id) == acked, "every acknowledged move, no other"
    await world.stop()
    with sqlite3.connect(world.db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows: list[Any] = raw.execute("SELECT version, board_version FROM games").fetchall()
    assert rows[0][0] == len(acked)
