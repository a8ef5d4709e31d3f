"""Tables of three or four in the bot (issue 18), on both backends: the seats saved and read,
challenges of three or four, open tables and their compare-and-set, leaving and claims, the
computer at any seat, one ledger line per loser, statistics once per game, ratings of the
whole table."""

from __future__ import annotations

import asyncio

import pytest

from bot.games.game_service import GameService, LiveGame, UserError
from bot.money.ledger_service import LedgerService, table_rankings
from bot.storage import ChallengeRow, Storage
from engine import Match, RuleSet
from tests.support import Clock

ANN, BOB, CAROL, DAN, EVE, BOT = 101, 202, 303, 404, 505, 999
G, CH = 1, 10
NAMES = {ANN: "Ann", BOB: "Bob", CAROL: "Carol", DAN: "Dan", EVE: "Eve", BOT: "Computer"}


@pytest.fixture
async def env(database: str):
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    seeds = iter(range(7_000, 8_000))
    service = GameService(storage, computer_id=BOT, clock=clock, seed_source=lambda: next(seeds))
    yield service, LedgerService(storage), clock
    await storage.close()


async def group(service: GameService, *others: int, rules: str = "kings",
                stakes: tuple[int, int] = (0, 0), target: int | None = None,
                level: str = "normal") -> ChallengeRow:
    row = await service.inviting.invite(
        guild_id=G, channel_id=CH, host=(ANN, "Ann"),
        invited=[(u, NAMES[u], u == BOT) for u in others], rules_name=rules, stakes=stakes,
        target=target, level=level)
    assert isinstance(row, ChallengeRow)
    return row


async def started(service: GameService, *others: int, **terms: object) -> LiveGame:
    row = await group(service, *others, **terms)  # type: ignore[arg-type]
    live = None
    for user in others:
        if user != BOT:
            row, live = await service.inviting.accept_seat(row.id, user)
    assert live is not None
    return live


async def play_out(service: GameService, live: LiveGame, limit: int = 20_000) -> None:
    for _ in range(limit):
        if live.finished:
            return
        if live.on_turn == BOT:
            await service.playing.computer_step(live.id)
        else:
            await service.playing.play(live.id, live.on_turn, live.match.game.legal_moves()[0].text)
    raise AssertionError("the game did not end")


async def test_a_challenge_of_four_starts_when_all_accept(env) -> None:
    service, _, _ = env
    row = await group(service, BOB, CAROL, DAN)
    assert row.group and row.seats == 4 and [s.user_id for s in row.seated] == [ANN, BOB, CAROL,
                                                                              DAN]
    assert [s.accepted for s in row.seated] == [True, False, False, False]
    with pytest.raises(UserError, match="Only the players invited"):
        await service.inviting.accept_seat(row.id, EVE)
    row, live = await service.inviting.accept_seat(row.id, BOB)
    assert live is None and row.seat_of(BOB).accepted  # type: ignore[union-attr]
    with pytest.raises(UserError, match="already accepted"):
        await service.inviting.accept_seat(row.id, BOB)
    with pytest.raises(UserError, match="exactly these players"):
        await group(service, DAN, CAROL, BOB)
    await service.inviting.accept_seat(row.id, CAROL)
    row, live = await service.inviting.accept_seat(row.id, DAN)
    assert live is not None and row.status == "accepted" and row.game_id == live.id
    assert live.players == (ANN, BOB, CAROL, DAN) and live.names == ("Ann", "Bob", "Carol", "Dan")
    assert live.match.players == 4
    # Saved and read back with every seat; every player finds it.
    stored = await service.storage.games.get_game(live.id)
    assert stored is not None and stored.players == (ANN, BOB, CAROL, DAN)
    for user in (ANN, BOB, CAROL, DAN):
        assert [g.id for g in await service.storage.games.user_games(user, guild_id=G)] == [live.id]
        assert (await service.live.find_game(user, CH)).id == live.id
    assert await service.storage.challenges.open_among(CH, [DAN, CAROL, BOB, ANN]) == "game"
    assert await service.storage.challenges.open_between(CH, ANN, DAN) is None


async def test_a_decline_by_anyone_cancels_and_expiry(env) -> None:
    service, _, clock = env
    row = await group(service, BOB, CAROL)
    await service.inviting.accept_seat(row.id, BOB)
    with pytest.raises(UserError, match="Only a player invited"):
        await service.inviting.decline(row.id, EVE)
    declined = await service.inviting.decline(row.id, CAROL)
    assert declined.status == "declined"
    with pytest.raises(UserError, match="no longer open"):
        await service.inviting.accept_seat(row.id, CAROL)
    row = await group(service, BOB, CAROL)
    clock.now += 901
    assert [r.id for r in await service.inviting.expire_due()] == [row.id]


async def test_an_open_table_join_leave_start(env) -> None:
    service, _, _ = env
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(ANN, "Ann"), seats=4,
                                              rules_name="classic")
    assert table.kind == "table" and [s.user_id for s in table.seated] == [ANN]
    with pytest.raises(UserError, match="at least two"):
        await service.inviting.start_table(table.id, ANN)
    with pytest.raises(UserError, match="already have a seat"):
        await service.inviting.join_table(table.id, ANN, "Ann")
    row, live = await service.inviting.join_table(table.id, BOB, "Bob")
    assert live is None and len(row.seated) == 2
    with pytest.raises(UserError, match="already have a seat"):
        await service.inviting.join_table(table.id, BOB, "Bob")
    with pytest.raises(UserError, match="Only the host"):
        await service.inviting.start_table(table.id, BOB)
    with pytest.raises(UserError, match="Only the host"):
        await service.inviting.add_computer(table.id, BOB, "easy")
    await service.inviting.leave_table(table.id, BOB)
    row, _ = await service.inviting.join_table(table.id, CAROL, "Carol")
    row, _ = await service.inviting.join_table(table.id, BOB, "Bob")
    assert [s.user_id for s in row.seated] == [ANN, CAROL, BOB]
    row, live = await service.inviting.add_computer(table.id, ANN, "hard")
    assert live is not None and live.players == (ANN, CAROL, BOB, BOT)
    assert live.terms.vs_computer and live.terms.computer_level == "hard"
    with pytest.raises(UserError, match="already started"):
        await service.inviting.join_table(table.id, DAN, "Dan")
    # The host may start with fewer seated.
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(DAN, "Dan"), seats=3,
                                              rules_name="kings")
    await service.inviting.join_table(table.id, EVE, "Eve")
    _, live = await service.inviting.start_table(table.id, DAN)
    assert live.players == (DAN, EVE) and live.match.players == 2
    # The host leaving closes his table.
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(DAN, "Dan"), seats=3,
                                              rules_name="kings")
    assert (await service.inviting.leave_table(table.id, DAN)).status == "cancelled"


async def test_five_people_joining_the_last_seat_at_once_seat_one(env) -> None:
    service, _, _ = env
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(ANN, "Ann"), seats=3,
                                              rules_name="kings")
    await service.inviting.join_table(table.id, BOB, "Bob")
    # Straight at the storage, so no lock of the service orders them: the database must.
    storage = service.storage
    said = await asyncio.gather(*(storage.challenges.join_table(table.id, 600 + n, f"P{n}")
                                  for n in range(5)))
    assert sorted(said) == ["full"] * 4 + ["joined"]
    row = await storage.challenges.get_challenge(table.id)
    assert row is not None and len(row.seated) == 3
    winner = 600 + said.index("joined")
    assert row.seated[2].user_id == winner
    # The same person clicking twice at once sits once.
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(ANN, "Ann"), seats=4,
                                              rules_name="kings")
    said = await asyncio.gather(*(storage.challenges.join_table(
        table.id, BOB, "Bob") for _ in range(4)))
    assert sorted(said) == ["joined"] + ["seated"] * 3
    row = await storage.challenges.get_challenge(table.id)
    assert row is not None and [s.user_id for s in row.seated] == [ANN, BOB]


@pytest.mark.parametrize("rules", ["kings", "classic"])
async def test_a_staked_table_of_four_pays_each_loser_and_counts_once(env, rules) -> None:
    service, ledger, _ = env
    live = await started(service, BOB, CAROL, DAN, rules=rules, stakes=(100, 10))
    await play_out(service, live)
    match = live.match
    winner = match.winner
    assert winner is not None
    lines = await service.storage.ledger.game_entries(G, live.id)
    losers = [s for s in range(4) if s != winner]
    assert [line.debtor_id for line in lines] == [live.players[s] for s in losers]
    for line, seat in zip(lines, losers, strict=True):
        margin = match.margins[seat]
        assert margin is not None
        assert line.creditor_id == line.winner_id == live.players[winner]
        assert line.margin == margin and line.amount_cents == 100 + 10 * margin
    stats = {u: await service.storage.standings.player_stats(G, u) for u in live.players}
    champ = live.players[winner]
    assert stats[champ][rules]["games"] == 1 and stats[champ][rules]["wins"] == 1
    assert stats[champ][rules]["net_cents"] == sum(line.amount_cents for line in lines)
    assert stats[champ][rules]["margin_sum"] == sum(line.margin or 0 for line in lines)
    for line in lines:
        mine = stats[line.debtor_id][rules]
        assert (mine["games"], mine["losses"], mine["net_cents"]) == (1, 1, -line.amount_cents)
    # The rebuild from the ledger counts the same.
    await service.storage.ledger.rebuild_summaries(G)
    assert {u: await service.storage.standings.player_stats(G, u) for u in live.players} == stats
    assert (await ledger.stats(G, champ)).streak == "1W"
    # Every pair with the winner has its balance; the losers owe each other nothing.
    for line in lines:
        assert await service.storage.ledger.pair_balance(
            G, line.debtor_id, champ) == line.amount_cents
    # Ratings: all four move, the winner up most.
    await ledger.update_ratings(G)
    ratings = await service.storage.standings.ratings(G, rules)
    assert len(ratings) == 4 and all(v[2] == 1 for v in ratings.values())
    assert max(ratings, key=lambda k: ratings[k][0]) == (champ, rules)
    # A void takes the whole game back, once.
    await ledger.void(G, live.id, EVE, "test")
    for user in live.players:
        assert (await service.storage.standings.player_stats(G, user))[rules]["games"] == 0
        assert await service.storage.ledger.pair_balance(G, user, champ) == 0
    assert await service.storage.standings.ratings(G, rules) == {}


async def test_table_rankings_for_ratings() -> None:
    from bot.storage import LedgerRow

    def line(i: int, game: int, debtor: int, creditor: int, winner: int | None, margin: int
             ) -> LedgerRow:
        return LedgerRow(i, G, "game", debtor, creditor, 0, game, "kings", winner, margin, None,
                         None, None, 0.0)

    rows = [line(1, 5, BOB, ANN, ANN, 7), line(2, 5, CAROL, ANN, ANN, 3),
            line(3, 5, DAN, ANN, ANN, 7), line(4, 6, ANN, BOB, None, 0),
            line(5, 6, CAROL, BOB, None, 0), line(6, 7, ANN, BOB, BOB, 4)]
    assert table_rankings(rows) == [
        ("kings", [(ANN, 0), (BOB, 2), (CAROL, 1), (DAN, 2)]),
        ("kings", [(BOB, 0), (ANN, 0), (CAROL, 0)]),
        ("kings", [(BOB, 0), (ANN, 1)])]


async def test_resign_leaves_and_the_rest_play_on_claims_by_anyone(env) -> None:
    service, _, clock = env
    live = await started(service, BOB, CAROL, stakes=(50, 0))
    first = live.on_turn
    others = [u for u in live.players if u != first]
    # A player not on turn leaves; the game goes on among the other two.
    leaver = others[0]
    outcome = await service.playing.resign(live.id, leaver)
    assert not outcome.match_over and live.match.seated == tuple(
        s for s in range(3) if live.players[s] != leaver)
    with pytest.raises(UserError, match="already left"):
        await service.playing.resign(live.id, leaver)
    with pytest.raises(UserError, match="left this game"):
        await service.playing.claim(live.id, leaver)
    # The one on turn idles; the other claims.
    idle = live.on_turn
    claimer = next(u for u in live.players if u not in (idle, leaver))
    with pytest.raises(UserError, match="still has time"):
        await service.playing.claim(live.id, claimer)
    clock.now += live.terms.claim_s + 1
    outcome = await service.playing.claim(live.id, claimer)
    assert outcome.match_over and live.match.winner == live.players.index(claimer)
    lines = await service.storage.ledger.game_entries(G, live.id)
    assert sorted(line.debtor_id for line in lines) == sorted([leaver, idle])
    assert all(line.creditor_id == claimer and line.amount_cents == 50 for line in lines)
    row = await service.storage.games.get_game(live.id)
    assert row is not None and row.result is not None
    assert row.result["left"] == [live.players.index(leaver), live.players.index(idle)]


async def test_the_computer_plays_any_seat_and_gets_no_money(env) -> None:
    service, ledger, _ = env
    # The computer seated second of three, at a staked table.
    live = await started(service, BOT, BOB, rules="classic", stakes=(100, 5), level="easy")
    assert live.players == (ANN, BOT, BOB) and live.terms.vs_computer
    await play_out(service, live)
    lines = await service.storage.ledger.game_entries(G, live.id)
    assert all(BOT not in (line.debtor_id, line.creditor_id) for line in lines)
    winner = live.match.winner
    if winner is None:
        assert [(x.debtor_id, x.creditor_id, x.amount_cents) for x in lines] == [(ANN, BOB, 0)]
    elif live.players[winner] == BOT:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].creditor_id == live.players[winner]
    await ledger.update_ratings(G)
    assert all(user != BOT for user, _ in await service.storage.standings.ratings(G))


async def test_a_drawn_table_owes_nothing_and_is_a_tie_for_all(env) -> None:
    service, ledger, _ = env
    live = await started(service, BOB, CAROL, DAN, stakes=(100, 10))
    # A table of four tied by the kings turn limit would take long: the engine's result is
    # taken as it stands, with the match made drawn.
    from bot.money.stakes import game_entries

    class Drawn:
        is_over = True
        winner = None
        scores = [0, 0, 0, 0]
        margins = (None, None, None, None)
        rules = RuleSet.preset("kings")

    entries = game_entries(live, Drawn(), BOT)  # type: ignore[arg-type]
    assert [(e.debtor_id, e.creditor_id, e.amount_cents, e.winner_id) for e in entries] == [
        (ANN, DAN, 0, None), (BOB, DAN, 0, None), (CAROL, DAN, 0, None)]
    ok = await service.storage.games.save_moves(live.id, expected_version=live.version,
                                                state=live.match.to_dict(), moves=[(
                                                    0, ANN, "resign")],
                                                finished=True, result=None, turn_passed=True,
                                                entries=entries)
    assert ok
    for user in live.players:
        stats = (await service.storage.standings.player_stats(G, user))["kings"]
        assert (stats["games"], stats["ties"], stats["net_cents"]) == (1, 1, 0)
        assert (await ledger.stats(G, user)).streak == "1T"
    await ledger.update_ratings(G)
    ratings = await service.storage.standings.ratings(G, "kings")
    assert len({round(v[0], 9) for v in ratings.values()}) == 1


async def test_rematch_offers_the_same_table(env) -> None:
    service, _, _ = env
    live = await started(service, BOB, BOT, rules="classic")
    await play_out(service, live)
    row = await service.finishing.rematch(live.id, BOB, ("Bob", "?"))
    assert isinstance(row, ChallengeRow) and row.challenger_id == BOB
    assert [s.user_id for s in row.seated] == [BOB, ANN, BOT]
    assert [s.accepted for s in row.seated] == [True, False, True]
    _, again = await service.inviting.accept_seat(row.id, ANN)
    assert again is not None and again.players == (BOB, ANN, BOT)
    assert again.match.rules == live.match.rules


async def test_a_two_seat_table_is_todays_game(env) -> None:
    service, _, _ = env
    table = await service.inviting.open_table(guild_id=G, channel_id=CH, host=(ANN, "Ann"), seats=2,
                                              rules_name="kings")
    _, live = await service.inviting.join_table(table.id, BOB, "Bob")
    assert live is not None and live.players == (ANN, BOB)
    seed = live.match.seed
    assert live.match.to_dict() == Match.new(live.match.rules, seed)[0].to_dict()


async def test_the_limits_of_a_table_are_the_engines_checked_where_it_is_made(env) -> None:
    from engine import MAX_PLAYERS, MIN_PLAYERS
    service, _, _ = env
    for seats in (MIN_PLAYERS - 1, MAX_PLAYERS + 1):
        with pytest.raises(UserError, match="A table seats two to four players"):
            await service.inviting.open_table(guild_id=G, channel_id=CH, host=(ANN, "Ann"),
                                              seats=seats, rules_name="kings")
    with pytest.raises(UserError, match="A table seats two to four players"):
        await group(service, BOB, CAROL, DAN, EVE)
    assert await service.storage.challenges.open_challenges() == []
