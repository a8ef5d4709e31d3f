"""What a player's view reveals about the hidden cards, and hypothetical deals consistent with it.

The hidden cards (rule 8) are the opponent's hand, the order of the stock and the pay-off cards
below both tops. Everything else is in the view, so the *unseen* cards are the full deck minus
every card the view shows. A determinization deals the unseen cards at random into the hidden
places, in the numbers the view gives, and so builds one full game the viewer cannot tell apart
from the real one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import Card
from ..errors import SetupError
from ..game import Game, _side_result, full_deck
from ..moves import PASS
from ..rules import RuleSet
from ..views import View

__all__ = [
    "Glimpse",
    "Hidden",
    "UnseenPool",
    "determinize",
    "idle_streak",
    "sample_hidden",
    "seat_side_masks",
    "side_masks",
    "unseen_cards",
]

_RANKS_2_TO_K = sum(1 << r for r in range(2, 14))


def unseen_cards(view: View) -> list[Card]:
    """The cards the viewer cannot see, sorted (the same list for the same view)."""
    if view.viewer is None or view.hand is None:
        raise ValueError("Only a player's view has a hand to reason from.")
    remaining = Counter(full_deck(view.rules))
    remaining.subtract(view.hand)
    for player in view.sides:
        for pile in player:
            remaining.subtract(pile)
    for stack in view.centre:
        remaining.subtract(stack.cards)
    remaining.subtract(c for c in view.payoff_tops if c is not None)
    if any(v < 0 for v in remaining.values()):
        raise ValueError("The view shows more copies of a card than the deck holds.")
    return sorted(remaining.elements(), key=lambda c: c.code)


def side_masks(rules: RuleSet, pile: Sequence[Card]) -> list[int]:
    """The ranks each card of a side stack stands for, placed in order as history placed it.

    Recomputed the way ``Game.from_layout`` does: with four centre stacks assumed, which allows
    every placement the rules ever allow (classic rules 12 and 13), so a joker placed on a 3 with
    fewer than four centre stacks comes out as a 3 or a 2. Views show the real ranks
    (``View.side_ranks``); see ``seat_side_masks``. Kings side stacks are plain ranks.
    """
    masks: list[int] = []
    below = -1
    for card in pile:
        if rules.side_down_or_same:
            mask = _side_result(below, card, True)
        else:
            mask = _RANKS_2_TO_K if card.is_joker else 1 << card.rank
        masks.append(mask)
        below = mask
    return masks


def seat_side_masks(view: View, seat: int) -> list[list[int]]:
    """The ranks each side-stack card of ``seat`` stands for, as bit masks: from the view, which
    shows them (rule 13: fixed when a card is placed, and public); recomputed with
    ``side_masks`` only for a view that lacks them."""
    if view.side_ranks:
        return [[sum(1 << r for r in ranks) for ranks in pile] for pile in view.side_ranks[seat]]
    return [side_masks(view.rules, pile) for pile in view.sides[seat]]


@dataclass(frozen=True, slots=True)
class Hidden:
    """One guess at the hidden cards of a view."""

    opponent_hand: tuple[Card, ...]
    """The opponent's hand."""
    payoff_below: tuple[tuple[Card, ...], tuple[Card, ...]]
    """Each seat's pay-off cards below the top, bottom first."""
    stock: tuple[Card, ...]
    """The stock in draw order: the first card is the next one drawn."""


def sample_hidden(view: View, rng: random.Random) -> Hidden:
    """Deal the unseen cards at random into the hidden places, in the numbers the view shows.

    In classic the pay-off piles come from pack A, so no joker is dealt below a pay-off top.
    """
    assert view.viewer is not None
    pool = unseen_cards(view)
    rng.shuffle(pool)
    below_counts = [max(0, n - 1) for n in view.payoff_counts]
    needed = sum(below_counts)
    if view.rules.payoff_from_pack_a:
        plain = [c for c in pool if not c.is_joker]
        jokers = [c for c in pool if c.is_joker]
        below_cards, rest = plain[:needed], plain[needed:] + jokers
        rng.shuffle(rest)
    else:
        below_cards, rest = pool[:needed], pool[needed:]
    opp = 1 - view.viewer
    opp_hand = rest[: view.hand_sizes[opp]]
    stock = rest[view.hand_sizes[opp]:]
    if len(below_cards) != needed or len(stock) != view.stock_size:
        raise ValueError("The view's card counts do not add up to the deck.")
    below = (below_cards[: below_counts[0]], below_cards[below_counts[0]:])
    return Hidden(tuple(opp_hand), (tuple(below[0]), tuple(below[1])), tuple(stock))


@dataclass(frozen=True, slots=True)
class Glimpse:
    """One guess at the hidden cards the opponent's next turn uses: his hand and the first
    cards of the stock (what he would draw), dealt as ``sample_hidden`` would deal them."""

    opponent_hand: tuple[Card, ...]
    """The opponent's hand."""
    stock: tuple[Card, ...]
    """The first cards of the stock in draw order (at most the number asked for)."""


class UnseenPool:
    """The unseen cards of a view, counted once, to sample many glimpses from cheaply.

    A glimpse draws only the cards it needs, one at a time, with the same chances as dealing
    every unseen card with ``sample_hidden``: in classic the pay-off cards below the tops are
    plain cards (pack A), so the hand and the stock hold the jokers and the plain cards left;
    each next card is a joker in proportion to the jokers left, else any plain card left.
    """

    def __init__(self, view: View) -> None:
        """Count the unseen cards of ``view`` (a player's view)."""
        assert view.viewer is not None
        pool = unseen_cards(view)
        self.opp_hand_size = view.hand_sizes[1 - view.viewer]
        self.stock_size = view.stock_size
        below = sum(max(0, n - 1) for n in view.payoff_counts)
        if view.rules.payoff_from_pack_a:
            self.plain = [c for c in pool if not c.is_joker]
            self.jokers = [c for c in pool if c.is_joker]
        else:
            self.plain, self.jokers = pool, []
        # Plain cards in the hand and the stock: the others lie below the pay-off tops.
        self.plain_free = len(self.plain) - below
        if self.plain_free + len(self.jokers) != self.opp_hand_size + self.stock_size:
            raise ValueError("The view's card counts do not add up to the deck.")

    def glimpse(self, rng: random.Random, stock_cards: int) -> Glimpse:
        """The opponent's hand and the first ``stock_cards`` cards of the stock (fewer when
        the stock holds fewer)."""
        plain = self.plain[:]
        n_plain = len(plain)
        free = self.plain_free
        jokers = len(self.jokers)
        out: list[Card] = []
        want = self.opp_hand_size + min(stock_cards, self.stock_size)
        rand = rng.random
        for _ in range(want):
            if jokers and rand() * (free + jokers) < jokers:
                jokers -= 1
                out.append(self.jokers[jokers])
                continue
            i = int(rand() * n_plain)
            n_plain -= 1
            out.append(plain[i])
            plain[i] = plain[n_plain]
            free -= 1
        return Glimpse(tuple(out[: self.opp_hand_size]), tuple(out[self.opp_hand_size:]))


def idle_streak(view: View) -> int:
    """Consecutive idle turns just before the current one, as far as the recent moves show."""
    streak = 0
    moves = list(view.recent)
    i = len(moves) - 1
    if view.plays_this_turn:
        return 0
    # Skip moves of the current turn (there are none when plays_this_turn is 0 and nothing was
    # discarded, since a discard ends the turn).
    while i >= 0:
        seat, move = moves[i]
        if move is not PASS:
            break
        # A pass is idle when the same seat made no play just before it in that turn.
        if i > 0 and moves[i - 1][0] == seat:
            break
        streak += 1
        i -= 1
    return streak


def determinize(view: View, rng: random.Random, hidden: Hidden | None = None) -> Game:
    """A full game consistent with ``view``: the view's cards where the view shows them, the
    unseen cards dealt at random (or as ``hidden`` says). Cards are conserved and the game is
    checked as a saved game would be.
    """
    assert view.viewer is not None and view.hand is not None
    hidden = hidden or sample_hidden(view, rng)
    rules = view.rules
    me, opp = view.viewer, 1 - view.viewer
    game = Game(rules, rng.randrange(1 << 30))
    payoffs: list[list[Card]] = [[], []]
    for seat in (0, 1):
        top = view.payoff_tops[seat]
        payoffs[seat] = [*hidden.payoff_below[seat], *([top] if top is not None else [])]
    game.payoffs = payoffs
    hands: list[list[Card]] = [[], []]
    hands[me] = list(view.hand)
    hands[opp] = list(hidden.opponent_hand)
    game.hands = hands
    game.sides = [[list(pile) for pile in player] for player in view.sides]
    game.side_masks = [seat_side_masks(view, seat) for seat in (0, 1)]
    game.centre = [list(stack.cards) for stack in view.centre]
    game.stock = list(hidden.stock)[::-1]  # the engine draws from the end of the list
    game.turn = view.turn
    game.turn_number = view.turn_number
    game.first_player = view.first_player
    game.plays_this_turn = view.plays_this_turn
    game.idle_streak = idle_streak(view)
    game.result = view.result
    try:
        game._check_shape()
    except SetupError as exc:  # pragma: no cover - a bug in the deal above
        raise ValueError(f"Determinization failed: {exc}") from exc
    return game
