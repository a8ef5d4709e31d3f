"""``python -m bot.bench migrate [--games 1000,10000]``: ``python -m bot migrate`` on a big
database, timed.

For each size, builds a SQLite database of that many finished two-player matches, then runs the
migrate command's own code (``bot.ops.migrate.migrate``) into a new empty schema of the
PostgreSQL server ``--database`` (default ``postgresql://postgres@127.0.0.1:5432/test``; the
schema is dropped afterwards), and prints one JSON line per size:

- ``build_s``: building the source (not part of the result, said so it can be planned for);
- ``open_s``: opening both databases (PostgreSQL's schema migrations) and counting the source;
- ``copy_s``: the copy (``Storage.copy_into``, one transaction of the target, committed), with
  ``rows_per_s`` over all tables and ``copy_s_by_table`` for each table;
- ``check_counts_s``, ``check_replay_s``, ``check_ledger_s``: the three checks, as the command
  makes them (row counts; every game read from both, compared, and replayed from its seed; every
  pair's balance summed from the ledger against its running summary, in both);
- ``total_s``: the whole command; ``rows``: rows per table; ``sqlite_mb``: the source file;
- ``rss_mb_start``, ``rss_mb_peak``: this process's resident memory as the command starts, and
  its peak while it runs (Linux ``VmHWM``, reset just before; what the build left allocated is
  in the start figure).

How the source is built: ``--pool`` matches (default 20, half kings to 50 points, half classic
to one game, as a server's default rules and the other rule set) are played by the engine's
easy computer players from seeded deals. Each of the N rows is one of these matches, with its
real moves and seed, so every row passes the replay check: the rows differ by their ids, their
players (two of 200 people, drawn at random, so the ledger has many pairs) and their times, not
by their moves. The copy's cost depends on how many rows and how big, not on their variety.
The rows are written by the storage's own writes, as the bot writes them: a challenge
(``create_challenge``, stakes of 0.50 plus 0.05 a card), its acceptance (``accept_challenge``:
the game row with the deal), then the whole move log with the final state, the result and the
ledger line (``save_moves``, which keeps the running summaries: pair balances, player stats,
money and pair points), then the ratings (``LedgerService.update_ratings``). One difference
from a game played through the bot: the bot saves each move in its own transaction (a snapshot
every 50 moves and at each deal), so its moves' times differ; here they share one time. The
rows and their sizes are the same: a finished game's row holds its final state either way.

What it leaves out: PostgreSQL's own memory and CPU (a separate process; only this process's
memory is measured); a cold cache (the SQLite file was just written, the OS caches it); other
servers' settings, voids, payments and open challenges (a few rows next to the moves). And what
``--budget`` (seconds, default 900) says would take too long: before each size its time is
projected from the previous size's rates (linear: every step is a pass over the rows, or one
query per game). Over budget, the replay check is left out: the command is stopped once it has
checked the row counts, its ledger check is then made as the same two queries (``ledger_pairs``
of both databases), and the row says ``left_out`` with the replay check's projection at the
rate last measured (``check_replay_projected_s``). Still over budget, the size is not run: a
``skipped`` row gives its projections.

(measured on 2 shared cores; BENCHMARKS.md has the figures, the machine and the command).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from bot.money.ledger_service import LedgerService
from bot.money.stakes import game_entries
from bot.ops import replay_check
from bot.ops.migrate import migrate
from bot.storage import GameTerms, Storage
from bot.storage.postgres_driver import scratch_schema
from engine import CLASSIC, KINGS, GameOver, Match
from engine.players import make_player

__all__ = ["DEFAULT_DATABASE", "run_migrate"]

DEFAULT_DATABASE = "postgresql://postgres@127.0.0.1:5432/test"
GUILD = 1
PEOPLE = 200
STAKE_CENTS, PER_CARD_CENTS = 50, 5
_WRITERS = 32
"""Matches written at once: the SQLite driver commits concurrent transactions as a group, so
the build is not one fsync per transaction."""


@dataclasses.dataclass(frozen=True)
class _Played:
    """One match played to its end by the engine, as the bot would save it."""

    match: Match
    rules: dict[str, Any]
    deal: dict[str, Any]
    moves: tuple[tuple[int, str], ...]


@dataclasses.dataclass(frozen=True)
class _Game:
    """Enough of a live game for ``game_entries``."""

    id: int
    terms: GameTerms


def _play(rules_index: int, seed: int) -> _Played:
    rules = (KINGS, CLASSIC)[rules_index % 2]
    match, _ = Match.new(rules, seed)
    deal = match.to_dict()
    players = (make_player("easy", 2 * seed), make_player("easy", 2 * seed + 1))
    moves: list[tuple[int, str]] = []
    while not match.is_over:
        seat = match.game.turn
        move = players[seat].choose(match.game.view(seat))
        events = match.play(move, seat)
        moves.append((seat, move.text))
        # As GameService does: a finished game of an unfinished match is followed by a deal.
        if any(isinstance(e, GameOver) for e in events) and not match.is_over:
            match.next_game()
    return _Played(match, rules.to_dict(), deal, tuple(moves))


def _pool(size: int, seed: int) -> list[_Played]:
    return [_play(n, seed * 10_007 + n) for n in range(size)]


async def _write(storage: Storage, played: _Played, players: tuple[int, int],
                 channel_id: int) -> None:
    names = ("Ann", "Bob")
    challenge = await storage.challenges.create_challenge(
        guild_id=GUILD, channel_id=channel_id, challenger_id=players[0],
        opponent_id=players[1], names=names, rules=played.rules,
        expires_at=storage.clock() + 900, stake_cents=STAKE_CENTS,
        per_card_cents=PER_CARD_CENTS)
    game_id = await storage.challenges.accept_challenge(challenge.id, players=players, names=names,
                                                        rules=played.rules, state=played.deal)
    assert game_id is not None
    match = played.match
    terms = GameTerms(GUILD, channel_id, players, names, False, STAKE_CENTS, PER_CARD_CENTS)
    result = {"winner": match.winner, "scores": list(match.scores),
              "games": len(match.results), "resigned": match.resigned}
    saved = await storage.games.save_moves(
        game_id, expected_version=0, state=match.to_dict(),
        moves=[(seat, players[seat], text) for seat, text in played.moves],
        finished=True, result=result, turn_passed=True,
        entries=game_entries(_Game(game_id, terms), match))
    assert saved


async def _build(path: str, games: int, pool: Sequence[_Played], seed: int) -> None:
    storage = await Storage.open(path)
    try:
        rng = random.Random(seed)
        people = list(range(1000, 1000 + PEOPLE))
        await storage.settings.update_settings(GUILD, stake_kings=STAKE_CENTS,
                                               per_card_kings=PER_CARD_CENTS)
        for start in range(0, games, _WRITERS):
            batch = range(start, min(games, start + _WRITERS))
            await asyncio.gather(*(
                _write(storage, pool[n % len(pool)], tuple(rng.sample(people, 2)),  # type: ignore[arg-type]
                       10 + n % 50) for n in batch))
        await LedgerService(storage).update_ratings(GUILD)
    finally:
        await storage.close()


def _rss_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    # Linux: writing 5 resets VmHWM to the current RSS.
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")


@contextmanager
def _timed_copy(marks: list[tuple[str, float]]) -> Iterator[None]:
    """Note when ``Storage.copy_into`` starts and returns (committed), inside the command."""
    original = Storage.copy_into

    async def copy_into(self: Storage, target: Storage,
                        progress: Callable[[str], None] | None = None,
                        every: float = 10.0) -> dict[str, int]:
        marks.append(("copy", time.perf_counter()))
        try:
            return await original(self, target, progress, every)
        finally:
            marks.append(("copied", time.perf_counter()))

    with mock.patch.object(Storage, "copy_into", copy_into):
        yield


class _Stop(Exception):
    """Raised by ``say`` to end the command after its row-count check."""


async def _measure(database: str, games: int, pool: Sequence[_Played], seed: int,
                   replay: bool = True, workers: Sequence[int] = (0,)) -> list[dict[str, Any]]:
    """Build ``games`` matches and migrate them, once per number of replay processes in
    ``workers`` (0: one per core), a row each. With ``replay`` False the command is stopped
    once the row counts are checked, and its ledger check is made as the same two queries;
    the replay check is left out."""
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as tmp:
        source = str(Path(tmp) / "bot.sqlite3")
        started = time.perf_counter()
        await _build(source, games, pool, seed)
        build_s = time.perf_counter() - started
        storage = await Storage.open(source)
        try:
            rows = await storage.table_counts()
        finally:
            await storage.close()
        sqlite_mb = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 2**20
        out = []
        for n in workers:
            with mock.patch.object(replay_check, "REPLAY_WORKERS", n or None):
                row = await _migrate_once(database, source, games, replay)
            out.append({"name": "migrate", "games": games, "pool": len(pool),
                        # The processes the check used: one by one for a single batch.
                        "replay_workers": min(n or os.cpu_count() or 1,
                                              -(-games // replay_check.REPLAY_BATCH)),
                        "moves_per_game": round(rows["moves"] / max(1, games)),
                        "build_s": round(build_s, 1), "sqlite_mb": round(sqlite_mb),
                        **row, "rows_per_s": round(sum(rows.values()) / row["copy_s"]),
                        "loadavg_1m": round(os.getloadavg()[0], 2), "rows": rows})
        return out


async def _migrate_once(database: str, source: str, games: int, replay: bool
                        ) -> dict[str, Any]:
    """The migrate command from ``source`` into a new schema, timed step by step."""
    marks: list[tuple[str, float]] = []
    peaks: list[tuple[str, int]] = []

    def say(line: str) -> None:
        marks.append((line.strip(), time.perf_counter()))
        peaks.append((_step(line.strip()), _rss_kb("VmHWM")))
        if not replay and line.startswith("Row counts match"):
            raise _Stop

    async with scratch_schema(database, "bench_migrate") as url:
        _reset_peak()
        rss_start = _rss_kb("VmRSS")
        with _timed_copy(marks):
            begun = time.perf_counter()
            try:
                await migrate(source, url, say)
            except _Stop:
                old, new = await Storage.open(source), await Storage.open(url)
                try:
                    marks.append(("All games left out", time.perf_counter()))
                    if await old.ledger_pairs() != await new.ledger_pairs():
                        raise RuntimeError("the ledger check failed") from None
                    marks.append(("All balances match", time.perf_counter()))
                finally:
                    await old.close()
                    await new.close()
            total_s = time.perf_counter() - begun
        rss_peak = _rss_kb("VmHWM")
    at = dict(marks)
    copy_start, copy_end = at["copy"], at["copied"]
    counted = next(w for t, w in marks if t.startswith("Row counts"))
    replayed = next(w for t, w in marks if t.startswith("All") and " games " in t)
    balanced = next(w for t, w in marks if t.startswith("All") and "balances" in t)
    by_table: dict[str, float] = {}
    last = copy_start
    for text, when in marks:
        if copy_start < when <= copy_end and text.endswith(" rows") and ":" in text:
            by_table[text.split(":")[0]] = round(when - last, 2)
            last = when
    return {
        "open_s": round(copy_start - begun, 2),
        "copy_s": round(copy_end - copy_start, 1),
        "copy_s_by_table": by_table,
        "check_counts_s": round(counted - copy_end, 2),
        "check_replay_s": round(replayed - counted, 1) if replay else None,
        "replay_ms_per_game": round((replayed - counted) * 1000 / max(1, games), 1)
        if replay else None,
        "check_ledger_s": round(balanced - replayed, 2),
        "total_s": round(total_s, 1),
        "rss_mb_start": round(rss_start / 1024), "rss_mb_peak": round(rss_peak / 1024),
        "rss_mb_peak_by_step": _growth(peaks, rss_start),
    }


def _step(line: str) -> str:
    """The step of the command that a line it said ends."""
    if line.startswith("Row counts"):
        return "check_counts"
    if line.startswith("All"):
        return "check_replay" if " games " in line else "check_ledger"
    return line.split(":")[0] if line.endswith(" rows") else line.split(" ")[0].lower()


def _growth(peaks: Sequence[tuple[str, int]], start: int) -> dict[str, int]:
    """The peak RSS (MB) as each step of the command ended, for the steps that raised it
    (a table's copy by the table's name, then ``check_counts``, ``check_replay``,
    ``check_ledger``)."""
    out: dict[str, int] = {}
    last = start
    for step, peak in peaks:
        if peak > last:
            out[step] = round(peak / 1024)
            last = peak
    return out


def _projected(last: dict[str, Any], games: int, replay: bool) -> float:
    """Seconds a run of ``games`` would take, build included, at the rates of ``last``
    (the replay check only if ``replay``)."""
    steps = ["build_s", "open_s", "copy_s", "check_counts_s", "check_ledger_s"]
    if replay:  # measured, or projected in a run that left it out
        steps.append("check_replay_s" if last["check_replay_s"] is not None
                     else "check_replay_projected_s")
    return sum(float(last.get(step) or 0) for step in steps) * games / int(last["games"])


def run_migrate(sizes: Sequence[int], database: str = DEFAULT_DATABASE, seed: int = 1,
                pool: int = 20, budget: float = 900.0, workers: Sequence[int] = (0,)
                ) -> Iterator[dict[str, Any]]:
    """Build and migrate each size in turn, yielding a row of figures per size and number of
    replay processes in ``workers`` (0: one per core; each migrates the same source, one
    after the other).

    Before each size its time is projected from the previous size's rates: over ``budget``
    seconds, the run leaves out the replay check (stopped after the row counts; the row says
    so and gives the check's projection at the replay rate last measured); still over, the
    size is not run (a ``skipped`` row with its projection)."""
    played = _pool(pool, seed)
    last: dict[str, Any] | None = None
    ms_per_game: tuple[int, float] | None = None
    for games in sizes:
        replay = last is None or (last["check_replay_s"] is not None
                                  and _projected(last, games, replay=True) <= budget)
        if last is not None and not replay and _projected(last, games, replay=False) > budget:
            yield {"name": "migrate", "games": games, "skipped": True,
                   "projected_s": round(_projected(last, games, replay=True)),
                   "projected_without_replay_s": round(_projected(last, games, replay=False)),
                   "why": f"over --budget {budget:.0f} s at the rates of {last['games']} games"}
            continue
        for row in asyncio.run(_measure(database, games, played, seed, replay, workers)):
            if replay:
                ms_per_game = (games, row["replay_ms_per_game"])
            elif ms_per_game is not None:
                row["left_out"] = (f"the replay check (over --budget {budget:.0f} s); at "
                                   f"{ms_per_game[1]} ms a game (measured on {ms_per_game[0]}"
                                   f" games) it would take {ms_per_game[1] * games / 1000:.0f}"
                                   " s")
                row["check_replay_projected_s"] = round(ms_per_game[1] * games / 1000)
            last = row
            yield row
