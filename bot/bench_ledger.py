"""``python -m bot.bench ledger``: the notebook's queries on ten years of play.

Fills a temporary database with 100,000 ledger lines among 200 players (games, payments and
voids, with the running summaries rebuilt from them and a rating per player), then times each
query the commands make, many times over, and prints one JSON line per query.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from .ledger import LedgerService
from .storage import Storage

__all__ = ["run_ledger"]

GUILD = 1


async def _fill(storage: Storage, entries: int, players: int, seed: int) -> None:
    rng = random.Random(seed)
    db = storage._db
    people = list(range(1000, 1000 + players))
    start = 1_400_000_000.0
    rows: list[tuple[Any, ...]] = []
    game_ids: list[int] = []
    for i in range(entries):
        when = start + i * 3000.0  # about ten years
        a, b = rng.sample(people, 2)
        roll = rng.random()
        if roll < 0.85 or not game_ids:
            tie = rng.random() < 0.05
            margin = 0 if tie else rng.randrange(1, 30)
            amount = 0 if tie else 50 + 5 * margin
            rules = "kings" if rng.random() < 0.6 else "classic"
            game_ids.append(i + 1)
            rows.append((GUILD, "game", a, b, amount, i + 1, rules, None if tie else b, margin,
                         None, None, None, when))
        elif roll < 0.99:
            rows.append((GUILD, "payment", a, b, rng.randrange(100, 5000), None, None, None,
                         None, None, "payment", a, when))
        else:
            rows.append((GUILD, "payment", a, b, rng.randrange(100, 500), None, None, None,
                         None, None, "forgiven", a, when))
    await db.execute("PRAGMA foreign_keys=OFF")  # the games themselves are not needed here
    await db.execute("BEGIN")
    await db.executemany(
        "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, game_id, "
        "rules, winner_id, margin, voids_id, note, created_by, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    await db.execute("COMMIT")
    await db.execute("PRAGMA foreign_keys=ON")
    await storage.rebuild_summaries(GUILD)
    ratings = {(p, r): (25 + rng.gauss(0, 5), 2 + rng.random() * 4, rng.randrange(5, 900))
               for p in people for r in ("kings", "classic")}
    await storage.store_ratings(GUILD, ratings, entries, replace=True)
    await db.execute("ANALYZE")


async def _time(name: str, query: Callable[[], Awaitable[Any]], repeat: int
                ) -> dict[str, object]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        await query()
        times.append((time.perf_counter() - started) * 1000)
    return {"query": name, "runs": repeat, "median_ms": round(statistics.median(times), 2),
            "worst_ms": round(max(times), 2)}


async def _run(entries: int, players: int, seed: int, repeat: int) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        storage = await Storage.open(Path(folder) / "bench.sqlite3")
        try:
            started = time.perf_counter()
            await _fill(storage, entries, players, seed)
            fill_s = time.perf_counter() - started
            ledger = LedgerService(storage)
            rng = random.Random(seed + 1)
            user = 1000 + rng.randrange(players)
            busiest = await storage.balances(GUILD, user)
            other = busiest[0][0]
            lines = [{"query": "setup", "entries": entries, "players": players,
                      "seconds": round(fill_s, 2)}]
            lines.append(await _time("/ledger", lambda: ledger.balances(GUILD, user), repeat))
            lines.append(await _time("/ledger user (page 1)",
                                     lambda: ledger.head_to_head(GUILD, user, other, 0), repeat))
            lines.append(await _time("/ledger user (last page)",
                                     lambda: ledger.head_to_head(GUILD, user, other, 99), repeat))
            for by in ("net", "wins", "win_rate", "rating"):
                for rules in (None, "kings"):
                    def board(by: str = by, rules: str | None = rules) -> Awaitable[Any]:
                        return ledger.leaderboard(GUILD, by, rules)

                    lines.append(await _time(f"/leaderboard by:{by} rules:{rules or 'all'}",
                                             board, repeat))
            lines.append(await _time("/stats", lambda: ledger.stats(GUILD, user), repeat))
            return lines
        finally:
            await storage.close()


def run_ledger(entries: int = 100_000, players: int = 200, seed: int = 1,
               repeat: int = 50) -> list[dict[str, object]]:
    """Fill a temporary database and time every ledger query; one dict per query."""
    return asyncio.run(_run(entries, players, seed, repeat))
