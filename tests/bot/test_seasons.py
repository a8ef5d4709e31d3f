"""Seasons: the calendar (UTC months and quarters), the season table, and the season's life in
storage on both backends: started, ended once (also by two processes at once), its final table
kept, a post left half-done taken again."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.app.season_posts import final_picture_args, final_text
from bot.money.season_table import MIN_SEASON_GAMES, period, season_table
from bot.money.seasons import STALE_CLAIM_S, SeasonService, final_standings
from bot.storage import LedgerRow, SeasonRow, Storage
from bot.user_errors import UserError
from tests.support import Clock

G = 77
ANN, BOB, CAT, DAN = 11, 22, 33, 44


def utc(*parts: int) -> float:
    return dt.datetime(*parts, tzinfo=dt.UTC).timestamp()  # type: ignore[misc]


# ---------------------------------------------------------------------------- the calendar

@pytest.mark.parametrize(("at", "start", "end", "name"), [
    (utc(2026, 12, 31, 23, 59, 59), utc(2026, 12, 1), utc(2027, 1, 1), "December 2026"),
    (utc(2027, 1, 1), utc(2027, 1, 1), utc(2027, 2, 1), "January 2027"),
    (utc(2028, 2, 29, 12), utc(2028, 2, 1), utc(2028, 3, 1), "February 2028"),
    (utc(2027, 1, 31, 23, 59, 59), utc(2027, 1, 1), utc(2027, 2, 1), "January 2027"),
])
def test_a_monthly_season_is_a_utc_calendar_month(at: float, start: float, end: float,
                                                   name: str) -> None:
    assert period("monthly", at) == (start, end, name)


@pytest.mark.parametrize(("at", "start", "end", "name"), [
    (utc(2027, 3, 31, 23, 59, 59), utc(2027, 1, 1), utc(2027, 4, 1), "Q1 2027"),
    (utc(2027, 4, 1), utc(2027, 4, 1), utc(2027, 7, 1), "Q2 2027"),
    (utc(2027, 9, 30, 12), utc(2027, 7, 1), utc(2027, 10, 1), "Q3 2027"),
    (utc(2027, 12, 31, 23), utc(2027, 10, 1), utc(2028, 1, 1), "Q4 2027"),
])
def test_a_quarterly_season_is_a_utc_calendar_quarter(at: float, start: float, end: float,
                                                      name: str) -> None:
    assert period("quarterly", at) == (start, end, name)


def test_only_calendar_modes_have_periods() -> None:
    with pytest.raises(ValueError):
        period("manual", 0.0)


# ---------------------------------------------------------------------------- the table

_ids = iter(range(1, 10_000))


def line(loser: int, winner: int | None, cents: int = 0, margin: int = 5,
         game: int | None = None, creditor: int | None = None) -> LedgerRow:
    n = next(_ids)
    return LedgerRow(n, G, "game", loser, winner if winner is not None else (creditor or 0),
                     cents, game if game is not None else n, "kings", winner, margin, None,
                     None, None, 1_800_000_000.0 + n)


def two(loser: int, winner: int, cents: int = 0) -> list[LedgerRow]:
    return [line(loser, winner, cents)]


def test_points_for_wins_draws_and_places_at_tables_of_three_and_four() -> None:
    lines = [
        # A table of four: Ann wins; Bob second (margin 2), Cat and Dan share third (margin 7).
        line(BOB, ANN, 10, 2, game=900), line(CAT, ANN, 10, 7, game=900),
        line(DAN, ANN, 10, 7, game=900),
        # A table of three: Bob wins, Cat second, Dan third.
        line(CAT, BOB, 5, 3, game=901), line(DAN, BOB, 5, 9, game=901),
        # A drawn game of two.
        line(CAT, None, 0, 0, game=902, creditor=DAN),
    ]
    table = {p.user_id: p for p in season_table(lines)}
    assert table[ANN].points == 3 and table[ANN].games == 1
    assert table[BOB].points == 2 + 3 and table[BOB].wins == 1 and table[BOB].losses == 1
    assert table[CAT].points == 1 + 1 + 1 and table[CAT].ties == 1  # third of 4, 2nd of 3, draw
    assert table[DAN].points == 1 + 0 + 1
    assert table[ANN].net_cents == 30 and table[BOB].net_cents == -10 + 10
    assert table[CAT].net_cents == -15 and table[DAN].net_cents == -15


def test_the_table_ranks_by_points_then_money_and_needs_a_minimum_of_games() -> None:
    lines = (two(ANN, BOB, 50) + two(BOB, ANN, 100) + two(CAT, ANN, 10) + two(ANN, CAT, 10)
             + two(CAT, BOB, 70) + two(DAN, CAT, 1))
    table = season_table(lines)
    # Everyone ranked has 2 wins (6 points): Ann nets +50, Bob +20, Cat -69; Dan 1 game.
    assert [(p.user_id, p.place, p.points, p.net_cents) for p in table] == [
        (ANN, 1, 6, 50), (BOB, 2, 6, 20), (CAT, 3, 6, -69), (DAN, None, 0, -1)]
    assert table[-1].games < MIN_SEASON_GAMES


def test_the_best_streak_is_the_longest_run_of_wins_a_draw_or_loss_ends() -> None:
    lines = (two(BOB, ANN) + two(BOB, ANN) + two(ANN, BOB) + two(BOB, ANN) + two(BOB, ANN)
             + two(BOB, ANN) + [line(ANN, None, creditor=BOB)] + two(BOB, ANN))
    table = {p.user_id: p for p in season_table(lines)}
    assert table[ANN].best_streak == 3 and table[BOB].best_streak == 1
    final = final_standings(None, season_table(lines))  # type: ignore[arg-type]
    assert final.champion is not None and final.champion.user_id == ANN
    assert final.best_streak is not None and final.best_streak.user_id == ANN


def test_a_season_without_enough_games_has_no_champion() -> None:
    final = final_standings(None, season_table(two(BOB, ANN)))  # type: ignore[arg-type]
    assert final.champion is None and final.top == []
    assert final.most_games is not None and final.most_games.games == 1


# ---------------------------------------------------------------------------- in storage

async def _game(storage: Storage, loser: int, winner: int, cents: int, at: float) -> None:
    await storage.ledger.import_ledger_lines([LedgerRow(
        0, G, "game", loser, winner, cents, None, "kings", winner, 3, None, None, None, at)])


@pytest.fixture
async def seasons(database: str):
    clock = Clock(utc(2027, 1, 20, 12))
    storage = await Storage.open(database, clock)
    try:
        yield SeasonService(storage), clock
    finally:
        await storage.close()


async def test_a_monthly_season_counts_its_games_ends_once_and_the_next_starts(seasons) -> None:
    service, clock = seasons
    storage = service.storage
    await _game(storage, BOB, ANN, 100, utc(2027, 1, 3))  # before seasons were on: still January
    settings, ended = await service.set_mode(G, "monthly", channel_id=555)
    assert ended is None and settings.season_mode == "monthly"
    january = await service.current(G)
    assert january is not None and january.name == "January 2027"
    assert (january.starts_at, january.ends_at) == (utc(2027, 1, 1), utc(2027, 2, 1))
    for n in range(3):
        await _game(storage, BOB, ANN, 100, utc(2027, 1, 21 + n))
        await _game(storage, ANN, BOB, 10, utc(2027, 1, 21 + n, 1))
    await _game(storage, CAT, ANN, 5, utc(2027, 2, 1))  # the first second of February
    assert await service.housekeeping([G]) == []  # nothing due yet
    running = {p.user_id: p for p in await service.table(january)}
    assert running[ANN].games == 7 and CAT not in running
    clock.now = utc(2027, 2, 3)  # the bot was down at the end of January
    taken = await service.housekeeping([G])
    assert [(s.id, again) for s, again in taken] == [(january.id, False)]
    assert taken[0][0].state == "claimed" and taken[0][0].channel_id == 555
    assert await service.housekeeping([G]) == []  # taken once
    final = await service.final(taken[0][0])
    assert final.champion is not None and final.champion.user_id == ANN
    assert final.champion.points == 4 * 3 and final.champion.net_cents == 400 - 30
    february = await service.current(G)
    assert february is not None and february.name == "February 2027"
    assert [p.user_id for p in await service.table(february)] == [ANN, CAT]
    # The final table is kept: a player's past places.
    record = await service.record(G, BOB)
    assert [(s.name, p.place) for s, p in record.past] == [("January 2027", 2)]
    await storage.seasons.mark(january.id, "posted", 999)
    assert (await storage.seasons.get(january.id)).message_id == 999  # type: ignore[union-attr]


async def test_two_processes_end_a_season_once(seasons) -> None:
    service, clock = seasons
    await service.set_mode(G, "quarterly", channel_id=555)
    other = SeasonService(service.storage)
    clock.now = utc(2027, 4, 2)
    first, second = await asyncio.gather(service.housekeeping([G]), other.housekeeping([G]))
    assert len(first) + len(second) == 1
    names = [s.name for s in await service.storage.seasons.recent(G)]
    assert names == ["Q2 2027", "Q1 2027"]


async def test_a_post_left_half_done_is_taken_again_after_a_while(seasons) -> None:
    service, clock = seasons
    await service.set_mode(G, "monthly", channel_id=555)
    clock.now = utc(2027, 2, 1, 0, 5)
    [(season, again)] = await service.housekeeping([G])
    assert not again
    # The process stops before it posts: no other round takes it until it is stale.
    clock.now += STALE_CLAIM_S - 1
    assert await service.housekeeping([G]) == []
    clock.now += 2
    [(retaken, again)] = await service.housekeeping([G])
    assert retaken.id == season.id and again
    assert await service.housekeeping([G]) == []
    await service.storage.seasons.mark(season.id, "posted", 123)
    clock.now += 10 * STALE_CLAIM_S
    assert await service.housekeeping([G]) == []
    # A post that failed in this process is let go at once.
    clock.now = utc(2027, 3, 1, 0, 1)
    [(march_end, _)] = await service.housekeeping([G])
    await service.storage.seasons.release(march_end.id)
    assert [(s.id, again) for s, again in await service.housekeeping([G])] == [
        (march_end.id, True)]


async def test_seasons_by_command_and_the_refusals(seasons) -> None:
    service, clock = seasons
    with pytest.raises(UserError, match="No season is running"):
        await service.end_manual(G)
    with pytest.raises(UserError, match="1 to 40"):
        await service.start_manual(G, "x" * 41)
    spring = await service.start_manual(G, "  Spring   cup ")
    assert spring.name == "Spring cup" and spring.ends_at is None
    assert (await service.storage.settings.get_settings(G)).season_mode == "manual"
    with pytest.raises(UserError, match="is running"):
        await service.start_manual(G, "Summer")
    await _game(service.storage, BOB, ANN, 100, clock.now + 1)
    clock.now += 3600
    ended = await service.end_manual(G)
    assert ended.id == spring.id and ended.ends_at == clock.now and ended.channel_id is None
    assert [p.user_id for p in await service.table(ended)] == [ANN, BOB]
    with pytest.raises(UserError, match="already was a season"):
        await service.start_manual(G, "spring CUP")
    assert await service.housekeeping([G]) == []  # by command: nothing ends by itself
    # A monthly server refuses both commands; the change to monthly ends a running season.
    await service.start_manual(G, "Summer")
    _, ended = await service.set_mode(G, "monthly")
    assert ended is not None and ended.name == "Summer"
    with pytest.raises(UserError, match="monthly"):
        await service.start_manual(G, "Autumn")
    with pytest.raises(UserError, match="monthly"):
        await service.end_manual(G)
    # The month's season starts where the last one ended (no game in two seasons).
    january = await service.current(G)
    assert january is not None and january.starts_at == ended.ends_at
    # Off: the running season ends, the leaderboard is all time again.
    _, ended = await service.set_mode(G, "off")
    assert ended is not None and ended.id == january.id
    assert await service.current(G) is None
    assert await service.housekeeping([G]) == []


async def test_the_season_option_lists_and_finds_seasons(seasons) -> None:
    service, clock = seasons
    first = await service.start_manual(G, "Winter")
    await service.end_manual(G)
    await service.start_manual(G, "Spring")
    choices = await service.choices(G, "")
    assert choices[0] == ("All time", "all")
    assert [label for label, _ in choices[1:]] == ["Spring (running)", "Winter (ended)"]
    assert [v for _, v in await service.choices(G, "win")] == [f"#{first.id}"]
    assert (await service.resolve(G, f"#{first.id}")).name == "Winter"  # type: ignore[union-attr]
    assert (await service.resolve(G, str(first.id))).name == "Winter"  # type: ignore[union-attr]
    assert (await service.resolve(G, "winter")).id == first.id  # type: ignore[union-attr]
    assert await service.resolve(G, "all") is None
    with pytest.raises(UserError, match="no season"):
        await service.resolve(G, "Autumn")
    with pytest.raises(UserError, match="no season"):
        await service.resolve(G + 1, str(first.id))  # another server's season
    for n in range(30):
        await service.end_manual(G)
        await service.start_manual(G, f"Week {n}")
    assert len(await service.choices(G, "")) == 25


async def test_a_round_with_nothing_due_asks_one_query(database: str) -> None:
    clock = Clock(utc(2027, 1, 20, 12))
    storage = await Storage.open(database, clock)
    try:
        service = SeasonService(storage)
        for guild in range(G, G + 20):
            await service.set_mode(guild, "monthly")
        await service.housekeeping(list(range(G, G + 20)))  # the first round looks at all
        statements: list[str] = []
        await storage._db.trace(statements.append)
        try:
            assert await service.housekeeping(list(range(G, G + 20))) == []
        finally:
            await storage._db.trace(None)
        assert [s.split()[0] for s in statements] == ["SELECT"]
        # A month later: twenty seasons end, twenty begin.
        clock.now = utc(2027, 2, 1, 0, 1)
        assert len(await service.housekeeping(list(range(G, G + 20)))) == 20
        assert {s.name for s in await storage.seasons.recent(G)} == {"January 2027",
                                                                   "February 2027"}
    finally:
        await storage.close()


async def test_a_change_of_seasons_after_a_season_s_end_ends_it_at_its_end(seasons) -> None:
    # January's end has come while the bot was down; before the round takes it, an admin
    # changes seasons to quarterly: January still ends on 1 February, and a game of 2
    # February is the new season's, not January's.
    service, clock = seasons
    storage = service.storage
    await service.set_mode(G, "monthly", channel_id=555)
    january = await service.current(G)
    assert january is not None
    await _game(storage, BOB, ANN, 100, utc(2027, 1, 25))
    clock.now = utc(2027, 2, 3)
    await _game(storage, ANN, BOB, 40, utc(2027, 2, 2))
    _, ended = await service.set_mode(G, "quarterly")
    assert ended is not None and ended.id == january.id
    assert ended.ends_at == utc(2027, 2, 1)
    assert [(p.user_id, p.games, p.net_cents) for p in await service.table(ended)] == [
        (ANN, 1, 100), (BOB, 1, -100)]
    quarter = await service.current(G)
    assert quarter is not None and quarter.name == "Q1 2027"
    assert quarter.starts_at == utc(2027, 2, 1)
    assert {(p.user_id, p.net_cents) for p in await service.table(quarter)} == {
        (ANN, -40), (BOB, 40)}


def test_players_tied_on_everything_share_their_place_and_the_title() -> None:
    # Ann and Bob: 2 wins, 1 loss each, the same money; Cat and Dan below, Dan alone last.
    lines = (two(BOB, ANN, 10) + two(ANN, BOB, 10) + two(CAT, ANN, 5) + two(CAT, BOB, 5)
             + two(DAN, CAT, 5) + two(CAT, DAN, 5) + two(DAN, CAT, 1))
    table = season_table(lines)
    assert [(p.user_id, p.place) for p in table] == [(ANN, 1), (BOB, 1), (CAT, 3), (DAN, 4)]
    season = SeasonRow(9, G, "March 2027", "monthly", utc(2027, 3, 1), utc(2027, 4, 1),
                       "claimed", None, 555, None)
    final = final_standings(season, table)
    assert [p.user_id for p in final.champions] == [ANN, BOB]
    text = final_text(final, "$")
    assert f"Champions, tied on points, money, wins and games: <@{ANN}> and <@{BOB}>" in text
    assert f"\n1. <@{ANN}>" in text and f"\n1. <@{BOB}>" in text and f"\n3. <@{CAT}>" in text
    assert final_picture_args(final, {ANN: "Ann", BOB: "Bob"}, "$")[2] == "Ann & Bob"
    # Equal points but not equal money: no tie.
    assert [p.place for p in season_table(lines + two(ANN, BOB, 0) + two(BOB, ANN, 1))] == [
        1, 2, 3, 4]


async def test_a_season_named_with_digits_is_found_by_its_name_not_as_an_id(seasons) -> None:
    service, _ = seasons
    first = await service.start_manual(G, "Winter")
    await service.end_manual(G)
    # A season named as the first one's number: typed, the name wins; picked, the id.
    named = await service.start_manual(G, str(first.id))
    assert (await service.resolve(G, str(first.id))).id == named.id  # type: ignore[union-attr]
    assert (await service.resolve(G, f"#{first.id}")).id == first.id  # type: ignore[union-attr]
    assert dict(await service.choices(G, ""))[f"{named.name} (running)"] == f"#{named.id}"
    with pytest.raises(UserError, match="# and a number"):
        await service.end_manual(G) and await service.start_manual(G, "#12")
    with pytest.raises(UserError, match="no season"):
        await service.resolve(G, "#99999999")
    with pytest.raises(UserError, match="no season"):
        await service.resolve(G, "9" * 40)  # no id that long: not a database error


async def test_the_running_table_is_read_again_only_when_its_lines_change(seasons) -> None:
    service, clock = seasons
    storage = service.storage
    season = await service.start_manual(G, "Spring")
    for n, (loser, winner) in enumerate([(BOB, ANN), (ANN, BOB), (CAT, ANN)]):
        await storage.ledger.import_ledger_lines([LedgerRow(
            0, G, "game", loser, winner, 100, None, "kings", winner, 3, None, None, None,
            clock.now + n)])
    first = await service.table(season)
    assert [(p.user_id, p.wins) for p in first] == [(ANN, 2), (BOB, 1), (CAT, 0)]
    statements: list[str] = []
    await storage._db.trace(statements.append)
    try:
        assert await service.table(season) == first
    finally:
        await storage._db.trace(None)
    # Asked again with nothing new: only the index is read, not the season's lines.
    assert statements and not any("NOT EXISTS" in s for s in statements)
    # A game and a void are seen at once.
    await _game(storage, ANN, CAT, 50, clock.now + 10)
    assert {p.user_id: p.wins for p in await service.table(season)}[CAT] == 1
    first_line = (await storage.seasons.game_lines(G, season.starts_at, None))[0]
    assert first_line[2:4] == (BOB, ANN)
    await storage.ledger.import_ledger_lines([LedgerRow(  # the first game voided
        0, G, "void", ANN, BOB, 100, None, None, None, None, first_line[0], "misdeal", 9,
        clock.now + 20)])
    after = {p.user_id: (p.wins, p.net_cents) for p in await service.table(season)}
    assert after == {ANN: (1, 100 - 100 - 50), BOB: (1, 100), CAT: (1, -100 + 50)}
    # Two services (two processes) agree: nothing is kept that the database doesn't say.
    assert await SeasonService(storage).table(season) == await service.table(season)


async def test_after_a_game_only_the_new_lines_are_read_and_the_table_is_the_same(
        seasons, monkeypatch) -> None:
    service, clock = seasons
    storage = service.storage
    season = await service.start_manual(G, "Summer")
    reads: list[int] = []
    read = storage.seasons.game_lines

    async def counted(guild: int, start: float, end: float | None, after_id: int = 0):
        reads.append(after_id)
        return await read(guild, start, end, after_id)

    monkeypatch.setattr(storage.seasons, "game_lines", counted)

    await _game(storage, BOB, ANN, 100, clock.now + 1)
    await service.table(season)
    assert reads == [0]
    await _game(storage, ANN, BOB, 40, clock.now + 2)
    await _game(storage, CAT, ANN, 10, clock.now + 3)
    await _game(storage, CAT, ANN, 10, clock.now + 4)
    kept = await service.table(season)
    assert len(reads) == 2 and reads[1] > 0  # the new lines only
    fresh = await SeasonService(storage).table(season)  # read whole
    assert kept == fresh and [(p.user_id, p.place, p.points, p.best_streak) for p in kept] == [
        (ANN, 1, 9, 2), (BOB, None, 3, 1), (CAT, None, 0, 0)]
    # A table that missed a line committed late (PostgreSQL) is read again whole.
    [(_, tally)] = service._tables.values()
    tally.lines -= 1
    await _game(storage, CAT, DAN, 5, clock.now + 5)
    reads.clear()
    assert await service.table(season) == await SeasonService(storage).table(season)
    assert reads[0] == 0


async def test_a_season_read_whole_walks_its_time_range_not_the_server_s_games(
        tmp_path) -> None:
    clock = Clock(utc(2027, 1, 20, 12))
    storage = await Storage.open(str(tmp_path / "s.sqlite3"), clock)
    try:
        service = SeasonService(storage)
        season = await service.start_manual(G, "Spring")
        await _game(storage, BOB, ANN, 100, clock.now + 1)
        statements: list[str] = []
        await storage._db.trace(statements.append)
        try:
            await service.table(season)
        finally:
            await storage._db.trace(None)
        [read] = [s for s in statements if "NOT EXISTS" in s]
        async with storage._db.connection() as conn:
            plan = " ".join(str(tuple(r)) for r in await conn.fetchall(
                "EXPLAIN QUERY PLAN " + read))
        assert "ledger_game_times" in plan, plan
    finally:
        await storage.close()
