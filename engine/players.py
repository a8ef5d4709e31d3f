"""Computer players. They choose from a ``View`` only, so they cannot see hidden cards.

Four levels, made with ``make_player(level, seed)``:

- ``random``: any legal move, equally likely (a yardstick, not an opponent);
- ``easy``: sensible and shallow: plays its pay-off card whenever it can, otherwise plays to the
  centre (side-stack tops and natural cards before wild ones) and ends the turn with a sensible
  discard;
- ``normal``: plans its whole turn (``engine.ai.planner``): sequences of plays from hand and side
  stacks that reach its pay-off card, tidy side stacks, no centre stacks left where the
  opponent's pay-off card is likely to go when that can be avoided (in classic at a table of
  three or four it keeps jokers for its pay-off card, ``planner.TABLE_CLASSIC_WEIGHTS``);
- ``hard``: searches (``engine.ai.search``): deals the hidden cards many times consistently with
  the view and plans its turn against how often the opponent would then reach his pay-off card
  (in kings, also how often its own next turn would reach its own), with a bigger search budget
  and an evaluation that saves wild cards for the pay-off card; at a table of three or four the
  opponents' hands it deals fit what their last turns showed.

Every player is deterministic: the same seed and the same sequence of views give the same moves.
Decisions are bounded by work budgets, never by a clock. ``simple_move`` is the ``easy`` policy
as a function, for callers that keep no player object.
"""

from __future__ import annotations

import abc
import random
from typing import Protocol

from .ai.knowledge import opponents_in_order
from .ai.planner import TABLE_CLASSIC_WEIGHTS, Candidate, Planner, Weights, first_move, play_to_move
from .ai.search import Searcher
from .moves import PASS, Move, Source
from .views import View

__all__ = [
    "LEVELS",
    "EasyPlayer",
    "HardPlayer",
    "NormalPlayer",
    "Player",
    "RandomPlayer",
    "make_player",
    "simple_move",
]


class Player(Protocol):
    """A computer player: chooses a legal move from a view of the seat on turn."""

    name: str
    """The level's name: ``random``, ``easy``, ``normal`` or ``hard``."""

    def choose(self, view: View) -> Move:
        """One of ``view.legal_moves`` (the view's seat must be on turn)."""
        ...


def _legal(view: View) -> tuple[Move, ...]:
    moves = view.legal_moves
    if not moves or view.viewer is None:
        raise ValueError("The viewer has no move to make: not on turn, or the game is over.")
    return moves


class RandomPlayer:
    """Any legal move, each equally likely."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        """A player whose choices follow from ``seed``."""
        self.rng = random.Random(f"random-player/{seed}")

    def choose(self, view: View) -> Move:
        """A uniformly random legal move."""
        moves = _legal(view)
        return moves[int(self.rng.random() * len(moves))]


class EasyPlayer:
    """Sensible and shallow: one move at a time, no planning (``simple_move``)."""

    name = "easy"

    def __init__(self, seed: int = 0) -> None:
        """A player whose tie-breaks follow from ``seed``."""
        self.rng = random.Random(f"easy-player/{seed}")

    def choose(self, view: View) -> Move:
        """The move ``simple_move`` picks."""
        return simple_move(view, self.rng)


class _Planned(abc.ABC):
    """Shared by the planning levels: follow the chosen plan while the view is as expected.

    A plan stays valid until something new is seen (a pay-off card turned up, cards drawn, the
    other player's turn); then the player plans again. Plans never depend on the clock.
    """

    name = "planned"

    def __init__(self) -> None:
        self._plan: list[Move] = []
        self._expect: tuple[object, ...] | None = None
        self.planned = False
        """Whether the last ``choose`` made a plan (False: it followed the plan it had)."""

    @staticmethod
    def _signature(view: View) -> tuple[object, ...]:
        assert view.viewer is not None and view.hand is not None
        return (view.turn_number, view.plays_this_turn, tuple(sorted(view.hand)),
                view.payoff_tops[view.viewer], tuple(len(s) for s in view.sides[view.viewer]),
                tuple(c.needs for c in view.centre))

    @abc.abstractmethod
    def _plan_turn(self, view: View) -> Candidate | None:
        """The best plan for the rest of the turn, or ``None`` to fall back to a pass."""

    def choose(self, view: View) -> Move:
        """The next move of the current plan, planning again when something new is seen."""
        legal = _legal(view)
        if self._plan and self._expect == self._signature(view) and self._plan[0] in legal:
            self.planned = False
            return self._next(view)
        self.planned = True
        cand = self._plan_turn(view)
        self._plan = []
        if cand is None:
            return simple_move(view, random.Random(0))
        assert view.hand is not None
        hand = list(view.hand)
        codes = {c.code: c for c in hand}
        moves = [play_to_move(play, codes) for play in cand.line]
        if cand.finish is not None:
            moves.append(cand.finish)
        self._plan = moves
        if not moves or moves[0] not in legal:
            self._plan = []
            move = first_move(cand, hand) if cand.line or cand.finish else legal[0]
            return move if move in legal else simple_move(view, random.Random(0))
        return self._next(view)

    def _next(self, view: View) -> Move:
        move = self._plan.pop(0)
        # What the view will look like after this move if nothing new turns up.
        self._expect = self._predict(view, move)
        return move

    def _predict(self, view: View, move: Move) -> tuple[object, ...] | None:
        if move.source is Source.PAYOFF or move.target is not None and move.is_discard \
                or move is PASS:
            return None  # something new will be seen
        assert view.viewer is not None and view.hand is not None
        hand = list(view.hand)
        sides = [len(s) for s in view.sides[view.viewer]]
        if move.source is Source.HAND:
            assert move.card is not None
            hand.remove(move.card)
            if not hand:
                return None  # five new cards
        else:
            sides[move.source_index] -= 1
        needs = [c.needs for c in view.centre]
        i = move.target_index
        needs[i] = 1 if needs[i] + 1 > view.rules.top_rank else needs[i] + 1
        return (view.turn_number, view.plays_this_turn + 1, tuple(sorted(hand)),
                view.payoff_tops[view.viewer], tuple(sides), tuple(needs))


class NormalPlayer(_Planned):
    """Plans its whole turn with the heuristic turn planner."""

    name = "normal"

    def __init__(self, seed: int = 0, node_limit: int = 300) -> None:
        """A planning player; ``seed`` is kept for symmetry (the planner is deterministic)."""
        super().__init__()
        self.seed = seed
        self.node_limit = node_limit
        self.weights = Weights()
        self.table_classic_weights = TABLE_CLASSIC_WEIGHTS
        """In classic with two opponents or more still playing (see ``TABLE_CLASSIC_WEIGHTS``)."""

    def _plan_turn(self, view: View) -> Candidate | None:
        weights = self.weights
        if view.rules.wild_rank == 0 and len(opponents_in_order(view)) >= 2:
            weights = self.table_classic_weights
        best = Planner(view, weights, self.node_limit).search(keep=1)
        return best[0] if best else None


class HardPlayer(_Planned):
    """Searches: plans its turn against sampled deals of the hidden cards."""

    name = "hard"

    def __init__(self, seed: int = 0) -> None:
        """A searching player whose sampled deals follow from ``seed``."""
        super().__init__()
        self.searcher = Searcher(seed)

    def _plan_turn(self, view: View) -> Candidate | None:
        return self.searcher.plan(view)


LEVELS: dict[str, type[RandomPlayer] | type[EasyPlayer] | type[NormalPlayer] | type[HardPlayer]]
LEVELS = {"random": RandomPlayer, "easy": EasyPlayer, "normal": NormalPlayer, "hard": HardPlayer}
"""The levels by name."""


def make_player(level: str, seed: int = 0) -> Player:
    """A computer player of ``level`` (``random``, ``easy``, ``normal``, ``hard``)."""
    try:
        cls = LEVELS[level.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(
            f"Unknown level {level!r}: choose one of {', '.join(LEVELS)}.") from None
    return cls(seed)


def simple_move(view: View, rng: random.Random | None = None) -> Move:
    """A legal move for the viewer, who must be on turn, chosen from what the view shows."""
    moves = _legal(view)
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
