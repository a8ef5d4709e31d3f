"""The game: deal, turns, every kind of play, and the end of the game, for both rule sets.

``Game`` holds the full state, including the hidden cards, and is the only place that decides
what is legal. Everything it shows to the outside goes through ``view()`` (rule 8). Every
action is *verify, then change*: ``play()`` checks the move against the cached list of legal
moves before touching anything, and an illegal move raises ``IllegalMoveError`` whose message
says why in a player's words.

Piles are lists with the top card last (``pile[-1]``). Seats are numbered from 0 in the order
the players sat down: two, three or four of them (rules 23 to 29); play passes from each seat to
the next one still seated.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import ACE, ALL_KINDS, KING, Card, CardParseError, full_pack, rank_name
from .errors import IllegalMoveError, InvalidMoveError, SetupError
from .events import (
    Dealt,
    Discarded,
    Drew,
    EndReason,
    Event,
    GameOver,
    Left,
    Passed,
    Played,
    Result,
    StackCompleted,
    TurnEnded,
)
from .moves import _HAND, _PAYOFF, _SIDE, PASS, Move, Source, Target
from .rules import RuleSet, RuleSetError
from .views import CentreStackView, SideRanks, View

__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "Game", "full_deck", "rank_with_article"]

MIN_PLAYERS = 2
"""The fewest seats at a table."""
MAX_PLAYERS = 4
"""The most seats at a table (rules 23 to 29)."""

_RANKS_2_TO_K = sum(1 << r for r in range(2, 14))
"""Bit mask of the ranks a joker may stand for (rule 9: anything but an Ace)."""
_ANY_RANK = sum(1 << r for r in range(1, 14))
_RECENT_MOVES = 12
_SAVE_VERSION = 1


def full_deck(rules: RuleSet, players: int = 2) -> list[Card]:
    """Every card of a game of ``players`` under ``rules``, in a fixed order (rule 23): one
    52-card pack per player beyond the first, then pack B (with four jokers in classic). 108 or
    104 cards for two players, 160 or 156 for three, 212 or 208 for four."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SetupError(f"A table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}.")
    return full_pack() * (players - 1) + full_pack(rules.jokers)


def rank_with_article(rank: int) -> str:
    """``a 9``, ``an 8``, ``an Ace``, ``a King``: a rank as a player would say it."""
    word = rank_name(rank)
    return ("an " if word[0] in "A8" else "a ") + word


def _card_words(card: Card) -> str:
    return "a joker" if card.is_joker else rank_with_article(card.rank)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _centre_fit_masks(rules: RuleSet) -> list[int]:
    """For each kind of card, the bit mask of the centre 'needs' ranks it may be played on."""
    masks = []
    for code in range(53):
        card = ALL_KINDS[code]
        if rules.wild_rank == 0 and card.is_joker:
            mask = _RANKS_2_TO_K  # rule 9: never an Ace
        elif rules.wild_rank == KING and card.rank == KING:
            mask = sum(1 << r for r in range(2, rules.top_rank + 1))  # rule 17
            if rules.king_starts_stack:
                mask |= 1 << ACE
        else:
            mask = 1 << card.rank if card.rank <= rules.top_rank else 0
        masks.append(mask)
    return masks


def _subsets(row: Sequence[Move]) -> tuple[tuple[Move, ...], ...]:
    """For every set of stacks (a bit mask of their indices), the moves of ``row`` to them."""
    return tuple(tuple(row[i] for i in range(len(row)) if mask >> i & 1)
                 for mask in range(1 << len(row)))


class _Tables:
    """Per rule set: the move generator's lookup tables.

    Move generation is the engine's inner loop (every check, every computer move). A card fits
    a centre stack by the rank the stack needs: a natural card only where its own rank is
    needed, a wild card on any stack in play (and on an empty one where it may start a stack).
    So the generator works out once per position which stacks need each rank (a bit mask of
    stack indices per rank; index 0 holds the wild cards' stacks), and each source's moves are
    then a lookup: the moves of that source to that set of stacks, built here once.
    """

    __slots__ = ("key", "wild_starts", "centre_hand", "centre_payoff", "centre_side",
                 "side_hand", "every_side", "hand_moves", "all_sides", "fit", "compulsory",
                 "side_down", "may_pass")

    def __init__(self, rules: RuleSet) -> None:
        self.compulsory = rules.compulsory_aces_twos
        self.side_down = rules.side_down_or_same
        self.may_pass = rules.may_pass
        self.fit = fit = _centre_fit_masks(rules)
        self.key: list[int] = []
        """Per card code: the rank whose stacks it fits (0 for a wild card, 14 for none)."""
        nonempty = sum(1 << r for r in range(2, rules.top_rank + 1))
        wild_fit = None
        for mask in fit:
            if mask and not mask & (mask - 1):
                self.key.append(mask.bit_length() - 1)
            elif mask:
                # A wild card: it must fit every stack in play, and maybe the empty ones.
                if mask & nonempty != nonempty or wild_fit not in (None, mask):
                    raise AssertionError("wild cards must fit every centre stack in play")
                wild_fit = mask
                self.key.append(0)
            else:
                self.key.append(14)
        self.wild_starts = bool(wild_fit is not None and wild_fit >> ACE & 1)
        """True when a wild card may start an empty centre stack (kings rule 17)."""
        n = rules.centre_stacks
        self.centre_hand = [_subsets(_HAND[code][Target.CENTRE][:n]) for code in range(_KINDS)]
        self.centre_payoff = _subsets(_PAYOFF[Target.CENTRE][:n])
        self.centre_side = [_subsets(_SIDE[s][Target.CENTRE][:n])
                            for s in range(rules.side_stacks)]
        m = rules.side_stacks
        self.side_hand = [_subsets(_HAND[code][Target.SIDE][:m]) for code in range(_KINDS)]
        self.hand_moves: list[list[list[tuple[Move, ...]] | None]] = [
            [None] * (1 << n) for _ in range(_KINDS)]
        """Per card code, set of centre stacks and set of side stacks: its moves to them, in
        the order of ``legal_moves()`` (plays first); a row is built when first needed."""
        self.every_side = [subsets[-1] for subsets in self.side_hand]
        """Per card code: its moves to every side stack."""
        self.all_sides = sum(((1 << m) - 1) << (4 * r) for r in range(14))
        """Kings (rule 18): every side stack takes every card, whatever its rank (packed as
        ``Game._side_stacks`` packs them)."""

    def hand_row(self, code: int, centre: int) -> list[tuple[Move, ...]]:
        """``hand_moves[code][centre]``, built now."""
        to_centre = self.centre_hand[code][centre]
        row = [to_centre + to_side for to_side in self.side_hand[code]]
        self.hand_moves[code][centre] = row
        return row


_KINDS = len(ALL_KINDS)
_FROM_HAND, _FROM_PAYOFF = Source.HAND, Source.PAYOFF
_TO_CENTRE, _TO_SIDE = Target.CENTRE, Target.SIDE
"""Enum members as globals: the hot paths read them often, and a global read is quicker."""
_TABLES: dict[RuleSet, _Tables] = {}
_LAST_TABLES: list[tuple[RuleSet, _Tables] | None] = [None]
_SPREAD: dict[int, int] = {}
"""(side-stack top's rank mask or -1) * 2 + (four centre stacks) -> the ranks it takes, one bit
per rank at bit 4 * rank (0: a joker), ready to be shifted to its stack's place in a nibble."""


def _spread(top: int, four: bool) -> int:
    accepts = _side_accepts_mask(top, four)
    spread = sum(1 << (4 * r) for r in range(14) if accepts >> r & 1)
    _SPREAD[top << 1 | four] = spread
    return spread


class Game:
    """One game of Spite & Malice at a table of two to four seats (0, 1, …).

    Create one with ``Game.new(rules, seed, players=N)`` (a seeded deal), ``Game.deal(rules,
    order)`` (a given card order, for tests) or ``Game.from_layout(...)`` (a position set up by
    hand); load one with ``Game.from_dict``; rebuild one with ``Game.replay(rules, seed, moves)``.
    A player leaves with ``resign(seat)`` (rule 26).
    """

    __slots__ = (
        "rules",
        "seed",
        "payoffs",
        "hands",
        "sides",
        "side_masks",
        "centre",
        "stock",
        "turn",
        "turn_number",
        "plays_this_turn",
        "idle_streak",
        "shuffles",
        "first_player",
        "history",
        "result",
        "departures",
        "absent",
        "_next",
        "_seated",
        "_legal",
        "_plays",
        "_endings",
        "_fit",
        "_tables",
        "_where",
        "_side_memo",
    )

    rules: RuleSet
    seed: int
    payoffs: list[list[Card]]
    hands: list[list[Card]]
    sides: list[list[list[Card]]]
    side_masks: list[list[list[int]]]
    centre: list[list[Card]]
    stock: list[Card]
    turn: int
    turn_number: int
    plays_this_turn: int
    idle_streak: int
    shuffles: int
    first_player: int
    history: list[tuple[int, Move]]
    result: Result | None
    departures: list[tuple[int, int]]
    absent: tuple[int, ...]
    _next: list[int]
    _seated: int
    _legal: tuple[Move, ...] | None
    _plays: tuple[Move, ...] | None
    _endings: tuple[Move, ...] | None
    _fit: list[int]
    _tables: _Tables
    _where: list[int] | None
    _side_memo: list[list[int] | None]

    # ------------------------------------------------------------------ construction

    def __init__(self, rules: RuleSet, seed: int = 0, players: int = 2,
                 absent: Iterable[int] = ()) -> None:
        """An empty table of ``players`` seats; use one of the class methods to get a dealt
        game. ``absent`` seats are not dealt in (they left the match earlier, rule 27)."""
        rules.validate()
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError(f"A table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"not {players!r}.")
        away = tuple(sorted(set(absent))) if absent else ()
        if away and (any(type(a) is not int or not 0 <= a < players for a in away)
                     or players - len(away) < MIN_PLAYERS):
            raise SetupError("At least two seats of the table must be dealt in.")
        self.rules = rules = rules.for_table(players)
        self.seed = int(seed)
        self.payoffs = [[] for _ in range(players)]
        self.hands = [[] for _ in range(players)]
        self.sides = [[[] for _ in range(rules.side_stacks)] for _ in range(players)]
        self.side_masks = [[[] for _ in range(rules.side_stacks)] for _ in range(players)]
        self.centre = [[] for _ in range(rules.centre_stacks)]
        self.stock = []
        self.turn = 0
        self.turn_number = 0
        self.plays_this_turn = 0
        self.idle_streak = 0
        self.shuffles = 0
        self.first_player = 0
        self.history = []
        self.result = None
        self.departures = []
        self.absent = away
        self._seat_order()
        self._legal = self._plays = self._endings = None
        last = _LAST_TABLES[0]
        if last is not None and last[0] is rules:
            self._tables = last[1]  # the usual case, without hashing the rule set's 17 fields
        else:
            found = _TABLES.get(rules)
            if found is None:
                found = _TABLES[rules] = _Tables(rules)
            _LAST_TABLES[0] = (rules, found)
            self._tables = found
        self._fit = self._tables.fit
        self._where = None
        self._side_memo = [None] * players

    def _seat_order(self) -> None:
        """Who follows whom (rule 24): each seat's next seat still playing."""
        n = len(self.payoffs)
        if not self.absent and not self.departures:
            self._seated = n
            self._next = [*range(1, n), 0]
            return
        gone = set(self.absent)
        gone.update(seat for seat, _ in self.departures)
        self._seated = n - len(gone)
        order = []
        for seat in range(n):
            nxt = (seat + 1) % n
            while nxt in gone and nxt != seat:
                nxt = (nxt + 1) % n
            order.append(nxt)
        self._next = order

    @property
    def players(self) -> int:
        """Seats at the table (absent ones included)."""
        return len(self.payoffs)

    @property
    def left(self) -> tuple[int, ...]:
        """Seats that left the game (rule 26), in the order they left."""
        return tuple(seat for seat, _ in self.departures)

    @property
    def seated(self) -> tuple[int, ...]:
        """Seats still playing: dealt in and not left, in seat order."""
        gone = set(self.absent).union(self.left)
        return tuple(seat for seat in range(self.players) if seat not in gone)

    @property
    def dealt_in(self) -> tuple[int, ...]:
        """Seats dealt into this game (every seat but the absent ones), in seat order."""
        if not self.absent:
            return tuple(range(len(self.payoffs)))
        return tuple(seat for seat in range(self.players) if seat not in self.absent)

    @property
    def deck_size(self) -> int:
        """Cards in this game: as ``full_deck`` gives them for the seats dealt in."""
        return len(self.dealt_in) * 52 + self.rules.jokers

    @classmethod
    def new(cls, rules: RuleSet, seed: int, players: int = 2,
            absent: Iterable[int] = ()) -> tuple[Game, list[Event]]:
        """Shuffle from ``seed`` and deal (rules 1, 2, 23 and 24) to ``players`` seats (2 to 4;
        ``absent`` seats are not dealt in). Returns the game and its deal events.

        Two players get the deal they always got from the same seed.
        """
        game = cls(rules, seed, players, absent)  # checks the table before anything else
        rng = random.Random(f"spite-malice/{int(seed)}/deal")
        count = players - len(game.absent)
        if rules.payoff_from_pack_a:
            # Rule 23: the jokerless packs (A, C, D) give the pay-off piles; what is left of
            # them joins pack B as the stock. With two players nothing is left of pack A.
            plain = full_pack() * (count - 1)
            _shuffle(rng, plain)
            dealt = count * rules.payoff_size
            rest = plain[dealt:] + full_pack(rules.jokers)
            _shuffle(rng, rest)
            order = plain[:dealt] + rest
        else:
            order = full_deck(rules, count)
            _shuffle(rng, order)
        # A shuffled full deck is the right deck, with the plain packs first: nothing can fail.
        return game._deal(order)

    @classmethod
    def deal(
        cls, rules: RuleSet, order: Sequence[Card | str], seed: int = 0, players: int = 2,
        absent: Iterable[int] = (),
    ) -> tuple[Game, list[Event]]:
        """Deal from a given card order: the sequence in which the cards are dealt.

        Each pay-off pile gets ``payoff_size`` cards in turn (seat 0 first; the last card dealt to
        a pile is its top). In classic the pay-off cards must come from the jokerless packs.
        Then five cards to each hand, one at a time (seat 0 first), and the rest is the stock,
        the next card in ``order`` being the first one drawn. ``seed`` drives later shuffles.
        """
        game = cls(rules, seed, players, absent)
        cards = [c if isinstance(c, Card) else Card.parse(c) for c in order]
        count = len(game.dealt_in)
        _check_deck(rules, cards, count)
        n = rules.payoff_size
        if rules.payoff_from_pack_a and any(c.is_joker for c in cards[: count * n]):
            packs = ("pack A, which has" if count == 2
                     else "the packs without jokers (A, C, D), which have")
            raise SetupError(f"In classic the pay-off piles come from {packs} no jokers.")
        return game._deal(cards)

    def _deal(self, cards: list[Card]) -> tuple[Game, list[Event]]:
        seats = self.dealt_in
        count = len(seats)
        n = self.rules.payoff_size
        for i, seat in enumerate(seats):
            self.payoffs[seat] = cards[i * n : (i + 1) * n]
        rest = cards[count * n :]
        h = self.rules.hand_size
        for i, seat in enumerate(seats):
            self.hands[seat] = rest[i : count * h : count]
        self.stock = rest[count * h :][::-1]
        events: list[Event] = [self._choose_first_player()]
        return self, events

    def _choose_first_player(self) -> Dealt:
        # Rules 2 and 24: the highest pay-off top starts; when several share the highest rank,
        # only their piles are reshuffled and compared again.
        reshuffles = 0
        payoffs = self.payoffs
        contenders = list(self.dealt_in)
        while True:
            ranks = [payoffs[seat][-1].rank for seat in contenders]
            high = max(ranks)
            if ranks.count(high) == 1:
                contenders = [contenders[ranks.index(high)]]
                break
            contenders = [s for s, rank in zip(contenders, ranks, strict=True) if rank == high]
            if reshuffles > 1000:
                raise SetupError("The pay-off piles cannot decide a first player.")
            rng = self._next_rng()
            for seat in contenders:
                _shuffle(rng, self.payoffs[seat])
            reshuffles += 1
        self.first_player = self.turn = contenders[0]
        return Dealt(tuple(p[-1] if p else None for p in self.payoffs),
                     tuple(len(p) for p in self.payoffs), reshuffles, self.first_player)

    @classmethod
    def from_layout(
        cls,
        rules: RuleSet,
        *,
        payoffs: Sequence[Iterable[Card | str] | str],
        hands: Sequence[Iterable[Card | str] | str],
        sides: Sequence[Sequence[Iterable[Card | str] | str]] | None = None,
        centre: Sequence[Iterable[Card | str] | str] | None = None,
        stock: Iterable[Card | str] | str = (),
        turn: int = 0,
        seed: int = 0,
        left: Iterable[int] = (),
    ) -> Game:
        """Set up a position by hand (for tests and puzzles), keeping every card somewhere.

        ``payoffs`` and ``hands`` (and ``sides`` when given) hold one entry per seat: two to
        four. Piles are given bottom first (the top card last); ``stock`` lists the next cards
        to be drawn, first one first. Every card of the full deck not placed elsewhere goes under
        the given stock in a seeded order, so cards are conserved. Side stacks are placed card by
        card as they would have been played, so jokers on them keep the ranks they stand for.
        ``left`` seats have left the game already (rule 26).
        """
        players = len(payoffs)
        if len(hands) != players or (sides is not None and len(sides) != players):
            raise SetupError("Give the pay-off piles, hands and side stacks of the same seats.")
        game = cls(rules, seed, players)
        game.payoffs = [_cards(p) for p in payoffs]
        game.hands = [_cards(h) for h in hands]
        if centre is not None:
            stacks = [_cards(c) for c in centre]
            if len(stacks) > rules.centre_stacks:
                raise SetupError(f"At most {rules.centre_stacks} centre stacks.")
            for i, stack in enumerate(stacks):
                if len(stack) >= rules.top_rank:
                    raise SetupError("A complete centre stack can't stay in the centre.")
                for j, card in enumerate(stack):
                    if not game._fit[card.code] >> (j + 1) & 1:
                        raise SetupError(f"{card} can't stand as rank {j + 1} in a centre stack.")
                game.centre[i] = stack
        if sides is not None:
            for p, player_sides in enumerate(sides):
                for s, pile in enumerate(player_sides):
                    for card in _cards(pile):
                        # Placed as history may have placed it: with four centre stacks, so
                        # positions like an Ace on a 2 can be set up (rules 12, 13).
                        mask = game._side_mask_after(p, s, card, four=True)
                        if mask == 0:
                            raise SetupError(f"{card} can't go on side stack {s + 1} there.")
                        game.sides[p][s].append(card)
                        game.side_masks[p][s].append(mask)
        top = _cards(stock)
        placed = Counter(top)
        for pile in (*game.payoffs, *game.hands, *game.centre,
                     *(s for seat in game.sides for s in seat)):
            placed.update(pile)
        remaining = Counter(full_deck(rules, players))
        remaining.subtract(placed)
        if any(v < 0 for v in remaining.values()):
            extra = ", ".join(str(c) for c, v in remaining.items() if v < 0)
            raise SetupError(f"More copies than the deck holds: {extra}.")
        rest = sorted(remaining.elements(), key=lambda c: c.code)
        random.Random(f"spite-malice/{seed}/layout").shuffle(rest)
        game.stock = (top + rest)[::-1]
        if not all(game.payoffs):
            raise SetupError("Each pay-off pile needs at least one card.")
        game.departures = [(seat, 0) for seat in dict.fromkeys(left)]
        if any(type(seat) is not int or not 0 <= seat < players for seat, _ in game.departures) \
                or len(game.departures) > players - 2:
            raise SetupError("The seats that left must be seats of the table, two staying.")
        game._seat_order()
        if type(turn) is not int or not 0 <= turn < players or turn in game.left:
            raise SetupError(f"The seat on turn must be a seat still playing, 0 to {players - 1}.")
        game.turn = game.first_player = turn
        return game

    # ------------------------------------------------------------------ randomness

    def _next_rng(self) -> random.Random:
        # Each shuffle gets its own generator derived from the seed and a counter, so a saved
        # game needs only two integers to go on exactly as it would have.
        rng = random.Random(f"spite-malice/{self.seed}/{self.shuffles}")
        self.shuffles += 1
        return rng

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the player on turn (empty once the game is over).

        Computed once per position and cached until the game changes (an immutable tuple, so
        no caller can make an illegal move legal by editing it).
        """
        legal = self._legal
        if legal is None:
            legal = self._generate()
        return legal

    def legal_plays(self) -> tuple[Move, ...]:
        """The legal moves to a centre stack, in the order of ``legal_moves()``.

        With a compulsory play due (classic rules 10, 11) these are the compulsory plays.
        """
        plays = self._plays
        if plays is None:
            plays = self._generate_plays()
        return plays

    def legal_endings(self) -> tuple[Move, ...]:
        """The legal moves that end the turn, in the order of ``legal_moves()``: discards to a
        side stack, then ``pass`` where it is legal (classic rule 14)."""
        endings = self._endings
        if endings is None:
            endings = self._endings = tuple(m for m in self.legal_moves() if m.target is not
                                            _TO_CENTRE)
        return endings

    def is_legal(self, move: Move | str) -> bool:
        """True if ``move`` is legal for the player on turn now."""
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except ValueError:
                return False
        return move in self.legal_moves()

    def compulsory_plays(self) -> tuple[Move, ...]:
        """The compulsory plays due to the player on turn (classic rules 10, 11); else empty."""
        if self.result is not None or not self.rules.compulsory_aces_twos:
            return ()
        return tuple(self._compulsory())

    def _centres_in_play(self) -> int:
        return sum(1 for s in self.centre if s)

    def _compulsory(self) -> list[Move]:
        p = self.turn
        hand = self.hands[p]
        payoff = self.payoffs[p]
        sides = self.sides[p]
        moves: list[Move] = []
        empty = [i for i, s in enumerate(self.centre) if not s]
        # Rule 10: aces, while fewer than four centre stacks exist (i.e. a slot is empty).
        if empty:
            if payoff and payoff[-1].rank == ACE:
                moves.extend(_PAYOFF[Target.CENTRE][i] for i in empty)
            for s, pile in enumerate(sides):
                if pile and pile[-1].rank == ACE:
                    moves.extend(_SIDE[s][Target.CENTRE][i] for i in empty)
            seen = 0
            for card in hand:
                if card.rank == ACE and not seen >> card.code & 1:
                    seen |= 1 << card.code
                    moves.extend(_HAND[card.code][Target.CENTRE][i] for i in empty)
        # Rule 11: natural twos on a centre Ace.
        on_ace = [i for i, s in enumerate(self.centre) if len(s) == 1]
        if on_ace:
            if payoff and payoff[-1].rank == 2:
                moves.extend(_PAYOFF[Target.CENTRE][i] for i in on_ace)
            for s, pile in enumerate(sides):
                if pile and pile[-1].rank == 2:
                    moves.extend(_SIDE[s][Target.CENTRE][i] for i in on_ace)
            seen = 0
            for card in hand:
                if card.rank == 2 and not seen >> card.code & 1:
                    seen |= 1 << card.code
                    moves.extend(_HAND[card.code][Target.CENTRE][i] for i in on_ace)
        return moves

    def _generate(self) -> tuple[Move, ...]:
        # The hot path of the engine (every check, every computer move): kept flat on purpose.
        # Builds the list of every legal move; the plays and the endings are found apart when
        # asked for (``legal_plays``, ``legal_endings``).
        if self.result is not None:
            self._plays = self._endings = self._legal = ()
            return ()
        tables = self._tables
        key = tables.key
        p = self.turn
        payoff = self.payoffs[p]
        where = self._where
        if where is None:
            where = self._centre_needs()
        # Classic rules 10, 11: a natural Ace fits exactly the empty slots and a natural 2
        # exactly the stacks showing an Ace, so the plays of sources keyed 1 and 2 are the
        # compulsory plays; they are gathered on the way (aces first, as ``_compulsory`` does).
        compulsory = tables.compulsory
        aces: list[Move] = []
        twos: list[Move] = []
        legal: list[Move] = []
        if payoff:
            k = key[payoff[-1].code]
            found = tables.centre_payoff[where[k]]
            if found:
                legal += found
                if compulsory and 0 < k < 3:
                    (aces if k == 1 else twos).extend(found)
        for pile, rows in zip(self.sides[p], tables.centre_side, strict=True):
            if pile:
                k = key[pile[-1].code]
                found = rows[where[k]]
                if found:
                    legal += found
                    if compulsory and 0 < k < 3:
                        (aces if k == 1 else twos).extend(found)
        hand_moves = tables.hand_moves
        seen: list[int] = []  # codes: ints compare quicker than cards
        if tables.side_down or compulsory:
            if tables.side_down:
                memo = self._side_memo[p]
                stacks = memo[all(self.centre)] if memo is not None else -1
                if stacks < 0:
                    stacks = self._side_stacks(p)
            else:
                stacks = tables.all_sides
            side_hand = tables.side_hand
            for card in self.hands[p]:
                code = card.code
                if code in seen:
                    continue
                seen.append(code)
                k = key[code]
                centre = where[k]
                if centre:
                    row = hand_moves[code][centre]
                    if row is None:
                        row = tables.hand_row(code, centre)
                    legal += row[stacks >> (card.rank << 2) & 15]
                    if compulsory and 0 < k < 3:
                        (aces if k == 1 else twos).extend(tables.centre_hand[code][centre])
                else:
                    legal += side_hand[code][stacks >> (card.rank << 2) & 15]
        else:
            # Kings (rule 18): every side stack takes every card, and nothing is compulsory.
            every = tables.every_side
            for card in self.hands[p]:
                code = card.code
                if code in seen:
                    continue
                seen.append(code)
                centre = where[key[code]]
                if centre:
                    row = hand_moves[code][centre]
                    if row is None:
                        row = tables.hand_row(code, centre)
                    legal += row[-1]
                else:
                    legal += every[code]
        if aces or twos:
            due = self._plays = self._legal = tuple(aces + twos)
            self._endings = ()
            return due
        if tables.may_pass:
            legal.append(PASS)
        result = self._legal = tuple(legal)
        return result

    def _centre_needs(self) -> list[int]:
        """Which centre stacks need which rank: ``where[r]`` is the bit mask of the stacks that
        need rank r, ``where[0]`` of those a wild card fits; ``where[14]`` stays empty (for the
        cards that fit nowhere). Kept until a card goes to the centre (``push`` forgets it).
        """
        where = [0] * 15
        bit = 1
        for stack in self.centre:
            where[len(stack) + 1] |= bit
            bit <<= 1
        where[0] = bit - 1 if self._tables.wild_starts else (bit - 1) ^ where[1]
        self._where = where
        return where

    def _generate_plays(self) -> tuple[Move, ...]:
        # ``_generate`` without the endings, for callers that look at plays first: a hand card
        # that fits no centre stack costs a lookup. Compulsory plays are plays, so they are
        # decided here the same way.
        if self.result is not None:
            self._plays = self._endings = self._legal = ()
            return ()
        tables = self._tables
        key = tables.key
        p = self.turn
        payoff = self.payoffs[p]
        where = self._where
        if where is None:
            where = self._centre_needs()
        compulsory = tables.compulsory
        aces: list[Move] = []
        twos: list[Move] = []
        plays: list[Move] = []
        if payoff:
            k = key[payoff[-1].code]
            found = tables.centre_payoff[where[k]]
            if found:
                plays += found
                if compulsory and 0 < k < 3:
                    (aces if k == 1 else twos).extend(found)
        for pile, rows in zip(self.sides[p], tables.centre_side, strict=True):
            if pile:
                k = key[pile[-1].code]
                found = rows[where[k]]
                if found:
                    plays += found
                    if compulsory and 0 < k < 3:
                        (aces if k == 1 else twos).extend(found)
        centre_hand = tables.centre_hand
        for card in self.hands[p]:
            code = card.code
            k = key[code]
            stacks = where[k]
            if stacks:
                found = centre_hand[code][stacks]
                if found[0] in plays:
                    continue  # a second copy of a card already counted
                plays += found
                if compulsory and 0 < k < 3:
                    (aces if k == 1 else twos).extend(found)
        if aces or twos:
            due = self._plays = self._legal = tuple(aces + twos)
            self._endings = ()
            return due
        result = self._plays = tuple(plays)
        return result

    def _side_stacks(self, p: int) -> int:
        """Classic rules 12, 13: which side stacks of seat ``p`` take a card of each rank, packed
        in one integer: bits ``4r`` to ``4r + 3`` are the stacks (a bit mask of indices) that
        take rank ``r`` (0: a joker)."""
        four = all(self.centre)
        stacks = 0
        for s, masks in enumerate(self.side_masks[p]):
            top = masks[-1] if masks else -1
            spread = _SPREAD.get(top << 1 | four)  # an int key: no tuple to build
            if spread is None:
                spread = _spread(top, four)
            stacks |= spread << s
        # Kept until this seat's side stacks change (``push`` forgets it), for each answer to
        # whether four centre stacks are in play: the opponent's turn leaves it alone.
        memo = self._side_memo[p]
        if memo is None:
            memo = self._side_memo[p] = [-1, -1]
        memo[four] = stacks
        return stacks

    def _side_mask_after(self, p: int, s: int, card: Card, *, four: bool | None = None) -> int:
        """The ranks ``card`` would stand for on side stack ``s`` of seat ``p`` (0: not allowed)."""
        if not self.rules.side_down_or_same:
            return 1 << card.rank if not card.is_joker else _RANKS_2_TO_K
        masks = self.side_masks[p][s]
        if four is None:
            four = all(self.centre)
        return _side_result(masks[-1] if masks else -1, card, four)

    # ------------------------------------------------------------------ playing

    def play(self, move: Move | str, player: int | None = None) -> list[Event]:
        """Make ``move`` for the player on turn and return the events it caused.

        ``player``, when given, is the seat asking; a move out of turn is refused. Nothing
        changes unless the move is legal; otherwise ``IllegalMoveError`` says why.
        """
        if isinstance(move, str):
            move = self._parse(move)
        if self.result is not None:
            raise IllegalMoveError("The game is over.")
        if player is not None and player != self.turn:
            raise IllegalMoveError("It's not your turn.")
        if move not in self.legal_moves():
            raise IllegalMoveError(self.explain(move))
        events: list[Event] = []
        self.push(move, events)
        return events

    def _parse(self, text: str) -> Move:
        """``Move.parse``, with messages that name this rule set's centre stacks.

        A centre stack the notation can name but this rule set lacks (``C4`` in kings) parses,
        so that ``play`` refuses it as illegal and ``explain`` says why.
        """
        try:
            return Move.parse(text)
        except InvalidMoveError:
            Move.parse(text, centre_stacks=self.rules.centre_stacks)  # the same refusal, in
            raise  # this rule set's words (it can't succeed where the wider parse failed)

    def push(self, move: Move, _events: list[Event] | None = None) -> None:
        """Make ``move`` without building events: for the computer players, the arena and the
        benchmark, which take their moves from ``legal_moves()``.

        The move is not checked: it must be one of ``legal_moves()`` now (an illegal move would
        leave the game broken). Moves from anywhere else, a player's or a saved game's, go
        through ``play()``, which checks them, says why one is refused, and returns the events
        (it passes ``_events`` to collect them).
        """
        events = _events
        p = self.turn
        self._legal = self._plays = self._endings = None
        self.history.append((p, move))
        if move is PASS:
            if events is not None:
                events.append(Passed(p))
            self._end_turn(events, idle=self.plays_this_turn == 0)
            return
        source = move.source
        hand = self.hands[p]
        revealed: Card | None = None
        if source is _FROM_HAND:
            card = move.card
            assert card is not None
            hand.remove(card)
        elif source is _FROM_PAYOFF:
            payoff = self.payoffs[p]
            card = payoff.pop()
            revealed = payoff[-1] if payoff else None
        else:
            card = self.sides[p][move.source_index].pop()
            self.side_masks[p][move.source_index].pop()
            self._side_memo[p] = None
        if move.target is _TO_SIDE:
            self._side_memo[p] = None
            s = move.target_index
            if self._tables.side_down:
                masks = self.side_masks[p][s]
                mask = _side_result(masks[-1] if masks else -1, card, all(self.centre))
            else:
                mask = _RANKS_2_TO_K if card.is_joker else 1 << card.rank
            self.sides[p][s].append(card)
            self.side_masks[p][s].append(mask)
            if events is not None:
                events.append(Discarded(p, move, card, s))
            self._end_turn(events, idle=False)
            return
        stack = self.centre[move.target_index]
        stack.append(card)
        self._where = None
        self.plays_this_turn += 1
        if events is not None:
            events.append(Played(p, move, card, move.target_index, len(stack), revealed))
        rules = self.rules
        if len(stack) == rules.top_rank:
            # Rule 5: a complete stack is shuffled into the stock at once.
            self.stock.extend(stack)
            stack.clear()
            _shuffle(self._next_rng(), self.stock)
            if events is not None:
                events.append(StackCompleted(move.target_index, rules.top_rank,
                                             len(self.stock)))
        if revealed is None and source is _FROM_PAYOFF:
            # Rule 7: the last pay-off card wins at once.
            self._finish(events, p, EndReason.PAYOFF_EMPTIED)
        elif not hand and rules.refill_empty_hand:
            self._draw(events, p)  # rule 6

    def _draw(self, events: list[Event] | None, p: int) -> None:
        hand = self.hands[p]
        want = self.rules.hand_size - len(hand)
        if want <= 0:
            return
        stock = self.stock
        if not stock:
            if self.rules.stock_out_tie:
                self._finish(events, None, EndReason.STOCK_OUT)  # rules 20, 25
            return
        take = stock[-want:][::-1]
        del stock[-want:]
        hand.extend(take)
        if events is not None:
            events.append(Drew(p, len(take), tuple(take), len(stock)))

    def _end_turn(self, events: list[Event] | None, *, idle: bool, leaving: bool = False
                  ) -> None:
        p = self.turn
        self.turn_number += 1
        if not leaving or self.plays_this_turn:
            # Rule 25: a player leaving on turn neither counts as an idle turn nor breaks the
            # round, unless he played a card first (that play breaks it).
            self.idle_streak = self.idle_streak + 1 if idle else 0
        if events is not None:
            events.append(TurnEnded(p, self.turn_number, idle, self._next[p]))
        rules = self.rules
        if rules.stalemate and self.idle_streak >= self._seated:
            # Rules 16 and 25: every player still seated, in turn, ended a turn idle.
            self._finish_on_payoffs(events, EndReason.STALEMATE)
            return
        if self.turn_number >= rules.turn_limit:
            if rules.stalemate:
                self._finish_on_payoffs(events, EndReason.TURN_LIMIT)  # rule 16
            else:
                self._finish(events, None, EndReason.TURN_LIMIT)  # rules 22, 25
            return
        self.turn = self._next[p]
        self.plays_this_turn = 0
        self._draw(events, self.turn)  # rule 3

    def _finish_on_payoffs(self, events: list[Event] | None, reason: EndReason) -> None:
        # Rules 16 and 25: the fewest pay-off cards among the players still seated wins; the
        # others' margins are the difference; a shared fewest is a drawn game.
        seated = self.seated
        counts = [len(self.payoffs[seat]) for seat in seated]
        low = min(counts)
        if counts.count(low) > 1:
            self._finish(events, None, reason)
        else:
            self._finish(events, seated[counts.index(low)], reason, low)

    def _finish(self, events: list[Event] | None, winner: int | None, reason: EndReason,
                base: int = 0) -> None:
        """End the game. Each loser's margin is his pay-off count less ``base`` (the winner's
        count after a stalemate); a leaver's is his count (rule 26); the score is their sum."""
        left = self.left
        absent = self.absent
        margins: list[int | None] = []
        for seat, pile in enumerate(self.payoffs):
            if seat == winner or seat in absent:
                margins.append(None)
            elif seat in left:
                margins.append(len(pile))
            else:
                margins.append(None if winner is None else len(pile) - base)
        score = 0 if winner is None else sum(m for m in margins if m is not None)
        self.result = Result(winner, score, reason, tuple(len(p) for p in self.payoffs),
                             tuple(margins), left, absent)
        self._legal = self._plays = self._endings = None
        if events is not None:
            events.append(GameOver(self.result))

    def resign(self, player: int) -> list[Event]:
        """Seat ``player`` leaves the game (rule 26): he resigned, or another player claimed the
        game from him after the claim time (the bot decides which; the engine does the same).

        He loses with the cards in his pay-off pile as his margin. His turns are skipped from
        now on (if he was on turn, the turn passes to the next seat, which draws) and his pay-off
        pile, side stacks and hand stay where they are, out of play. When one player is left,
        that player wins at once and scores the leavers' margins: at a table of two, the other
        player wins and scores the cards left in the resigner's pay-off pile.
        """
        if self.result is not None:
            raise IllegalMoveError("The game is over.")
        if type(player) is not int or not 0 <= player < self.players or player in self.absent:
            raise IllegalMoveError("Only a player in this game can resign it.")
        if player in self.left:
            raise IllegalMoveError("That player has left the game already.")
        on_turn = self.turn == player
        if self.rules.stalemate_round == 1:
            # Rule 25 as it read before its clarification, which games saved without the marker
            # were played under (RuleSet.stalemate_round): any leave began a new round.
            self.idle_streak = 0
        elif not on_turn and self._ended_idle(player):
            self.idle_streak -= 1  # rule 25: the round counts the players still seated
        self.departures.append((player, len(self.history)))
        self._seat_order()
        self._legal = self._plays = self._endings = None
        events: list[Event] = []
        margin = len(self.payoffs[player])
        if self._seated == 1:
            events.append(Left(player, margin, None))
            self._finish(events, self._next[player], EndReason.RESIGNED)
            return events
        events.append(Left(player, margin, self._next[player] if on_turn else self.turn))
        if on_turn:
            # His turn ends where it stands; it is not idle (he did not pass, he left), and
            # without a play in it, it completes the round of idle turns of the players left
            # if each of them has ended one since the last play or discard (rule 25).
            self._end_turn(events, idle=False, leaving=True)
        return events

    def _ended_idle(self, seat: int) -> bool:
        """Whether ``seat`` (seated, not on turn) ended one of the idle turns of the current
        round (rule 25). Turns pass in seat order, so those turns are the last ``idle_streak``
        ones: the turns of the seats still seated just before the seat on turn."""
        streak = self.idle_streak
        if not streak or self.plays_this_turn:
            return False
        seated = self.seated
        back = (seated.index(self.turn) - seated.index(seat)) % len(seated)
        return back <= streak

    # ------------------------------------------------------------------ explanations

    def explain(self, move: Move | str) -> str:
        """Why ``move`` is illegal for the player on turn, in a player's words."""
        if isinstance(move, str):
            move = self._parse(move)
        if self.result is not None:
            return "The game is over."
        if move in self.legal_moves():
            return "That move is legal."
        rules = self.rules
        p = self.turn
        due = self.compulsory_plays()
        if move is PASS:
            if not rules.may_pass:
                return ("You can't pass in kings: end your turn by discarding a card from your "
                        "hand to one of your side stacks.")
            if due:
                return _compulsory_reason(due, self)
            return "You can't pass now."
        # Where does the card come from?
        if move.source is Source.HAND:
            card = move.card
            assert card is not None
            if card not in self.hands[p]:
                shown = "a joker" if card.is_joker else card.display
                return f"You don't have {shown} in your hand."
        elif move.source is Source.PAYOFF:
            if move.target is Target.SIDE:
                return "Your pay-off card can only go to a centre stack."
            if not self.payoffs[p]:
                return "Your pay-off pile is empty."
            card = self.payoffs[p][-1]
        else:
            pile = self.sides[p][move.source_index]
            if move.target is Target.SIDE:
                return ("Cards never move between side stacks: the top of a side stack can only "
                        "go to a centre stack.")
            if not pile:
                return f"Your side stack {move.source_index + 1} is empty."
            card = pile[-1]
        # Where does it go?
        if move.target is Target.CENTRE:
            i = move.target_index
            if i >= rules.centre_stacks:
                return (f"There are only {rules.centre_stacks} centre stacks in {rules.name}: "
                        f"C1 to C{rules.centre_stacks}.")
            need = len(self.centre[i]) + 1
            if not self._fit[card.code] >> need & 1:
                return _centre_reason(rules, card, i, need)
            if due:
                return _compulsory_reason(due, self)
            return "That move isn't allowed now."
        s = move.target_index
        if s >= rules.side_stacks:
            return f"You have only {rules.side_stacks} side stacks."
        if self._side_mask_after(p, s, card) == 0:
            return _side_reason(self, p, s, card)
        if due:
            return _compulsory_reason(due, self)
        return "That move isn't allowed now."

    # ------------------------------------------------------------------ views

    def view(self, viewer: int | None) -> View:
        """What seat ``viewer`` may see (``None``: the public view for spectators): his own
        hand, and of every seat the public state (rules 8 and 29)."""
        if viewer is not None and (type(viewer) is not int or not 0 <= viewer < self.players):
            raise ValueError(f"viewer must be a seat from 0 to {self.players - 1}, or None")
        on_turn = viewer is not None and viewer == self.turn and self.result is None
        payoffs = self.payoffs
        return View(
            rules=self.rules,
            viewer=viewer,
            hand=tuple(self.hands[viewer]) if viewer is not None else None,
            hand_sizes=tuple(len(h) for h in self.hands),
            payoff_tops=tuple(p[-1] if p else None for p in payoffs),
            payoff_counts=tuple(len(p) for p in payoffs),
            sides=tuple(tuple(tuple(s) for s in seat) for seat in self.sides),
            centre=tuple(CentreStackView(tuple(s), len(s) + 1) for s in self.centre),
            stock_size=len(self.stock),
            turn=self.turn,
            turn_number=self.turn_number,
            first_player=self.first_player,
            plays_this_turn=self.plays_this_turn,
            legal_moves=tuple(self.legal_moves()) if on_turn else (),
            compulsory=tuple(self.compulsory_plays()) if on_turn else (),
            recent=tuple(self.history[-_RECENT_MOVES:]),
            result=self.result,
            side_ranks=tuple(_side_ranks(masks) for masks in self.side_masks),
            left=self.left,
            absent=self.absent,
            idle_streak=self.idle_streak,
        )

    def public_view(self) -> View:
        """The spectators' view: no hand at all."""
        return self.view(None)

    # ------------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        """The whole game as a JSON-safe dict (hidden cards included: keep it private).

        A two-player game is saved as it always was; at a table of three or four the save also
        holds the seats that left and when (``left``: ``[seat, moves made before]``) and the
        absent seats, and a classic one the reading of the stalemate round it follows in its
        rules (``RuleSet.stalemate_round``).
        """

        def texts(pile: list[Card]) -> list[str]:
            return [c.text for c in pile]

        data = {
            "version": _SAVE_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "payoffs": [texts(p) for p in self.payoffs],
            "hands": [texts(h) for h in self.hands],
            "sides": [[texts(s) for s in player] for player in self.sides],
            "side_masks": [[list(m) for m in player] for player in self.side_masks],
            "centre": [texts(s) for s in self.centre],
            "stock": texts(self.stock),
            "turn": self.turn,
            "turn_number": self.turn_number,
            "plays_this_turn": self.plays_this_turn,
            "idle_streak": self.idle_streak,
            "shuffles": self.shuffles,
            "first_player": self.first_player,
            "history": [[p, m.text] for p, m in self.history],
            "result": self.result.to_dict() if self.result else None,
        }
        if self.players != 2:
            data["left"] = [[seat, at] for seat, at in self.departures]
            data["absent"] = list(self.absent)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Load a game saved with ``to_dict``; a damaged save raises ``SetupError``."""
        if not isinstance(data, dict):
            raise SetupError("This saved game is damaged: it is not a game record.")
        try:
            if data.get("version") != _SAVE_VERSION:
                raise SetupError(f"Unknown save version {data.get('version')!r}.")
            rules = RuleSet.from_dict(data["rules"])
            payoffs = data["payoffs"]
            n = len(payoffs) if isinstance(payoffs, list) else 0
            if n == 2 and ("left" in data or "absent" in data):
                raise SetupError("This saved game is damaged: a table of two has no leavers "
                                 "saved apart.")
            absent = [_seat(a, n) for a in data.get("absent", [])] if n != 2 else []
            game = cls(rules, int(data["seed"]), _players(n), absent)
            game.payoffs = [_cards(p) for p in _seats(payoffs, n)]
            game.hands = [_cards(h) for h in _seats(data["hands"], n)]
            game.sides = [[_cards(s) for s in player] for player in _seats(data["sides"], n)]
            game.side_masks = [[[int(m) for m in s] for s in player]
                               for player in _seats(data["side_masks"], n)]
            game.centre = [_cards(s) for s in data["centre"]]
            game.stock = _cards(data["stock"])
            game.turn = _seat(data["turn"], n)
            game.first_player = _seat(data["first_player"], n)
            game.turn_number = int(data["turn_number"])
            game.plays_this_turn = int(data["plays_this_turn"])
            game.idle_streak = int(data["idle_streak"])
            game.shuffles = int(data["shuffles"])
            game.history = [(_seat(p, n), Move.parse(m)) for p, m in data["history"]]
            game.result = Result.from_dict(data["result"]) if data["result"] else None
            if n != 2:
                game.departures = [(_seat(seat, n), int(at)) for seat, at in data["left"]]
            elif game.result is not None and game.result.reason is EndReason.RESIGNED:
                # A table of two: the resigner is the loser, and he left after the last move.
                assert game.result.winner is not None
                game.departures = [(1 - game.result.winner, len(game.history))]
            game._seat_order()
        except SetupError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError,
                CardParseError, RuleSetError) as exc:
            raise SetupError(f"This saved game is damaged and can't be loaded ({exc}).") from exc
        game._check_shape()
        return game

    def _check_shape(self) -> None:
        rules = self.rules
        if len(self.centre) != rules.centre_stacks or any(
            len(p) != rules.side_stacks for p in self.sides
        ) or any(len(p) != rules.side_stacks for p in self.side_masks):
            raise SetupError("This saved game is damaged: wrong number of stacks.")
        damaged = "This saved game is damaged"
        n = self.players
        left = self.left
        if len(set(left)) != len(left) or set(left) & set(self.absent) or self._seated < 1 \
                or (self._seated == 1 and self.result is None) \
                or any(not 0 <= at <= len(self.history) for _, at in self.departures) \
                or [at for _, at in self.departures] != sorted(at for _, at in self.departures):
            raise SetupError(f"{damaged}: impossible leavers.")
        if self.result is None and self.turn not in self.seated:
            raise SetupError(f"{damaged}: the seat on turn is not playing.")
        for p in range(n):
            if p in self.absent:
                if self.payoffs[p] or self.hands[p] or any(self.sides[p]):
                    raise SetupError(f"{damaged}: cards at an absent seat.")
                continue
            for s in range(rules.side_stacks):
                pile, masks = self.sides[p][s], self.side_masks[p][s]
                if len(pile) != len(masks):
                    raise SetupError(f"{damaged}: side stack ranks don't match.")
                below = -1
                for card, mask in zip(pile, masks, strict=True):
                    # Each saved rank set must be one the card could have been placed with.
                    possible = (_side_result(below, card, True) if rules.side_down_or_same
                                else (_RANKS_2_TO_K if card.is_joker else 1 << card.rank))
                    if mask <= 0 or mask & ~possible:
                        raise SetupError(f"{damaged}: side stack {s + 1} is impossible.")
                    below = mask
            if len(self.hands[p]) > rules.hand_size:
                raise SetupError(f"{damaged}: a hand holds too many cards.")
            if not self.payoffs[p] and (self.result is None or self.result.winner != p):
                raise SetupError(f"{damaged}: an empty pay-off pile but no win.")
            if rules.payoff_from_pack_a and any(c.is_joker for c in self.payoffs[p]):
                raise SetupError(f"{damaged}: a joker in a pay-off pile.")
        if min(self.turn_number, self.plays_this_turn, self.idle_streak, self.shuffles) < 0:
            raise SetupError(f"{damaged}: negative counters.")
        result = self.result
        if result is not None and (
                result.winner not in (None, *self.seated) or result.players != n
                or result.payoff_left != tuple(len(p) for p in self.payoffs)
                or len(result.margins) != n or result.left != left
                or result.absent != self.absent):
            raise SetupError(f"{damaged}: impossible result.")
        for i, stack in enumerate(self.centre):
            if len(stack) >= rules.top_rank or any(
                not self._fit[c.code] >> (j + 1) & 1 for j, c in enumerate(stack)
            ):
                raise SetupError(f"This saved game is damaged: centre stack {i + 1} is impossible.")
        _check_deck(rules, self.all_cards(), len(self.dealt_in))

    def all_cards(self) -> list[Card]:
        """Every card in the game, wherever it is (for conservation checks)."""
        out: list[Card] = []
        for pile in (*self.payoffs, *self.hands, *self.centre, self.stock,
                     *(s for seat in self.sides for s in seat)):
            out.extend(pile)
        return out

    @classmethod
    def replay(
        cls, rules: RuleSet, seed: int, moves: Iterable[Move | str], players: int = 2,
        left: Iterable[tuple[int, int]] = (), absent: Iterable[int] = (),
    ) -> Game:
        """Deal from ``seed`` and make ``moves`` in order: the same game as the original.

        ``left`` lists the seats that left and when, as ``departures`` holds them: ``(seat,
        moves made before he left)``.
        """
        game, _ = cls.new(rules, seed, players, absent)
        leaving = sorted(left, key=lambda pair: pair[1])
        k = 0
        for n, move in enumerate(moves):
            while k < len(leaving) and leaving[k][1] <= n:
                game.resign(leaving[k][0])
                k += 1
            game.play(move)
        for seat, _ in leaving[k:]:
            game.resign(seat)
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        state = "over" if self.result else f"seat {self.turn} on turn"
        return f"<Game {self.rules.name} seed={self.seed} turn={self.turn_number} {state}>"


# ---------------------------------------------------------------------- helpers


def _shuffle(rng: random.Random, cards: list[Card]) -> None:
    """``rng.shuffle(cards)``, the same permutation from the same generator, in fewer steps.

    Saved games are replayed from their seed, so every shuffle must stay exactly this one (the
    algorithm of ``random.shuffle`` in CPython 3.11, with its ``_randbelow`` written inline);
    a test holds it to ``random.shuffle``.
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


_MASK_RANKS: dict[int, tuple[int, ...]] = {}


def _side_ranks(stacks: list[list[int]]) -> SideRanks:
    """One player's side-stack rank masks as the view shows them: per card, its ranks."""
    out = []
    for masks in stacks:
        pile = []
        for mask in masks:
            ranks = _MASK_RANKS.get(mask)
            if ranks is None:
                ranks = _MASK_RANKS[mask] = tuple(r for r in range(1, 14) if mask >> r & 1)
            pile.append(ranks)
        out.append(tuple(pile))
    return tuple(out)


def _side_result(top_mask: int, card: Card, four_centres: bool) -> int:
    """Classic rules 12 and 13: the ranks ``card`` stands for when placed on a side stack whose
    top stands for the ranks in ``top_mask`` (-1: the stack is empty); 0 if it may not go there.
    """
    if top_mask < 0:
        return _RANKS_2_TO_K if card.is_joker else 1 << card.rank
    if card.is_joker:
        lower = (top_mask >> 1) & _RANKS_2_TO_K
        if not four_centres:
            lower &= ~(1 << 2)  # a joker standing for a 2 on a 3 counts as a 2 on a 3
        return (top_mask & _RANKS_2_TO_K) | lower
    r = card.rank
    if top_mask >> r & 1:
        return 1 << r
    if top_mask >> (r + 1) & 1 and (r > 2 or four_centres):
        return 1 << r
    return 0


def _side_accepts_mask(top_mask: int, four_centres: bool) -> int:
    """The ranks a side stack accepts from the hand, as a bit mask (bit 0: a joker).

    The same decision as ``_side_result`` for every card at once, for the legal-move loop.
    """
    if top_mask < 0:
        return _ANY_RANK | 1
    lower = (top_mask >> 1) & ~1
    if not four_centres:
        lower &= ~0b110  # an Ace on a 2 and a 2 on a 3 need four centre stacks (rule 12)
    accepts = top_mask | lower
    if accepts & _RANKS_2_TO_K:
        accepts |= 1  # a joker fits wherever some rank 2..K does (rule 13)
    return accepts


def _side_reason(game: Game, p: int, s: int, card: Card) -> str:
    masks = game.side_masks[p][s]
    top = game.sides[p][s][-1]
    four = game._centres_in_play() == game.rules.centre_stacks
    top_mask = masks[-1]
    ranks = [r for r in range(1, 14) if top_mask >> r & 1]
    what = _card_words(card)
    if not card.is_joker and card.rank in (1, 2) and top_mask >> (card.rank + 1) & 1 and not four:
        low, high = ("An Ace", "a 2") if card.rank == 1 else ("A 2", "a 3")
        return (f"{low} may go on {high} in a side stack only while there are four centre "
                "stacks.")
    if card.is_joker and not top_mask & _RANKS_2_TO_K:
        # Only an Ace is below, and a joker stands for neither an Ace nor anything lower.
        return (f"A joker can't go on side stack {s + 1}: its top is an Ace, and a joker can't "
                "stand for an Ace.")
    if top.is_joker:
        names = [rank_name(r) for r in ranks]
        stands = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        return (f"{_capital(what)} can't go on side stack {s + 1}: the joker on top stands for "
                f"{stands}, and a side stack takes the same rank or one lower.")
    return (f"{_capital(what)} can't go on side stack {s + 1}: its top is "
            f"{_card_words(top)}, and a side stack takes the same rank or one lower.")


def _centre_reason(rules: RuleSet, card: Card, i: int, need: int) -> str:
    what = _capital(_card_words(card))
    if need == 1:
        if card.is_joker:
            return "A joker can't start a centre stack: it can't stand for an Ace."
        starters = "an Ace or a King" if (
            rules.wild_rank == KING and rules.king_starts_stack) else "an Ace"
        return f"{what} can't start centre stack {i + 1}: only {starters} can start a centre stack."
    return f"{what} can't go on centre stack {i + 1}: it needs {rank_with_article(need)}."


def _compulsory_reason(due: Sequence[Move], game: Game) -> str:
    p = game.turn
    ranks = set()
    for m in due:
        if m.source is Source.HAND:
            assert m.card is not None
            ranks.add(m.card.rank)
        elif m.source is Source.PAYOFF:
            ranks.add(game.payoffs[p][-1].rank)
        else:
            ranks.add(game.sides[p][m.source_index][-1].rank)
    if ranks == {ACE}:
        return "You must play your Ace to the centre first."
    if ranks == {2}:
        return "You must play your 2 on the Ace in the centre first."
    return "You must play your Ace to the centre, or your 2 on the centre Ace, first."


def _cards(pile: Iterable[Card | str] | str) -> list[Card]:
    if isinstance(pile, str):
        pile = pile.replace(",", " ").split()
    return [c if isinstance(c, Card) else Card.parse(c) for c in pile]


def _players(n: int) -> int:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise SetupError("This saved game is damaged: a table seats two to four players.")
    return n


def _seats(value: Any, n: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != n:
        raise SetupError(f"This saved game is damaged: expected {n} players.")
    return value


def _seat(value: Any, n: int = 2) -> int:
    if type(value) is not int or not 0 <= value < n:
        raise SetupError(f"This saved game is damaged: {value!r} is not a seat.")
    return int(value)


_PACKS = {2: "two packs", 3: "three packs", 4: "four packs"}


def _check_deck(rules: RuleSet, cards: Sequence[Card], players: int = 2) -> None:
    if Counter(cards) != Counter(full_deck(rules, players)):
        size = 52 * players + rules.jokers
        table = "" if players == 2 else f" of {players} players"
        raise SetupError(
            f"A {rules.name} game{table} uses exactly {size} cards "
            f"({_PACKS[players]}{' and four jokers' if rules.jokers else ''}); these are not "
            "those cards."
        )
