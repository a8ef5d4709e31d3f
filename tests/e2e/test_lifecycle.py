"""Restarts and deploys, end to end: races right after a restart, boards repaired from the
database, claim notices that don't repeat, and a clean stop on SIGTERM and SIGINT."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.games.game_service import restore_match
from bot.sandbox import FakeDiscord
from bot.sandbox.faults import Fault
from bot.sandbox.models import FakeMessage

from .conftest import World, option_targets, select_options
from .test_bot_play import hand, live_game, resign, start_challenge

ROOT = Path(__file__).resolve().parents[2]


def _players(world: World) -> tuple[Any, Any]:
    live = live_game(world)
    mover = world.alice if live.on_turn == world.alice.id else world.bob
    other = world.bob if mover is world.alice else world.alice
    return mover, other


async def _a_move(world: World, user: Any, *, discard: bool) -> tuple[str, str]:
    """A legal move from ``user``'s hand menu: a discard (ends the turn) or any move."""
    options = select_options(await hand(world, user))
    for option in options:
        for target in option_targets(option):
            if not discard or target.startswith("S"):
                return option["value"], target
    raise AssertionError("no such move in the hand menu")


async def test_a_hand_shown_during_a_move_right_after_a_restart_loses_nothing(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    mover, other = _players(world)
    token, target = await _a_move(world, mover, discard=False)
    game_id = live_game(world).id
    board = world.boards()[-1]
    await world.stop()
    await world.start()
    assert world.bot is not None
    click = world.fake.click(other, board, f"sm:hand:v1:{game_id}")
    play = world.fake.slash(mover, world.channel, "play", card=token, to=target)
    shown, played = await asyncio.gather(click, play)
    assert "✅" in (await played.message()).content
    await shown.message()
    await world.settle()
    stored = await world.bot.storage.games.get_game(game_id)
    cached = await world.bot.service.live.game(game_id)
    assert stored is not None and stored.version == 1
    assert cached.version == stored.version
    assert cached.match.to_dict() == restore_match(stored).to_dict()
    # The game goes on: the mover's next move is accepted, not "not your turn".
    token, target = await _a_move(world, mover, discard=True)
    reply = await (await world.fake.slash(mover, world.channel, "play", card=token,
                                          to=target)).message()
    assert "✅" in reply.content


async def test_a_board_that_fell_behind_before_a_crash_is_drawn_after_the_restart(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    assert world.bot is not None
    mover, other = _players(world)
    game_id = live_game(world).id
    token, target = await _a_move(world, mover, discard=True)
    world.bot.boards.delay = 3600  # the board would be drawn long after the crash
    reply = await (await world.fake.slash(mover, world.channel, "play", card=token,
                                          to=target)).message()
    assert "✅" in reply.content
    # The crash: the pending drawing never happens.
    pending = list(world.bot.boards._pending.values())
    assert pending
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    before = len(world.boards())
    stale = world.boards()[-1]
    assert f"<@{other.id}>" not in stale.content
    await world.stop()
    await world.start()
    await world.fake.wait_for(lambda: len(world.boards()) > before, timeout=10,
                              description="the board drawn again")
    await world.settle()
    boards = world.boards()
    assert len(boards) == before + 1, "one new board for the new turn"
    assert boards[-1].content.count(f"<@{other.id}>") == 1, "the player on turn is pinged"
    stored = await world.bot.storage.games.get_game(game_id)
    assert stored is not None and stored.board_version == stored.version
    # Nothing more is drawn by later housekeeping: the board is up to date.
    assert await world.bot.repair_boards() == 0


async def test_a_finished_game_leaves_memory_while_other_boards_wait(world: World,
                                                                    no_error_logs) -> None:
    # With 1,000 games some board always waits to be drawn: that must not keep every finished
    # game in memory for good.
    await start_challenge(world, "classic")
    assert world.bot is not None
    finished = live_game(world)
    await resign(world, world.alice)
    await world.settle()
    assert finished.finished
    assert finished.id not in world.bot.boards._locks, "its last board drawn, nothing kept"
    await start_challenge(world, "classic")
    going_on = live_game(world)
    assert going_on.id != finished.id
    world.bot.boards.request(going_on.id)  # drawn after the board delay: still waiting
    assert world.bot.boards.busy
    await world.bot.tick()
    assert finished.id not in world.bot.service.live._live
    assert going_on.id in world.bot.service.live._live
    await world.settle()


async def test_the_claim_notice_is_posted_once_across_restarts(world: World,
                                                               no_error_logs) -> None:
    await start_challenge(world, "kings")
    assert world.bot is not None
    world.clock.now += 73 * 3600

    def notices() -> list[FakeMessage]:
        return [m for m in world.public() if any(c.startswith("sm:claim:")
                                                 for c in m.custom_ids())]
    await world.bot.tick()
    assert len(notices()) == 1
    await world.bot.tick()
    await world.stop()
    await world.start()
    await world.bot.tick()
    assert len(notices()) == 1


async def test_down_past_the_reminder_and_the_claim_time_one_notice_the_claim(
        world: World, no_error_logs) -> None:
    """The bot was away while a turn's reminder time and then its claim time passed: the
    players get the claim notice, and no reminder for the same turn a round later."""
    await start_challenge(world, "kings")
    assert world.bot is not None
    await world.stop()
    world.clock.now += 73 * 3600
    await world.start()
    for _ in range(3):
        await world.bot.tick()
    texts = [m.text() for m in world.public()]
    assert sum("You may claim" in t for t in texts) == 1, texts
    assert not any("⏰" in t for t in texts), texts


async def test_an_admin_cannot_shorten_a_game_already_going(world: World,
                                                            no_error_logs) -> None:
    await start_challenge(world, "kings")
    assert world.bot is not None
    await world.bot.service.inviting.update_settings(world.guild.id, reminder_s=600, claim_s=3600)
    world.clock.now += 2 * 3600
    await world.bot.tick()
    texts = [m.text() for m in world.public()]
    assert not any("claim the game" in t for t in texts)
    assert not any("⏰" in t for t in texts)


# ---------------------------------------------------------------------- a real process


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DISCORD_") and k != "LOG_LEVEL"}
    env.update(extra)
    return env


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_signal_draws_pending_boards_then_exits_cleanly(
        tmp_path: Path, signum: signal.Signals) -> None:
    secret = "sekrit-token-" + "y" * 40
    fake = FakeDiscord(token=secret)
    await fake.start()
    guild = fake.add_guild("Test Guild", channels=("general",))
    alice = fake.add_member(guild, "alice")
    bob = fake.add_member(guild, "bob")
    channel = guild.channel("general")
    db = tmp_path / "bot.sqlite3"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path,
        env=_env(PYTHONPATH=str(ROOT), DISCORD_TOKEN=secret, DISCORD_API_BASE=fake.api_base,
                 DISCORD_GATEWAY_URL=fake.gateway_url, LOG_LEVEL="DEBUG", DATABASE=str(db),
                 BOARD_DELAY_SECONDS="2"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    logged: list[bytes] = []

    async def read(stream: asyncio.StreamReader | None) -> None:
        assert stream is not None
        while chunk := await stream.read(65536):
            logged.append(chunk)

    readers = [asyncio.ensure_future(read(proc.stdout)), asyncio.ensure_future(read(proc.stderr))]
    try:
        await fake.wait_for(lambda: "challenge" in fake.state.commands(), timeout=60,
                            description="commands synced")
        await fake.wait_for(lambda: fake.state.connected_count() > 0, timeout=30,
                            description="gateway connected")
        await asyncio.sleep(0.3)  # the guild reaches the bot's cache
        challenge = await (await fake.slash(alice, channel, "challenge", opponent=bob,
                                            rules="classic")).message()
        accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
        # The first board is drawn at once; its post is held by Discord until the stop has
        # begun, so the stop comes while it is pending, whatever the machine's speed.
        release = asyncio.Event()
        fake.faults.script("post", Fault.held(release))
        await (await fake.click(bob, challenge, accept)).response()
        await fake.wait_for(lambda: any(r.method == "POST" and r.path.endswith("/messages")
                                        for r in fake.requests), timeout=30,
                            description="the board's post sent, and held")
        assert not [m for m in fake.messages(channel) if m.attachments]
        proc.send_signal(signum)
        await fake.wait_for(lambda: b"received: stopping" in b"".join(logged), timeout=30,
                            description="the stop begun")
        release.set()
        await asyncio.wait_for(proc.wait(), timeout=30)
        await asyncio.gather(*readers)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        for reader in readers:
            reader.cancel()
        await fake.stop()
    logs = b"".join(logged).decode()
    assert proc.returncode == 0, logs[-3000:]
    threads = [c for c in guild.channels.values() if c.is_thread]
    boards = [m for where in (channel, *threads) for m in fake.messages(where) if m.attachments]
    assert len(boards) == 1, "the pending board was drawn before the bot stopped"
    assert "stopped" in logs
    assert "Traceback" not in logs and " ERROR " not in logs
    # Secrets: a DEBUG log holds no token, no seed and no hidden card.
    assert "DEBUG bot.app.board" in logs and "DEBUG aiosqlite" not in logs
    with sqlite3.connect(db) as raw:
        state = json.loads(raw.execute("SELECT state FROM games").fetchone()[0])
    assert secret not in logs
    seeds = _find_all(state, "seed")
    assert seeds and all(str(seed) not in logs for seed in seeds)
    for hand_cards in _find_all(state, "hands"):
        for cards in hand_cards:
            assert json.dumps(cards) not in logs and ", ".join(cards) not in logs
    assert '"stock"' not in logs


def _find_all(data: Any, key: str) -> list[Any]:
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == key:
                out.append(v)
            out.extend(_find_all(v, key))
    elif isinstance(data, list):
        for v in data:
            out.extend(_find_all(v, key))
    return out


async def test_commands_and_clicks_while_stopping_are_turned_away_politely(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    assert world.bot is not None
    bot = world.bot
    live = live_game(world)
    board = world.boards()[-1]
    release = asyncio.Event()
    real_wait = bot._wait_for_interactions

    async def held(timeout: float) -> None:
        await release.wait()  # the stop is under way, waiting for running interactions
        await real_wait(timeout)

    bot._wait_for_interactions = held  # type: ignore[method-assign]
    stopping = asyncio.create_task(bot.close())
    await world.fake.wait_for(lambda: bot.stopping, timeout=5, description="stopping")
    reply = await (await world.fake.slash(world.alice, world.channel, "hand")).message()
    assert reply.ephemeral and "restarting" in reply.content
    inter = await world.fake.click(world.bob, board, f"sm:hand:v1:{live.id}")
    reply = await inter.message()
    assert reply.ephemeral and "restarting" in reply.content
    assert live.version == 0
    release.set()
    await stopping
    await world.stop()


async def test_the_running_bot_keeps_a_heartbeat_for_the_health_check(world: World) -> None:
    from bot.__main__ import health

    assert world.bot is not None
    config = world.bot.config
    await world.fake.wait_for(lambda: config.heartbeat_path.exists(), timeout=10,
                              description="the first heartbeat")
    assert health(config) == 0


async def test_a_stop_waits_for_late_boards_no_longer_than_its_budget(
        world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # Under a backlog of boards a stop must still end before Docker kills the container: the
    # boards left are drawn at the next start.
    import bot.app.client

    await start_challenge(world, "kings")
    assert world.bot is not None
    bot_ = world.bot
    monkeypatch.setattr(bot.app.client, "STOP_SECONDS", 1.0)
    stuck = asyncio.Event()

    async def never_drawn(game_id: int, **_: Any) -> None:
        await stuck.wait()

    monkeypatch.setattr(bot_.boards, "publish", never_drawn)
    bot_.boards.request(live_game(world).id)
    assert bot_.boards.pending == 1
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(bot_.close(), timeout=10)
    assert loop.time() - started < 3
    assert "1 board updates were not drawn before stopping" in caplog.text
    await world.stop()
