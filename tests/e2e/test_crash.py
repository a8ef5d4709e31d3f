"""A bot process killed (SIGKILL) at random moments during games loses nothing it acknowledged,
and every game it left behind is exactly a replay of its stored moves.

The real ``python -m bot`` plays against the fake Discord while three pairs of players make
moves through ``/hand``, ``/play`` and ``/pass``. After a random number of acknowledged moves
(plus a random instant, so the kill lands anywhere in a move: before its save, during it, or
between the save and the ✅), the process is killed, the database is checked with the process
dead, and the bot is started again on the same file to play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.app.client import SpiteBot
from bot.games.game_service import SNAPSHOT_EVERY, restore_match
from bot.games.replay import replay_match
from bot.ops.config import Config
from bot.sandbox import FakeDiscord, FakeDiscordError, start_bot
from bot.sandbox.faults import Fault
from bot.storage import Storage
from engine import Move, RuleSet
from tests.dbtools import run_sql

from .conftest import World, option_targets, select_options
from .test_bot_play import choose, hand, live_game, start_challenge

ROOT = Path(__file__).resolve().parents[2]
PAIRS = (("alice", "bob", "kings"), ("carol", "dave", "classic"), ("erin", "frank", "kings"))
KILLS = 3


def _normal(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


def _is_subsequence(short: list[str], long: list[str]) -> bool:
    rest = iter(long)
    return all(any(item == other for other in rest) for item in short)


class Bot:
    """One ``python -m bot`` process at a time on the same database."""

    def __init__(self, fake: FakeDiscord, tmp: Path, database: str) -> None:
        self.fake = fake
        self.tmp = tmp
        self.db = database
        self.proc: asyncio.subprocess.Process | None = None
        self.runs = 0

    async def start(self) -> None:
        self.runs += 1
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("DISCORD_") and k != "LOG_LEVEL"}
        env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=self.fake.token,
                   DISCORD_API_BASE=self.fake.api_base, DISCORD_GATEWAY_URL=self.fake.gateway_url,
                   DATABASE=self.db, BOARD_DELAY_SECONDS="0.05", COMPUTER_DELAY_SECONDS="0")
        log = open(self.tmp / f"run{self.runs}.log", "wb")  # noqa: SIM115 (the process owns it)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=self.tmp, env=env, stdout=log, stderr=log)
        log.close()
        await self.fake.wait_for(lambda: "challenge" in self.fake.commands(), timeout=60,
                                 description="commands synced")
        await self.fake.wait_for(lambda: self.fake.connected_count() > 0, timeout=60,
                                 description="gateway connected")

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        await self.proc.wait()
        self.proc = None
        await self.fake.wait_for(lambda: self.fake.connected_count() == 0, timeout=10,
                                 description="the killed bot's gateway session closed")

    def logs(self) -> str:
        return "".join((self.tmp / f"run{n}.log").read_text(errors="replace")
                       for n in range(1, self.runs + 1))


async def _answer(fake: FakeDiscord, user: Any, channel: Any, command: str,
                  **options: Any) -> Any:
    """The bot's reply to a slash command, or ``None`` if none came (the command reached a
    bot that was killed, or is still starting: then the player tries again, as people do)."""
    try:
        inter = await fake.slash(user, channel, command, **options)
        return await inter.message(timeout=4)
    except FakeDiscordError:
        return None


async def _play(fake: FakeDiscord, channel: Any, users: tuple[Any, Any], acked: list[str],
                stop: asyncio.Event) -> None:
    """The pair's players move until ``stop`` is set, through kills and restarts; each move
    whose reply shows ✅ is recorded."""
    seat = 0
    step = 0
    while not stop.is_set():
        user = users[seat]
        hand = await _answer(fake, user, channel, "hand")
        if hand is None:  # no answer: the bot is down or starting
            await asyncio.sleep(0.05)
            continue
        options = select_options(hand)
        has_pass = any(c.endswith(":pass") for c in hand.custom_ids())
        if not options and not has_pass:
            seat = 1 - seat  # not this player's turn
            continue
        step += 1
        choice = choose(options, has_pass, step)
        if choice is None:
            text, reply = "pass", await _answer(fake, user, channel, "pass")
        else:
            token, target = choice
            text = Move.parse(f"{token}>{target}").text
            reply = await _answer(fake, user, channel, "play", card=token, to=target)
        if reply is not None and "✅" in reply.content:
            acked.append(text)


async def _check(db: str, players: dict[int, tuple[int, int]],
                 acked: dict[int, list[str]]) -> None:
    """With the bot dead: every game is a replay of its stored moves, and every acknowledged
    move is among them, in order."""
    storage = await Storage.open(db)
    try:
        rows = await run_sql(db, "SELECT id, player0_id, player1_id FROM games")
        games = {(int(r[1]), int(r[2])): int(r[0]) for r in rows}
        for pair, ids in players.items():
            game_id = games[ids]
            row = await storage.games.get_game(game_id)
            assert row is not None
            log = await storage.games.move_log(game_id)
            assert [seq for seq, _, _, _ in log] == list(range(1, row.version + 1))
            assert 0 <= row.version - row.state_version < SNAPSHOT_EVERY
            replay = replay_match(RuleSet.from_dict(row.state["rules"]), int(row.state["seed"]),
                                  [(seat, text) for _, seat, _, text in log])
            assert _normal(replay.final) == _normal(restore_match(row).to_dict())
            stored = [text for _, _, _, text in log]
            assert _is_subsequence(acked[pair], stored), (acked[pair], stored)
    finally:
        await storage.close()


async def test_a_killed_bot_loses_no_acknowledged_move(tmp_path: Path, database: str) -> None:
    # On each backend: a SQLite file, then a PostgreSQL schema.
    rng = random.Random(1201)
    fake = FakeDiscord(token="crash-token-" + "z" * 40)
    await fake.start()
    guild = fake.add_guild("Test Guild", channels=("general",))
    channel = guild.channel("general")
    pairs = [(fake.add_member(guild, a), fake.add_member(guild, b), rules)
             for a, b, rules in PAIRS]
    bot = Bot(fake, tmp_path, database)
    tasks: list[asyncio.Task[None]] = []
    stop = asyncio.Event()
    try:
        await bot.start()
        for a, b, rules in pairs:
            challenge = await _answer(fake, a, channel, "challenge", opponent=b, rules=rules)
            assert challenge is not None
            accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
            await (await fake.click(b, challenge, accept)).response()
        players = {n: (a.id, b.id) for n, (a, b, _) in enumerate(pairs)}
        acked: dict[int, list[str]] = {n: [] for n in players}

        def count() -> int:
            return sum(map(len, acked.values()))

        # The players play on through every kill and restart, as people would (a task
        # cancelled in the middle of the fake's waits could miss its cancellation: Python
        # 3.11's wait_for; so they stop at a flag, between interactions).
        tasks = [asyncio.create_task(_play(fake, channel, (a, b), acked[n], stop))
                 for n, (a, b, _) in enumerate(pairs)]
        for _ in range(KILLS):
            goal = count() + rng.randint(6, 15)
            await fake.wait_for(lambda goal=goal: count() >= goal, timeout=60,
                                description="moves acknowledged")
            await asyncio.sleep(rng.uniform(0, 0.05))  # anywhere in the moves under way
            await bot.kill()
            # A ✅ sent just before the kill may reach its player during the check: it is
            # checked after the next kill.
            await _check(bot.db, players, {n: list(moves) for n, moves in acked.items()})
            await bot.start()
        goal = count() + 3
        await fake.wait_for(lambda: count() >= goal, timeout=60,
                            description="moves acknowledged after the last restart")
        stop.set()
        await asyncio.gather(*tasks)  # with the bot up, each finishes its move at once
        await bot.kill()
        await _check(bot.db, players, acked)
        assert all(len(moves) >= 2 for moves in acked.values()), acked
        logs = bot.logs()
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        if bot.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                bot.proc.kill()
            await bot.proc.wait()
        await fake.stop()


# ---------------------------------------------------------------------- the first answer


async def _board_behind(world: World, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str]:
    """A move saved and answered ✅ whose board was never drawn (as if the bot went down
    between the two), and the bot stopped: the newest board and what it shows."""
    fake = world.fake
    await start_challenge(world, "kings")
    assert world.bot is not None
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    options = select_options(await hand(world, user))
    token, target = choose(options, False, 1) or (options[0]["value"],
                                                  option_targets(options[0])[0])

    async def not_drawn(game_id: int, **_: Any) -> None:
        return None

    monkeypatch.setattr(world.bot.boards, "publish", not_drawn)
    reply = await (await fake.slash(user, world.channel, "play", card=token,
                                    to=target)).message()
    assert "✅" in reply.content
    await world.settle()
    shown = _shown(world)
    board = world.boards()[-1]
    await world.stop()
    return board, shown


async def _restart_with_discord_timing(world: World) -> asyncio.Task[Any]:
    """Start the bot again with discord.py's own ``guild_ready_timeout`` (2 s, as in
    production); returns once its gateway is connected, long before it is ready."""
    fake = world.fake
    config = Config(token=fake.token, database=str(world.db), board_delay=0.01,
                    computer_delay=0.0, tick=3600)
    bot = SpiteBot(config, seed_source=world.seeds, clock=world.clock)
    starting = asyncio.create_task(start_bot(fake, bot, guild_ready_timeout=None))
    await fake.wait_for(lambda: fake.connected_count() > 0 or starting.done(), timeout=30,
                        description="the restarted bot connected")
    assert not starting.done(), "ready before the test could ask anything"
    world.bot = bot
    return starting


async def _ready(world: World, starting: asyncio.Task[Any]) -> None:
    world.handles.append(await starting)


@pytest.mark.parametrize("first", ["/hand", "Show my hand"])
async def test_after_a_restart_the_board_is_up_to_date_before_the_first_answer(
        world: World, no_error_logs, monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    """The bot went down between a move's ✅ and its board. After the restart, with
    discord.py's own ``guild_ready_timeout``, the first interaction (a command, a click) is
    answered only once the board shows the saved position."""
    fake = world.fake
    board, before = await _board_behind(world, monkeypatch)
    starting = await _restart_with_discord_timing(world)
    at_answer: list[Any] = []
    asked: list[Any] = []

    def on_change() -> None:
        # Called by the fake as the answer is recorded: the boards as a player sees them then.
        if asked and asked[0].responded and not at_answer:
            at_answer.append(_shown(world))

    fake.listeners.append(on_change)
    try:
        if first == "/hand":
            inter = await fake.slash(world.bob, world.channel, "hand")
        else:  # the button of the board as it was
            game_id = int(board.custom_ids()[0].rsplit(":", 1)[1])
            inter = await fake.click(world.bob, board, f"sm:hand:v1:{game_id}", force=True)
        asked.append(inter)
        on_change()  # answered before the record was handed back
        await _ready(world, starting)
        message = await inter.message()
    finally:
        fake.listeners.remove(on_change)
    assert message.ephemeral and "Your hand" in message.content
    assert inter.rejected_callbacks == [] and inter.latency is not None \
        and inter.latency < 3
    # The board was behind: it is drawn again after the restart (sooner or later).
    await fake.wait_for(lambda: _shown(world) != before, timeout=10,
                        description="the board drawn again after the restart")
    await world.settle()
    after = _shown(world)
    assert at_answer == [after], "the first answer came while the board was a move behind"


async def test_a_board_discord_is_slow_to_take_after_a_restart_delays_no_answer_past_3_s(
        world: World, no_error_logs, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait for the boards at start is bounded: while Discord takes 8 s over the
    repaired board, the first interactions are still answered within Discord's 3 s."""
    fake = world.fake
    _, before = await _board_behind(world, monkeypatch)
    fake.faults.script("edit", Fault.slow(8.0))
    fake.faults.script("post", Fault.slow(8.0))
    starting = await _restart_with_discord_timing(world)
    first = await fake.slash(world.alice, world.channel, "hand")
    second = await fake.slash(world.bob, world.channel, "hand")
    await _ready(world, starting)
    for inter in (first, second):
        assert "Your hand" in (await inter.message()).content
        assert inter.rejected_callbacks == [] and inter.latency is not None \
            and inter.latency < 3
    await fake.wait_for(lambda: _shown(world) != before, timeout=20,
                        description="the board drawn again once Discord took it")
    await world.settle()


def _shown(world: World) -> str:
    """What the newest board shows (its words: the counts, the stacks, the last moves)."""
    board = world.boards()[-1]
    return json.dumps([board.id, board.content, board.embeds], sort_keys=True)
