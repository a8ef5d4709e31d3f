"""What a player's view reveals about the hidden cards, and hypothetical deals consistent with it.

The hidden cards (rules 8 and 29) are the other players' hands, the order of the stock and the
pay-off cards below every top. Everything else is in the view, so the *unseen* cards are the
full deck minus every card the view shows. A determinization deals the unseen cards at random
into the hidden places, in the numbers the view gives, and so builds one full game the viewer
cannot tell apart from the real one.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..cards import Card
from ..errors import SetupError
from ..game import Game, _centre_fit_masks, _side_result, full_deck
from ..moves import Move
from ..rules import RuleSet
from ..views import View

__all__ = [
    "Glimpse",
    "HandCheck",
    "TurnEnd",
    "chain_reach",
    "dealt_in",
    "fit_masks",
    "hand_fits",
    "last_turn_ends",
    "opponents_in_order",
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


def dealt_in(view: View) -> tuple[int, ...]:
    """The seats dealt into the viewed game (every seat but the absent ones)."""
    return tuple(s for s in range(view.players) if s not in view.absent)


def opponents_in_order(view: View) -> tuple[int, ...]:
    """The viewer's opponents still playing, in the order they play after him."""
    assert view.viewer is not None
    n = view.players
    gone = set(view.left).union(view.absent)
    return tuple(s for s in ((view.viewer + k) % n for k in range(1, n)) if s not in gone)


def _hidden_hands(view: View) -> tuple[int, ...]:
    """The seats whose hands the viewer cannot see: the opponents still playing in the order
    they play after him, then those who left (their hands stay out of play)."""
    assert view.viewer is not None
    n = view.players
    order = [(view.viewer + k) % n for k in range(1, n)]
    playing = opponents_in_order(view)
    return playing + tuple(s for s in order if s in view.left)


def unseen_cards(view: View) -> list[Card]:
    """The cards the viewer cannot see, sorted (the same list for the same view)."""
    if view.viewer is None or view.hand is None:
        raise ValueError("Only a player's view has a hand to reason from.")
    remaining = Counter(full_deck(view.rules, len(dealt_in(view))))
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
    """The hand of the opponent who plays next."""
    payoff_below: tuple[tuple[Card, ...], ...]
    """Each seat's pay-off cards below the top, bottom first."""
    stock: tuple[Card, ...]
    """The stock in draw order: the first card is the next one drawn."""
    hands: tuple[tuple[Card, ...], ...] = ()
    """Every seat's hand (the viewer's as he sees it)."""


def sample_hidden(view: View, rng: random.Random) -> Hidden:
    """Deal the unseen cards at random into the hidden places, in the numbers the view shows.

    In classic the pay-off piles come from the packs without jokers, so no joker is dealt below
    a pay-off top.
    """
    assert view.viewer is not None and view.hand is not None
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
    hands: list[tuple[Card, ...]] = [()] * view.players
    hands[view.viewer] = view.hand
    for seat in _hidden_hands(view):
        n = view.hand_sizes[seat]
        hands[seat], rest = tuple(rest[:n]), rest[n:]
    stock = rest
    if len(below_cards) != needed or len(stock) != view.stock_size:
        raise ValueError("The view's card counts do not add up to the deck.")
    below: list[tuple[Card, ...]] = []
    for count in below_counts:
        below.append(tuple(below_cards[:count]))
        below_cards = below_cards[count:]
    opponents = opponents_in_order(view)
    return Hidden(hands[opponents[0]] if opponents else (), tuple(below), tuple(stock),
                  tuple(hands))


@dataclass(frozen=True, slots=True)
class Glimpse:
    """One guess at the hidden cards the opponents' next turns use: their hands and the first
    cards of the stock (what they would draw), dealt as ``sample_hidden`` would deal them."""

    opponent_hand: tuple[Card, ...]
    """The hand of the opponent who plays next."""
    stock: tuple[Card, ...]
    """The first cards of the stock in draw order (at most the number asked for)."""
    later_hands: tuple[tuple[Card, ...], ...] = ()
    """At a table of three or four: the hands of the opponents after the next one, in the
    order they play."""


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
        opponents = opponents_in_order(view)
        sizes = [view.hand_sizes[s] for s in opponents]
        self.opp_hand_size = sizes[0] if sizes else 0
        self.later_sizes = sizes[1:]
        hidden_hands = sum(view.hand_sizes[s] for s in _hidden_hands(view))
        self.stock_size = view.stock_size
        below = sum(max(0, n - 1) for n in view.payoff_counts)
        if view.rules.payoff_from_pack_a:
            self.plain = [c for c in pool if not c.is_joker]
            self.jokers = [c for c in pool if c.is_joker]
        else:
            self.plain, self.jokers = pool, []
        # Plain cards in the hand and the stock: the others lie below the pay-off tops.
        self.plain_free = len(self.plain) - below
        if self.plain_free + len(self.jokers) != hidden_hands + self.stock_size:
            raise ValueError("The view's card counts do not add up to the deck.")

    def glimpse(self, rng: random.Random, stock_cards: int) -> Glimpse:
        """The next opponent's hand, the first ``stock_cards`` cards of the stock (fewer when
        the stock holds fewer), and at a bigger table the later opponents' hands: a deal of the
        hidden places with nothing checked (``glimpse_fitting`` with no checks, one try)."""
        return self.glimpse_fitting(rng, stock_cards, [None] * (1 + len(self.later_sizes)), 1)

    def glimpse_fitting(self, rng: random.Random, stock_cards: int,
                        checks: Sequence[Callable[[Sequence[Card]], bool] | None],
                        tries: int) -> Glimpse:
        """A glimpse whose opponents' hands pass ``checks`` (one per opponent in the order they
        play, ``None`` for no check): the hands are dealt first, in that order, then the stock,
        and dealt again while one fails, at most ``tries`` times (the last try is kept
        whatever it holds). Dealing the hands before the stock changes no chance: every card
        drawn is a joker in proportion to the jokers left, else any plain card left."""
        # The hands in the order the opponents play, then the stock's first cards.
        sizes = [self.opp_hand_size, *self.later_sizes, min(stock_cards, self.stock_size)]
        checks = [*checks, None]
        rand = rng.random
        all_jokers = self.jokers
        # Each draw swaps the card drawn behind the ones left, so one copy serves every try:
        # its order changes, not what it holds.
        plain = self.plain[:]
        for attempt in range(tries):
            n_plain = len(plain)
            free = self.plain_free
            jokers = len(all_jokers)
            last = attempt == tries - 1
            parts: list[tuple[Card, ...]] = []
            for size, check in zip(sizes, checks, strict=True):
                out: list[Card] = []
                for _ in range(size):
                    if jokers and rand() * (free + jokers) < jokers:
                        jokers -= 1
                        out.append(all_jokers[jokers])
                        continue
                    i = int(rand() * n_plain)
                    n_plain -= 1
                    card = plain[i]
                    out.append(card)
                    plain[i] = plain[n_plain]
                    plain[n_plain] = card
                    free -= 1
                part = tuple(out)
                if not last and check is not None and not check(part):
                    break
                parts.append(part)
            else:
                return Glimpse(parts[0], parts[-1], tuple(parts[1:-1]))
        raise AssertionError("unreachable: the last try is always kept")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """What an opponent's last turn tells about the hand he kept: when it ended, he could not
    have played on to his pay-off card from the centre stacks he left (a player who can, does),
    and in classic he held no compulsory card (rules 10 and 11 forbid ending a turn then).

    His pay-off top, side stacks and hand are as he left them: nobody else touches them, and he
    draws only at the start of his own turn."""

    seat: int
    """The opponent."""
    banned: int
    """Bit mask of ranks his hand cannot hold: an Ace when a centre slot was free, a natural 2
    when a centre stack showed an Ace (classic only; jokers are never compulsory)."""
    starts: tuple[int, ...]
    """The centre needs below his pay-off card when his turn ended (empty: nothing to check)."""
    goal: int
    """His pay-off card's rank."""
    piles: tuple[tuple[Card, ...], ...]
    """His side stacks before his closing discard."""
    discarded: Card | None
    """The hand card his closing discard placed (it was in his hand until then)."""
    useful: int = 0
    """Bit mask of the ranks a chain from ``starts`` to ``goal`` needs: a hand without such a
    card (or a wild card) cannot have made one."""


def last_turn_ends(view: View) -> dict[int, TurnEnd]:
    """For each opponent still playing whose last turn's end is among the view's recent moves:
    what it tells about his hand (``TurnEnd``). The centre as he left it is the present centre
    with the later plays taken back, newest first."""
    assert view.viewer is not None
    rules = view.rules
    top = rules.top_rank
    needs = [c.needs for c in view.centre]
    wanted = set(opponents_in_order(view))
    ends: dict[int, TurnEnd] = {}
    fit = fit_masks(rules)
    for seat, move in reversed(view.recent):
        if seat in wanted:
            wanted.discard(seat)
            card = view.payoff_tops[seat]
            if (move.is_discard or move.is_pass) and card is not None and \
                    not fit[card.code] & (fit[card.code] - 1):
                # A wild pay-off card (kings) goes anywhere: it says nothing about the hand.
                ends[seat] = _turn_end(view, seat, move, needs)
        if not wanted:
            break
        if move.is_play:
            i = move.target_index
            needs[i] = top if needs[i] == 1 else needs[i] - 1
    return ends


def _turn_end(view: View, seat: int, move: Move, needs: list[int]) -> TurnEnd:
    rules = view.rules
    card = view.payoff_tops[seat]
    assert card is not None
    goal = card.rank
    banned = 0
    if rules.compulsory_aces_twos:
        if 1 in needs:
            banned |= 1 << 1
        if 2 in needs:
            banned |= 1 << 2
    piles = [list(p) for p in view.sides[seat]]
    discarded = None
    if move.is_discard:
        discarded = piles[move.target_index].pop()
    starts = tuple(sorted({n for n in needs if n < goal}))
    if goal in needs:
        starts = ()  # he could have played it and did not: his play is not ours to explain
    useful = sum(1 << r for r in range(starts[0], goal)) if starts else 0
    end = TurnEnd(seat, banned, starts, goal, tuple(tuple(p) for p in piles), discarded,
                  useful)
    held = [discarded] if discarded is not None else []
    if starts and chain_reach(starts, goal, held, end.piles, fit_masks(rules),
                              _wild_codes(rules)):
        # His side stacks alone reached the pay-off card: something else held him back.
        end = TurnEnd(seat, banned, (), goal, end.piles, discarded)
    return end


class HandCheck:
    """``hand_fits`` for one ``TurnEnd``, with the rule set's tables looked up once: called
    for many sampled hands."""

    __slots__ = ("banned", "end", "fit", "useful", "wild")

    def __init__(self, rules: RuleSet, end: TurnEnd) -> None:
        """The check of what ``end`` tells, under ``rules``."""
        self.end = end
        self.banned = end.banned
        self.useful = end.useful
        self.fit = fit_masks(rules)
        self.wild = _wild_codes(rules)

    def __call__(self, hand: Sequence[Card]) -> bool:
        """Whether ``hand`` could be the hand the opponent kept (see ``hand_fits``)."""
        banned = self.banned
        useful = self.useful
        wild = self.wild
        helps = False
        for c in hand:
            r = c.rank
            if banned >> r & 1:
                return False  # a joker's rank is 0: never banned
            if useful >> r & 1 or wild[c.code]:
                helps = True
        if not helps:
            # No card the chain needs: without them it fails (``last_turn_ends`` checked),
            # with the discarded card or not.
            return True
        end = self.end
        held = [*hand, end.discarded] if end.discarded is not None else list(hand)
        return not chain_reach(end.starts, end.goal, held, end.piles, self.fit, wild)


def hand_fits(rules: RuleSet, end: TurnEnd, hand: Sequence[Card]) -> bool:
    """Whether ``hand`` could be the hand the opponent of ``end`` kept: none of its ranks
    banned, and no chain from a start to his pay-off card with it (a greedy chain, as the
    planner plays one: natural cards before wild ones, side-stack tops before the hand)."""
    return HandCheck(rules, end)(hand)


_FIT: dict[RuleSet, list[int]] = {}
_WILD: dict[RuleSet, list[bool]] = {}


def fit_masks(rules: RuleSet) -> list[int]:
    """For each card code, the centre 'needs' ranks it may be played on (as the engine does)."""
    fit = _FIT.get(rules)
    if fit is None:
        fit = _FIT[rules] = _centre_fit_masks(rules)
    return fit


def _wild_codes(rules: RuleSet) -> list[bool]:
    # Per card code: whether it is the rule set's wild card (more than one centre rank fits).
    wild = _WILD.get(rules)
    if wild is None:
        wild = _WILD[rules] = [bool(m & (m - 1)) for m in fit_masks(rules)]
    return wild


def chain_reach(starts: Iterable[int], goal: int, hand: Sequence[Card],
                piles: Sequence[Sequence[Card]], fit: Sequence[int], wild: Sequence[bool],
                stock: Sequence[Card] = (), hand_size: int = 0) -> int:
    """The centre needs among ``starts`` from which a player holding ``hand`` and these side
    stacks plays cards of ranks need..goal-1 in turn: a greedy chain, natural cards before wild
    ones and side-stack tops before the hand; with a ``hand_size``, an emptied hand draws that
    many cards from ``stock`` (rule 6). A bit mask of the starts reached. ``fit`` and ``wild``
    are per card code: the needs it may be played on, and whether it is the wild card. Shared
    by the planner (the opponents' reach) and the reading of a finished turn (``HandCheck``)."""
    mask = 0
    for start in starts:
        held = list(hand)
        tops = [list(p) for p in piles]
        pos = 0
        need = start
        while need < goal:
            used = False
            for pile in tops:
                if pile and pile[-1].rank == need and not wild[pile[-1].code]:
                    pile.pop()
                    used = True
                    break
            if not used:
                for c in held:
                    if c.rank == need and not wild[c.code]:
                        held.remove(c)
                        used = True
                        break
            if not used:
                for pile in tops:
                    if pile and fit[pile[-1].code] >> need & 1:
                        pile.pop()
                        used = True
                        break
            if not used:
                for c in held:
                    if fit[c.code] >> need & 1:
                        held.remove(c)
                        used = True
                        break
            if not used:
                break
            if not held and hand_size:
                held = list(stock[pos:pos + hand_size])
                pos += hand_size
            need += 1
        if need >= goal:
            mask |= 1 << start
    return mask


def idle_streak(view: View) -> int:
    """Consecutive idle turns just before the current one (0 once the player on turn has
    played): the view shows them (rules 16 and 25)."""
    if view.plays_this_turn:
        return 0
    return view.idle_streak


def determinize(view: View, rng: random.Random, hidden: Hidden | None = None) -> Game:
    """A full game consistent with ``view``: the view's cards where the view shows them, the
    unseen cards dealt at random (or as ``hidden`` says). Cards are conserved and the game is
    checked as a saved game would be.
    """
    assert view.viewer is not None and view.hand is not None
    hidden = hidden or sample_hidden(view, rng)
    rules = view.rules
    n = view.players
    game = Game(rules, rng.randrange(1 << 30), n, view.absent)
    payoffs: list[list[Card]] = []
    for seat in range(n):
        top = view.payoff_tops[seat]
        payoffs.append([*hidden.payoff_below[seat], *([top] if top is not None else [])])
    game.payoffs = payoffs
    game.hands = [list(hand) for hand in hidden.hands]
    game.sides = [[list(pile) for pile in player] for player in view.sides]
    game.side_masks = [seat_side_masks(view, seat) for seat in range(n)]
    game.departures = [(seat, 0) for seat in view.left]
    game._seat_order()
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
