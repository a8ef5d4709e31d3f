"""Rules 9–16 of RULES.md: the classic (card-book) rule set."""

from __future__ import annotations

import pytest

from engine import CLASSIC, JOKER, Card, EndReason, GameOver, IllegalMoveError, Played

from .conftest import EMPTY4, lay, moves

C = Card.parse
FOUR = ["AS 2S", "AC 2C", "AD 2D", "AH 2H 3H"]  # four centre stacks in play


# ---------------------------------------------------------------- rule 9: jokers


def test_rule_9_joker_is_wild_but_never_an_ace() -> None:
    game = lay(CLASSIC, hands=["JK 7S 7C 8S 8C", ""], centre=["AS 2S 3S"])
    assert "JK>C1" in moves(game)  # stands for the 4
    assert "JK>C2" not in moves(game)  # can't start a stack
    with pytest.raises(IllegalMoveError, match="A joker can't start a centre stack"):
        game.play("JK>C2")
    events = game.play("JK>C1")
    assert isinstance(events[0], Played) and events[0].as_rank == 4
    assert game.view(0).centre[0].needs == 5


def test_rule_9_joker_completes_a_stack_as_the_king() -> None:
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS"
    game = lay(CLASSIC, hands=["JK 7C 7D 8S 8C", ""], centre=[run])
    game.play("JK>C1")
    assert game.centre[0] == []
    assert JOKER in game.stock


def test_rule_9_natural_king_only_as_the_thirteenth_card() -> None:
    game = lay(CLASSIC, hands=["KH 7C 7D 8S 8C", ""], centre=["AS 2S 3S"])
    with pytest.raises(IllegalMoveError, match="A King can't go on centre stack 1: it needs a 4"):
        game.play("KH>C1")


# ---------------------------------------------------------------- rule 10: compulsory aces


def test_rule_10_ace_in_hand_must_be_played_first() -> None:
    game = lay(CLASSIC, hands=["AH 7C 7D 8S 8C", ""], centre=["AS 2S"])
    assert moves(game) == {"AH>C2", "AH>C3", "AH>C4"}
    with pytest.raises(IllegalMoveError, match="You must play your Ace to the centre first"):
        game.play("7C>S1")
    with pytest.raises(IllegalMoveError, match="You must play your Ace"):
        game.play("pass")


def test_rule_10_ace_on_payoff_or_side_top_is_compulsory_too() -> None:
    game = lay(CLASSIC, payoffs=["9C AD", "9D"], hands=["7C 7D 8S 8C 9S", ""])
    assert moves(game) == {"P>C1", "P>C2", "P>C3", "P>C4"}
    game = lay(CLASSIC, hands=["7C 7D 8S 8C 9S", ""], sides=[["AD", "", "", ""], EMPTY4],
               centre=FOUR[:3])
    assert moves(game) == {"S1>C4"}


def test_rule_10_revealed_payoff_ace_is_due_mid_turn() -> None:
    game = lay(CLASSIC, payoffs=["9C AH 3S", "9D"], hands=["7C 7D 8S 8C 9S", ""],
               centre=["AS 2S"])
    game.play("P>C1")  # the 3 reveals an Ace
    assert moves(game) == {"P>C2", "P>C3", "P>C4"}


def test_rule_10_due_ace_on_a_wrong_stack_gets_the_stack_reason() -> None:
    game = lay(CLASSIC, hands=["AH 5C 6C 7C 8C", ""], centre=["AS 2S 3S"])
    with pytest.raises(IllegalMoveError, match="An Ace can't go on centre stack 1: it needs a 4"):
        game.play("AH>C1")
    with pytest.raises(IllegalMoveError, match="You must play your Ace to the centre first"):
        game.play("5C>S2")


def test_rule_10_ace_on_a_side_stack_is_compulsory_after_a_stack_completes() -> None:
    game = lay(CLASSIC, hands=["5C 6C 7C 8C 9H", ""],
               sides=[["3S 2S AS", "", "", ""], EMPTY4], centre=["AD"])
    assert moves(game) == {"S1>C2", "S1>C3", "S1>C4"}


def test_rule_10_no_compulsion_with_four_centre_stacks() -> None:
    game = lay(CLASSIC, hands=["AH 7C 7D 8S 8C", ""], centre=FOUR)
    legal = moves(game)
    assert "pass" in legal and "7C>S1" in legal
    assert not any(m.startswith("AH>C") for m in legal)


# ---------------------------------------------------------------- rule 11: compulsory twos


def test_rule_11_two_must_go_on_a_centre_ace() -> None:
    game = lay(CLASSIC, hands=["2H 7C 7D 8S 8C", ""], centre=["AS", "AC 2C 3C"])
    assert moves(game) == {"2H>C1"}
    with pytest.raises(IllegalMoveError, match="You must play your 2 on the Ace"):
        game.play("8S>S1")


def test_rule_11_joker_is_never_compulsory() -> None:
    game = lay(CLASSIC, hands=["JK 7C 7D 8S 8C", ""], centre=["AS"])
    legal = moves(game)
    assert "JK>C1" in legal and "pass" in legal and "7C>S1" in legal


def test_rule_11_aces_or_twos_first_is_the_players_choice() -> None:
    game = lay(CLASSIC, hands=["2H AD 7D 8S 8C", ""], centre=["AS"])
    assert moves(game) == {"2H>C1", "AD>C2", "AD>C3", "AD>C4"}
    with pytest.raises(IllegalMoveError, match="Ace to the centre, or your 2"):
        game.play("pass")


def test_rule_11_two_on_side_top_is_compulsory() -> None:
    game = lay(CLASSIC, hands=["7C 7D 8S 8C 9S", ""], centre=["AS"],
               sides=[["2D", "", "", ""], EMPTY4])
    assert moves(game) == {"S1>C1"}


# ---------------------------------------------------------------- rule 12: side stacks


def test_rule_12_side_stack_takes_same_rank_or_one_lower() -> None:
    game = lay(CLASSIC, hands=["5H 6H 7H 4H 9S", ""], sides=[["6C", "", "", ""], EMPTY4])
    legal = moves(game)
    assert {"5H>S1", "6H>S1"} <= legal
    assert "7H>S1" not in legal and "4H>S1" not in legal
    assert {"9S>S2", "4H>S3"} <= legal  # any card starts an empty side stack
    with pytest.raises(IllegalMoveError, match="A 7 can't go on side stack 1: its top is a 6"):
        game.play("7H>S1")


def test_rule_12_two_on_three_only_with_four_centre_stacks() -> None:
    hand = "2H 7C 7D 8S 8C"
    game = lay(CLASSIC, hands=[hand, ""], sides=[["3C", "", "", ""], EMPTY4],
               centre=["AS 2S 3S", "AC 2C 3C 4C"])
    assert "2H>S1" not in moves(game)
    with pytest.raises(IllegalMoveError,
                       match="A 2 may go on a 3 in a side stack only while there are four"):
        game.play("2H>S1")
    game = lay(CLASSIC, hands=[hand, ""], sides=[["3C", "", "", ""], EMPTY4], centre=FOUR)
    assert "2H>S1" in moves(game)


def test_rule_12_ace_on_two_only_with_four_centre_stacks() -> None:
    game = lay(CLASSIC, hands=["AH 7C 7D 8S 8C", ""], sides=[["2C", "", "", ""], EMPTY4],
               centre=FOUR)
    assert "AH>S1" in moves(game)


def test_rule_12_side_stacks_take_cards_from_the_hand_only() -> None:
    game = lay(CLASSIC, payoffs=["9C 7S", "9D"], hands=["10C 10D 8S 8C 9S", ""],
               sides=[["8H", "8D", "", ""], EMPTY4])
    legal = moves(game)
    assert not any(m.startswith("P>S") or m.startswith("S1>S") for m in legal)


# ---------------------------------------------------------------- rule 13: jokers on side stacks


def test_rule_13_joker_on_a_card_stands_for_that_rank_or_one_lower() -> None:
    game = lay(CLASSIC, hands=["7H 6H 5H 8H 4H", ""], sides=[["7C JK", "", "", ""], EMPTY4])
    legal = moves(game)
    assert {"7H>S1", "6H>S1", "5H>S1"} <= legal  # on a 7 or a 6
    assert "8H>S1" not in legal and "4H>S1" not in legal


def test_rule_13_joker_on_an_empty_side_stack_stands_for_any_rank_2_to_k() -> None:
    game = lay(CLASSIC, hands=["KH 2H 5H 8H 4H", ""], sides=[["JK", "", "", ""], EMPTY4],
               centre=FOUR)
    legal = moves(game)
    assert {"KH>S1", "2H>S1", "5H>S1"} <= legal


def test_rule_13_joker_on_a_joker() -> None:
    game = lay(CLASSIC, payoffs=["4C", "4D"], hands=["9H 8H 7H 10H 6H", ""],
               sides=[["9C JK JK", "", "", ""], EMPTY4])
    legal = moves(game)
    assert {"9H>S1", "8H>S1", "7H>S1", "6H>S1"} <= legal  # the top joker: 9, 8 or 7
    assert "10H>S1" not in legal


def test_rule_13_joker_counting_as_three_restricts_a_two() -> None:
    game = lay(CLASSIC, hands=["JK 2H 7C 7D 8S", "9H 10H JD 10D 10C"],
               sides=[["3C", "", "", ""], EMPTY4], centre=["AS 2S 3S"])
    game.play("JK>S1")  # placed on a 3 with one centre stack: it can only be a 3
    game.play("pass")
    assert "2H>S1" not in moves(game)
    with pytest.raises(IllegalMoveError, match="A 2 may go on a 3 in a side stack only while"):
        game.play("2H>S1")


def test_rule_13_a_joker_refused_on_an_ace_is_told_it_cant_stand_for_an_ace() -> None:
    game = lay(CLASSIC, hands=["JK 7C 7D 8S 8C", ""], sides=[["AH", "", "", ""], EMPTY4],
               centre=FOUR)
    assert "JK>S1" not in moves(game)
    with pytest.raises(IllegalMoveError) as info:
        game.play("JK>S1")
    assert str(info.value) == ("A joker can't go on side stack 1: its top is an Ace, and a joker "
                               "can't stand for an Ace.")


def test_rule_13_what_a_side_stack_joker_stands_for_is_public() -> None:
    game = lay(CLASSIC, hands=["JK JK 7D 8S 8C", "9H 10H JD 10D 10C"],
               sides=[["8C", "3C", "", ""], EMPTY4], centre=["AS 2S 3S"])
    game.play("JK>S1")  # on an 8: a 7 or an 8
    game.play("10H>S1")
    game.play("JK>S2")  # on a 3 with one centre stack: only a 3 (rule 12)
    for view in (game.public_view(), game.view(0), game.view(1)):
        assert view.side_ranks[0][0] == ((8,), (7, 8))
        assert view.side_ranks[0][1] == ((3,), (3,))
        assert view.joker_ranks(0, 0) == [(), (7, 8)]
        assert view.to_dict()["side_ranks"][0][1] == [[3], [3]]
    assert game.view(1).side_ranks[1] == (((10,),), (), (), ())


def test_rule_13_joker_starting_a_side_stack_may_be_a_two_for_a_two() -> None:
    # On an empty side stack the joker stands for any rank 2..K, so a 2 fits on it as the same
    # rank (rule 13), even with fewer than four centre stacks.
    game = lay(CLASSIC, hands=["2H 7C 7D 8S 8C", ""], sides=[["JK", "", "", ""], EMPTY4],
               centre=["AS 2S 3S"])
    assert "2H>S1" in moves(game)


def test_rule_13_joker_on_a_side_top_plays_to_the_centre_as_any_rank() -> None:
    game = lay(CLASSIC, hands=["7C 7D 8S 8C 9S", ""], sides=[["KC JK", "", "", ""], EMPTY4],
               centre=["AS 2S 3S 4S"])
    assert "S1>C1" in moves(game)  # stands for the 5 although it was placed as K or Q
    assert "S1>C2" not in moves(game)  # never an Ace
    game.play("S1>C1")
    assert game.sides[0][0] == [C("KC")]


# ---------------------------------------------------------------- rule 14: passing


def test_rule_14_passing_ends_the_turn() -> None:
    game = lay(CLASSIC, hands=["7C 7D 8S 8C 9S", "7H 8H 9H 10H JH"])
    assert "pass" in moves(game)
    game.play("pass")
    assert game.turn == 1


# ---------------------------------------------------------------- rule 15: stock runs dry


def test_rule_15_play_goes_on_with_an_empty_stock_and_completed_stacks_refill_it() -> None:
    from .test_rules_common import short_stock

    game = short_stock(CLASSIC, ["QS 7D 8S 8C", "7H 8H 9H 10H JH"], "")
    assert game.stock == []
    game.play("pass")
    game.play("7H>S1")  # seat 1 discards; seat 0 draws nothing and goes on
    assert game.result is None and len(game.hands[0]) == 4 and game.turn == 0


def test_rule_15_completed_stack_refills_an_empty_stock() -> None:
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS"
    game = lay(CLASSIC, hands=["KH 7C 7D 8S 8C", ""], centre=[run])
    game.stock.clear()  # pretend the stock ran dry (cards set aside for this test)
    game.play("KH>C1")
    assert len(game.stock) == 13


# ---------------------------------------------------------------- rule 16: stalemate


def test_rule_16_two_idle_turns_end_the_game_fewer_payoff_cards_wins() -> None:
    game = lay(CLASSIC, payoffs=["9C 9S 10C", "9D 10D 10H 10S 9H"],
               hands=["7C 7D 8S 8C 4S", "7H 8H 4H 5H 6H"])
    game.play("pass")
    events = game.play("pass")
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.result.reason is EndReason.STALEMATE
    assert over.result.winner == 0 and over.result.score == 2


def test_rule_16_a_play_or_discard_breaks_the_idle_run() -> None:
    game = lay(CLASSIC, hands=["7C 7D 8S 8C 4S", "7H 8H 4H 5H 6H"])
    game.play("pass")
    game.play("7H>S1")
    game.play("pass")
    assert game.result is None


def test_rule_16_equal_piles_are_a_drawn_game() -> None:
    game = lay(CLASSIC, payoffs=["9C 9S", "9D 10D"], hands=["7C 7D 8S 8C 4S", "7H 8H 4H 5H 6H"])
    game.play("pass")
    game.play("pass")
    assert game.result is not None
    assert game.result.winner is None and game.result.score == 0


def test_rule_16_thousand_turns_end_the_game_the_same_way() -> None:
    game = lay(CLASSIC, payoffs=["9C 9S 10C 10S", "9D 10D"],
               hands=["7C 7D 8S 8C 4S", "7H 8H 4H 5H 6H"])
    game.turn_number = 999
    events = game.play("7C>S1")
    assert isinstance(events[-1], GameOver)
    assert game.result is not None
    assert game.result.reason is EndReason.TURN_LIMIT
    assert game.result.winner == 1 and game.result.score == 2
