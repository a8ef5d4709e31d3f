"""The replay check of ``python -m bot migrate``, spread over the machine's cores.

Every game copied is read from both databases and compared, and its copy is replayed from its
deal's seed and its whole move log: the replay must be the saved match. The reading is the
database's work and stays on the event loop; the replaying is pure Python, one core's worth
per process, and was 85% of a big migration (94 ms a game at 10,000 matches). So the games
are handed, in batches of ``REPLAY_BATCH``, to ``REPLAY_WORKERS`` processes (a fresh
interpreter each, ``spawn``: not a fork of a process holding database connections and their
threads) while the next batches are read. A small database (one batch) is replayed in this
process, as before.

The outcome is the same as one game after another: the first game (in id order) that differs,
has gaps in its move log, or isn't the replay of its moves is named in the ``MigrationError``,
whichever process found it; the progress line says how many games were replayed so far.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.games.live_game import restore_match
from bot.games.replay import ReplayError, replay_match
from bot.storage import GameRow, Storage
from engine import RuleSet

__all__ = ["REPLAY_BATCH", "REPLAY_WORKERS", "ReplayMismatch", "check_replays", "replay_problem"]

REPLAY_WORKERS: int | None = None
"""Processes that replay the games (``None``: one per core, ``os.cpu_count()``). Measured
with ``python -m bot.bench migrate`` (BENCHMARKS.md, issue 35)."""

REPLAY_BATCH = 50
"""Games handed to a process at a time (a few ms of pickling each, against ~50 ms of
replaying a game)."""

_Log = list[tuple[int, int, int | None, str]]
_Game = tuple[int, GameRow, _Log]


class ReplayMismatch(RuntimeError):
    """A game that is not what its copy should be; the message names it."""


def replay_problem(game_id: int, row: GameRow, log: _Log) -> str | None:
    """What is wrong with the copied game ``row`` and its move log (``None``: nothing)."""
    if [seq for seq, _, _, _ in log] != list(range(1, row.version + 1)):
        return f"Game {game_id}'s move log has gaps."
    try:
        # Dealt for the game's own number of seats (a table of three or four too).
        replay = replay_match(RuleSet.from_dict(row.state["rules"]), int(row.state["seed"]),
                              [(seat, text) for _, seat, _, text in log],
                              players=len(row.state["scores"]), positions_kept=False)
        match = restore_match(row).to_dict()
    except (ReplayError, ValueError, KeyError) as exc:
        return f"Game {game_id} can't be replayed: {exc}"
    if _normal(replay.final) != _normal(match):
        return f"Game {game_id} isn't the replay of its moves."
    return None


def _replay_batch(games: Sequence[_Game]) -> str | None:
    """In a worker: the first problem of a batch of games (``None``: none)."""
    for game in games:
        problem = replay_problem(*game)
        if problem is not None:
            return problem
    return None


def _normal(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


async def check_replays(old: Storage, new: Storage, say: Callable[[str], None],
                        every: float) -> int:
    """Check every game of ``old`` against its copy in ``new`` (compared, then replayed), saying
    how far it is every ``every`` seconds; the number of games. Raises ``ReplayMismatch``
    naming the first game that is wrong."""
    games = await old.games.game_ids()
    workers = min(REPLAY_WORKERS or os.cpu_count() or 1, -(-len(games) // REPLAY_BATCH))
    if workers <= 1:
        await _one_by_one(old, new, games, say, every)
    else:
        await _spread(old, new, games, workers, say, every)
    return len(games)


async def _copied(old: Storage, new: Storage, game_id: int) -> _Game:
    """The game's copy and its move log, once it is the same row in both databases."""
    before, now = await old.games.get_game(game_id), await new.games.get_game(game_id)
    if before is None or now is None or before != now:
        raise ReplayMismatch(f"Game {game_id} differs after the copy.")
    return game_id, now, await new.games.move_log(game_id)


async def _one_by_one(old: Storage, new: Storage, games: Sequence[int],
                      say: Callable[[str], None], every: float) -> None:
    told = time.monotonic()
    for done, game_id in enumerate(games):
        if time.monotonic() - told >= every:
            say(f"Replayed {done} of {len(games)} games…")
            told = time.monotonic()
        problem = replay_problem(*await _copied(old, new, game_id))
        if problem is not None:
            raise ReplayMismatch(problem)


async def _spread(old: Storage, new: Storage, games: Sequence[int], workers: int,
                  say: Callable[[str], None], every: float) -> None:
    loop = asyncio.get_running_loop()
    # Two batches a process: one being replayed, the next waiting in its queue.
    pending: deque[tuple[int, asyncio.Future[str | None]]] = deque()
    done, told = 0, time.monotonic()

    async def oldest() -> None:
        nonlocal done, told
        size, result = pending.popleft()
        problem = await result
        if problem is not None:
            raise ReplayMismatch(problem)
        done += size
        if time.monotonic() - told >= every:
            say(f"Replayed {done} of {len(games)} games…")
            told = time.monotonic()

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            for start in range(0, len(games), REPLAY_BATCH):
                batch = []
                for game_id in games[start:start + REPLAY_BATCH]:
                    try:
                        batch.append(await _copied(old, new, game_id))
                    except ReplayMismatch:
                        while pending:  # a game before it that is wrong is named first
                            await oldest()
                        raise
                pending.append((len(batch), loop.run_in_executor(pool, _replay_batch, batch)))
                while len(pending) > 2 * workers or (pending and pending[0][1].done()):
                    await oldest()
            while pending:
                await oldest()
        finally:
            for _, result in pending:
                result.cancel()
