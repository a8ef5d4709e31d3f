"""The ledger as a service: stakes, one entry per result, settling up, voids, standings."""

from __future__ import annotations

import asyncio
import csv
import io
import random
import time
from pathlib import Path

import pytest

from bot.games.game_service import GameService, LiveGame, UserError
from bot.money.ledger_service import LedgerService, display_rating
from bot.storage import GameEntry, Storage
from tests.dbtools import run_sql
from tests.support import Clock

ANN, BOB, CAROL, BOT = 101, 202, 303, 999
G = 1


@pytest.fixture
async def env(database: str):
    clock = Clock(1_700_000_000.0)
    storage = await Storage.open(database, clock)
    games = GameService(storage, computer_id=BOT, clock=clock)
    ledger = LedgerService(storage)
    yield games, ledger, clock
    await storage.close()


async def staked_game(games: GameService, a: int, b: int, *, rules: str = "classic",
                      stake: int = 50, per_card: int = 5, target: int | None = None) -> LiveGame:
    row = await games.inviting.challenge(guild_id=G, channel_id=10, challenger_id=a, opponent_id=b,
                                         opponent_is_bot=False, rules_name=rules, names=("A", "B"),
                                         stakes=(stake, per_card), target=target)
    assert not isinstance(row, LiveGame)
    _, live = await games.inviting.accept(row.id, b)
    return live


async def settle_some(ledger: LedgerService, rng: random.Random, caller: int, other: int) -> None:
    """``caller`` settles part of what is owed between him and ``other`` (either way)."""
    owed = abs(await ledger.storage.ledger.pair_balance(G, caller, other))
    if owed:
        cents = rng.randrange(1, owed + 1)
        await ledger.settle(guild_id=G, channel_id=10, caller=caller, other=other,
                            amount_text=f"{cents // 100}.{cents % 100:02d}")


async def test_a_resigned_game_writes_one_entry_with_the_stakes(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB)
    left = len(live.match.game.payoffs[1])  # Bob's pay-off pile: Ann's margin
    await games.playing.resign(live.id, BOB)
    entry = await games.storage.ledger.game_entry(G, live.id)
    assert entry is not None
    assert (entry.debtor_id, entry.creditor_id, entry.winner_id) == (BOB, ANN, ANN)
    assert entry.margin == left and entry.amount_cents == 50 + 5 * left
    assert await ledger.balances(G, BOB) == [(ANN, 50 + 5 * left, 1)]
    assert await ledger.balances(G, ANN) == [(BOB, -(50 + 5 * left), 1)]


async def test_the_database_refuses_a_second_entry_for_a_game(env) -> None:
    games, _, _ = env
    live = await staked_game(games, ANN, BOB)
    await games.playing.resign(live.id, ANN)
    entry = GameEntry(G, live.id, ANN, BOB, 1, "classic", BOB, 1)
    ok = None
    with pytest.raises(Exception, match="(?i)unique"):  # SQLite's or PostgreSQL's own error
        ok = await games.storage.games.save_moves(live.id, expected_version=live.version, state={},
                                                  moves=[(0, ANN, "again")], finished=True,
                                                  result=None, turn_passed=False, entry=entry)
    assert ok is None
    assert len(await games.storage.games.move_log(live.id)) == 1  # the whole save was rolled back


async def test_the_ledger_is_append_only(env, database: str) -> None:
    games, _, _ = env
    live = await staked_game(games, ANN, BOB)
    await games.playing.resign(live.id, ANN)
    # Refused by the database itself, whoever asks (sqlite3.IntegrityError, asyncpg's
    # RaiseError).
    for sql in ("UPDATE ledger SET amount_cents = 0", "DELETE FROM ledger"):
        with pytest.raises(Exception, match="append-only"):
            await run_sql(database, sql)
    assert len(await run_sql(database, "SELECT * FROM ledger")) == 1


async def test_tied_match_pays_nothing(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, rules="kings", target=50)
    from bot.money.stakes import game_entry

    live.match.scores = [30, 30]
    live.match.results = []
    live.match.game.result = None

    class Over:
        is_over = True
        winner = None
        scores = [30, 30]
        rules = live.match.rules

    entry = game_entry(live, Over())  # type: ignore[arg-type]
    assert entry is not None and entry.amount_cents == 0 and entry.winner_id is None


async def test_match_margin_is_the_score_difference(env) -> None:
    games, _, _ = env
    live = await staked_game(games, ANN, BOB, rules="kings", stake=100, per_card=10)
    from bot.money.stakes import game_entry

    class Over:
        is_over = True
        winner = 0
        scores = [57, 31]
        rules = live.match.rules

    entry = game_entry(live, Over())  # type: ignore[arg-type]
    assert entry is not None
    assert entry.margin == 26 and entry.amount_cents == 100 + 10 * 26


async def test_stakes_parsing_and_points_only(env) -> None:
    _, ledger, _ = env
    settings = await ledger.settings(G)
    assert ledger.stakes(settings, "kings", "$0.50", ".05") == (50, 5)
    with pytest.raises(UserError, match="isn't an amount"):
        ledger.stakes(settings, "kings", "abc", None)
    settings = await ledger.storage.settings.update_settings(G, stake_classic=25, points_only=0)
    assert ledger.stakes(settings, "classic", None, None) == (25, 0)
    settings = await ledger.storage.settings.update_settings(G, points_only=1)
    with pytest.raises(UserError, match="points only"):
        ledger.stakes(settings, "classic", "1", None)
    assert ledger.stakes(settings, "classic", None, None) == (0, 0)


async def test_settlement_needs_the_payees_consent(env) -> None:
    games, ledger, clock = env
    live = await staked_game(games, ANN, BOB, stake=500, per_card=0)
    await games.playing.resign(live.id, ANN)  # Ann owes Bob $5
    kind, pending, _ = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                        amount_text="3")
    assert kind == "pending"
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 500  # nothing yet
    with pytest.raises(UserError, match="Only the person who was paid"):
        await ledger.answer_settlement(pending.id, ANN, True)
    row, entry = await ledger.answer_settlement(pending.id, BOB, True)
    assert row.status == "confirmed" and entry is not None
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 200
    with pytest.raises(UserError, match="already confirmed"):
        await ledger.answer_settlement(pending.id, BOB, True)
    # A refused one changes nothing; an expired one can't be confirmed.
    _, refused, _ = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                     amount_text="1")
    row, entry = await ledger.answer_settlement(refused.id, BOB, False)
    assert row.status == "refused" and entry is None
    _, late, _ = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                  amount_text="1")
    clock.now += 25 * 3600
    with pytest.raises(UserError, match="expired"):
        await ledger.answer_settlement(late.id, BOB, True)
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 200


async def test_the_person_owed_records_or_forgives_without_consent(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=500, per_card=0)
    await games.playing.resign(live.id, ANN)  # Ann owes Bob $5
    kind, _, _ = await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN,
                                  amount_text="2")
    assert kind == "payment"
    kind, _, _ = await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN,
                                  amount_text="1.50", forgive=True)
    assert kind == "forgive"
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 150
    with pytest.raises(UserError, match="Only the person who is owed"):
        await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB, amount_text="1",
                            forgive=True)
    with pytest.raises(UserError, match="yourself"):
        await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=ANN, amount_text="1")
    with pytest.raises(UserError, match="more than zero"):
        await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN, amount_text="0")


async def test_void_reverses_money_and_standings(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=300, per_card=0)
    await games.playing.resign(live.id, BOB)
    await ledger.update_ratings(G)
    assert (await games.storage.standings.player_stats(G, ANN))["classic"]["wins"] == 1
    row = await ledger.void(G, live.id, CAROL, "played by mistake")
    assert row.kind == "void" and row.amount_cents == 300 and row.voids_id is not None
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 0
    stats = (await games.storage.standings.player_stats(G, ANN))["classic"]
    assert stats["wins"] == 0 and stats["games"] == 0 and stats["net_cents"] == 0
    assert await games.storage.standings.ratings(G) == {}
    with pytest.raises(UserError, match="already voided"):
        await ledger.void(G, live.id, CAROL, "again")
    with pytest.raises(UserError, match="reason"):
        await ledger.void(G, live.id, CAROL, " ")
    history, total, _ = await ledger.head_to_head(G, ANN, BOB, 0)
    assert total == 2 and history[0][0].kind == "void"


async def test_balances_equal_the_sum_of_entries(env) -> None:
    games, ledger, _ = env
    rng = random.Random(5)
    people = [ANN, BOB, CAROL]
    for _ in range(12):
        a, b = rng.sample(people, 2)
        live = await staked_game(games, a, b, stake=rng.randrange(0, 400),
                                 per_card=rng.randrange(3))
        await games.playing.resign(live.id, rng.choice([a, b]))
        if rng.random() < 0.4:
            await settle_some(ledger, rng, b, a)
    for a in people:
        for b in people:
            if a == b:
                continue
            rows, _ = await ledger.storage.ledger.pair_entries(G, a, b)
            expected = sum(r.amount_cents if r.debtor_id == a else -r.amount_cents
                           for r, _ in rows)
            assert await ledger.storage.ledger.pair_balance(G, a, b) == expected
            if rows:
                assert rows[0][1] == expected  # the newest running balance is the balance


async def test_ratings_update_and_recompute_the_same(env) -> None:
    games, ledger, _ = env
    for i in range(6):
        live = await staked_game(games, ANN, BOB, stake=0, per_card=0)
        await games.playing.resign(live.id, BOB if i % 3 else ANN)
        await ledger.update_ratings(G)
    incremental = await games.storage.standings.ratings(G)
    history = await games.storage.standings.rated_history(G)
    recomputed = ledger._rate(history, {})
    assert incremental.keys() == recomputed.keys()
    for key, value in incremental.items():
        assert value == pytest.approx(recomputed[key])
    assert incremental[(ANN, "classic")][0] > incremental[(BOB, "classic")][0]
    board, note = await ledger.leaderboard(G, "rating", "classic")
    assert [s.user_id for s in board] == [ANN, BOB] and board[0].rating is not None
    board, note = await ledger.leaderboard(G, "win_rate", None)
    assert "fewer than 5" not in note and len(board) == 2  # six games each: established
    stats = await ledger.stats(G, ANN)
    assert stats.games == 6 and stats.wins == 4 and stats.streak in ("2W", "1L", "1W", "2L")
    assert len(stats.series) == 6


async def test_computer_games_stay_out_of_the_ledger(env) -> None:
    games, _, _ = env
    live = await games.inviting.challenge(guild_id=G, channel_id=10, challenger_id=ANN,
                                          opponent_id=BOT,
                                          opponent_is_bot=True, rules_name="kings")
    assert isinstance(live, LiveGame)
    await games.playing.resign(live.id, ANN)
    assert await games.storage.ledger.game_entry(G, live.id) is None
    with pytest.raises(UserError, match="doesn't play for money"):
        await games.inviting.challenge(guild_id=G, channel_id=11, challenger_id=ANN,
                                       opponent_id=BOT,
                                       opponent_is_bot=True, rules_name="kings", stakes=(100, 0))


async def test_summaries_rebuild_to_the_same_values(env) -> None:
    games, ledger, _ = env
    rng = random.Random(9)
    for i in range(10):
        a, b = rng.sample([ANN, BOB, CAROL], 2)
        live = await staked_game(games, a, b, stake=rng.randrange(500), per_card=rng.randrange(4))
        await games.playing.resign(live.id, rng.choice([a, b]))
        if i == 4:
            await ledger.void(G, live.id, CAROL, "test")
        if i % 3 == 0:
            await settle_some(ledger, rng, a, b)
    storage = games.storage
    before = ({u: await storage.ledger.balances(G, u) for u in (ANN, BOB, CAROL)},
              {u: await storage.standings.player_stats(G, u) for u in (ANN, BOB, CAROL)})
    await storage.ledger.rebuild_summaries(G)
    after = ({u: await storage.ledger.balances(G, u) for u in (ANN, BOB, CAROL)},
             {u: await storage.standings.player_stats(G, u) for u in (ANN, BOB, CAROL)})
    assert before == after


def test_ledger_benchmark_runs_and_reports_every_query() -> None:
    from bot.bench.ledger_bench import run_ledger

    row = run_ledger(entries=3000, players=30, repeat=2)
    assert row["lines"] == 3000 and row["players"] == 30
    for figure in ("cold_ms", "median_ms", "p99_ms", "worst_ms"):
        times = row[figure]
        assert isinstance(times, dict)
        assert {"/ledger", "/ledger user (page 1)", "/ledger user (last page)", "/stats",
                "/leaderboard by:rating rules:kings"} <= times.keys()


# ---------------------------------------------------------------------- settling never flips


async def test_settling_more_than_is_owed_is_refused_and_changes_nothing(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=50, per_card=0)
    await games.playing.resign(live.id, ANN)  # Ann owes Bob $0.50
    for caller, other, amount, forgive, words in [
        (BOB, ANN, "50", True, f"<@{ANN}> owes you $0.50: you can record at most that"),
        (BOB, ANN, "104", False, f"<@{ANN}> owes you $0.50: you can record at most that"),
        (BOB, ANN, "0.51", False, f"<@{ANN}> owes you $0.50: you can record at most that"),
        (ANN, BOB, "5", False, f"You owe <@{BOB}> $0.50: you can record at most that"),
        (ANN, BOB, "0.10", True, "Only the person who is owed can forgive"),
        (CAROL, ANN, "1", False, "square: there is nothing to settle"),
        (CAROL, ANN, "1", True, "square: there is nothing to forgive"),
    ]:
        with pytest.raises(UserError) as refused:
            await ledger.settle(guild_id=G, channel_id=10, caller=caller, other=other,
                                amount_text=amount, forgive=forgive)
        assert words in str(refused.value)
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 50
    rows, total = await ledger.storage.ledger.pair_entries(G, ANN, BOB)
    assert total == 1 and rows[0][0].kind == "game"
    assert (await ledger.storage.settlements.get_settlement(1)) is None  # no payment waits either
    # Exactly what is owed is fine: the debt is settled, not flipped.
    kind, row, owed = await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN,
                                          amount_text="0.50", forgive=True)
    assert (kind, row.amount_cents, owed) == ("forgive", 50, 50)
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 0
    with pytest.raises(UserError, match="square"):
        await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN, amount_text="0.01")


async def test_a_confirmation_is_checked_again_against_what_is_owed_then(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=500, per_card=0)
    await games.playing.resign(live.id, ANN)  # Ann owes Bob $5
    _, first, owed = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                         amount_text="3")
    _, second, _ = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                       amount_text="3")
    assert owed == 500
    await ledger.answer_settlement(first.id, BOB, True)
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 200
    with pytest.raises(UserError) as refused:
        await ledger.answer_settlement(second.id, BOB, True)
    message = str(refused.value)
    assert f"<@{ANN}> owes you $2.00 now" in message and "$3.00" in message
    assert "Nothing was changed" in message
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 200
    still = await ledger.storage.settlements.get_settlement(second.id)
    assert still is not None and still.status == "open" and still.ledger_id is None
    # Bob records the rest himself: the old payment can no longer be confirmed at all...
    await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN, amount_text="2")
    with pytest.raises(UserError, match="owes you nothing now"):
        await ledger.answer_settlement(second.id, BOB, True)
    # ...but it can still be refused.
    row, entry = await ledger.answer_settlement(second.id, BOB, False)
    assert row.status == "refused" and entry is None
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 0


async def test_concurrent_settlements_never_flip_a_debt(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=100, per_card=0)
    await games.playing.resign(live.id, ANN)  # Ann owes Bob $1
    results = await asyncio.gather(*[
        ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN, amount_text="0.60",
                      forgive=i % 2 == 0) for i in range(4)], return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, UserError) for r in results if isinstance(r, BaseException))
    assert await ledger.storage.ledger.pair_balance(G, ANN, BOB) == 40


# ---------------------------------------------------------------------- ratings and standings


def test_display_rating_is_on_a_scale_players_know() -> None:
    assert display_rating(25.0, 25.0 / 3) == 1000  # a new player
    assert display_rating(30.0, 2.0) == round(1000 + 40 * (30 - 6))
    assert display_rating(20.0, 8.0) == round(1000 + 40 * (20 - 24)) == 840
    assert display_rating(0.0, 10.0) == 0  # never negative
    assert isinstance(display_rating(27.3, 4.1), int)


async def test_players_with_few_games_are_shown_as_provisional(env) -> None:
    games, ledger, _ = env
    for i in range(5):
        live = await staked_game(games, ANN, BOB, stake=0, per_card=0)
        await games.playing.resign(live.id, BOB if i else ANN)
    live = await staked_game(games, CAROL, ANN, stake=0, per_card=0)
    await games.playing.resign(live.id, ANN)
    await ledger.update_ratings(G)
    board, note = await ledger.leaderboard(G, "win_rate", None)
    # Carol won her only game (100%) yet is listed after the established players.
    assert [(s.user_id, s.provisional) for s in board] == [(ANN, False), (BOB, False),
                                                           (CAROL, True)]
    assert [s.place for s in board] == [1, 2, 3] and "provisional" in note
    board, note = await ledger.leaderboard(G, "rating", "classic")
    assert {s.user_id for s in board} == {ANN, BOB, CAROL}
    flags = [s.provisional for s in board]
    assert flags == sorted(flags)  # the established ones first
    assert next(s for s in board if s.user_id == CAROL).provisional
    assert all(isinstance(s.rating, int) and s.rating >= 0 for s in board)
    ratings = await ledger.storage.standings.ratings(G, "classic")
    for s in board:
        mu, sigma, _ = ratings[(s.user_id, "classic")]
        assert s.rating == display_rating(mu, sigma)
    stats = await ledger.stats(G, CAROL)
    assert stats.ratings["classic"] == (display_rating(*ratings[(CAROL, "classic")][:2]), True)


async def test_stats_without_wins_say_so(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB)
    await games.playing.resign(live.id, ANN)
    stats = await ledger.stats(G, ANN)
    assert stats.wins == 0 and stats.best_margin == 0 and stats.streak == "1L"


async def test_csv_names_the_players_beside_their_ids(env) -> None:
    games, ledger, _ = env
    live = await staked_game(games, ANN, BOB, stake=100, per_card=0)
    await games.playing.resign(live.id, ANN)
    await ledger.settle(guild_id=G, channel_id=10, caller=BOB, other=ANN, amount_text="0.40")
    data = await ledger.csv_export(G, ANN, BOB, "$")
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert [(r["debtor"], r["debtor_name"], r["creditor"], r["creditor_name"]) for r in rows] \
        == [(str(ANN), "A", str(BOB), "B"), (str(BOB), "B", str(ANN), "A")]
    assert rows[0]["result"] == "won by B" and rows[1]["amount"] == "$0.40"
    # Names the caller knows (the members' names now) win; a formula-like name stays text.
    data = await ledger.csv_export(G, ANN, BOB, "$", {ANN: "=HYPERLINK(1)"})
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert rows[0]["debtor_name"] == "'=HYPERLINK(1)" and rows[0]["creditor_name"] == "B"
    assert await ledger.player_names(G, [ANN, BOB, CAROL]) == {ANN: "A", BOB: "B"}


async def test_a_void_recomputes_ratings_off_the_event_loop(tmp_path: Path) -> None:
    from bot.bench.ledger_bench import GUILD, _fill

    storage = await Storage.open(tmp_path / "big.sqlite3")
    try:
        await _fill(storage, 20_000, 60, seed=3)
        ledger = LedgerService(storage)
        game = await storage.ledger.game_entry(GUILD, 7)
        assert game is not None
        gaps: list[float] = []
        done = asyncio.Event()

        async def heartbeat() -> None:
            loop = asyncio.get_running_loop()
            last = loop.time()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = loop.time()
                gaps.append(now - last)
                last = now

        beating = asyncio.create_task(heartbeat())
        started = time.perf_counter()
        await ledger.void(GUILD, game.game_id or 0, CAROL, "entered twice")
        took = time.perf_counter() - started
        done.set()
        await beating
        recomputed = ledger._rate(await storage.standings.rated_history(GUILD), {})
        stored = await storage.standings.ratings(GUILD)
        assert stored.keys() == recomputed.keys()
        assert all(stored[k] == pytest.approx(recomputed[k]) for k in stored)
    finally:
        await storage.close()
    # The recomputation takes a good fraction of a second; the loop kept turning meanwhile
    # (its longest pause is reading the history, not rating it: on the loop it was ~90%).
    assert took > 0.3, took
    assert max(gaps) < took / 3, (max(gaps), took)
