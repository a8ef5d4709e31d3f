"""Tournament pairing and standings (issue 33), pure: knockout for tables of two to four, Swiss and
round robin for two-player games, byes, forfeits, and the same rounds rebuilt from the same
events."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournaments import (
    FORMATS,
    Entrant,
    Knockout,
    Played,
    RoundRobin,
    Swiss,
    Tournament,
    TournamentError,
    Withdrawal,
    replay,
)
from bot.tournaments.knockout import MAX_DRAWS


def field(n: int) -> list[Entrant]:
    """Players 1..n with ratings so that player k is seed k."""
    return [Entrant(k, 2000.0 - 10 * k) for k in range(1, n + 1)]


def first_wins(seats: Sequence[int]) -> list[int]:
    return [1] + [2] * (len(seats) - 1)


def better_seed_wins(seats: Sequence[int]) -> list[int]:
    """Places for a table of ``field`` players: the lowest number (the better seed) wins."""
    return [1 if p == min(seats) else 2 for p in seats]


def play_out(t: Tournament, pick: Callable[[Sequence[int]], Sequence[int]] = first_wins,
             limit: int = 100) -> None:
    """Play every pending table with ``pick(seats)`` as its places until the end."""
    for _ in range(limit):
        if t.finished:
            return
        for r, i, seats in t.pending():
            t.play(r, i, pick(seats))
    raise AssertionError("the tournament never ended")


def seat_lists(t: Tournament) -> list[list[tuple[int, ...]]]:
    return [[table.seats for table in r.tables] for r in t.rounds]


# -- knockout ---------------------------------------------------------------------------------


def test_an_8_player_knockout_of_two_player_games_has_a_winner_in_3_rounds() -> None:
    t = Knockout(field(8))
    assert seat_lists(t) == [[(1, 8), (2, 7), (3, 6), (4, 5)]]
    play_out(t, lambda seats: [1, 2] if seats[0] != 1 else [2, 1])  # seed 1 loses at once
    assert len(t.rounds) == 3 and t.finished and t.current is None
    assert seat_lists(t)[1:] == [[(8, 4), (2, 3)], [(8, 2)]]
    assert t.champion == 8
    places = {s.player: s.place for s in t.standings()}
    assert places == {8: 1, 2: 2, 4: 3, 3: 3, 1: 5, 7: 5, 6: 5, 5: 5}
    assert [s.player for s in t.standings()][:2] == [8, 2]


def test_a_9_player_knockout_of_tables_of_three_plays_3_tables_then_a_final_of_three() -> None:
    t = Knockout(field(9), seats=3)
    assert seat_lists(t) == [[(1, 6, 9), (2, 5, 8), (3, 4, 7)]]
    play_out(t, lambda seats: [2, 1, 3])  # the second seat wins every table
    assert seat_lists(t) == [[(1, 6, 9), (2, 5, 8), (3, 4, 7)], [(6, 5, 4)]]
    assert t.champion == 5
    places = {s.player: s.place for s in t.standings()}
    # Knocked out in the same round: a shared place, the next ones skipped (1, 2, 2, 4).
    assert places == {5: 1, 6: 2, 4: 2, 1: 4, 9: 4, 2: 4, 8: 4, 3: 4, 7: 4}


def test_byes_go_to_the_top_seeds_and_the_top_seeds_meet_last() -> None:
    t = Knockout(field(6))
    assert seat_lists(t) == [[(3, 6), (4, 5)]] and t.rounds[0].byes == (1, 2)
    play_out(t, lambda seats: [1, 2])
    assert seat_lists(t)[1:] == [[(1, 4), (2, 3)], [(1, 2)]]
    t4 = Knockout(field(7), seats=4)
    # The lowest leading seed's table fills up first: one full game, three byes.
    assert seat_lists(t4) == [[(4, 5, 6, 7)]] and t4.rounds[0].byes == (1, 2, 3)
    t3 = Knockout(field(7), seats=3)
    assert seat_lists(t3) == [[(2, 5, 7), (3, 4, 6)]] and t3.rounds[0].byes == (1,)
    assert [s.byes for s in t3.standings() if s.player == 1] == [1]
    play_out(t3)
    assert seat_lists(t3)[1] == [(1, 2, 3)] and t3.champion == 1


def test_a_drawn_knockout_table_plays_again_then_the_better_seed_goes_on() -> None:
    t = Knockout(field(4))
    t.play(1, 1, [1, 1])  # 2 v 3 drawn
    assert t.pending() == [(1, 0, (1, 4)), (1, 1, (2, 3))]
    t.play(1, 0, [2, 1])
    assert MAX_DRAWS == 2
    t.play(1, 1, [1, 1])  # drawn again: seed 2 goes on
    assert seat_lists(t)[1] == [(4, 2)]
    assert t.rounds[0].tables[1].draws == 2


def test_a_knockout_forfeit_sends_the_others_on() -> None:
    t = Knockout(field(8))
    t.withdraw(8)  # seed 1's opponent leaves: seed 1 goes on without a game
    assert t.rounds[0].tables[0].forfeit and t.rounds[0].tables[0].winners() == (1,)
    assert [p for _, _, p in t.pending()] == [(2, 7), (3, 6), (4, 5)]
    for _, i, _ in t.pending():
        t.play(1, i, [1, 2])
    assert seat_lists(t)[1] == [(1, 4), (2, 3)]
    t.play(2, 0, [1, 2])
    t.withdraw(1)  # a winner leaves before his next game: his opponent has a walkover
    t.play(2, 1, [2, 1])
    assert t.finished and t.champion == 3
    places = {s.player: s.place for s in t.standings()}
    assert places[3] == 1 and places[1] == 2 and places[4] == places[2] == 3


def test_a_table_of_three_plays_on_without_the_leaver_who_cannot_go_on() -> None:
    t = Knockout(field(9), seats=3)
    t.withdraw(6)
    assert t.pending()[0] == (1, 0, (1, 6, 9))
    t.play(1, 0, [2, 1, 3])  # the leaver's margin ranked him first: the best of the others goes on
    t.play(1, 1, [1, 2, 3])
    t.withdraw(4)
    t.withdraw(7)  # only 3 left at table 3: he goes on without a game
    assert t.rounds[0].tables[2].forfeit and t.rounds[0].tables[2].winners() == (3,)
    assert seat_lists(t)[1] == [(1, 2, 3)]
    standings = {s.player: s for s in t.standings()}
    assert standings[6].withdrawn and standings[6].place == 4 and standings[6].losses == 1


# -- Swiss ------------------------------------------------------------------------------------


def test_a_6_player_swiss_plays_3_rounds_without_a_rematch() -> None:
    t = Swiss(field(6))
    assert t.total_rounds == 3
    assert seat_lists(t) == [[(1, 2), (3, 4), (5, 6)]]  # by score, then rating
    play_out(t, lambda seats: [2, 1])  # the lower-ranked player wins every game
    assert len(t.rounds) == 3 and t.finished
    pairs = [frozenset(table) for r in seat_lists(t) for table in r]
    assert len(pairs) == len(set(pairs)) == 9
    for r in t.rounds:
        assert sorted(r.players) == [1, 2, 3, 4, 5, 6]
    assert all(s.wins + s.losses == 3 for s in t.standings())


def test_swiss_pairs_by_score_then_rating_and_breaks_ties_by_buchholz() -> None:
    t = Swiss(field(8))
    play_out(t, better_seed_wins)
    assert seat_lists(t)[1:] == [[(1, 3), (5, 7), (2, 4), (6, 8)],
                                 [(1, 5), (2, 3), (6, 7), (4, 8)]]
    lines = t.standings()
    # 5, 2 and 6 have 2 points; Buchholz (6, 5, 3) ranks them before the rating does.
    assert [(s.player, s.points, s.tie_break, s.place) for s in lines][:4] == [
        (1, 3.0, 5.0, 1), (5, 2.0, 6.0, 2), (2, 2.0, 5.0, 3), (6, 2.0, 3.0, 4)]
    assert [s.place for s in lines] == list(range(1, 9))


def test_a_swiss_bye_counts_as_a_win_and_goes_to_a_different_player_each_round() -> None:
    t = Swiss(field(7))
    assert t.rounds[0].byes == (7,)  # the lowest-ranked
    assert {s.player: s.points for s in t.standings()}[7] == 1.0
    play_out(t, lambda seats: [1, 2])
    byes = [r.byes for r in t.rounds]
    assert len(byes) == 3 and all(len(b) == 1 for b in byes) and len({b[0] for b in byes}) == 3
    assert all(s.byes <= 1 for s in t.standings())


def test_a_swiss_draw_is_half_a_point() -> None:
    t = Swiss(field(4))
    t.play(1, 0, [1, 1])
    points = {s.player: (s.points, s.draws) for s in t.standings()}
    assert points[1] == points[2] == (0.5, 1)


def test_a_swiss_forfeit_gives_the_win_and_the_leaver_is_not_paired_again() -> None:
    t = Swiss(field(6))
    t.withdraw(2)
    assert t.rounds[0].tables[0].forfeit and t.rounds[0].tables[0].winners() == (1,)
    play_out(t, lambda seats: [1, 2])
    assert all(2 not in r.players for r in t.rounds[1:])
    assert all(len(r.byes) == 1 for r in t.rounds[1:])  # five left: a bye a round
    lines = t.standings()
    assert lines[-1].player == 2 and lines[-1].withdrawn and lines[-1].losses == 1


# -- round robin ------------------------------------------------------------------------------


def test_a_5_player_round_robin_meets_everyone_once_with_one_bye_a_round() -> None:
    t = RoundRobin(field(5))
    play_out(t, better_seed_wins)
    assert len(t.rounds) == 5 and t.finished
    pairs = Counter(frozenset(table) for r in seat_lists(t) for table in r)
    assert set(pairs) == {frozenset(c) for c in combinations(range(1, 6), 2)}
    assert set(pairs.values()) == {1}
    assert [len(r.byes) for r in t.rounds] == [1] * 5
    assert sorted(b for r in t.rounds for b in r.byes) == [1, 2, 3, 4, 5]
    lines = t.standings()
    # The better seed won every game: 4 wins and a bye for seed 1, down to a bye for seed 5.
    assert [(s.player, s.points, s.place) for s in lines] == [
        (1, 5.0, 1), (2, 4.0, 2), (3, 3.0, 3), (4, 2.0, 4), (5, 1.0, 5)]


def test_a_round_robin_forfeit_gives_every_remaining_game_to_the_opponents() -> None:
    t = RoundRobin(field(4))
    t.play(1, 0, [1, 2])
    t.withdraw(1)  # after his first game
    play_out(t, lambda seats: [1, 2])
    assert t.finished and len(t.rounds) == 3
    games = [tb for r in t.rounds[1:] for tb in r.tables if 1 in tb.seats]
    assert len(games) == 2 and all(tb.forfeit and 1 not in tb.winners() for tb in games)
    by_player = {s.player: s for s in t.standings()}
    assert by_player[1].wins == 1 and by_player[1].losses == 2 and by_player[1].place == 4


def test_a_round_robin_leaver_gets_no_bye() -> None:
    t = RoundRobin(field(3))
    byes = [r.byes for r in t.rounds]
    assert byes == [(1,)]
    t.withdraw(3)
    play_out(t)
    assert all(3 not in r.byes for r in t.rounds)
    assert {s.player: s.byes for s in t.standings()}[3] == 0


# -- bad input --------------------------------------------------------------------------------


def test_what_the_state_forbids_is_refused_and_changes_nothing() -> None:
    t = Knockout(field(4))
    t.play(1, 0, [1, 2])
    before = (seat_lists(t), list(t.history))
    for bad in (lambda: t.play(1, 0, [2, 1]),          # decided already
                lambda: t.play(2, 0, [1, 2]),          # not the round being played
                lambda: t.play(1, 5, [1, 2]),          # no such table
                lambda: t.play(1, 1, [1, 2, 3]),       # places for three at a table of two
                lambda: t.play(1, 1, [2, 2]),          # nobody first
                lambda: t.withdraw(99)):               # not an entrant
        with pytest.raises(TournamentError):
            bad()
    t.withdraw(4)
    with pytest.raises(TournamentError, match="left"):
        t.withdraw(4)
    assert seat_lists(t) == before[0] and t.history == [*before[1], Withdrawal(4)]
    with pytest.raises(TournamentError, match="at most 8"):
        RoundRobin(field(9))
    with pytest.raises(TournamentError, match="two-player"):
        Swiss(field(6), seats=3)
    with pytest.raises(TournamentError, match="at least two"):
        Knockout(field(1))
    with pytest.raises(TournamentError, match="only once"):
        Swiss([Entrant(1, 1.0), Entrant(1, 2.0)])
    with pytest.raises(TournamentError, match="format"):
        replay("ladder", field(4))
    play_out(t)
    with pytest.raises(TournamentError, match="over"):
        t.withdraw(2)


# -- properties -------------------------------------------------------------------------------

FORMAT_SEATS = [("knockout", 2), ("knockout", 3), ("knockout", 4), ("swiss", 2),
                ("round robin", 2)]


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[str, int, list[Entrant]]:
    """A format, its seats and entrants (ratings may tie)."""
    name, seats = draw(st.sampled_from(FORMAT_SEATS))
    n = draw(st.integers(2, 8 if name == "round robin" else 17))
    ratings = draw(st.lists(st.integers(1400, 1410), min_size=n, max_size=n))
    entrants = [Entrant(100 + k, float(r)) for k, r in enumerate(ratings)]
    return name, seats, entrants


def run_script(t: Tournament, data: st.DataObject, leaving: bool) -> None:
    """Play ``t`` to its end with results (and withdrawals) drawn from ``data``."""
    for _ in range(200):
        if t.finished:
            return
        if leaving and data.draw(st.integers(0, 5)) == 0:
            still = [e.player for e in t.entrants if e.player not in t.withdrawn]
            t.withdraw(data.draw(st.sampled_from(still)))
            continue
        r, i, seats = t.pending()[0]
        winner = data.draw(st.integers(0, len(seats) - 1))
        drawn = data.draw(st.integers(0, 7)) == 0
        places = [1 if drawn or k == winner else 2 for k in range(len(seats))]
        t.play(r, i, places)
    raise AssertionError("the tournament never ended")


def check_rounds(t: Tournament) -> None:
    """Every round: nobody twice, tables of two to ``seats`` players, and in Swiss everyone
    still in when the round was drawn plays or has a bye."""
    for r in t.rounds:
        assert len(r.players) == len(set(r.players))
        assert all(2 <= len(table.seats) <= t.seats for table in r.tables)
        if isinstance(t, Swiss):
            assert set(r.players) >= set(t.seeding) - set(t.withdrawn)


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.data(), st.booleans())
def test_every_format_ends_and_replays_to_the_same_rounds(
        spec: tuple[str, int, list[Entrant]], data: st.DataObject, leaving: bool) -> None:
    name, seats, entrants = spec
    t = replay(name, entrants, seats=seats)
    run_script(t, data, leaving)
    check_rounds(t)
    again = replay(name, entrants, t.history, seats=seats)
    assert again.rounds == t.rounds and again.standings() == t.standings()
    assert again.finished
    places = [s.place for s in t.standings()]
    assert all(p is not None for p in places) and min(p or 0 for p in places) == 1
    if isinstance(t, Swiss):
        pairs = [frozenset(table.seats) for r in t.rounds for table in r.tables]
        assert len(pairs) == len(set(pairs)), "a Swiss rematch"
        if not leaving:
            assert len(t.rounds) == t.total_rounds
            byes = [b for r in t.rounds for b in r.byes]
            assert len(byes) == len(set(byes)), "a second bye"
    if isinstance(t, RoundRobin):
        met = Counter(frozenset(table.seats) for r in t.rounds for table in r.tables)
        assert set(met) == {frozenset(c) for c in combinations(t.seeding, 2)}
        assert set(met.values()) == {1}
    if isinstance(t, Knockout) and not t.withdrawn:
        assert t.champion is not None and len(t.rounds) == t.total_rounds
        assert [s.place for s in t.standings()].count(1) == 1
        assert t.standings()[0].player == t.champion


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FORMAT_SEATS), st.integers(2, 12), st.data())
def test_everyone_still_in_plays_each_round_or_has_a_bye(
        format_seats: tuple[str, int], n: int, data: st.DataObject) -> None:
    name, seats = format_seats
    n = min(n, 8) if name == "round robin" else n
    t = FORMATS[name](field(n), seats)
    alive = set(t.seeding)
    checked = 0
    while not t.finished:
        now = t.current
        assert now is not None
        if now.number != checked:
            checked = now.number
            if isinstance(t, Knockout):
                assert set(now.players) == alive  # everyone not knocked out, nobody else
            else:
                assert set(now.players) == set(t.seeding)
        r, i, seated = t.pending()[0]
        winner = data.draw(st.integers(0, len(seated) - 1))
        t.play(r, i, [1 if k == winner else 2 for k in range(len(seated))])
        if isinstance(t, Knockout):
            alive -= set(seated) - {seated[winner]}
    if isinstance(t, Knockout):
        assert alive == {t.champion}


def test_the_same_entrants_and_events_give_the_same_rounds_in_any_sign_up_order() -> None:
    history = [Played(1, 0, (2, 1)), Played(1, 1, (1, 2)), Withdrawal(3), Played(1, 2, (1, 2))]
    a = replay("swiss", field(6), history)
    b = replay("swiss", list(reversed(field(6))), history)
    assert a.rounds == b.rounds and a.standings() == b.standings()
    assert replay("swiss", field(6), history).rounds == a.rounds


def test_swiss_never_pairs_a_rematch_even_when_score_and_rating_say_so() -> None:
    t = Swiss(field(4))
    t.play(1, 0, [1, 1])
    t.play(1, 1, [1, 1])  # everyone on ½: by rating it would be 1-2 and 3-4 again
    assert seat_lists(t)[1] == [(1, 3), (2, 4)]


def test_a_swiss_bye_skips_the_lowest_ranked_who_had_one() -> None:
    t = Swiss(field(5))
    assert seat_lists(t) == [[(1, 2), (3, 4)]] and t.rounds[0].byes == (5,)
    t.play(1, 0, [1, 2])
    t.play(1, 1, [1, 2])
    assert seat_lists(t)[1] == [(1, 3), (5, 2)] and t.rounds[1].byes == (4,)
    t.play(2, 0, [2, 1])
    t.play(2, 1, [2, 1])
    # 3 on 2 points; 1, 2, 4 and 5 on 1: 5 and then 4 are lowest but had theirs, so 2 sits out.
    assert t.rounds[2].byes == (2,) and seat_lists(t)[2] == [(3, 5), (1, 4)]
