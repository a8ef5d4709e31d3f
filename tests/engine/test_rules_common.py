"""Rules 1–8 of RULES.md, common to both rule sets. Each test names the rule it pins down."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import (
    CLASSIC,
    JOKER,
    KINGS,
    Card,
    Drew,
    EndReason,
    Game,
    GameOver,
    IllegalMoveError,
    Played,
    StackCompleted,
    TurnEnded,
    full_deck,
)
from engine.cards import full_pack

from .conftest import EMPTY4, lay, moves

C = Card.parse


# ---------------------------------------------------------------- rule 1: the deal


@pytest.mark.parametrize(("rules", "payoff", "stock"), [(CLASSIC, 26, 46), (KINGS, 20, 54)])
def test_rule_1_deal_sizes(rules, payoff, stock) -> None:
    game, events = Game.new(rules, seed=7)
    assert [len(p) for p in game.payoffs] == [payoff, payoff]
    assert [len(h) for h in game.hands] == [5, 5]
    assert len(game.stock) == stock
    assert all(len(s) == 0 for player in game.sides for s in player)
    assert Counter(game.all_cards()) == Counter(full_deck(rules))
    view = game.public_view()
    assert view.payoff_tops == (game.payoffs[0][-1], game.payoffs[1][-1])  # turned face up


def test_rule_1_classic_payoff_piles_come_from_pack_a() -> None:
    for seed in range(30):
        game, _ = Game.new(CLASSIC, seed)
        payoff_cards = game.payoffs[0] + game.payoffs[1]
        assert JOKER not in payoff_cards
        assert Counter(payoff_cards) == Counter(full_pack())  # exactly one pack


def test_rule_1_deal_from_a_given_order() -> None:
    order = full_deck(KINGS)
    game, _ = Game.deal(KINGS, order)
    assert game.payoffs[0] == order[:20]
    assert game.payoffs[1] == order[20:40]
    assert game.hands[0] == order[40:50:2]
    assert game.hands[1] == order[41:50:2]
    assert game.stock[-1] is order[50]  # the next card in the order is drawn first


def test_rule_1_deal_refuses_wrong_cards() -> None:
    from engine import SetupError

    with pytest.raises(SetupError, match="exactly 104 cards"):
        Game.deal(KINGS, full_deck(KINGS)[:-1])
    order = full_deck(CLASSIC)
    order[0], order[-1] = order[-1], order[0]  # a joker among the pay-off cards
    with pytest.raises(SetupError, match="pack A"):
        Game.deal(CLASSIC, order)


# ---------------------------------------------------------------- rule 2: the first player


def _kings_order(top0: str, top1: str) -> list[Card]:
    order = full_deck(KINGS)
    for index, text in ((19, top0), (39, top1)):
        j = next(i for i in range(40, len(order)) if order[i] is C(text))
        order[index], order[j] = order[j], order[index]
    return order


def test_rule_2_higher_payoff_top_plays_first() -> None:
    game, events = Game.deal(KINGS, _kings_order("QH", "5D"))
    assert game.turn == game.first_player == 0
    assert events[0].first_player == 0
    game, _ = Game.deal(KINGS, _kings_order("3H", "JD"))
    assert game.turn == 1


def test_rule_2_king_counts_13_in_kings() -> None:
    game, _ = Game.deal(KINGS, _kings_order("5C", "KD"))
    assert game.turn == 1


def test_rule_2_equal_tops_reshuffle_until_they_differ() -> None:
    game, events = Game.deal(KINGS, _kings_order("7H", "7S"), seed=3)
    dealt = events[0]
    assert dealt.reshuffles >= 1
    top0, top1 = game.payoffs[0][-1], game.payoffs[1][-1]
    assert top0.rank != top1.rank
    assert game.turn == (0 if top0.rank > top1.rank else 1)
    assert Counter(game.all_cards()) == Counter(full_deck(KINGS))


# ---------------------------------------------------------------- rule 3: start of turn


def test_rule_3_next_player_draws_up_to_five() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["AH 2H 3H 7S 8S", "4C 5C 6C 7C 8C"],
               stock="JH JS JD JC 10H 10S")
    game.play("AH>C1")
    game.play("2H>C1")
    events = game.play("7S>S1")  # discard: turn passes
    assert game.turn == 1
    assert not any(isinstance(e, Drew) for e in events)  # seat 1 already holds 5
    events = game.play("8C>S1")
    drew = [e for e in events if isinstance(e, Drew)]
    assert len(drew) == 1 and drew[0].player == 0 and drew[0].count == 3
    assert len(game.hands[0]) == 5
    assert drew[0].cards == (C("JH"), C("JS"), C("JD"))


def short_stock(rules, hands, stock, payoff0="9C"):
    """A position whose stock holds only ``stock``: every other card is in seat 1's pay-off."""
    placed = Counter(C(t) for t in (" ".join(hands) + " " + stock + " " + payoff0).split())
    rest = Counter(full_deck(rules))
    rest.subtract(placed)
    pile = sorted(rest.elements(), key=lambda c: c.code)
    return lay(rules, payoffs=[payoff0, pile], hands=hands, stock=stock)


def test_rule_3_draws_fewer_when_the_stock_runs_short() -> None:
    game = short_stock(CLASSIC, ["7S 8S 9S 10S", "4C 5C 6C 7C 8C"], "JD")
    game.turn = 1
    events = game.play("8C>S1", player=1)
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew[0].count == 1 and drew[0].cards == (C("JD"),)
    assert len(game.hands[0]) == 5 and game.stock == []


# ---------------------------------------------------------------- rule 4: plays


def test_rule_4_payoff_top_to_centre_turns_up_the_next() -> None:
    game = lay(KINGS, payoffs=["9C 5D AS", "9D"], hands=["7S 7C 7D 8S 8C", ""])
    events = game.play("P>C1")
    played = events[0]
    assert isinstance(played, Played)
    assert played.card is C("AS") and played.revealed is C("5D")
    assert game.view(1).payoff_tops[0] is C("5D")


def test_rule_4_payoff_goes_only_to_the_centre() -> None:
    game = lay(KINGS, payoffs=["9C 5D", "9D"], hands=["7S 7C 7D 8S 8C", ""])
    with pytest.raises(IllegalMoveError, match="pay-off card can only go to a centre"):
        game.play("P>S1")


def test_rule_4_side_top_and_hand_to_centre() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["2H 7S 7C 7D 8S", ""],
               sides=[["3C", "AD", "", ""], EMPTY4])
    assert {"S2>C1", "S1>C1"} & moves(game) == {"S2>C1"}
    game.play("S2>C1")
    game.play("2H>C1")
    game.play("S1>C1")
    assert [c.rank for c in game.centre[0]] == [1, 2, 3]


def test_rule_4_discard_ends_the_turn() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["7S 7C 7D 8S 8C", "8H 8D 10H 10D 10C"])
    events = game.play("7S>S3")
    assert game.sides[0][2] == [C("7S")]
    assert game.turn == 1
    assert any(isinstance(e, TurnEnded) and e.player == 0 for e in events)


def test_rule_4_cards_never_move_between_side_stacks() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["7S 7C 7D 8S 8C", ""],
               sides=[["5C", "", "", ""], EMPTY4])
    with pytest.raises(IllegalMoveError, match="never move between side stacks"):
        game.play("S1>S2")


def test_rule_4_centre_stacks_are_shared() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["AH 7S 7C 7D 8S", "2C 8H 8D 10H 10D"])
    game.play("AH>C2")
    game.play("7S>S1")
    game.play("2C>C2", player=1)
    assert [c.text for c in game.centre[1]] == ["AH", "2C"]


def test_rule_4_a_card_not_in_hand_is_refused() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["7S 7C 7D 8S 8C", ""])
    with pytest.raises(IllegalMoveError, match="You don't have A♥ in your hand"):
        game.play("AH>C1")


# ---------------------------------------------------------------- rule 5: centre stacks


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
def test_rule_5_only_an_ace_starts_a_stack_and_each_card_is_one_higher(rules) -> None:
    game = lay(rules, payoffs=["9C", "9D"], hands=["3S 2D 4C 6C 7C", ""])
    with pytest.raises(IllegalMoveError, match="A 3 can't start centre stack 1: only an Ace"):
        game.play("3S>C1")
    game = lay(rules, payoffs=["9C", "9D"], hands=["AH 3S 2D 4C 6C", ""])
    game.play("AH>C1")
    game.play("2D>C1")  # suits are ignored
    with pytest.raises(IllegalMoveError, match="A 4 can't go on centre stack 1: it needs a 3"):
        game.play("4C>C1")
    game.play("3S>C1")
    game.play("4C>C1")
    assert game.view(0).centre[0].needs == 5


def test_rule_5_kings_has_at_most_three_centre_stacks() -> None:
    game = lay(KINGS, payoffs=["9C", "9D"], hands=["AH AS AD AC 7C", ""])
    game.play("AH>C1")
    game.play("AS>C2")
    game.play("AD>C3")
    assert not any(m.startswith("AC>C") for m in moves(game))
    with pytest.raises(IllegalMoveError, match="only 3 centre stacks"):
        game.play("AC>C4")


def test_rule_5_classic_has_at_most_four_centre_stacks() -> None:
    game = lay(CLASSIC, payoffs=["9C", "9D"],
               centre=["AH", "AS", "AD", "AC"], hands=["AH 7C 7D 8S 8C", ""])
    assert not any(m.startswith("AH>C") for m in moves(game))


@pytest.mark.parametrize(("rules", "last"), [(CLASSIC, "KH"), (KINGS, "QH")])
def test_rule_5_complete_stack_is_shuffled_into_the_stock(rules, last) -> None:
    run = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS" + (" QS" if rules is CLASSIC else "")
    game = lay(rules, payoffs=["9C", "9D"], centre=[run], hands=[f"{last} 7C 7D 8S 8C", ""])
    stock_before = len(game.stock)
    events = game.play(f"{last}>C1")
    assert game.centre[0] == []
    assert len(game.stock) == stock_before + rules.top_rank
    assert any(isinstance(e, StackCompleted) and e.centre == 0 for e in events)
    assert Counter(game.all_cards()) == Counter(full_deck(rules))
    assert "AS>C1" not in moves(game)  # no Ace in hand, but the slot is free again:
    assert game.view(0).centre[0].needs == 1


# ---------------------------------------------------------------- rule 6: empty hand mid-turn


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
def test_rule_6_empty_hand_draws_five_and_goes_on(rules) -> None:
    game = lay(rules, payoffs=["9C", "9D"], hands=["AH", ""], stock="2C 3C 4C 5C 6C 7C")
    events = game.play("AH>C1")
    assert [c.text for c in game.hands[0]] == ["2C", "3C", "4C", "5C", "6C"]
    assert game.turn == 0
    assert isinstance(events[-1], Drew) and events[-1].count == 5


def test_rule_6_option_off_in_classic_does_not_refill() -> None:
    rules = CLASSIC.with_options(refill_empty_hand=False)
    game = lay(rules, payoffs=["9C", "9D"], hands=["AH", ""], stock="2C 3C 4C 5C 6C 7C")
    game.play("AH>C1")
    assert game.hands[0] == []
    assert moves(game) == {"pass"}


def test_rule_6_kings_cannot_switch_the_refill_off() -> None:
    from engine import RuleSetError

    with pytest.raises(RuleSetError, match="can't be switched off"):
        KINGS.with_options(refill_empty_hand=False)


# ---------------------------------------------------------------- rule 7: winning


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
def test_rule_7_last_payoff_card_wins_at_once_and_scores(rules) -> None:
    game = lay(rules, payoffs=["AH", "5C 6C 7C 8C 9C 10C JC"], hands=["7S 7C 7D 8S 8C", ""])
    events = game.play("P>C1")
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.result.winner == 0
    assert over.result.score == 7
    assert over.result.reason is EndReason.PAYOFF_EMPTIED
    assert game.legal_moves() == ()
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play("7S>S1")


# ---------------------------------------------------------------- rule 8: public and private


def test_rule_8_views_show_public_cards_and_only_the_own_hand() -> None:
    game = lay(KINGS, payoffs=["9C 8C", "9D 7D"], hands=["AH 2H 3H 4H 5H", "6S 7S 8S 9S 10S"],
               sides=[["JC", "", "", ""], ["QD QH", "", "", ""]])
    mine = game.view(0)
    assert mine.hand == tuple(game.hands[0])
    assert mine.hand_sizes == (5, 5)
    assert mine.payoff_tops == (C("8C"), C("7D"))
    assert mine.payoff_counts == (2, 2)
    assert mine.sides[1][0] == (C("QD"), C("QH"))  # every card of a side stack, in order
    assert mine.stock_size == len(game.stock)
    theirs = game.view(1)
    assert theirs.hand == tuple(game.hands[1])
    assert theirs.legal_moves == ()  # not on turn
    public = game.public_view()
    assert public.hand is None and public.legal_moves == () and public.compulsory == ()
    flat = repr(public.to_dict()) + repr(theirs.to_dict())
    assert "AH" not in flat and "2H" not in flat  # seat 0's hand appears nowhere
