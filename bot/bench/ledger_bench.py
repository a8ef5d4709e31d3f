"""``python -m bot.bench ledger [--lines 10000,100000,1000000]``: the notebook's queries on
years of play.

For each size, fills a temporary database with that many ledger lines among 200 players
(85% games, 14% payments, 1% forgiveness, spread over ten years; no voids) through the
storage's bulk import, which rebuilds the running summaries, plus a rating per player and
rule set. Then, on a fresh connection, times each query the commands make for one player
picked at random (``/ledger`` user: his largest balance), and prints one JSON row per size:
each query's cold (first) run, then the median, p99 and worst of ``--runs`` more.

What it leaves out: Discord and the picture (``/stats`` here is ``LedgerService.stats``, the
database work and the arithmetic, not drawing the chart); the operating system's file cache is
warm (the file was just written), only SQLite's own cache is cold; the bot's other work on
the same event loop. Query times grow with the player's own history, not the server's:
``user_games`` and ``pair_lines`` say how much history the timed player has.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bot.money.ledger_service import LedgerService
from bot.money.season_table import SeasonTally, period, season_table, table_of_games
from bot.money.seasons import SeasonService
from bot.storage import LedgerRow, SeasonRow, Storage

__all__ = ["run_ledger"]

GUILD = 1


FIRST_LINE_AT = 1_400_000_000.0
LAST_LINE_AT = FIRST_LINE_AT + 3000.0 * 100_000
"""The lines span about ten years at any size (the season board times a month near the end)."""


def _lines(entries: int, players: int, rng: random.Random) -> Iterator[LedgerRow]:
    people = list(range(1000, 1000 + players))
    games = 0
    for i in range(entries):
        when = FIRST_LINE_AT + i * (LAST_LINE_AT - FIRST_LINE_AT) / max(entries, 1)
        a, b = rng.sample(people, 2)
        roll = rng.random()
        if roll < 0.85 or not games:
            tie = rng.random() < 0.05
            margin = 0 if tie else rng.randrange(1, 30)
            games += 1
            yield LedgerRow(0, GUILD, "game", a, b, 0 if tie else 50 + 5 * margin, i + 1,
                            "kings" if rng.random() < 0.6 else "classic",
                            None if tie else b, margin, None, None, None, when)
        elif roll < 0.99:
            yield LedgerRow(0, GUILD, "payment", a, b, rng.randrange(100, 5000), None, None,
                            None, None, None, "payment", a, when)
        else:
            yield LedgerRow(0, GUILD, "forgive", a, b, rng.randrange(100, 500), None, None,
                            None, None, None, "forgiven", a, when)


async def _fill(storage: Storage, entries: int, players: int, seed: int) -> None:
    """Write ``entries`` lines among ``players`` players (through the storage's bulk import,
    which rebuilds the running summaries) and a rating per player and rule set."""
    rng = random.Random(seed)
    await storage.ledger.import_ledger_lines(_lines(entries, players, rng))
    people = range(1000, 1000 + players)
    ratings = {(p, r): (25 + rng.gauss(0, 5), 2 + rng.random() * 4, rng.randrange(5, 900))
               for p in people for r in ("kings", "classic")}
    await storage.standings.store_ratings(GUILD, ratings, entries, replace=True)


async def _time(query: Callable[[], Awaitable[Any]], repeat: int) -> list[float]:
    """The first (cold) run's time, then ``repeat`` more."""
    times = []
    for _ in range(repeat + 1):
        started = time.perf_counter()
        await query()
        times.append((time.perf_counter() - started) * 1000)
    return times


def _queries(ledger: LedgerService, user: int, other: int, pair_lines: int, ten: list[int]
             ) -> list[tuple[str, Callable[[], Awaitable[Any]]]]:
    last = max(0, pair_lines - 1) // 10  # pages of 10, as the command shows them
    out: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("/ledger", lambda: ledger.balances(GUILD, user)),
        ("/ledger user (page 1)", lambda: ledger.head_to_head(GUILD, user, other, 0)),
        ("/ledger user (last page)", lambda: ledger.head_to_head(GUILD, user, other, last)),
    ]
    for by in ("net", "wins", "win_rate", "rating"):
        for rules in (None, "kings"):
            def board(by: str = by, rules: str | None = rules) -> Awaitable[Any]:
                return ledger.leaderboard(GUILD, by, rules)

            out.append((f"/leaderboard by:{by} rules:{rules or 'all'}", board))
    out.append(("/stats", lambda: ledger.stats(GUILD, user)))
    # What /ledger-plan reads: every open pair of the server (the plan itself is ``bench plan``),
    # beside the read as it was before (each column by name, converted), timed in the same run;
    # the pairs among ten members named; the people with a balance (typed names are looked up
    # among them), beside how they were found before (from every pair).
    records = ledger.storage.ledger
    out.append(("/ledger-plan balances", lambda: records.open_balances(GUILD)))
    out.append(("/ledger-plan balances (before)", lambda: _open_balances_before(ledger)))
    out.append(("/ledger-plan balances of 10 members", lambda: records.open_balances(GUILD, ten)))
    out.append(("/ledger-plan people", lambda: records.people_with_balances(GUILD)))
    out.append(("/ledger-plan people (before)", lambda: _people_before(ledger)))
    # The season board (/leaderboard with seasons on, and /stats' season line) of a whole
    # month and a whole quarter near the end of the data: as asked (computed the first time,
    # then kept: the median is a board asked again with no new game), after a game (the
    # table kept from before the season's last game, which is read and folded in; its cold
    # run is the season read whole), and as it was computed before.
    seasons = SeasonService(ledger.storage)
    for mode in ("monthly", "quarterly"):
        start, end, name = period(mode, LAST_LINE_AT - 100 * 86_400)
        season = SeasonRow(0, GUILD, name, mode, start, end, "open", None, None, None)
        span = "month" if mode == "monthly" else "quarter"
        kept: list[SeasonTally] = []

        def asked(season: SeasonRow = season) -> Awaitable[Any]:
            return seasons.table(season)

        async def after_game(season: SeasonRow = season, kept: list[SeasonTally] = kept
                             ) -> Any:
            if not kept:  # the first run: nothing kept yet, the season read whole
                lines = await seasons.records.game_lines(GUILD, season.starts_at,
                                                         season.ends_at)
                before_last = SeasonTally()
                before_last.add(line for line in lines if line[0] < lines[-1][0])
                kept.append(before_last)
                return table_of_games(lines)
            # A copy of the board's service, one game behind (the bench has no voids).
            behind = SeasonService(ledger.storage)
            behind._tables[(season.id, season.starts_at, season.ends_at)] = (0, kept[0])
            return await behind.table(season)

        async def before(start: float = start, end: float = end) -> Any:
            return season_table(await seasons.records.lines(GUILD, start, end))

        out.append((f"/leaderboard season ({span})", asked))
        out.append((f"/leaderboard season ({span}) after a game", after_game))
        out.append((f"/leaderboard season ({span}) (before)", before))
    # A leaderboard's names when none of its players is in the bot's member cache. The
    # benchmark has no game rows, so this is the lookup alone, without reading a game.
    out.append(("names of 10 uncached players", lambda: ledger.player_names(GUILD, ten)))
    return out


async def _open_balances_before(ledger: LedgerService) -> list[tuple[int, int, int]]:
    """``open_balances`` as it first was (kept to compare): each column by name, converted."""
    async with ledger.storage.ledger._db.connection() as conn:
        rows = await conn.fetchall(
            "SELECT low_id, high_id, owed_cents FROM pair_balances WHERE guild_id = ? AND "
            "owed_cents <> 0 ORDER BY low_id, high_id", (GUILD,))
    return [(int(r["low_id"]), int(r["high_id"]), int(r["owed_cents"])) for r in rows]


async def _people_before(ledger: LedgerService) -> list[int]:
    """The people with a balance as first found (kept to compare): from every open pair."""
    lines = await _open_balances_before(ledger)
    return sorted({user for low, high, _ in lines for user in (low, high)})


async def _run(entries: int, players: int, seed: int, repeat: int) -> dict[str, object]:
    print(f"ledger: filling {entries:,} lines…", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite3"
        storage = await Storage.open(path)
        try:
            started = time.perf_counter()
            await _fill(storage, entries, players, seed)
            fill_s = time.perf_counter() - started
            # Whom to time, looked up before the connection is closed.
            rng = random.Random(seed + 1)
            user = 1000 + rng.randrange(players)
            other = (await storage.ledger.balances(GUILD, user))[0][0]  # his largest balance
            stats = await storage.standings.player_stats(GUILD, user)
            _, pair_lines = await storage.ledger.pair_entries(GUILD, user, other, limit=1)
            board, _ = await LedgerService(storage).leaderboard(GUILD, "net", None)
            ten = [standing.user_id for standing in board[:10]]
        finally:
            await storage.close()
        # Timed on a fresh connection, as a restarted bot would: nothing cached in SQLite yet.
        storage = await Storage.open(path)
        try:
            ledger = LedgerService(storage)
            row: dict[str, object] = {
                "benchmark": "ledger", "lines": entries, "players": players,
                "fill_s": round(fill_s, 1), "db_mb": round(path.stat().st_size / 2**20, 1),
                "user_games": sum(v["games"] for v in stats.values()),
                "pair_lines": pair_lines,
                "runs": repeat,
            }
            cold: dict[str, float] = {}
            median: dict[str, float] = {}
            p99: dict[str, float] = {}
            worst: dict[str, float] = {}
            for name, query in _queries(ledger, user, other, pair_lines, ten):
                first, *times = await _time(query, repeat)
                cold[name] = round(first, 2)
                median[name] = round(statistics.median(times), 2)
                p99[name] = round(_percentile(times, 99), 2)
                worst[name] = round(max(times), 2)
            row.update(cold_ms=cold, median_ms=median, p99_ms=p99, worst_ms=worst)
            return row
        finally:
            await storage.close()


def _percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def run_ledger(entries: int = 100_000, players: int = 200, seed: int = 1,
               repeat: int = 50) -> dict[str, object]:
    """Fill a temporary database and time every ledger query: one row with each query's
    median, p99 and worst time in milliseconds."""
    return asyncio.run(_run(entries, players, seed, repeat))
