"""The turn planner: a bounded search over the plays of one turn, from the viewer's view.

A turn is a sequence of plays to the centre that ends with a discard (or a pass in classic). The
planner walks those sequences depth first, merging positions reached by different orders, and
scores every place a turn could stop:

- a line that plays the pay-off card scores highest (the next pay-off card is then revealed, so
  the player plans again from the new view); a line that empties the hand mid-turn comes next
  (five new cards are drawn);
- otherwise the end of the turn is scored by how likely the opponent is to reach his pay-off
  card from the centre stacks left behind (his side-stack tops are public; his hand is estimated
  from the unseen cards; at a table of three or four, every opponent, the later ones weighing
  less since the next one changes the centre before them), how close the centre is to the
  player's own pay-off card, the cards played and wild cards spent, and the best discard (or
  pass) from what is left; with a ``stuck_risk`` weight (classic), also by the chance that the
  side stacks left behind take none of next turn's cards (rule 16 punishes the player behind who
  can neither play nor discard).

Everything is bounded by a node budget, not a clock, so the same view always gives the same
plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..cards import ALL_KINDS as _ALL
from ..cards import Card
from ..game import _side_accepts_mask, _side_result
from ..moves import PASS, Move, Target
from ..rules import RuleSet
from ..views import View
from .knowledge import (
    Glimpse,
    Hidden,
    chain_reach,
    fit_masks,
    idle_streak,
    opponents_in_order,
    seat_side_masks,
    unseen_cards,
)

__all__ = ["TABLE_CLASSIC_WEIGHTS", "Candidate", "Planner", "Weights"]

HAND, PAYOFF, SIDE = 0, 1, 2
"""Sources of a play in a planned line."""

Play = tuple[int, int, int]
"""A planned play: (source kind, card code for the hand or side-stack index, centre slot)."""

END, PAYOFF_PLAYED, REFILL, WON = "end", "payoff", "refill", "won"

def is_wild(rules: RuleSet, card: Card) -> bool:
    """True for the rule set's wild card: a joker in classic, a King in kings."""
    return card.is_joker if rules.wild_rank == 0 else card.rank == rules.wild_rank


@dataclass(frozen=True, slots=True)
class Weights:
    """The planner's evaluation weights (one set per level)."""

    payoff: float = 1000.0
    """A line that plays the pay-off card."""
    refill: float = 300.0
    """A line that empties the hand mid-turn (five new cards)."""
    win: float = 100_000.0
    """A line that plays the last pay-off card."""
    threat: float = 140.0
    """Times the estimated chance that the opponent reaches his pay-off card next turn."""
    potential: float = 25.0
    """Times the closeness of a centre stack to the player's own pay-off card."""
    played_hand: float = 4.0
    """Each hand card played to the centre (fewer cards kept, more drawn next turn)."""
    played_side: float = 5.0
    """Each side-stack card played (uncovers the card below)."""
    wild_spent: float = 12.0
    """Each wild card spent without reaching the pay-off card."""
    discard: float = 1.0
    """Scale of the discard evaluation."""
    bury: float = 10.0
    """Cost of covering a side-stack top by how soon it could be played."""
    keep: float = 6.0
    """Cost of discarding a card by how soon it could be played from the hand."""
    pass_cost: float = 8.0
    """Cost of passing with cards in hand (classic): the hand is not refreshed."""
    idle_behind: float = 10.0
    """Cost of an idle pass while behind on pay-off cards (the opponent may end the game)."""
    own_reach: float = 0.0
    """Times the share of sampled deals in which the player reaches his pay-off card next turn
    from where the turn leaves the centre (needs sampled deals; used to re-rank the best
    ``rerank`` ways to end the turn)."""
    own_deals: int = 16
    """How many of the sampled deals measure ``own_reach``."""
    rerank: int = 6
    """How many of the best ways to end the turn ``own_reach`` re-ranks."""
    stuck_risk: float = 0.0
    """Classic: cost of ending the turn with side stacks that may take none of next turn's
    cards (when not ahead, a turn with no play and no discard lets the opponent end the game);
    times the chance of that."""
    later_threat: float = 0.5
    """At a table of three or four: how much the chance that an opponent after the next one
    reaches his pay-off card counts, against the next one's (the next one changes the centre
    first)."""


TABLE_CLASSIC_WEIGHTS = Weights(wild_spent=80.0)
"""The ``normal`` player's weights in classic at a table of three or four: jokers are kept for
the pay-off card (each wild card spent without reaching it costs 80, not 12). Against two
``easy`` players (BENCHMARKS.md) this lifts ``normal`` where the two-player weights fall short;
a pass cost of 30 as well lifted it as much but left ``hard`` far behind against two of it. A
table of two keeps ``Weights()`` (its games are pinned)."""


@dataclass(slots=True)
class Candidate:
    """One way the turn could go: the plays, and how it ends."""

    score: float
    """The planner's score (higher is better)."""
    line: tuple[Play, ...]
    """The plays to the centre, in order."""
    kind: str
    """``end`` (the turn ends with ``finish``), ``payoff``, ``refill`` or ``won``."""
    finish: Move | None
    """The discard or pass that ends the turn (for ``end``)."""
    needs: tuple[int, ...]
    """The centre stacks' needs after the plays."""
    hand: tuple[Card, ...]
    """The hand after the plays and the discard."""
    sides: tuple[tuple[Card, ...], ...]
    """The player's side stacks after the plays and the discard."""


def play_to_move(play: Play, hand_card: dict[int, Card]) -> Move:
    """The engine move for a planned play."""
    kind, what, slot = play
    if kind == HAND:
        return Move.hand(hand_card[what], Target.CENTRE, slot)
    if kind == PAYOFF:
        return Move.payoff(Target.CENTRE, slot)
    return Move.side(what, Target.CENTRE, slot)


class Planner:
    """Plans the viewer's turn from a view (the viewer must be on turn)."""

    def __init__(self, view: View, weights: Weights | None = None, node_limit: int = 400,
                 deals: Sequence[Hidden | Glimpse] = ()) -> None:
        """Read what the planner needs from ``view``.

        With ``deals`` (sampled hidden cards), the chance that the opponent reaches his pay-off
        card is measured on those deals instead of estimated from rank counts.
        """
        if view.viewer is None or view.hand is None:
            raise ValueError("The planner needs a player's view.")
        self.view = view
        self.w = weights or Weights()
        self.node_limit = node_limit
        rules = view.rules
        self.rules = rules
        self.fit = fit_masks(rules)
        self.refill_size = rules.hand_size if rules.refill_empty_hand else 0
        """Cards drawn when a hand empties mid-turn (rule 6; 0 with the option off)."""
        self.top = rules.top_rank
        self.me = me = view.viewer
        self.opps = opponents_in_order(view)
        """The opponents still playing, in the order they play after the viewer."""
        self.opp = opp = self.opps[0]
        self.needs0 = [c.needs for c in view.centre]
        self.hand0 = list(view.hand)
        self.sides0 = [list(s) for s in view.sides[me]]
        self.masks0 = seat_side_masks(view, me)
        self.payoff = view.payoff_tops[me]
        self.payoff_count = view.payoff_counts[me]
        self.opp_payoff = view.payoff_tops[opp]
        self.wild_code = [is_wild(rules, c) for c in _ALL]
        self.unseen = unseen_cards(view)
        self.unseen_by_rank = Counter(c.rank for c in self.unseen)
        self.n_unseen = max(1, len(self.unseen))
        wilds = sum(1 for c in self.unseen if is_wild(rules, c))
        wild_ace = bool(rules.wild_rank) and rules.king_starts_stack
        self.p_rank = [self._p_has(self.unseen_by_rank[r] + (wilds if r > 1 or wild_ace else 0))
                       for r in range(15)]
        self.legal = frozenset(view.legal_moves)
        self.threat_table = self._threat_table(opp)
        self.reach = [self._reach_mask(d) for d in deals]
        # At a bigger table, the opponents after the next one: (weight, their threat table or
        # their reach masks in the sampled deals).
        self.more_tables: list[list[float]] = []
        self.more_reach: list[list[int]] = []
        draw = [max(0, rules.hand_size - view.hand_sizes[s]) for s in self.opps]
        for k, seat in enumerate(self.opps[1:], start=1):
            if deals:
                offset = sum(draw[:k])
                self.more_reach.append([self._reach_mask(d, seat, k, offset) for d in deals])
            else:
                self.more_tables.append(self._threat_table(seat))
        # The viewer's own draws next turn, after the opponents' draws at the start of theirs.
        opp_draw = sum(draw)
        self.own_draws = [tuple(d.stock[opp_draw:]) for d in deals[: self.w.own_deals]] \
            if self.w.own_reach else []
        self.potential_table = self._potential_table()
        self.idle = idle_streak(view)
        counts = view.payoff_counts
        self.fewest_other = min(counts[s] for s in self.opps)
        """The fewest pay-off cards among the opponents still playing (rules 16 and 25)."""
        lead = self.fewest_other - counts[me]
        self.risk_weight = 0.0
        if self.w.stuck_risk and rules.may_pass and rules.side_down_or_same:
            self.risk_weight = self.w.stuck_risk * (1.0 if lead <= 0 else 0.5 if lead <= 2
                                                    else 0.2)
        self.unseen_jokers = sum(1 for c in self.unseen if c.is_joker)
        self.nodes = 0

    # ------------------------------------------------------------------ estimates

    def _p_has(self, copies: int) -> float:
        # Chance that five cards drawn from the unseen pool hold at least one of ``copies``.
        if copies <= 0:
            return 0.0
        return 1.0 - (1.0 - min(1.0, copies / self.n_unseen)) ** self.rules.hand_size

    def _chain(self, start: int, goal: int, piles: list[list[Card]]) -> float:
        """Chance of playing ranks ``start``..``goal-1`` from side-stack tops, else the hand."""
        piles = [p[:] for p in piles]
        chance = 1.0
        fit = self.fit
        for need in range(start, goal):
            for pile in piles:
                if pile and not self.wild_code[pile[-1].code] and pile[-1].rank == need:
                    pile.pop()
                    break
            else:
                for pile in piles:
                    if pile and fit[pile[-1].code] >> need & 1:
                        pile.pop()
                        break
                else:
                    chance *= self.p_rank[need]
                    if chance < 0.01:
                        return 0.0
        return chance

    def _threat_table(self, seat: int) -> list[float]:
        """For each need 1..top: the chance that opponent ``seat`` reaches his pay-off card
        from it."""
        table = [0.0] * (self.top + 2)
        card = self.view.payoff_tops[seat]
        if card is None:
            return table
        piles = [list(p) for p in self.view.sides[seat]]
        if self.rules.wild_rank and card.rank == self.rules.wild_rank:
            return [1.0] * (self.top + 2)
        goal = card.rank
        for need in range(1, self.top + 1):
            if need <= goal:
                table[need] = 1.0 if need == goal else self._chain(need, goal, piles)
        return table

    def _potential_table(self) -> list[float]:
        """For each need: how close a stack with that need is to the viewer's pay-off card."""
        table = [0.0] * (self.top + 2)
        card = self.payoff
        if card is None:
            return table
        if self.rules.wild_rank and card.rank == self.rules.wild_rank:
            return table
        goal = card.rank
        for need in range(1, min(goal, self.top) + 1):
            table[need] = 0.55 ** (goal - need)
        return table

    # ------------------------------------------------------------------ search

    def search(self, keep: int = 1) -> list[Candidate]:
        """The best ``keep`` ways to play the turn, best first (at least one while on turn)."""
        rules = self.rules
        fit = self.fit
        top = self.top
        wild = self.wild_code
        needs = self.needs0[:]
        hand = self.hand0[:]
        sides = [s[:] for s in self.sides0]
        payoff = self.payoff
        refill = rules.refill_empty_hand
        compulsory_rules = rules.compulsory_aces_twos
        line: list[Play] = []
        seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = set()
        found: list[Candidate] = []
        self.nodes = 0
        w = self.w
        stock_empty = self.view.stock_size == 0
        # Ending a turn is only possible when the view says so at the root (the view knows
        # about compulsory plays); deeper down the planner applies rules 10 and 11 itself.

        def generate() -> tuple[list[Play], bool]:
            """Plays from the current position, and whether they are compulsory."""
            slot_of: dict[int, int] = {}
            for i, n in enumerate(needs):
                if n not in slot_of:
                    slot_of[n] = i
            if compulsory_rules:
                due: list[Play] = []
                if 1 in slot_of:
                    s1 = slot_of[1]
                    if payoff is not None and payoff.rank == 1:
                        due.append((PAYOFF, 0, s1))
                    for s, pile in enumerate(sides):
                        if pile and pile[-1].rank == 1:
                            due.append((SIDE, s, s1))
                    for c in set(hand):
                        if c.rank == 1:
                            due.append((HAND, c.code, s1))
                if 2 in slot_of:
                    s2 = slot_of[2]
                    if payoff is not None and payoff.rank == 2:
                        due.append((PAYOFF, 0, s2))
                    for s, pile in enumerate(sides):
                        if pile and pile[-1].rank == 2:
                            due.append((SIDE, s, s2))
                    for c in set(hand):
                        if c.rank == 2:
                            due.append((HAND, c.code, s2))
                if due:
                    due.sort(key=lambda p: (p[0] != PAYOFF, p[0] != SIDE, p[1], p[2]))
                    return due, True
            plays: list[Play] = []
            if payoff is not None:
                m = fit[payoff.code]
                for n, i in slot_of.items():
                    if m >> n & 1:
                        plays.append((PAYOFF, 0, i))
            for s, pile in enumerate(sides):
                if pile:
                    m = fit[pile[-1].code]
                    for n, i in slot_of.items():
                        if m >> n & 1:
                            plays.append((SIDE, s, i))
            wild_plays: list[Play] = []
            for c in sorted(set(hand), key=lambda c: c.code):
                m = fit[c.code]
                target = wild_plays if wild[c.code] else plays
                for n, i in slot_of.items():
                    if m >> n & 1:
                        target.append((HAND, c.code, i))
            return plays + wild_plays, False

        def visit(wilds: int, from_hand: int, from_side: int) -> None:
            key = (tuple(sorted(needs)), tuple(sorted(c.code for c in hand)),
                   tuple(len(s) for s in sides))
            if key in seen:
                return
            seen.add(key)
            self.nodes += 1
            plays, forced = generate()
            if not forced:
                base = (w.played_hand * from_hand + w.played_side * from_side
                        - w.wild_spent * wilds)
                self._end_candidates(found, tuple(line), needs, hand, sides, base)
            if self.nodes >= self.node_limit:
                return
            for play in plays:
                kind, what, slot = play
                before = needs[slot]
                if kind == HAND:
                    card = _ALL[what]
                    hand.remove(card)
                elif kind == PAYOFF:
                    assert payoff is not None
                    card = payoff
                else:
                    card = sides[what].pop()
                after = before + 1
                needs[slot] = 1 if after > top else after
                line.append(play)
                is_wild_card = wild[card.code]
                if kind == PAYOFF:
                    won = self.payoff_count <= 1
                    score = (w.win if won else w.payoff) + w.played_hand * from_hand \
                        + w.played_side * from_side - 0.5 * w.wild_spent * wilds \
                        - 0.3 * w.threat * self._threat(needs)
                    found.append(Candidate(score, tuple(line), WON if won else PAYOFF_PLAYED,
                                           None, tuple(needs), tuple(hand),
                                           tuple(tuple(s) for s in sides)))
                elif not hand and refill and (kind == HAND) and not stock_empty:
                    score = (w.refill + w.played_hand * (from_hand + 1)
                             + w.played_side * from_side
                             - w.wild_spent * (wilds + is_wild_card)
                             - 0.5 * w.threat * self._threat(needs)
                             + w.potential * self._potential(needs))
                    found.append(Candidate(score, tuple(line), REFILL, None, tuple(needs), (),
                                           tuple(tuple(s) for s in sides)))
                else:
                    visit(wilds + is_wild_card, from_hand + (kind == HAND),
                          from_side + (kind == SIDE))
                line.pop()
                needs[slot] = before
                if kind == HAND:
                    hand.append(card)
                elif kind == SIDE:
                    sides[what].append(card)
                if self.nodes >= self.node_limit:
                    return

        visit(0, 0, 0)
        found.sort(key=lambda c: -c.score)
        if self.own_draws:
            ends = [c for c in found if c.kind == END][: w.rerank]
            for cand in ends:
                cand.score += w.own_reach * self.own_reach(cand)
            found.sort(key=lambda c: -c.score)
        return found[:keep]

    def _reach_mask(self, deal: Hidden | Glimpse, seat: int | None = None, k: int = 0,
                    offset: int = 0) -> int:
        """The centre needs from which the next opponent (or opponent ``seat``, the ``k``-th
        to play after the viewer, who draws after ``offset`` stock cards went to the ones
        before him) reaches his pay-off card in ``deal``."""
        if seat is None:
            seat = self.opp
        card = self.view.payoff_tops[seat]
        if card is None:
            return 0
        top = self.top
        if self.rules.wild_rank and card.rank == self.rules.wild_rank:
            return (1 << (top + 2)) - 1
        goal = card.rank
        h = self.rules.hand_size
        if k == 0:
            start_hand = list(deal.opponent_hand)
        elif isinstance(deal, Glimpse):
            start_hand = list(deal.later_hands[k - 1])
        else:
            start_hand = list(deal.hands[seat])
        stock = list(deal.stock[offset:])
        drawn = max(0, h - len(start_hand))
        start_hand += stock[:drawn]
        return (1 << goal) | self._chains(range(1, goal), goal, start_hand, stock[drawn:],
                                          [list(p) for p in self.view.sides[seat]])

    def _chains(self, starts: Iterable[int], goal: int, start_hand: list[Card],
                stock: Sequence[Card], piles0: list[list[Card]]) -> int:
        """The needs in ``starts`` from which cards of ranks need..goal-1 can be played from
        these side stacks and hand (drawing from ``stock`` when the hand empties): a greedy
        chain that uses natural cards before wild ones and side-stack tops before the hand."""
        return chain_reach(starts, goal, start_hand, piles0, self.fit, self.wild_code, stock,
                           self.refill_size)

    def own_reach(self, cand: Candidate) -> float:
        """The share of the sampled deals in which the viewer, next turn, reaches his pay-off
        card from where ``cand`` leaves the centre (as if the opponent changed nothing): his
        hand after the turn topped up from the stock, his side stacks, refills when it empties.
        """
        card = self.payoff
        if card is None or not self.own_draws:
            return 0.0
        if self.rules.wild_rank and card.rank == self.rules.wild_rank:
            return 1.0
        goal = card.rank
        starts = sorted({n for n in cand.needs if n <= goal})
        if not starts:
            return 0.0
        if goal in starts:
            return 1.0
        h = self.rules.hand_size
        kept = list(cand.hand)
        piles = [list(p) for p in cand.sides]
        hits = 0
        samples = self.own_draws
        for draws in samples:
            n = max(0, h - len(kept))
            if self._chains(starts, goal, kept + list(draws[:n]), draws[n:], piles):
                hits += 1
        return hits / len(samples)

    def _stuck_risk(self, hand: list[Card], tops: list[int], four: bool) -> float:
        """The chance that next turn no card in hand fits a side stack with these top masks
        (-1: empty), after drawing up to a full hand from the unseen cards."""
        acc = 0
        for t in tops:
            if t < 0:
                return 0.0
            acc |= _side_accepts_mask(t, four)
        for c in hand:
            if (acc & 1) if c.is_joker else (acc >> c.rank & 1):
                return 0.0
        draws = min(self.rules.hand_size - len(hand), self.view.stock_size)
        if draws <= 0:
            return 1.0
        hits = self.unseen_jokers if acc & 1 else 0
        by_rank = self.unseen_by_rank
        for r in range(1, 14):
            if acc >> r & 1:
                hits += by_rank[r]
        miss = max(0.0, 1.0 - hits / self.n_unseen)
        return float(miss ** draws)

    def _threat(self, needs: list[int]) -> float:
        reach = self.reach
        if reach:
            bits = 0
            for n in needs:
                bits |= 1 << n
            threat = sum(1 for r in reach if r & bits) / len(reach)
            if self.more_reach:
                # A bigger table: any opponent may get there, the later ones weighing less.
                miss = 1.0 - threat
                later = self.w.later_threat
                for masks in self.more_reach:
                    miss *= 1.0 - later * sum(1 for r in masks if r & bits) / len(masks)
                threat = 1.0 - miss
            return threat
        t = self.threat_table
        miss = 1.0
        for n in set(needs):
            miss *= 1.0 - t[n]
        if self.more_tables:
            later = self.w.later_threat
            for table in self.more_tables:
                other = 1.0
                for n in set(needs):
                    other *= 1.0 - table[n]
                miss *= 1.0 - later * (1.0 - other)
        return 1.0 - miss

    def _potential(self, needs: list[int]) -> float:
        t = self.potential_table
        return max(t[n] for n in needs)

    # ------------------------------------------------------------------ ending the turn

    def _end_candidates(self, found: list[Candidate], line: tuple[Play, ...], needs: list[int],
                        hand: list[Card], sides: list[list[Card]], base: float) -> None:
        """Score the ways of ending the turn here and keep the best one."""
        w = self.w
        threat = self._threat(needs)
        potential = self._potential(needs)
        state = base - w.threat * threat + w.potential * potential
        best: tuple[float, Move] | None = None
        root = not line
        for move, value in self._finishes(needs, hand, sides, root):
            if root and move not in self.legal:
                continue
            if best is None or value > best[0]:
                best = (value, move)
        if best is None:
            return
        value, move = best
        new_hand = list(hand)
        new_sides = [tuple(s) for s in sides]
        if move is not PASS:
            assert move.card is not None
            new_hand.remove(move.card)
            new_sides[move.target_index] = (*sides[move.target_index], move.card)
        found.append(Candidate(state + w.discard * value, line, END, move, tuple(needs),
                               tuple(new_hand), tuple(new_sides)))

    def _use(self, rank: int, needs: list[int]) -> float:
        """How soon a card of ``rank`` is likely to be playable (1: now, towards 0: not soon)."""
        if rank == 0:
            return 1.0
        gap = 99
        for n in needs:
            if n <= rank:
                gap = min(gap, rank - n)
        if gap == 99:
            gap = rank - 1
        use = 1.0 / (1 + gap)
        goal = self.payoff.rank if self.payoff is not None else 0
        if goal and any(n <= rank < goal for n in needs):
            use += 0.3  # a bridge towards the pay-off card
        return use

    def _finishes(self, needs: list[int], hand: list[Card], sides: list[list[Card]],
                  root: bool) -> list[tuple[Move, float]]:
        """Every way to end the turn here with its value: discards, and a pass in classic."""
        rules = self.rules
        out: list[tuple[Move, float]] = []
        classic = rules.side_down_or_same
        four = all(n > 1 for n in needs)
        empties = sum(1 for s in sides if not s)
        risky = self.risk_weight > 0.0
        tops: list[int] = []
        rest: list[Card] = []
        if risky:
            tops = [self.masks0[s][len(p) - 1] if p else -1 for s, p in enumerate(sides)]
            rest = list(hand)
        for card in set(hand):
            r = card.rank
            wildc = self.wild_code[card.code]
            keep = self._use(r, needs)
            for s, pile in enumerate(sides):
                height = len(pile)
                if classic:
                    masks = self.masks0[s]
                    top_mask = masks[height - 1] if height else -1
                    if _side_result(top_mask, card, four) == 0:
                        continue
                value = 0.0
                if wildc:
                    value -= 60.0
                if not pile:
                    value += 4.0 if r >= 12 else (1.5 if r >= 9 else -2.0 - (9 - r) * 0.5)
                    if empties == 1 and r < 11:
                        value -= 4.0
                else:
                    below = pile[-1]
                    br = below.rank
                    if self.wild_code[below.code]:
                        value -= 25.0  # burying a wild card
                    elif br == r:
                        value += 7.0
                    elif br == r + 1:
                        value += 6.0
                    else:
                        value += -1.0 - self.w.bury * self._use(br, needs)
                        if not classic and br < r:
                            value -= 2.0  # a run the wrong way round buries the lower card
                value -= self.w.keep * keep
                value += 0.25 * r  # high cards are needed last
                if risky:
                    new_tops = tops[:]
                    new_tops[s] = _side_result(tops[s], card, four) if classic else 0
                    rest.remove(card)
                    value -= self.risk_weight * self._stuck_risk(rest, new_tops, four)
                    rest.append(card)
                out.append((Move.hand(card, Target.SIDE, s), value))
        if rules.may_pass:
            value = -self.w.pass_cost if hand else 0.0
            mine = self.view.payoff_counts[self.me]
            fewest = self.fewest_other
            idle_now = root and self.view.plays_this_turn == 0
            if idle_now and self.idle >= len(self.opps):
                # Rules 16 and 25: an idle pass now ends the game on pay-off sizes.
                value = 50_000.0 if mine < fewest else -50_000.0
            elif idle_now and mine > fewest:
                value -= self.w.idle_behind  # the opponent may end the game while ahead
            if risky:
                value -= self.risk_weight * self._stuck_risk(rest, tops, four)
            out.append((PASS, value))
        return out

    # ------------------------------------------------------------------ choosing

    def best_move(self) -> Move:
        """The first move of the best plan, always one of the view's legal moves."""
        legal = self.view.legal_moves
        if not legal:
            raise ValueError("The viewer has no move to make: not on turn, or the game is over.")
        best = self.search(keep=1)
        if best:
            move = first_move(best[0], self.hand0)
            if move in legal:
                return move
        return legal[0]  # pragma: no cover - a plan the engine disagrees with


def first_move(cand: Candidate, hand: list[Card]) -> Move:
    """The move that starts ``cand``: its first play, or its discard or pass."""
    if cand.line:
        return play_to_move(cand.line[0], {c.code: c for c in hand})
    assert cand.finish is not None
    return cand.finish


