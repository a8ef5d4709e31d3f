"""Cards: suits, ranks, jokers, and their short text form.

A card is an immutable, interned value: there is exactly one ``Card`` object per kind
(``Card.parse("7H") is Card.parse("7h")``), so comparing cards is an identity check and the
two copies of the 7 of hearts in a two-pack game are the same value. The short text form is
``7H``, ``10S``, ``QD`` and ``JK`` for a joker; ``T`` is accepted for ten, and case does not
matter. The display form uses suit symbols: ``7♥``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Any

from .errors import quote

__all__ = [
    "ACE",
    "JACK",
    "JOKER",
    "KING",
    "QUEEN",
    "Card",
    "CardParseError",
    "Suit",
    "full_pack",
    "rank_name",
    "rank_text",
]


class CardParseError(ValueError):
    """Raised when a text is not a card's short form (``7H``, ``10S``, ``JK``)."""


class Suit(enum.Enum):
    """The four suits, each with its letter and symbol."""

    SPADES = "S"
    """Spades, ``S``, ♠."""
    HEARTS = "H"
    """Hearts, ``H``, ♥."""
    DIAMONDS = "D"
    """Diamonds, ``D``, ♦."""
    CLUBS = "C"
    """Clubs, ``C``, ♣."""

    @property
    def symbol(self) -> str:
        """The suit's symbol, e.g. ``♥``."""
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}

ACE = 1
"""The rank of an Ace (low)."""
JACK = 11
"""The rank of a Jack."""
QUEEN = 12
"""The rank of a Queen."""
KING = 13
"""The rank of a King (high)."""

_RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_NAMES = {1: "Ace", 11: "Jack", 12: "Queen", 13: "King"}


def rank_text(rank: int) -> str:
    """The short text of a rank: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``."""
    return _RANK_TEXT.get(rank, str(rank))


def rank_name(rank: int) -> str:
    """The word for a rank, for messages: ``Ace``, ``7``, ``Queen``."""
    return _RANK_NAMES.get(rank, str(rank))


class Card:
    """One playing card, or a joker (``rank`` 0, no suit).

    Cards are interned: constructing or parsing a card always returns the one shared object of
    that kind, so cards compare by identity and can be used as dict keys cheaply.
    """

    __slots__ = ("code", "is_joker", "rank", "suit", "_text")

    rank: int
    """1 (Ace) to 13 (King); 0 for a joker."""
    suit: Suit | None
    """The suit, or ``None`` for a joker."""
    is_joker: bool
    """True for a joker."""
    code: int
    """A small integer unique to the kind of card (0..52), handy as an index."""
    _text: str

    def __new__(cls, rank: int, suit: Suit | None = None) -> Card:
        """Return the card of this rank and suit (``Card(0)`` is the joker)."""
        try:
            return _BY_KEY[(rank, suit)]
        except KeyError:
            raise CardParseError(f"There is no card of rank {rank!r} and suit {suit!r}.") from None

    @classmethod
    def _make(cls, rank: int, suit: Suit | None, code: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "is_joker", rank == 0)
        object.__setattr__(card, "code", code)
        text = "JK" if rank == 0 else rank_text(rank) + (suit.value if suit else "")
        object.__setattr__(card, "_text", text)
        return card

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling and copying must hand back the interned object, not a twin.
        return (Card, (self.rank, self.suit))

    def __hash__(self) -> int:
        # By kind rather than by address, so that sets and dicts of cards iterate in the same
        # order in every process: the same seed must give the same moves everywhere.
        return self.code

    def __eq__(self, other: object) -> bool:
        # Cards are interned, so equal means identical. Written out because ``__lt__`` makes
        # Python look for a comparison in Python for every ``==``, ``in`` and ``remove``, and
        # this answer is three times quicker than the one it finds.
        if isinstance(other, Card):
            return self is other
        return NotImplemented

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card's short form: ``7H``, ``10s``, ``Td``, ``qc``, ``JK`` (joker).

        Raises ``CardParseError`` with a readable message for anything else.
        """
        if not isinstance(text, str):
            raise CardParseError(f"A {type(text).__name__} is not a card.")
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise CardParseError(
                f"{quote(text)} is not a card. Write a rank and a suit, like 7H, 10S, QD, or JK "
                "for a joker."
            )
        return card

    @property
    def text(self) -> str:
        """The short text form, e.g. ``7H``, ``10S``, ``JK``."""
        return self._text

    @property
    def display(self) -> str:
        """The display form with a suit symbol, e.g. ``7♥``; a joker is ``🃏``."""
        if self.suit is None:
            return "🃏"
        return rank_text(self.rank) + self.suit.symbol

    @property
    def name(self) -> str:
        """The card in words, e.g. ``7 of Hearts``, ``Joker``."""
        if self.suit is None:
            return "Joker"
        return f"{rank_name(self.rank)} of {self.suit.name.title()}"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __lt__(self, other: Card) -> bool:
        # Sorting a hand: by rank, then suit order; jokers last.
        return _SORT_KEY[self.code] < _SORT_KEY[other.code]


_BY_KEY: dict[tuple[int, Suit | None], Card] = {}
_BY_TEXT: dict[str, Card] = {}
ALL_KINDS: list[Card] = []
"""Every kind of card: the 52 naturals in suit-major order, then the joker (index = ``code``)."""

for _suit in Suit:
    for _rank in range(1, 14):
        _card = Card._make(_rank, _suit, len(ALL_KINDS))
        ALL_KINDS.append(_card)
        _BY_KEY[(_rank, _suit)] = _card
JOKER: Card = Card._make(0, None, len(ALL_KINDS))
"""The joker (all four jokers in pack B are this one value)."""
ALL_KINDS.append(JOKER)
_BY_KEY[(0, None)] = JOKER

for _card in ALL_KINDS:
    _BY_TEXT[_card.text] = _card
    if _card.rank == 10 and _card.suit is not None:
        _BY_TEXT["T" + _card.suit.value] = _card
_BY_TEXT["JOKER"] = JOKER

_SORT_KEY = [0] * len(ALL_KINDS)
for _card in ALL_KINDS:
    _SORT_KEY[_card.code] = 99 if _card.is_joker else _card.rank * 4 + list(Suit).index(
        _card.suit  # type: ignore[arg-type]
    )


def full_pack(jokers: int = 0) -> list[Card]:
    """One 52-card pack in a fixed order, followed by ``jokers`` jokers."""
    return [c for c in ALL_KINDS if not c.is_joker] + [JOKER] * jokers


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse several cards: ``"7H 8S JK"`` or ``["7H", "8S"]``."""
    parts: Iterator[str] = iter(text.replace(",", " ").split() if isinstance(text, str) else text)
    return [Card.parse(p) for p in parts]


__all__ += ["ALL_KINDS", "parse_cards"]
