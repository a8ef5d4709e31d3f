"""Rules 17–22 of RULES.md: the kings rule set."""

from __future__ import annotations

import pytest

from engine import KINGS, Card, EndReason, GameOver, IllegalMoveError, Match, Played

from .conftest import lay, moves
from .test_rules_common import short_stock

C = Card.parse


# ---------------------------------------------------------------- rule 17: kings are wild


def test_rule_17_king_becomes_the_rank_the_stack_needs() -> None:
    game = lay(KINGS, hands=["KH 7S 7C 8S 8C", ""], centre=["AS 2S 3S"])
    events = game.play("KH>C1")
    assert isinstance(events[0], Played) and events[0].as_rank == 4
    assert game.view(0).centre[0].needs == 5


def test_rule_17_king_starts_a_stack_as_its_ace() -> None:
    game = lay(KINGS, hands=["KH 7S 7C 8S 8C", ""])
    assert {"KH>C1", "KH>C2", "KH>C3"} <= moves(game)
    events = game.play("KH>C2")
    assert isinstance(events[0], Played) and events[0].as_rank == 1


def test_rule_17_option_off_kings_cannot_start_a_stack() -> None:
    rules = KINGS.with_options(king_starts_stack=False)
    game = lay(rules, hands=["KH 7S 7C 8S 8C", ""], centre=["AS"])
    assert "KH>C1" in moves(game)
    assert "KH>C2" not in moves(game)
    with pytest.raises(IllegalMoveError, match="only an Ace can start"):
        game.play("KH>C2")


def test_rule_17_stack_completes_with_a_queen_or_a_king_on_the_jack() -> None:
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"
    for card in ("QH", "KH"):
        game = lay(KINGS, hands=[f"{card} 7C 7D 8S 8C", ""], centre=[run])
        stock = len(game.stock)
        game.play(f"{card}>C1")
        assert game.centre[0] == [] and len(game.stock) == stock + 12


def test_rule_17_kings_are_ordinary_on_side_stacks() -> None:
    game = lay(KINGS, hands=["KH 7C 7D 8S 8C", ""], sides=[["KS", "", "", ""], ["", "", "", ""]],
               centre=["AS 2S 3S 4S"])
    assert "S1>C1" in moves(game)  # a King on a side top still plays wild to the centre
    game.play("KH>S1")
    assert game.sides[0][0] == [C("KS"), C("KH")]


# ---------------------------------------------------------------- rule 18: side stacks


def test_rule_18_any_card_on_any_side_stack() -> None:
    game = lay(KINGS, hands=["2H 7C QD 8S AC", ""],
               sides=[["5C", "KD", "2S", ""], ["", "", "", ""]])
    legal = moves(game)
    for card in ("2H", "7C", "QD", "8S", "AC"):
        assert {f"{card}>S{i}" for i in range(1, 5)} <= legal


# ---------------------------------------------------------------- rule 19: no pass


def test_rule_19_kings_has_no_pass() -> None:
    game = lay(KINGS, hands=["2H 7C QD 8S 10C", ""])
    assert "pass" not in moves(game)
    with pytest.raises(IllegalMoveError, match="can't pass in kings"):
        game.play("pass")


# ---------------------------------------------------------------- rule 20: stock-out tie


def test_rule_20_a_draw_that_empties_the_stock_is_completed() -> None:
    game = short_stock(KINGS, ["7S 8S 9S 10S", "4C 5C 6C 7C 8C"], "JD")
    game.turn = 1
    game.play("8C>S1")
    assert game.result is None
    assert len(game.hands[0]) == 5 and game.stock == []


def test_rule_20_the_next_draw_that_finds_nothing_is_a_tie() -> None:
    game = short_stock(KINGS, ["7S 8S 9S 10S", "4C 5C 6C 7C 8C"], "JD")
    game.turn = 1
    game.play("8C>S1")
    events = game.play("7S>S1")  # seat 1 must draw from the empty stock
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.result.reason is EndReason.STOCK_OUT
    assert over.result.winner is None and over.result.score == 0


def test_rule_20_an_emptied_hand_with_an_empty_stock_is_a_tie() -> None:
    game = short_stock(KINGS, ["AH", "4C 5C 6C 7C 8C"], "")
    events = game.play("AH>C1")
    assert isinstance(events[-1], GameOver)
    assert game.result is not None and game.result.reason is EndReason.STOCK_OUT


# ---------------------------------------------------------------- rule 21: match to 50


def _seat0_wins_by(points: int):
    """A kings position where seat 0 plays its last pay-off card and scores ``points``."""
    fillers = ("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD "
               "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH").split()
    return lay(KINGS, payoffs=["AS", " ".join(fillers[:points])], hands=["KS QS JS 10S 9S", ""])


def test_rule_21_match_goes_to_fifty_and_tied_games_add_nothing() -> None:
    match, _ = Match.new(KINGS, seed=5)
    assert match.target == 50
    match.game = _seat0_wins_by(30)
    match.play("P>C1")
    assert match.scores == [30, 0] and not match.is_over and match.winner is None
    match.next_game()
    assert match.game_number == 2
    match.game = short_stock(KINGS, ["AH", "4C 5C 6C 7C 8C"], "")
    match.play("AH>C1")  # stock-out: a tied game
    assert match.results[-1].winner is None and match.scores == [30, 0]
    match.next_game()
    match.game = _seat0_wins_by(20)
    match.play("P>C1")
    assert match.scores == [50, 0]
    assert match.is_over and match.winner == 0 and match.margin == 50
    with pytest.raises(IllegalMoveError, match="match is over"):
        match.next_game()


# ---------------------------------------------------------------- rule 22: turn limit


def test_rule_22_thousand_turns_end_as_a_tie() -> None:
    game = lay(KINGS, payoffs=["9C 9S 10C 10S", "9D 10D"], hands=["7C 7D 8S 8C 4S", ""])
    game.turn_number = 998
    game.play("7C>S1")
    assert game.result is None
    game.play(game.legal_moves()[-1])
    assert game.result is not None
    assert game.result.reason is EndReason.TURN_LIMIT and game.result.winner is None


# ---------------------------------------------------------------- three centre stacks, in words


@pytest.mark.parametrize("text", ["AC>C4", "AC>C9", "AC>banana", "AC>C0"])
def test_kings_refusals_name_c1_to_c3(text: str) -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["AH AS AD AC 7C", ""])
    with pytest.raises(ValueError) as info:
        game.play(text)
    assert "C1 to C3" in str(info.value)
    assert "C1 to C4" not in str(info.value)


def test_a_long_move_text_gets_a_short_refusal() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["AH AS AD AC 7C", ""])
    with pytest.raises(ValueError) as info:
        game.play("AC>" + "C" * 3000)
    assert len(str(info.value)) < 300
