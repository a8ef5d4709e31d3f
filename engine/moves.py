"""Moves as frozen, interned values with one text notation.

The notation is ``SOURCE>TARGET``:

- a source is a card in the hand (``7H``, ``10S``, ``JK``), the pay-off top (``P``), or the
  top of side stack 1..4 (``S1`` … ``S4``);
- a target is centre stack 1..4 (``C1`` … ``C4``) or side stack 1..4 (``S1`` … ``S4``);
- ``pass`` ends the turn without a discard (classic only).

So ``7H>C2`` plays the seven of hearts from the hand to centre stack 2, ``P>C1`` plays the
pay-off top, ``S3>C2`` plays the top of side stack 3, and ``9D>S1`` discards to side stack 1.
Parsing is lenient (``7h c2``, ``7H to C2``); printing is always the canonical form. How a
move reads in words, once made (``Alice played 7♥ from their hand to centre stack 2``), is
``engine.describe.describe_move``.
"""

from __future__ import annotations

import enum
import re
from typing import Any

from .cards import ALL_KINDS, Card, CardParseError
from .errors import QUOTE_LIMIT, InvalidMoveError, quote

__all__ = [
    "MAX_STACKS",
    "PASS",
    "QUOTE_LIMIT",
    "Move",
    "Source",
    "Target",
    "parse_source",
    "parse_target",
    "quote",
]

MAX_STACKS = 4
"""Stacks a notation index may name (centre 1..4, side 1..4)."""


class Source(enum.IntEnum):
    """Where a moved card comes from."""

    HAND = 0
    """A card in the mover's hand."""
    PAYOFF = 1
    """The top card of the mover's pay-off pile."""
    SIDE = 2
    """The top card of one of the mover's side stacks."""


class Target(enum.IntEnum):
    """Where a moved card goes."""

    CENTRE = 0
    """A centre stack (shared)."""
    SIDE = 1
    """One of the mover's own side stacks; this ends the turn."""


class Move:
    """One move: a card from a source to a target, or a pass.

    Moves are interned, so they compare by identity and hash cheaply:
    ``Move.parse("7H>C2") is Move.hand(Card.parse("7H"), Target.CENTRE, 1)``. Stack indices
    are 0-based in the attributes and 1-based in the notation.
    """

    __slots__ = ("card", "source", "source_index", "target", "target_index", "is_pass",
                 "is_play", "is_discard", "_text", "_key")

    source: Source | None
    """Where the card comes from; ``None`` for a pass."""
    card: Card | None
    """The hand card for a move from the hand; ``None`` otherwise."""
    source_index: int
    """0-based side stack for ``Source.SIDE``; -1 otherwise."""
    target: Target | None
    """Where the card goes; ``None`` for a pass."""
    target_index: int
    """0-based centre or side stack; -1 for a pass."""
    is_pass: bool
    """True for ``pass``."""
    is_play: bool
    """True for a move to a centre stack."""
    is_discard: bool
    """True for a move to a side stack (which ends the turn)."""
    # Plain attributes, not properties: callers sort moves by them in their inner loops.
    _text: str
    _key: int

    def __new__(cls, text: str) -> Move:
        """Same as ``Move.parse(text)``."""
        return cls.parse(text)

    @classmethod
    def _make(
        cls,
        source: Source | None,
        card: Card | None,
        source_index: int,
        target: Target | None,
        target_index: int,
    ) -> Move:
        move = object.__new__(cls)
        for name, value in (
            ("source", source),
            ("card", card),
            ("source_index", source_index),
            ("target", target),
            ("target_index", target_index),
            ("is_pass", source is None),
            ("is_play", target is Target.CENTRE),
            ("is_discard", target is Target.SIDE),
        ):
            object.__setattr__(move, name, value)
        if source is None:
            text = "pass"
        else:
            source_text = _source_token(source, card, source_index)
            text = f"{source_text}>{_target_token(target, target_index)}"
        object.__setattr__(move, "_text", text)
        object.__setattr__(move, "_key", len(_KEYS))
        _KEYS.append(move)
        return move

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickled by a look-up of the notation, not by parsing it: a hand's view carries
        # some twenty moves, and the drawing process unpickles one per picture of a hand.
        return (_unpickled, (self._text,))

    def __str__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        # A fixed number per move (not the address), so sets of moves iterate alike everywhere.
        return self._key

    def __repr__(self) -> str:
        return f"Move({self._text!r})"

    @property
    def text(self) -> str:
        """The canonical notation, e.g. ``7H>C2`` or ``pass``."""
        return self._text

    @property
    def source_token(self) -> str:
        """The source part of the notation (``7H``, ``P``, ``S3``); empty for a pass."""
        return "" if self.source is None else self._text.split(">", 1)[0]

    @property
    def target_token(self) -> str:
        """The target part of the notation (``C2``, ``S1``); empty for a pass."""
        return "" if self.source is None else self._text.split(">", 1)[1]

    # Constructors returning the interned value.
    @staticmethod
    def hand(card: Card, target: Target, index: int) -> Move:
        """The move of hand card ``card`` to centre/side stack ``index`` (0-based)."""
        return _HAND[card.code][target][index]

    @staticmethod
    def payoff(target: Target, index: int) -> Move:
        """The move of the pay-off top to stack ``index`` (0-based)."""
        return _PAYOFF[target][index]

    @staticmethod
    def side(side_index: int, target: Target, index: int) -> Move:
        """The move of the top of side stack ``side_index`` to stack ``index`` (both 0-based)."""
        return _SIDE[side_index][target][index]

    @classmethod
    def parse(cls, text: str, *, centre_stacks: int | None = None) -> Move:
        """Parse the notation; raise ``InvalidMoveError`` with a readable message if it fails.

        ``centre_stacks``, when given, is the number of centre stacks of the rule set in play:
        a centre stack beyond it is refused and the messages name the real range (``C1 to C3``
        in kings). Without it every stack the notation can name (``C1`` … ``C4``) parses.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"A {type(text).__name__} is not a move.")
        cleaned = text.strip()
        if cleaned.lower() == "pass":
            return PASS
        parts = [p for p in _SPLIT.split(cleaned) if p]
        if len(parts) != 2:
            raise InvalidMoveError(
                f"{quote(text)} is not a move. Write a source and a target, like 7H>C2 (a hand "
                "card to centre stack 2), P>C1 (your pay-off card), S3>C2 (side stack 3), 9D>S1 "
                "(discard), or pass."
            )
        source, card, source_index = parse_source(parts[0])
        target, target_index = parse_target(parts[1], centre_stacks=centre_stacks)
        if source is Source.HAND:
            assert card is not None
            return _HAND[card.code][target][target_index]
        if source is Source.PAYOFF:
            return _PAYOFF[target][target_index]
        return _SIDE[source_index][target][target_index]


_KEYS: list[Move] = []
_DIGITS = "0123456789"  # not str.isdigit(), which also takes "²", which int() refuses
_SPLIT = re.compile(r"\s*(?:>|->|\s+to\s+|\s|-(?=[cCsS]\d))\s*")


def parse_source(token: str) -> tuple[Source, Card | None, int]:
    """Parse a source token (``7H``, ``P``, ``S3``) to (source, hand card, 0-based side index)."""
    t = token.strip().upper()
    if t in ("P", "PAYOFF", "PAY-OFF"):
        return Source.PAYOFF, None, -1
    if len(t) == 2 and t[0] == "S" and t[1] in _DIGITS:
        n = int(t[1])
        if not 1 <= n <= MAX_STACKS:
            raise InvalidMoveError(f"There is no side stack {n}: side stacks are S1 to S4.")
        return Source.SIDE, None, n - 1
    try:
        return Source.HAND, Card.parse(t), -1
    except CardParseError:
        raise InvalidMoveError(
            f"{quote(token)} is not a source. Name a card in your hand (like 7H), P for your "
            "pay-off card, or S1 to S4 for the top of a side stack."
        ) from None


def parse_target(token: str, *, centre_stacks: int | None = None) -> tuple[Target, int]:
    """Parse a target token (``C2``, ``S1``) to (target, 0-based index).

    ``centre_stacks``, when given, is the number of centre stacks of the rule set in play (3 in
    kings): a centre stack beyond it is refused, and every message names the real range.
    """
    last = MAX_STACKS if centre_stacks is None else max(1, min(MAX_STACKS, centre_stacks))
    t = token.strip().upper()
    if len(t) == 2 and t[0] in "CS" and t[1] in _DIGITS:
        n = int(t[1])
        kind = Target.CENTRE if t[0] == "C" else Target.SIDE
        top = last if kind is Target.CENTRE else MAX_STACKS
        if not 1 <= n <= top:
            what = (f"centre stacks are C1 to C{last}" if kind is Target.CENTRE
                    else "side stacks are S1 to S4")
            raise InvalidMoveError(f"There is no stack {t}: {what}.")
        return kind, n - 1
    raise InvalidMoveError(
        f"{quote(token)} is not a target. Name a centre stack (C1 to C{last}) or one of your "
        "side stacks (S1 to S4)."
    )


def _source_token(source: Source, card: Card | None, index: int) -> str:
    if source is Source.HAND:
        assert card is not None
        return card.text
    if source is Source.PAYOFF:
        return "P"
    return f"S{index + 1}"


def _target_token(target: Target | None, index: int) -> str:
    return ("C" if target is Target.CENTRE else "S") + str(index + 1)


_TARGETS = (Target.CENTRE, Target.SIDE)
_HAND: list[list[list[Move]]] = [
    [[Move._make(Source.HAND, card, -1, t, i) for i in range(MAX_STACKS)] for t in _TARGETS]
    for card in ALL_KINDS
]
_PAYOFF: list[list[Move]] = [
    [Move._make(Source.PAYOFF, None, -1, t, i) for i in range(MAX_STACKS)] for t in _TARGETS
]
_SIDE: list[list[list[Move]]] = [
    [[Move._make(Source.SIDE, None, s, t, i) for i in range(MAX_STACKS)] for t in _TARGETS]
    for s in range(MAX_STACKS)
]
PASS: Move = Move._make(None, None, -1, None, -1)
"""The pass: end the turn without a discard (classic rule 14)."""

ALL_MOVES: tuple[Move, ...] = (
    tuple(m for per_card in _HAND for per_target in per_card for m in per_target)
    + tuple(m for per_target in _PAYOFF for m in per_target)
    + tuple(m for per_side in _SIDE for per_target in per_side for m in per_target)
    + (PASS,)
)
"""Every move the notation can express (legal or not), for tests and tools."""

__all__ += ["ALL_MOVES"]


_BY_NOTATION: dict[str, Move] = {m.text: m for m in ALL_MOVES}


def _unpickled(text: str) -> Move:
    """The move a pickle names by its notation (``Move.__reduce__``)."""
    found = _BY_NOTATION.get(text)
    return found if found is not None else Move.parse(text)
