"""The ledger at scale: /stats reads a downsampled money series that stays true.

The series is derived (``money_points``, like the running summaries): written with each game
and void line, rebuilt from the ledger, and backfilled by the migration that adds it.
"""

from __future__ import annotations

import io
import json
import random
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from bot.bench.commands import main as bench_main
from bot.bench.ledger_bench import GUILD, _lines
from bot.money.ledger_service import LedgerService
from bot.pictures.render_tables import render_money_chart
from bot.storage import GameEntry, LedgerRow, Storage
from bot.storage.migrations_sqlite import MIGRATIONS

USER = 1003


def _true_balances(lines: list[LedgerRow], user: int) -> list[tuple[float, int]]:
    """The running balance after each of ``user``'s game and void lines, worked out by hand."""
    out: list[tuple[float, int]] = []
    total = 0
    for line in lines:
        if line.kind not in ("game", "void") or user not in (line.debtor_id, line.creditor_id):
            continue
        total += line.amount_cents if line.creditor_id == user else -line.amount_cents
        out.append((line.created_at, total))
    return out


@pytest.fixture
async def big(tmp_path: Path):
    """5,000 lines among 8 players: about 1,100 game lines each."""
    lines = list(_lines(5000, 8, random.Random(5)))
    storage = await Storage.open(tmp_path / "big.sqlite3")
    assert await storage.ledger.import_ledger_lines(lines) == 5000
    yield storage, lines
    await storage.close()


async def test_the_series_keeps_the_first_and_last_points_and_the_true_balance(big) -> None:
    storage, lines = big
    truth = _true_balances(lines, USER)
    assert len(truth) > 1000
    series = await storage.standings.money_series(GUILD, USER, points=200)
    assert 200 <= len(series) <= 202
    assert series[0] == truth[0] and series[-1] == truth[-1]
    assert all(point in truth for point in series)  # real points, in order
    assert [t for t, _ in series] == sorted(t for t, _ in series)
    values = [v for _, v in truth]
    assert min(v for _, v in series) == min(values) and max(v for _, v in series) == max(values)
    stats = await LedgerService(storage).stats(GUILD, USER)
    assert stats.series == series and stats.series[-1][1] == stats.net_cents


async def test_a_short_history_keeps_every_point(big) -> None:
    storage, lines = big
    truth = _true_balances(lines, USER)
    assert await storage.standings.money_series(GUILD, USER, points=len(truth)) == truth
    assert await storage.standings.money_series(GUILD, 424242) == []


async def test_the_chart_renders_from_the_downsampled_series(big) -> None:
    storage, _ = big
    series = await storage.standings.money_series(GUILD, USER)
    image = Image.open(io.BytesIO(render_money_chart(series, "ten years", "$")))
    assert image.size == (900, 360)
    last = series[-1][1]
    colour = (120, 220, 140) if last >= 0 else (250, 120, 110)
    assert colour in {c for _, c in image.convert("RGB").getcolors(1 << 20) or []}


async def test_points_written_with_each_line_equal_the_rebuilt_ones(database: str) -> None:
    storage = await Storage.open(database)
    try:
        rng = random.Random(2)
        for n in range(1, 41):
            a, b = rng.sample([11, 22, 33], 2)
            # The real path: a game whose last save writes its ledger line.
            game_id = await storage.games.create_game(guild_id=GUILD, channel_id=5, players=(a, b),
                                                      names=("A", "B"), rules={}, state={})
            assert game_id == n
            assert await storage.games.save_moves(
                game_id, expected_version=0, state={"end": n}, moves=[(0, a, "resign")],
                finished=True, result={}, turn_passed=True,
                entry=_entry(game_id, a, b, rng.randrange(0, 300)))
        for voided in (3, 17):
            entry = await storage.ledger.game_entry(GUILD, voided)
            assert entry is not None
            await storage.ledger.add_entry(guild_id=GUILD, kind="void", debtor_id=entry.creditor_id,
                                           creditor_id=entry.debtor_id,
                                           amount_cents=entry.amount_cents, note="test",
                                           created_by=11, voids_id=entry.id)
        await storage.ledger.add_entry(guild_id=GUILD, kind="payment", debtor_id=11, creditor_id=22,
                                       amount_cents=7, note="payment", created_by=11)
        pairs = [(11, 22), (22, 11), (11, 33), (33, 22)]
        before = {u: await storage.standings.money_series(GUILD, u, points=1000) for u in (
            11, 22, 33)}
        pages_before = [await storage.ledger.pair_entries(GUILD, a, b) for a, b in pairs]
        await storage.ledger.rebuild_summaries(GUILD)
        after = {u: await storage.standings.money_series(GUILD, u, points=1000) for u in (
            11, 22, 33)}
        assert before == after and all(before.values())
        assert [await storage.ledger.pair_entries(GUILD, a, b) for a, b in pairs] == pages_before
        for user in (11, 22, 33):
            stats = await LedgerService(storage).stats(GUILD, user)
            assert before[user][-1][1] == stats.net_cents
    finally:
        await storage.close()


def _entry(game_id: int, loser: int, winner: int, amount: int) -> GameEntry:
    return GameEntry(GUILD, game_id, loser, winner, amount, "kings", winner, amount // 10)


async def test_the_migration_fills_the_points_of_an_existing_ledger(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    lines = list(_lines(600, 5, random.Random(8)))
    raw = sqlite3.connect(path)
    for number, script in enumerate(MIGRATIONS[:4], start=1):
        raw.executescript(script)
        raw.execute(f"PRAGMA user_version = {number}")
    raw.executemany(
        "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, game_id, "
        "rules, winner_id, margin, voids_id, note, created_by, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(r.guild_id, r.kind, r.debtor_id, r.creditor_id, r.amount_cents, r.game_id, r.rules,
          r.winner_id, r.margin, r.voids_id, r.note, r.created_by, r.created_at)
         for r in lines])
    raw.commit()
    raw.close()
    storage = await Storage.open(path)
    try:
        assert await storage.schema_version() == len(MIGRATIONS)
        for user in range(1000, 1005):
            assert await storage.standings.money_series(GUILD, user, points=10_000) \
                == _true_balances(lines, user)
        rows, total = await storage.ledger.pair_entries(GUILD, 1003, 1001)
        assert total == len(rows) == len(_pair_lines(lines, 1003, 1001)) > 10
        assert [(row.id, running) for row, running in rows] \
            == [(i, running) for i, running in reversed(_pair_lines(lines, 1003, 1001))]
    finally:
        await storage.close()


def _pair_lines(lines: list[LedgerRow], a: int, b: int) -> list[tuple[int, int]]:
    """(ledger id, cents ``a`` owes ``b`` after it) of every line between them, by hand."""
    out: list[tuple[int, int]] = []
    owed = 0
    for number, line in enumerate(lines, start=1):  # ids follow the order of the import
        if {line.debtor_id, line.creditor_id} == {a, b}:
            owed += line.amount_cents if line.debtor_id == a else -line.amount_cents
            out.append((number, owed))
    return out


async def test_a_page_of_a_long_pair_history_is_its_slice_of_the_whole(tmp_path: Path) -> None:
    lines = list(_lines(900, 2, random.Random(4)))  # every line between the same two
    storage = await Storage.open(tmp_path / "pair.sqlite3")
    try:
        await storage.ledger.import_ledger_lines(lines)
        whole, total = await storage.ledger.pair_entries(GUILD, 1000, 1001)
        assert total == 900 and whole[0][1] == await storage.ledger.pair_balance(GUILD, 1000, 1001)
        for offset in (0, 10, 450, 890, 895, 900, 950):
            page, count = await storage.ledger.pair_entries(GUILD, 1000, 1001, offset=offset,
                                                            limit=10)
            assert count == 900 and page == whole[offset:offset + 10]
        mirrored, _ = await storage.ledger.pair_entries(GUILD, 1001, 1000, offset=450, limit=10)
        assert [(r, -owed) for r, owed in mirrored] == whole[450:460]
    finally:
        await storage.close()


def test_the_ledger_benchmark_prints_a_row_per_size(capsys: pytest.CaptureFixture[str]) -> None:
    bench_main(["ledger", "--lines", "500,1500", "--players", "10", "--runs", "2"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["lines"] for row in rows] == [500, 1500]
    for row in rows:
        assert row["median_ms"].keys() == row["cold_ms"].keys() == row["worst_ms"].keys()
        assert "/stats" in row["median_ms"]
