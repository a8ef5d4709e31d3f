"""The ``hard`` player's search: the turn planner driven by sampled deals of the hidden cards.

What decides most turns that cannot reach the pay-off card is what the opponent can do next: can
he reach his pay-off card from the centre stacks left behind? The ``normal`` planner guesses that
from rank counts. The searcher instead samples the hidden cards that question reads many times
(``knowledge.UnseenPool.glimpse``: the opponent's hand and the next cards of the stock, dealt
from the unseen cards as a full deal of the hidden places would deal them), plays out in each
deal the opponent's chain of cards from every centre need to his pay-off card (hand, side-stack
tops and wild cards, drawing five more when his hand empties), and plans the turn against the
share of deals in which he gets there. In kings it also re-ranks its best ways to end the turn
by the share of deals in which its own next turn reaches its pay-off card. Its evaluation keeps
wild cards for the pay-off card and prefers a discard to a pass.

At a table of three or four the opponents' hands are also dealt to fit what their last turns
showed (``knowledge.last_turn_ends``): a player who ended his turn did not hold the cards that
would have carried a centre stack on to his pay-off card, nor (classic) a compulsory Ace or 2; a
deal that gives him such a hand is dealt again (``UnseenPool.glimpse_fitting``). At a table of
two the deals are dealt as they always were, so two-player games stay move for move the same.

The work is bounded by the number of deals and search nodes, never by a clock, and the deals
come from a generator seeded by the player's seed and the view, so the same seed and the same
views give the same moves.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..views import View
from .knowledge import HandCheck, UnseenPool, last_turn_ends, opponents_in_order
from .planner import Candidate, Planner, Weights

__all__ = ["HARD_KINGS_WEIGHTS", "HARD_TABLE_CLASSIC_WEIGHTS", "HARD_WEIGHTS", "Searcher"]

HARD_WEIGHTS = Weights(threat=300.0, wild_spent=80.0, pass_cost=30.0, idle_behind=5000.0,
                       stuck_risk=150.0)
"""The hard player's evaluation: the opponent's chance of reaching his pay-off card, measured on
the sampled deals, weighs about twice as much as in ``normal``'s guess from rank counts; wild
cards are kept for the pay-off card, and a classic turn ends with a discard rather than a pass
unless the discard does real harm. Most classic games end in a stalemate (rule 16), won by
whoever has fewer pay-off cards, so the player behind never passes idly while it can play or
discard, and ends its turn with side stacks that will still take a card next turn (all measured
against ``normal``)."""

HARD_KINGS_WEIGHTS = replace(HARD_WEIGHTS, own_reach=100.0, played_hand=10.0)
"""The hard player's evaluation in ``kings``: as in classic, and its best ways to end the turn
are re-ranked by how often its own next turn reaches its pay-off card in the sampled deals
(``Planner.own_reach``); each hand card played to the centre counts more (a kings turn draws
back to five, so cards played are new cards seen). The measurements behind both weight sets
are in BENCHMARKS.md."""


HARD_TABLE_CLASSIC_WEIGHTS = replace(HARD_WEIGHTS, pass_cost=200.0, wild_spent=300.0, keep=3.0)
"""The hard player's evaluation in classic with two opponents or more still playing: a turn
ends with a discard rather than a pass whenever it can (a pass costs 200, not 30): the hand is
then topped up with new cards next turn; a joker is spent only on the way to the pay-off card
(each one spent otherwise costs 300, not 80); and a discard minds less what the card could do
from the hand (``keep`` 3, not 6). Against two ``normal`` players, on three sets of 300 games
(BENCHMARKS.md): pass cost 30 0.426, 60 0.443, 100 0.445, 200 0.450; then jokers at 40 0.410,
80 0.444, 150 0.459, 300 0.464, 600 0.458, 1,000 0.465; then keep 0 0.452, 1.5 0.453, 3
0.473, 12 0.440 (three more sets: 0.459 -> 0.492). A table of two keeps ``HARD_WEIGHTS``
(its games are pinned)."""


class Searcher:
    """Chooses the ``hard`` player's turn by planning against sampled deals of hidden cards."""

    def __init__(self, seed: int, node_limit: int = 500, threat_deals: int = 48,
                 tries: int = 8) -> None:
        """``threat_deals`` sampled deals measure the opponent's reach; ``node_limit`` bounds
        the planner's search; at a table of three or four, a deal whose hands contradict what
        the opponents' last turns showed is dealt again, at most ``tries`` times."""
        self.seed = seed
        self.tries = tries
        self.node_limit = node_limit
        self.threat_deals = threat_deals
        self.weights = HARD_WEIGHTS
        self.kings_weights = HARD_KINGS_WEIGHTS
        self.table_classic_weights = HARD_TABLE_CLASSIC_WEIGHTS

    def plan(self, view: View) -> Candidate | None:
        """The chosen turn for ``view`` (whose seat is on turn)."""
        rng = random.Random(f"hard/{self.seed}/{view.turn_number}/{view.plays_this_turn}/"
                            f"{sorted(c.code for c in view.hand or ())}")
        pool = UnseenPool(view)
        # The opponent's chain to his pay-off card uses his hand and at most his draw at the
        # start of the turn plus two refills of an emptied hand.
        # At a bigger table the opponents after the next one draw first: a hand more each.
        draws = (view.players - len(view.left) - len(view.absent) + 1) * view.rules.hand_size
        opponents = opponents_in_order(view)
        ends = last_turn_ends(view) if len(opponents) >= 2 else {}
        if ends:
            rules = view.rules
            checks = [HandCheck(rules, ends[seat]) if seat in ends else None
                      for seat in opponents]
            deals = [pool.glimpse_fitting(rng, draws, checks, self.tries)
                     for _ in range(self.threat_deals)]
        else:
            deals = [pool.glimpse(rng, draws) for _ in range(self.threat_deals)]
        if view.rules.wild_rank:
            weights = self.kings_weights
        elif len(opponents) >= 2:
            weights = self.table_classic_weights
        else:
            weights = self.weights
        found = Planner(view, weights, self.node_limit, deals).search(keep=1)
        return found[0] if found else None

