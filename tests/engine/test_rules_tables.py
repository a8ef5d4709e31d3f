"""Rules 23–29 of RULES.md, "Tables of three or four". Each test names the rule it pins down."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    CLASSIC,
    JOKER,
    KINGS,
    PASS,
    Card,
    Dealt,
    Drew,
    EndReason,
    Game,
    GameOver,
    IllegalMoveError,
    Left,
    Match,
    Result,
    SetupError,
    TurnEnded,
    full_deck,
)
from engine.cards import full_pack

C = Card.parse
EMPTY4 = ["", "", "", ""]


def table(rules=CLASSIC, **layout) -> Game:
    """A position at a table of as many seats as ``payoffs`` names (hands empty by default)."""
    n = len(layout["payoffs"])
    layout.setdefault("hands", [""] * n)
    return Game.from_layout(rules, **layout)


# ---------------------------------------------------------------- rule 23: cards


@pytest.mark.parametrize(("rules", "players", "total", "stock"), [
    (CLASSIC, 3, 160, 160 - 78 - 15), (CLASSIC, 4, 212, 212 - 104 - 20),
    (KINGS, 3, 156, 156 - 60 - 15), (KINGS, 4, 208, 208 - 80 - 20)])
def test_rule_23_one_more_pack_per_player(rules, players, total, stock) -> None:
    for seed in range(10):
        game, _ = Game.new(rules, seed, players)
        assert len(game.all_cards()) == total == game.deck_size
        assert Counter(game.all_cards()) == Counter(full_deck(rules, players))
        assert [len(p) for p in game.payoffs] == [rules.payoff_size] * players
        assert [len(h) for h in game.hands] == [5] * players
        assert len(game.stock) == stock
        assert len(game.centre) == rules.centre_stacks
        assert all(len(seat) == 4 for seat in game.sides)


@pytest.mark.parametrize("players", [3, 4])
def test_rule_23_classic_payoff_piles_come_from_the_jokerless_packs(players: int) -> None:
    # Packs A, C (and D) shuffled together give the pay-off piles; the rest joins pack B, so
    # every joker is in a hand or the stock, and the stock holds pack B whole.
    for seed in range(20):
        game, _ = Game.new(CLASSIC, seed, players)
        payoff_cards = [c for pile in game.payoffs for c in pile]
        assert JOKER not in payoff_cards
        rest = Counter(game.stock + [c for h in game.hands for c in h])
        assert rest[JOKER] == 4
        assert not Counter(full_pack(4)) - rest  # pack B is all there
        assert Counter(payoff_cards) + rest == Counter(full_deck(CLASSIC, players))


def test_rule_23_deal_from_a_given_order_at_three() -> None:
    order = full_deck(KINGS, 3)
    game, _ = Game.deal(KINGS, order, players=3)
    assert [game.payoffs[s] for s in range(3)] == [order[0:20], order[20:40], order[40:60]]
    assert [game.hands[s] for s in range(3)] == [order[60:75:3], order[61:75:3], order[62:75:3]]
    assert game.stock[-1] is order[75]
    with pytest.raises(SetupError, match="156 cards"):
        Game.deal(KINGS, order[:-1], players=3)
    with pytest.raises(SetupError, match="two to four|2 to 4"):
        Game.new(KINGS, 1, players=5)


def test_rule_23_two_players_keep_their_deal() -> None:
    for rules in (CLASSIC, KINGS):
        for seed in range(20):
            assert Game.new(rules, seed)[0] == Game.new(rules, seed, players=2)[0]
            assert Game.new(rules, seed)[0].to_dict() == Game.new(rules, seed, 2)[0].to_dict()


# ---------------------------------------------------------------- rule 24: seats and turns


def test_rule_24_play_passes_to_the_next_seat_and_the_last_back_to_the_first() -> None:
    game = table(KINGS, payoffs=["9C", "9D", "9H", "9S"],
                 hands=["2C", "2D", "2H", "2S"], turn=1)
    seen = []
    for _ in range(6):
        seen.append(game.turn)
        events = game.play(game.legal_endings()[0])
        ended = [e for e in events if isinstance(e, TurnEnded)]
        assert ended and ended[0].next_player == game.turn
    assert seen == [1, 2, 3, 0, 1, 2]


def _order_with_tops(tops: list[str], players: int) -> list[Card]:
    """A kings deal order whose pay-off tops are ``tops`` (the cards swapped in from later)."""
    order = full_deck(KINGS, players)
    for seat, text in enumerate(tops):
        index = 20 * seat + 19
        want = C(text)
        j = next(k for k in range(len(order)) if order[k] is want
                 and not any(k == 20 * s + 19 for s in range(seat)))
        order[index], order[j] = order[j], order[index]
    return order


def test_rule_24_highest_top_starts() -> None:
    game, events = Game.deal(KINGS, _order_with_tops(["7C", "JD", "3H"], 3), players=3)
    assert game.turn == game.first_player == 1
    (dealt,) = events
    assert isinstance(dealt, Dealt) and dealt.reshuffles == 0 and dealt.first_player == 1
    assert [c.text for c in dealt.payoff_tops] == ["7C", "JD", "3H"]


def test_rule_24_only_the_tied_players_reshuffle_and_compare_again() -> None:
    order = _order_with_tops(["QC", "4D", "QH", "QS"], 4)
    game, events = Game.deal(KINGS, order, players=4)
    (dealt,) = events
    assert isinstance(dealt, Dealt) and dealt.reshuffles >= 1
    assert game.payoffs[1] == order[20:40]  # the lower top is left alone
    assert dealt.first_player in (0, 2, 3)
    for seat in (0, 2, 3):
        assert Counter(game.payoffs[seat]) == Counter(order[20 * seat: 20 * seat + 20])
    tops = {s: game.payoffs[s][-1].rank for s in (0, 2, 3)}
    assert tops[dealt.first_player] == max(tops.values())
    # Whoever is not among the last tied ones lost an earlier comparison or this one.
    assert list(tops.values()).count(max(tops.values())) == 1


def test_rule_24_ties_are_reshuffled_in_seeded_deals_too() -> None:
    found = 0
    for seed in range(300):
        game, (dealt,) = Game.new(KINGS, seed, 3)
        assert isinstance(dealt, Dealt)
        assert dealt.payoff_tops == tuple(p[-1] for p in game.payoffs)
        assert dealt.first_player == game.turn
        if not dealt.reshuffles:
            top = game.payoffs[game.first_player][-1].rank
            assert all(game.payoffs[s][-1].rank < top for s in range(3) if s != game.first_player)
        found += dealt.reshuffles > 0
    assert found > 0


# ---------------------------------------------------------------- rule 25: winning and score


def test_rule_25_last_payoff_card_wins_and_scores_every_loser_margin() -> None:
    game = table(payoffs=["AC", "9D 9D 9H", "5C", "2C 2D 2H 3H 3C 4C 4D"],
                 centre=["", "", "", ""], turn=0)
    events = game.play("P>C1")
    result = game.result
    assert result is not None and result.winner == 0
    assert result.reason is EndReason.PAYOFF_EMPTIED
    assert result.margins == (None, 3, 1, 7)
    assert result.score == 11
    assert result.losers == ((2, 1), (1, 3), (3, 7))
    assert result.ranks == (1, 3, 2, 4)
    assert isinstance(events[-1], GameOver)


FULL = ["KS QS JS 10S 9S", "KD QD JD 10D 9D", "KH QH JH 10H 9H", "KC QC JC 10C 9C"]
"""Full hands without an Ace or a 2: nobody draws, nothing is compulsory."""


def test_rule_25_classic_stalemate_takes_a_whole_round() -> None:
    game = table(payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3], turn=0)
    game.play(PASS)
    game.play(PASS)
    assert game.result is None  # two idle turns are not a round of three
    game.play(PASS)
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    assert result.winner == 1
    assert result.margins == (2, None, 1)  # pay-off count minus the winner's
    assert result.score == 3 and result.ranks == (3, 1, 2)


def test_rule_25_a_play_or_discard_breaks_the_round() -> None:
    game = table(payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3], turn=0)
    game.play(PASS)
    game.play(PASS)
    game.play("KH>S1")  # seat 2 discards: not idle (and draws a card back next turn)
    game.play(PASS)
    game.play(PASS)
    assert game.result is None
    game.play(PASS)
    assert game.result is not None and game.result.winner == 1


FOUR = ["9C 9C 9C", "9D", "9H 9H", "8S 8S 8S 8S"]
"""Pay-off piles of a table of four: seat 1 has the fewest."""


def test_rule_25_a_leaver_neither_counts_as_an_idle_turn_nor_breaks_the_round() -> None:
    game = table(payoffs=FOUR, hands=FULL, turn=0)
    game.play(PASS)
    game.play(PASS)  # seats 0 and 1 idle; seat 2 on turn
    assert game.resign(3) == [Left(3, 4, 2)]  # seat 3 leaves before his turn
    assert game.result is None
    events = game.play(PASS)  # seat 2: every player still seated has now ended a turn idle
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    assert isinstance(events[-1], GameOver)
    assert result.winner == 1 and result.left == (3,)
    assert result.margins == (2, None, 1, 4)  # the leaver's count is not reduced (rule 26)
    assert result.score == 7 and result.ranks == (3, 1, 2, 4)


def test_rule_25_a_leaver_who_ended_an_idle_turn_no_longer_counts_in_the_round() -> None:
    game = table(payoffs=FOUR, hands=FULL, turn=0)
    game.play(PASS)
    game.play(PASS)  # seats 0 and 1 idle; seat 2 on turn
    game.resign(0)  # seat 0's idle turn leaves with him: the round is now seats 1, 2 and 3
    game.play(PASS)
    assert game.result is None  # seat 3 has not ended a turn yet
    game.play(PASS)
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    assert result.winner == 1 and result.margins == (3, None, 1, 3)
    assert result.score == 7 and result.ranks == (3, 1, 2, 3)


def test_rule_25_the_player_on_turn_leaving_without_a_play_completes_the_round() -> None:
    game = table(payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3], turn=0)
    game.play(PASS)
    game.play(PASS)  # seats 0 and 1 idle; seat 2 on turn leaves without a play
    events = game.resign(2)
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    assert isinstance(events[0], Left) and isinstance(events[-1], GameOver)
    assert result.winner == 1 and result.left == (2,)
    assert result.margins == (2, None, 2) and result.score == 4


def test_rule_25_the_player_on_turn_leaving_after_a_play_breaks_the_round() -> None:
    game = table(payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3],
                 centre=["AD 2D 3D 4D 5D 6D 7D 8D", "", "", ""], turn=0)
    game.play(PASS)
    game.play(PASS)
    game.play("9H>C1")  # seat 2 plays, then leaves: a play since the idle turns
    game.resign(2)
    assert game.result is None
    game.play(PASS)
    assert game.result is None
    game.play(PASS)
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    assert result.winner == 1 and result.margins == (2, None, 2) and result.score == 4


def test_rule_25_a_shared_fewest_is_a_drawn_game() -> None:
    game = table(payoffs=["9C 9C", "9D", "9H"], hands=FULL[:3], turn=0)
    for _ in range(3):
        game.play(PASS)
    result = game.result
    assert result is not None and result.winner is None and result.score == 0
    assert result.margins == (None, None, None) and result.ranks == (1, 1, 1)
    assert result.losers == ()


def test_rule_25_kings_stock_out_ties_the_whole_table() -> None:
    # Four seats, the fourth has left and his side stacks hold every card not placed, so the
    # stock is empty and cards are still conserved.
    placed = Counter(C(t) for t in ["9C", "9D", "9H", "9S", "2C"])
    rest = list((Counter(full_deck(KINGS, 4)) - placed).elements())
    quarter = len(rest) // 4
    piles = [" ".join(c.text for c in rest[k * quarter:(k + 1) * quarter if k < 3 else None])
             for k in range(4)]
    game = table(KINGS, payoffs=["9C", "9D", "9H", "9S"], hands=["2C", "", "", ""],
                 sides=[EMPTY4, EMPTY4, EMPTY4, piles], left=[3], turn=0)
    assert game.stock == [] and len(game.all_cards()) == 208
    game.play("2C>S1")  # seat 1 must draw from an empty stock
    result = game.result
    assert result is not None and result.reason is EndReason.STOCK_OUT
    assert result.winner is None and result.score == 0
    assert result.ranks == (1, 1, 1, 1) and result.margins == (None, None, None, 1)


@pytest.mark.parametrize("rules", [CLASSIC, KINGS], ids=lambda r: r.name)
def test_rule_25_the_turn_limit(rules) -> None:
    game = table(rules, payoffs=["9C 9C", "9D", "9H 9H"], hands=["KS", "KD", "KH"], turn=2)
    game.turn_number = rules.turn_limit - 1
    game.play("KH>S1")
    result = game.result
    assert result is not None and result.reason is EndReason.TURN_LIMIT
    if rules.stalemate:  # classic: scored like a stalemate
        assert result.winner == 1 and result.margins == (1, None, 1) and result.score == 2
    else:  # kings: the whole table ties
        assert result.winner is None and result.score == 0


def test_rule_25_classic_turn_limit_at_four_is_scored_as_a_stalemate_among_the_seated() -> None:
    game = table(payoffs=["9C 9C", "9D", "9H 9H", "9S 9S 9S"], hands=FULL, left=[3], turn=2)
    game.turn_number = CLASSIC.turn_limit - 1
    game.play("KH>S1")
    result = game.result
    assert result is not None and result.reason is EndReason.TURN_LIMIT
    assert result.winner == 1 and result.margins == (1, None, 1, 3) and result.score == 5
    assert result.ranks == (2, 1, 2, 4)
    drawn = table(payoffs=["9C", "9D", "9H 9H", "9S 9S 9S"], hands=FULL, left=[3], turn=2)
    drawn.turn_number = CLASSIC.turn_limit - 1
    drawn.play("KH>S1")
    result = drawn.result
    assert result is not None and result.reason is EndReason.TURN_LIMIT
    assert result.winner is None and result.score == 0 and result.ranks == (1, 1, 1, 1)


def test_rule_25_kings_turn_limit_at_four_ties_the_whole_table() -> None:
    game = table(KINGS, payoffs=["9C 9C", "9D", "9H 9H", "9S 9S 9S"], hands=FULL, left=[3],
                 turn=2)
    game.turn_number = KINGS.turn_limit - 1
    game.play("KH>S1")
    result = game.result
    assert result is not None and result.reason is EndReason.TURN_LIMIT
    assert result.winner is None and result.score == 0 and result.losers == ((3, 3),)
    assert result.ranks == (1, 1, 1, 1)


# ---------------------------------------------------------------- rule 26: leaving


def test_rule_26_a_leavers_turns_are_skipped_and_his_piles_stay() -> None:
    game = table(KINGS, payoffs=["9C", "9D 8D", "9H"], hands=["2C 3C", "2D 3D", "2H 3H"],
                 sides=[EMPTY4, ["4D", "", "", ""], EMPTY4, ], turn=0)
    piles = (list(game.payoffs[1]), [list(s) for s in game.sides[1]], list(game.hands[1]))
    events = game.resign(1)
    assert events == [Left(1, 2, 0)]
    assert game.left == (1,) and game.seated == (0, 2) and game.result is None
    turns = []
    for _ in range(4):
        turns.append(game.turn)
        game.play(game.legal_endings()[0])
    assert turns == [0, 2, 0, 2]
    assert (game.payoffs[1], game.sides[1], game.hands[1]) == piles
    with pytest.raises(IllegalMoveError, match="not your turn"):
        game.play("2D>S1", player=1)
    with pytest.raises(IllegalMoveError, match="left"):
        game.resign(1)


def test_rule_26_leaving_on_turn_passes_the_turn_and_the_next_one_draws() -> None:
    game = table(CLASSIC, payoffs=["9C", "9D", "9H"], hands=["2C 3C", "", "4H"], turn=0,
                 stock="5S 6S 7S 8S 9S 10S")
    events = game.resign(0)
    assert isinstance(events[0], Left) and events[0].next_player == 1
    assert any(isinstance(e, TurnEnded) and e.player == 0 and e.next_player == 1
               for e in events)
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew and drew[0].player == 1 and drew[0].count == 5
    assert game.turn == 1 and game.hands[0] == [C("2C"), C("3C")]


def test_rule_26_one_player_left_wins_at_once_scoring_the_leavers_margins() -> None:
    game = table(payoffs=["8C 8C 8C", "8D", "8H 8H", "8S 8S 8S 7S"], hands=FULL, turn=1)
    game.resign(0)
    game.play(PASS)  # seat 1, idle: a round is now seats 1, 2, 3
    game.resign(3)
    assert game.result is None
    events = game.resign(2)
    result = game.result
    assert result is not None and result.winner == 1
    assert result.reason is EndReason.RESIGNED
    assert result.margins == (3, None, 2, 4) and result.score == 9
    assert result.left == (0, 3, 2)
    assert result.ranks == (3, 1, 2, 4)
    assert [type(e) for e in events] == [Left, GameOver]


def test_rule_26_when_the_rest_draw_the_leaver_owes_nothing_and_ranks_equal() -> None:
    game = table(payoffs=["8C", "8D", "8H 8H 8H"], hands=FULL[:3], turn=0)
    game.resign(2)
    game.play(PASS)
    game.play(PASS)
    result = game.result
    assert result is not None and result.winner is None and result.score == 0
    # He left with 3 pay-off cards (his margin, shown), but a drawn game owes nothing and
    # ranks everyone equal (rule 28), the leavers included.
    assert result.margins == (None, None, 3) and result.ranks == (1, 1, 1)


def test_rule_26_at_a_table_of_two_resigning_ends_the_game() -> None:
    game, _ = Game.new(KINGS, 4)
    game.resign(1)
    result = game.result
    assert result is not None and result.winner == 0 and result.score == 20
    assert result.margins == (None, 20) and result.left == (1,)
    assert result.to_dict() == {"winner": 0, "score": 20, "reason": "resigned",
                                "payoff_left": [20, 20]}


def test_rule_26_leavers_are_saved_and_replayed() -> None:
    game, _ = Game.new(CLASSIC, 3, players=4)

    def step() -> None:
        moves = game.legal_moves()
        discards = [m for m in moves if m.is_discard]
        game.play(discards[0] if discards else moves[0])

    for _ in range(9):
        step()
    game.resign(2)
    for _ in range(9):
        step()
    assert game.result is None
    data = game.to_dict()
    assert data["left"] == [[2, 9]] and data["absent"] == []
    assert Game.from_dict(data) == game
    assert Game.replay(CLASSIC, 3, [m for _, m in game.history], 4, game.departures) == game


# ---------------------------------------------------------------- rule 27: match


def test_rule_27_a_leaver_leaves_the_match_and_is_not_dealt_in_again() -> None:
    match, _ = Match.new(KINGS, 5, players=3)
    match.resign(1)
    assert match.left == [1] and not match.is_over
    game = match.game
    assert game.left == (1,) and game.result is None
    while game.result is None:  # the first player to empty his pay-off pile ends the game
        game_moves = game.legal_plays() or game.legal_moves()
        match.play(game_moves[0])
    assert not match.is_over or max(match.scores) >= 50
    if not match.is_over:
        match.next_game()
        assert match.game.absent == (1,)
        assert len(match.game.all_cards()) == 104  # two packs for the two players left
        assert match.game.payoffs[1] == [] and match.game.hands[1] == []
        assert match.game.turn != 1
        match.resign(2)
    assert match.is_over and match.winner == 0
    assert match.resigned == (2 if len(match.left) == 2 else None)


def _finish_game(match: Match) -> None:
    game = match.game
    while game.result is None:
        plays = game.legal_plays()
        match.play(plays[0] if plays else game.legal_moves()[0])


def test_rule_27_the_next_games_are_dealt_with_the_packs_for_the_players_still_seated() -> None:
    rules = CLASSIC.with_options(match_target=10_000)
    match, _ = Match.new(rules, 7, players=4)
    match.resign(3)
    _finish_game(match)
    match.next_game()
    game = match.game
    assert game.absent == (3,) and game.dealt_in == (0, 1, 2)
    # Three players: packs A and C give the pay-off piles, the rest joins pack B (rule 23).
    assert len(game.all_cards()) == game.deck_size == 160
    assert Counter(game.all_cards()) == Counter(full_deck(CLASSIC, 3))
    assert [len(p) for p in game.payoffs] == [26, 26, 26, 0] and len(game.stock) == 67
    assert not any(c.is_joker for pile in game.payoffs for c in pile)
    match.resign(2)
    _finish_game(match)
    match.next_game()
    game = match.game
    assert game.absent == (2, 3) and game.dealt_in == (0, 1)
    # Two players: the two packs of a game of two, the pay-off piles from pack A alone.
    assert len(game.all_cards()) == game.deck_size == 108
    assert Counter(game.all_cards()) == Counter(full_deck(CLASSIC, 2))
    assert Counter(game.payoffs[0] + game.payoffs[1]) == Counter(full_pack())
    assert len(game.stock) == 108 - 52 - 10 and game.turn in (0, 1)
    kings, _ = Match.new(KINGS, 7, players=4)
    kings.resign(0)
    _finish_game(kings)
    if not kings.is_over:
        kings.next_game()
        assert kings.game.absent == (0,) and len(kings.game.all_cards()) == 156
        assert [len(p) for p in kings.game.payoffs] == [0, 20, 20, 20]


def test_rule_27_first_to_fifty_wins_the_match() -> None:
    match, _ = Match.new(KINGS, 9, players=3)
    games = 0
    while not match.is_over:
        if match.game.result is not None:
            match.next_game()
            games += 1
            assert games < 100
            continue
        plays = match.game.legal_plays()
        match.play(plays[0] if plays else match.game.legal_moves()[0])
    w = match.winner
    assert w is not None and match.scores[w] >= 50
    assert all(s < 50 for seat, s in enumerate(match.scores) if seat != w)
    assert match.scores == [sum(r.score for r in match.results if r.winner == s)
                            for s in range(3)]


# ---------------------------------------------------------------- rule 28: money and ratings


def test_rule_28_ranks_share_places_on_equal_margins() -> None:
    result = Result(2, 12, EndReason.PAYOFF_EMPTIED, (4, 4, 0, 4), (4, 4, None, 4))
    assert result.ranks == (2, 2, 1, 2)
    result = Result(0, 9, EndReason.PAYOFF_EMPTIED, (0, 3, 3, 3), (None, 3, 3, 3))
    assert result.losers == ((1, 3), (2, 3), (3, 3))
    result = Result(3, 10, EndReason.PAYOFF_EMPTIED, (5, 2, 3, 0), (5, 2, 3, None))
    assert result.ranks == (4, 2, 3, 1)
    drawn = Result(None, 0, EndReason.STOCK_OUT, (5, 2, 3))
    assert drawn.ranks == (1, 1, 1) and drawn.losers == ()
    assert Result.from_dict(result.to_dict()) == result


def test_rule_28_a_match_margin_is_the_difference_of_match_scores() -> None:
    match, _ = Match.new(KINGS, 2, players=3)
    match.scores = [51, 20, 35]
    match.results = [Result(0, 51, EndReason.PAYOFF_EMPTIED, (0, 20, 20))]
    match.game.result = match.results[0]
    assert match.is_over and match.winner == 0
    assert match.margins == (None, 31, 16)
    assert match.ranks == (1, 3, 2)


def test_rule_28_a_match_margin_is_never_below_0() -> None:
    match, _ = Match.new(KINGS, 2, players=3)
    match.scores = [0, 45, 48]
    match.resign(1)
    match.resign(2)  # seat 0 wins the game (20 + 20) and, the last one seated, the match
    assert match.is_over and match.winner == 0 and match.scores == [40, 45, 48]
    # Both leavers have more points than the winner: each owes the stake alone.
    assert match.margins == (None, 0, 0) and match.ranks == (1, 2, 2)
    two, _ = Match.new(KINGS, 2)
    two.scores = [0, 45]
    two.resign(1)
    assert two.is_over and two.winner == 0 and two.scores == [20, 45]
    assert two.margins == (None, 0) and two.margin == 0 and two.ranks == (1, 2)


def test_rule_28_shared_places_are_counted_1_2_2_4() -> None:
    result = Result(0, 11, EndReason.PAYOFF_EMPTIED, (0, 3, 3, 5), (None, 3, 3, 5))
    assert result.ranks == (1, 2, 2, 4)
    assert Result(1, 6, EndReason.PAYOFF_EMPTIED, (2, 0, 2, 2), (2, None, 2, 2)).ranks \
        == (2, 1, 2, 2)
    match, _ = Match.new(KINGS, 2, players=4)
    match.scores = [40, 0, 40, 10]
    for seat in (0, 2, 3):
        match.resign(seat)
    assert match.winner == 1 and match.scores == [40, 60, 40, 10]
    assert match.margins == (20, None, 20, 50) and match.ranks == (2, 1, 2, 4)


def test_rule_28_a_one_game_match_owes_on_the_game_margins() -> None:
    match, _ = Match.new(CLASSIC, 2, players=3)
    match.game.resign(1)
    match.game.resign(2)
    match.left = [1, 2]
    assert match.is_over and match.winner == 0
    assert match.margins == (None, 26, 26) and match.ranks == (1, 2, 2)


# ---------------------------------------------------------------- rule 29: public and private


def test_rule_29_each_seat_sees_its_own_hand_and_everyone_else_in_play_order() -> None:
    game, _ = Game.new(CLASSIC, 11, players=4)
    for viewer in range(4):
        view = game.view(viewer)
        assert view.hand == tuple(game.hands[viewer])
        assert [o.seat for o in view.opponents] == [(viewer + k) % 4 for k in (1, 2, 3)]
        for o in view.opponents:
            assert o.hand_size == len(game.hands[o.seat])
            assert o.payoff_top is game.payoffs[o.seat][-1]
            assert o.payoff_count == len(game.payoffs[o.seat])
            assert not hasattr(o, "hand")
        assert view.hand_sizes == (5, 5, 5, 5) and view.players == 4
        assert view.seat(viewer).hand_size == 5
    public = game.public_view()
    assert public.hand is None and [o.seat for o in public.opponents] == [0, 1, 2, 3]


def test_rule_29_a_draw_is_shown_only_to_the_drawer() -> None:
    game = table(KINGS, payoffs=["9C", "9D", "9H"], hands=["2C", "", ""], turn=0,
                 stock="5S 6S 7S 8S 9S 10S")
    events = game.play("2C>S1")
    (drew,) = [e for e in events if isinstance(e, Drew)]
    assert drew.player == 1 and drew.cards is not None
    assert drew.visible_to(1) == drew
    assert drew.visible_to(0).cards is None and drew.visible_to(2).cards is None  # type: ignore[attr-defined]
    assert drew.visible_to(None).cards is None  # type: ignore[attr-defined]
