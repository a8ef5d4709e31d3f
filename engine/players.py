"""Computer players. They choose from a ``View`` only, so they cannot see hidden cards.

For now one simple, legal-move player: it plays its pay-off card whenever it can, otherwise the
centre plays that use side-stack tops and natural cards before wild ones, and ends the turn with a
sensible discard. A strong opponent is its own piece of work.
"""

from __future__ import annotations

import random

from .moves import PASS, Move, Source
from .views import View

__all__ = ["simple_move"]


def simple_move(view: View, rng: random.Random | None = None) -> Move:
    """A legal move for the viewer, who must be on turn, chosen from what the view shows."""
    moves = view.legal_moves
    if not moves:
        raise ValueError("The viewer has no move to make: not on turn, or the game is over.")
    rng = rng or random.Random(0)
    plays = [m for m in moves if m.is_play]
    payoff = [m for m in plays if m.source is Source.PAYOFF]
    if payoff:
        return payoff[0]
    wild = view.rules.wild_rank

    def is_wild(m: Move) -> bool:
        return m.source is Source.HAND and m.card is not None and (
            m.card.is_joker if wild == 0 else m.card.rank == wild)

    natural = [m for m in plays if not is_wild(m)]
    from_side = [m for m in natural if m.source is Source.SIDE]
    if from_side:
        return from_side[0]
    if natural:
        # Play the lowest card first: it keeps the centre moving toward the pay-off card.
        return min(natural, key=lambda m: m.card.rank if m.card else 0)
    discards = [m for m in moves if m.is_discard]
    if discards:
        return _discard(view, discards, rng, is_wild)
    if PASS in moves:
        return PASS
    return plays[0]


def _discard(view: View, discards: list[Move], rng: random.Random, is_wild: object) -> Move:
    assert view.viewer is not None
    sides = view.sides[view.viewer]
    keep_wild = [m for m in discards if not is_wild(m)] or discards  # type: ignore[operator]

    def score(m: Move) -> tuple[int, int, float]:
        card = m.card
        assert card is not None
        pile = sides[m.target_index]
        top = pile[-1].rank if pile else 99
        # Prefer building on a card of the same or next-higher rank, then an empty stack;
        # discard high cards first (they are the least useful soon).
        fits = 0 if pile and top in (card.rank, card.rank + 1) else (1 if not pile else 2)
        return (fits, -card.rank, rng.random())

    return min(keep_wild, key=score)
