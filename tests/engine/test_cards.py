"""Cards: parsing, printing, display forms, interning."""

from __future__ import annotations

import copy
import pickle

import pytest

from engine import JOKER, Card, CardParseError, Suit, full_deck
from engine.cards import ALL_KINDS, parse_cards
from engine.rules import CLASSIC, KINGS


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("7H", 7, Suit.HEARTS), ("10S", 10, Suit.SPADES), ("QD", 12, Suit.DIAMONDS),
     ("AC", 1, Suit.CLUBS), ("KS", 13, Suit.SPADES), ("JK", 0, None)],
)
def test_parse_short_form(text: str, rank: int, suit: Suit | None) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert str(card) == text


@pytest.mark.parametrize(("alias", "canonical"),
                         [("TS", "10S"), ("ts", "10S"), ("7h", "7H"), ("jk", "JK"),
                          ("joker", "JK"), (" qd ", "QD")])
def test_parse_accepts_ten_as_t_and_lower_case(alias: str, canonical: str) -> None:
    assert Card.parse(alias) is Card.parse(canonical)
    assert Card.parse(alias).text == canonical


@pytest.mark.parametrize("bad", ["", "7", "H7", "1H", "11H", "ZZ", "7X", "JKX", "0S"])
def test_parse_garbage_raises_clear_error(bad: str) -> None:
    with pytest.raises(CardParseError, match="is not a card"):
        Card.parse(bad)


def test_every_card_prints_and_parses_back() -> None:
    assert len(ALL_KINDS) == 53
    for card in ALL_KINDS:
        assert Card.parse(str(card)) is card
        assert Card.parse(card.text.lower()) is card


def test_display_uses_suit_symbols() -> None:
    assert Card.parse("7H").display == "7♥"
    assert Card.parse("10S").display == "10♠"
    assert Card.parse("QD").display == "Q♦"
    assert Card.parse("AC").display == "A♣"
    assert JOKER.display == "🃏"
    assert Card.parse("AC").name == "Ace of Clubs"


def test_cards_are_interned_and_immutable() -> None:
    card = Card.parse("7H")
    assert Card(7, Suit.HEARTS) is card
    assert copy.deepcopy(card) is card
    assert pickle.loads(pickle.dumps(card)) is card
    with pytest.raises(AttributeError):
        card.rank = 8  # type: ignore[misc]


def test_decks_have_the_right_cards() -> None:
    assert len(full_deck(CLASSIC)) == 108
    assert full_deck(CLASSIC).count(JOKER) == 4
    assert len(full_deck(KINGS)) == 104
    assert JOKER not in full_deck(KINGS)
    assert full_deck(KINGS).count(Card.parse("7H")) == 2


def test_parse_cards_list() -> None:
    assert parse_cards("7H 8s, jk") == [Card.parse("7H"), Card.parse("8S"), JOKER]


def test_cards_are_equal_only_to_themselves_and_defer_to_other_types() -> None:
    from unittest import mock

    seven = Card.parse("7H")
    assert seven == Card.parse("7h") and seven is Card.parse("7h")
    assert seven != Card.parse("8H")
    assert (seven == Card.parse("7D")) is False
    assert seven != "7H"
    assert (seven == 7) is False
    assert seven == mock.ANY  # another type still gets its say
    hand = [Card.parse(t) for t in "2C 3D 7H 5H 7H".split()]
    hand.remove(seven)
    assert [c.text for c in hand] == ["2C", "3D", "5H", "7H"]
