"""The ``hard`` player's search: the turn planner driven by sampled deals of the hidden cards.

What decides most turns that cannot reach the pay-off card is what the opponent can do next: can
he reach his pay-off card from the centre stacks left behind? The ``normal`` planner guesses that
from rank counts. The searcher instead deals the unseen cards into the hidden places many times
(``knowledge.sample_hidden``: the opponent's hand, the stock order, the pay-off cards below the
tops, in the numbers the view shows), plays out in each deal the opponent's best chain of cards
from every centre need to his pay-off card (hand, side-stack tops and wild cards, drawing five
more when his hand empties), and plans the turn against the share of deals in which he gets
there. Its evaluation also keeps wild cards for the pay-off card and prefers a discard to a pass.

Optionally (``rollouts=True``) the best few turns are re-scored by playing the opponent's next
turn and the player's following one in each deal with a fast pay-off-chasing policy (``chase``).
The same deals serve every candidate (common random numbers).

The work is bounded by the number of deals, candidates and search nodes, never by a clock, and
the deals come from a generator seeded by the player's seed and the view, so the same seed and
the same views give the same moves.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import ALL_KINDS, Card
from ..views import View
from .knowledge import Hidden, sample_hidden
from .planner import END, Candidate, Planner, Weights, fit_masks, is_wild

__all__ = ["HARD_WEIGHTS", "Searcher", "chase"]

HARD_WEIGHTS = Weights(wild_spent=80.0, pass_cost=30.0, idle_behind=5000.0, stuck_risk=150.0)
"""The hard player's evaluation: wild cards are kept for the pay-off card, and a classic turn
ends with a discard rather than a pass unless the discard does real harm. Most classic games end
in a stalemate (rule 16), won by whoever has fewer pay-off cards, so the player behind never
passes idly while it can play or discard, and ends its turn with side stacks that will still
take a card next turn (all measured in self-play against ``normal``)."""


def chase(needs: list[int], hand: list[Card], sides: list[list[Card]], payoff: list[Card],
          stock: list[Card], top: int, fit: list[int], wild: list[bool], refill: bool,
          hand_size: int, node_limit: int = 120) -> int:
    """Play one turn greedily for the pay-off card, with every card known; all lists are changed.

    ``payoff`` is the pay-off pile (top last), ``stock`` the cards still to be drawn (next one
    last). Returns the number of pay-off cards played. Each step looks for a short sequence of
    plays (hand and side-stack tops, natural cards before wild ones) after which the pay-off top
    fits a centre stack, or failing that one that empties the hand for five new cards.
    """
    played = 0
    while payoff:
        target = payoff[-1]
        tmask = fit[target.code]
        line = _find(needs, hand, sides, tmask, top, fit, wild, refill, node_limit)
        if line is None:
            return played
        for src, what, slot in line:
            if src == 0:
                hand.remove(ALL_KINDS[what])
            else:
                sides[what].pop()
            n = needs[slot] + 1
            needs[slot] = 1 if n > top else n
        placed = False
        for i, n in enumerate(needs):
            if tmask >> n & 1:
                payoff.pop()
                needs[i] = 1 if n + 1 > top else n + 1
                played += 1
                placed = True
                break
        if not hand and refill:
            take = min(hand_size, len(stock))
            if take == 0:
                return played
            for _ in range(take):
                hand.append(stock.pop())
        elif not placed:
            return played
    return played


def _find(needs: list[int], hand: list[Card], sides: list[list[Card]], tmask: int, top: int,
          fit: list[int], wild: list[bool], refill: bool,
          node_limit: int) -> list[tuple[int, int, int]] | None:
    """A line after which the pay-off top fits (or the hand is empty), or ``None``."""
    seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()
    line: list[tuple[int, int, int]] = []
    nodes = 0
    empty_line: list[tuple[int, int, int]] | None = None

    def goal() -> bool:
        return any(tmask >> n & 1 for n in needs)

    def visit() -> bool:
        nonlocal nodes, empty_line
        if goal():
            return True
        if not hand and refill and line and empty_line is None:
            empty_line = list(line)
        key = (tuple(sorted(needs)), tuple(sorted(c.code for c in hand)),
               tuple(len(s) for s in sides))
        if key in seen or nodes >= node_limit:
            return False
        seen.add(key)
        nodes += 1
        slot_of: dict[int, int] = {}
        for i, n in enumerate(needs):
            if n not in slot_of:
                slot_of[n] = i
        plays: list[tuple[int, int, int]] = []
        for s, pile in enumerate(sides):
            if pile:
                m = fit[pile[-1].code]
                for n, i in slot_of.items():
                    if m >> n & 1:
                        plays.append((1, s, i))
        wild_plays: list[tuple[int, int, int]] = []
        for c in set(hand):
            m = fit[c.code]
            dest = wild_plays if wild[c.code] else plays
            for n, i in slot_of.items():
                if m >> n & 1:
                    dest.append((0, c.code, i))
        for play in plays + wild_plays:
            src, what, slot = play
            before = needs[slot]
            if src == 0:
                card = ALL_KINDS[what]
                hand.remove(card)
            else:
                card = sides[what].pop()
            needs[slot] = 1 if before + 1 > top else before + 1
            line.append(play)
            ok = visit()
            line.pop()
            needs[slot] = before
            if src == 0:
                hand.append(card)
            else:
                sides[what].append(card)
            if ok:
                line_found.append(play)
                return True
        return False

    line_found: list[tuple[int, int, int]] = []
    if visit():
        return line_found[::-1]
    return empty_line


class Searcher:
    """Chooses the ``hard`` player's turn by planning against sampled deals of hidden cards."""

    def __init__(self, seed: int, candidates: int = 6, deals: int = 12,
                 node_limit: int = 500, weight: float = 140.0, threat_deals: int = 48,
                 rollouts: bool = False) -> None:
        """``threat_deals`` sampled deals measure the opponent's reach; with ``rollouts``, the
        best ``candidates`` turns are re-scored over the first ``deals`` of them."""
        self.seed = seed
        self.candidates = candidates
        self.deals = deals
        self.node_limit = node_limit
        self.weight = weight
        self.threat_deals = threat_deals
        self.rollouts = rollouts
        self.weights = HARD_WEIGHTS

    def plan(self, view: View) -> Candidate | None:
        """The chosen turn for ``view`` (whose seat is on turn)."""
        rng = random.Random(f"hard/{self.seed}/{view.turn_number}/{view.plays_this_turn}/"
                            f"{sorted(c.code for c in view.hand or ())}")
        deals = [sample_hidden(view, rng) for _ in range(self.threat_deals)]
        planner = Planner(view, self.weights, self.node_limit, deals)
        found = planner.search(keep=64)
        if not found:
            return None
        best = found[0]
        if best.kind != END or not self.rollouts:
            return best  # the pay-off card, a win, or five new cards: take it
        ends = [c for c in found if c.kind == END][: self.candidates]
        if len(ends) < 2:
            return best
        deals = deals[: self.deals]
        scored = []
        for cand in ends:
            value = self._rollouts(view, cand, deals)
            scored.append((cand.base + self.weight * value, cand))
        scored.sort(key=lambda x: -x[0])
        return scored[0][1]

    def _rollouts(self, view: View, cand: Candidate, deals: Sequence[Hidden]) -> float:
        """Mean over ``deals`` of (own pay-off cards next turn) - (opponent's on his turn)."""
        rules = view.rules
        assert view.viewer is not None
        me, opp = view.viewer, 1 - view.viewer
        fit = fit_masks(rules)
        wild = [is_wild(rules, c) for c in ALL_KINDS]
        top = rules.top_rank
        h = rules.hand_size
        refill = rules.refill_empty_hand
        total = 0.0
        opp_left = view.payoff_counts[opp]
        my_left = view.payoff_counts[me]
        for deal in deals:
            stock = list(deal.stock[::-1])  # next card drawn last
            needs = list(cand.needs)
            # The opponent's turn.
            hand = list(deal.opponent_hand)
            while len(hand) < h and stock:
                hand.append(stock.pop())
            top_o = view.payoff_tops[opp]
            pile_o = [*deal.payoff_below[opp], *([top_o] if top_o else [])]
            sides_o = [list(p) for p in view.sides[opp]]
            theirs = chase(needs, hand, sides_o, pile_o, stock, top, fit, wild, refill, h)
            if theirs >= opp_left:
                total -= 10.0
                continue
            # The player's next turn.
            mine_hand = list(cand.hand)
            while len(mine_hand) < h and stock:
                mine_hand.append(stock.pop())
            top_m = view.payoff_tops[me]
            pile_m = [*deal.payoff_below[me], *([top_m] if top_m else [])]
            sides_m = [list(p) for p in cand.sides]
            mine = chase(needs, mine_hand, sides_m, pile_m, stock, top, fit, wild, refill, h)
            if mine >= my_left:
                total += 5.0
            total += 0.6 * mine - theirs
        return total / len(deals)
