"""Tournaments as a service, without Discord: sign-up, refusals, rounds started once, results
counted once, deadlines, forfeits and a restart in the middle (on both backends)."""

from __future__ import annotations

import pytest

from bot.games.game_service import GameService, UserError
from bot.storage import Storage
from engine import RuleSet
from tests.support import Clock

ORG, BOT = 100, 999
GUILD, CHANNEL = 1, 10


@pytest.fixture
async def env(database: str):
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    service = GameService(storage, computer_id=BOT, clock=clock)
    yield service, clock, database
    await storage.close()


async def _create(service: GameService, fmt: str = "knockout", seats: int = 2, **kw):
    options = dict(guild_id=GUILD, channel_id=CHANNEL, organiser=ORG, name="Friday cup",
                   rules=RuleSet.preset("kings"), format_name=fmt, seats=seats, stake=None,
                   buy_in=None, deadline_hours=24, start_at=None, allow_computer=False)
    options.update(kw)
    return await service.tournaments.create(**options)


async def _lose_all(service: GameService, state) -> int:
    """Each game going on ends: its first seated player resigns (leaving a table of three
    or four, until it is decided). Returns how many games ended."""
    ended = 0
    for link in state.games:
        live = await service.live.game(link.game_id)
        while not live.finished:
            seat = service.live.facts(live).seated[0]
            await service.playing.resign(live.id, live.players[seat])
        ended += 1
    return ended


async def _play_out(service: GameService, tid: int) -> object:
    tours = service.tournaments
    for _ in range(40):
        state = await tours.sync(tid)
        if state.row.status == "finished":
            return state
        going = []
        for link in state.games:
            live = await service.live.game(link.game_id)
            if not live.finished:
                going.append(link)
        assert going, "a running tournament has a game going"
        for link in going:
            live = await service.live.game(link.game_id)
            while not live.finished:
                seat = service.live.facts(live).seated[0]
                await service.playing.resign(live.id, live.players[seat])
    raise AssertionError("the tournament did not finish")


async def test_refusals_change_nothing(env) -> None:
    service, clock, _ = env
    tours = service.tournaments
    with pytest.raises(UserError, match="at most 60"):
        await _create(service, name="x" * 61)
    with pytest.raises(UserError, match="in the past"):
        await _create(service, start_at="1970-01-01 00:10")
    with pytest.raises(UserError, match="too large"):
        await _create(service, stake="10000000")
    with pytest.raises(UserError, match="games of two"):
        await _create(service, fmt="swiss", seats=3)
    row = await _create(service)
    await tours.join(row.id, 1, "One")
    with pytest.raises(UserError, match="joined already"):
        await tours.join(row.id, 1, "One")
    with pytest.raises(UserError, match="Only the organiser"):
        await tours.start(row.id, 1)
    with pytest.raises(UserError, match="at least two"):
        await tours.start(row.id, ORG)
    with pytest.raises(UserError, match="Only the organiser"):
        await tours.cancel(row.id, 1)
    with pytest.raises(UserError, match="didn't allow the computer"):
        await tours.add_computer(row.id, ORG)
    assert [e.user_id for e in (await tours.get(row.id)).entrants] == [1]
    await tours.join(row.id, 2, "Two")
    state = await tours.start(row.id, ORG)
    assert state.row.status == "running" and len(state.games) == 1
    with pytest.raises(UserError, match="started already"):
        await tours.join(row.id, 3, "Three")
    rr = await _create(service, fmt="round robin")
    for user in range(1, 9):
        await tours.join(rr.id, user, f"P{user}")
    with pytest.raises(UserError, match="full"):
        await tours.join(rr.id, 9, "P9")


@pytest.mark.parametrize(("fmt", "players", "seats", "games"), [
    ("knockout", 8, 2, 7), ("knockout", 9, 3, 4), ("swiss", 6, 2, 9),
    ("round robin", 5, 2, 10)])
async def test_each_format_plays_to_its_end_and_counts_each_game_once(
        env, fmt: str, players: int, seats: int, games: int) -> None:
    service, _, _ = env
    tours = service.tournaments
    row = await _create(service, fmt=fmt, seats=seats)
    for user in range(1, players + 1):
        await tours.join(row.id, user, f"P{user}")
    await tours.start(row.id, ORG)
    state = await _play_out(service, row.id)
    assert state.tournament is not None and state.tournament.finished
    assert len(state.games) == games
    played = [e for e in await service.storage.tournaments.events(row.id) if e.kind == "played"]
    assert len(played) == games == len({e.game_id for e in played})
    # Syncing again changes nothing: no game started twice, no result counted twice.
    again = await tours.sync(row.id)
    assert len(again.games) == games and again.events == state.events
    places = [s.place for s in state.tournament.standings()]
    assert places[0] == 1 and None not in places
    if fmt == "knockout":
        assert places.count(1) == 1  # exactly one winner


async def test_a_restart_mid_round_starts_nothing_twice(env) -> None:
    service, clock, database = env
    row = await _create(service)
    for user in range(1, 5):
        await service.tournaments.join(row.id, user, f"P{user}")
    state = await service.tournaments.start(row.id, ORG)
    first = state.games[0]
    live = await service.live.game(first.game_id)
    await service.playing.resign(live.id, live.players[0])  # finished, not yet recorded
    # A new process on the same database: the finish is recorded at its first sync.
    storage = await Storage.open(database, clock)
    try:
        again = GameService(storage, computer_id=BOT, clock=clock)
        state = await again.tournaments.sync(row.id)
        assert len(state.games) == 2 and state.events == 1
        state = await again.tournaments.sync(row.id)
        assert len(state.games) == 2 and state.events == 1
    finally:
        await storage.close()


async def test_the_deadline_decides_by_the_claim_rule_and_a_leaver_forfeits(env) -> None:
    service, clock, _ = env
    tours = service.tournaments
    row = await _create(service, deadline_hours=2)
    for user in range(1, 5):
        await tours.join(row.id, user, f"P{user}")
    state = await tours.start(row.id, ORG)
    one, two = state.games
    live = await service.live.game(one.game_id)
    idle = live.on_turn
    clock.now += 3 * 3600
    # A player of the other table leaves: he forfeits, his opponent goes on.
    other = await service.live.game(two.game_id)
    leaver = other.players[0]
    await tours.leave(row.id, leaver)
    state = await tours.sync(row.id)
    assert (await service.live.game(one.game_id)).finished
    assert await service.storage.games.last_move(one.game_id) == "claim"
    tournament = state.tournament
    assert tournament is not None and tournament.rounds[0].decided
    final = tournament.rounds[1].tables[0].seats
    assert idle not in final and leaver not in final
    assert len(state.games) == 3


async def test_a_buy_in_pot_is_paid_to_the_places_once_through_the_ledger(env) -> None:
    service, _, _ = env
    tours = service.tournaments
    row = await _create(service, buy_in="5")
    for user in range(1, 9):
        await tours.join(row.id, user, f"P{user}")
    await tours.start(row.id, ORG)
    state = await _play_out(service, row.id)
    lines = await tours.money_lines(row.id)
    assert lines and sum(c for _, _, c in lines) > 0
    standings = state.tournament.standings()
    net: dict[int, int] = {}
    for debtor, creditor, cents in lines:
        net[debtor] = net.get(debtor, 0) - cents
        net[creditor] = net.get(creditor, 0) + cents
    # 8 players × $5 = $40: 1st 50 % ($20, net +$15), 2nd 30 % ($12, +$7), the two 3rd share
    # 20 % ($4 each, net −$1), the four others lose their $5.
    by_place = {s.player: s.place for s in standings}
    first = next(p for p, place in by_place.items() if place == 1)
    second = next(p for p, place in by_place.items() if place == 2)
    assert net[first] == 1500 and net[second] == 700
    assert sorted(net.get(p, 0) for p, place in by_place.items() if place == 3) == [-100, -100]
    assert sum(net.values()) == 0
    # In the notebook: the winner is owed what the lines say; syncing again pays nothing more.
    owed = await service.storage.ledger.balances(GUILD, first)
    assert -sum(cents for _, cents, _ in owed) == 1500
    await tours.sync(row.id)
    assert await tours.money_lines(row.id) == lines
    with pytest.raises(UserError, match="doesn't play for money"):
        pot = await _create(service, buy_in="5", allow_computer=True)
        await tours.add_computer(pot.id, ORG)


async def test_a_tournament_starts_by_itself_at_its_time(env) -> None:
    service, clock, _ = env
    tours = service.tournaments
    row = await _create(service, start_at="in 2h")
    alone = await _create(service, start_at="in 2h")
    for user in (1, 2, 3):
        await tours.join(row.id, user, f"P{user}")
    await tours.join(alone.id, 1, "P1")
    assert await tours.due() == []
    clock.now += 2 * 3600 + 1
    assert await tours.due() == [row.id, alone.id]
    assert (await tours.get(row.id)).status == "running"
    assert len(await service.storage.tournaments.table_games(row.id)) == 1  # and a bye
    assert (await tours.get(alone.id)).status == "cancelled"  # one player: called off
    assert await tours.due() == [row.id]


async def test_seeding_is_by_the_players_ratings_at_the_start(env) -> None:
    service, _, _ = env
    tours = service.tournaments
    # Four players sign up weakest first; their kings ratings say the opposite order.
    mus = {1: 20.0, 2: 24.0, 3: 28.0, 4: 32.0}
    await service.storage.standings.store_ratings(
        GUILD, {(user, "kings"): (mu, 3.0, 10) for user, mu in mus.items()}, 0)
    row = await _create(service)
    for user in (1, 2, 3, 4):
        await tours.join(row.id, user, f"P{user}")
    state = await tours.start(row.id, ORG)
    assert state.tournament is not None
    assert state.tournament.seeding == (4, 3, 2, 1)
    # Seed 1 meets seed 4, seed 2 meets seed 3.
    assert [set(t.seats) for t in state.tournament.rounds[0].tables] == [{4, 1}, {3, 2}]
    ratings = {e.user_id: e.rating for e in (await tours.get(row.id)).entrants}
    assert ratings[4] > ratings[3] > ratings[2] > ratings[1]
