"""``python -m bot.bench storage``: what saving one move costs the database, as games grow.

Plays whole matches through ``GameService`` (computer players on both seats choosing from the
view, as a person would through the buttons) against a temporary SQLite file (or, with
``--database postgresql://…``, a scratch schema on that server), the games interleaved move by
move as on a busy server, and measures every save:

- ``bytes``: what the process handed to the kernel to write while the move was saved (Linux
  ``/proc/self/io`` ``wchar``: the WAL frames, and the pages a checkpoint copies into the
  database file when one runs; fsyncs write nothing more), so it is the real write volume.
  SQLite only: PostgreSQL writes in its own processes, so for it this is ``null``;
- ``statements``: the SQL statements the move ran (SQLite's trace callback; on PostgreSQL,
  the statements the storage sent);
- ``ms``: wall time of ``GameService.play`` (engine, save and fsync; the fsync varies a lot);
- ``cpu_us``: CPU time of the process (all threads) during ``GameService.play``.

One JSON line per mark (the ``version`` of the match: its n-th saved move), with the median
and mean over the games of the moves in a window around the mark, and a last line with the
whole run (every byte written, checkpoints included, divided by the moves):

    {"name": "store_move", "at_move": 100, "games": 20, "bytes_median": 8240, ...}

``run_store(games=20, moves=510)`` returns the same rows, for a benchmark that calls it.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.games.game_service import GameService, LiveGame
from bot.storage import Storage, is_postgres_url
from bot.storage.postgres_driver import scratch_schema
from engine.players import make_player

__all__ = ["run_store"]

MARKS = (10, 100, 200, 300, 400, 500)
"""Moves of the match at which the figures are reported."""

_WINDOW = 5
"""Moves on each side of a mark that count for it (a checkpoint lands on one move of many)."""


def _written() -> int:
    with open("/proc/self/io", encoding="ascii") as io:
        for line in io:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    raise RuntimeError("no wchar in /proc/self/io")


async def _measure(database: str, games: int, moves: int, seed: int) -> list[dict[str, Any]]:
    storage = await Storage.open(database)
    sqlite = not is_postgres_url(database)
    statements = 0

    def count(_sql: str) -> None:
        nonlocal statements
        statements += 1

    seeds = iter(range(seed * 1000, seed * 1000 + games))
    service = GameService(storage, computer_id=1, seed_source=lambda: next(seeds))
    try:
        live: list[LiveGame] = []
        for n in range(games):
            a, b = 1000 + 2 * n, 1001 + 2 * n
            # Long matches: kings to 50 and classic to 100 points, several deals each.
            row = await service.inviting.challenge(
                guild_id=1, channel_id=10 + n, challenger_id=a, opponent_id=b,
                opponent_is_bot=False, rules_name=("kings", "classic")[n % 2],
                names=("Ann", "Bob"), target=None if n % 2 == 0 else 100)
            assert not isinstance(row, LiveGame)
            _, game = await service.inviting.accept(row.id, b)
            live.append(game)
        players = [(make_player("easy", seed + 2 * n), make_player("easy", seed + 2 * n + 1))
                   for n in range(games)]
        per_move: dict[int, list[tuple[int, int, float, float]]] = {}
        await storage.trace(count)
        start_bytes = _written()
        total_moves = 0
        for _ in range(moves):
            for n, game in enumerate(live):
                if game.finished:
                    continue
                seat = game.turn_seat
                user = game.players[seat]
                move = players[n][seat].choose(service.live.view(game, user))
                statements = 0
                before = _written()
                started, cpu = time.perf_counter(), time.process_time()
                outcome = await service.playing.play(game.id, user, move.text)
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
                written = _written() - before
                live[n] = outcome.game
                total_moves += 1
                per_move.setdefault(outcome.game.version, []).append(
                    (written, statements, elapsed, cpu))
        total_bytes = _written() - start_bytes
    finally:
        await storage.close()
    rows: list[dict[str, Any]] = []
    for mark in MARKS:
        sample = [m for v in range(mark - _WINDOW + 1, mark + _WINDOW + 1)
                  for m in per_move.get(v, [])]
        if not sample:
            continue
        rows.append({
            "name": "store_move", "at_move": mark, "games": len(per_move.get(mark, [])),
            "moves_sampled": len(sample),
            "backend": storage.dialect,
            "bytes_median": statistics.median(m[0] for m in sample) if sqlite else None,
            "bytes_mean": round(statistics.fmean(m[0] for m in sample)) if sqlite else None,
            "statements": statistics.median(m[1] for m in sample),
            "ms_median": round(statistics.median(m[2] for m in sample) * 1000, 2),
            "cpu_us_median": round(statistics.median(m[3] for m in sample) * 1e6),
        })
    rows.append({"name": "store_run", "backend": storage.dialect, "games": games,
                 "moves": total_moves,
                 "bytes_per_move": round(total_bytes / max(1, total_moves)) if sqlite else None,
                 "database_kb": round(sum(p.stat().st_size for p in Path(database).parent.iterdir())
                                      / 1024) if sqlite else None})
    return rows


def run_store(games: int = 20, moves: int = 510, seed: int = 1,
              database: str | None = None) -> list[dict[str, Any]]:
    """Play ``games`` matches of up to ``moves`` moves each and return the figures' rows
    (on a temporary SQLite file, or a scratch schema of the PostgreSQL server ``database``)."""
    if database is not None and is_postgres_url(database):
        async def on_postgres() -> list[dict[str, Any]]:
            async with scratch_schema(database, "bench_store") as url:
                return await _measure(url, games, moves, seed)

        return asyncio.run(on_postgres())
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        return asyncio.run(_measure(str(Path(tmp) / "bench.sqlite3"), games, moves, seed))
