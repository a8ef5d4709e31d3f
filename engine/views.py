"""Views: what one player (or a spectator) may see of a game.

A view is computed from the full game on demand and is the only thing the presentation layer
(the bot, the board renderer, a computer player) receives, so a hidden card cannot leak by
accident: another player's hand appears only as a count, the stock only as a size, and a pay-off
pile only as its top card and count (rules 8 and 29).

The per-seat fields (``hand_sizes``, ``payoff_tops``, ``payoff_counts``, ``sides``,
``side_ranks``) hold one entry per seat of the table, indexed by seat. ``view.seat(n)`` gathers
one seat's public state in a ``SeatView``, and ``view.opponents`` gives every other seat's, in
seat order starting after the viewer (the order in which they play after him).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card
from .events import Result
from .moves import Move
from .rules import RuleSet

__all__ = ["CentreStackView", "SeatView", "SideRanks", "View"]

SideRanks = tuple[tuple[tuple[int, ...], ...], ...]
"""One player's side stacks: per stack, per card from the bottom, the ranks it stands for."""


@dataclass(frozen=True, slots=True)
class CentreStackView:
    """One centre stack slot: its cards in order and the rank it needs next."""

    cards: tuple[Card, ...]
    """Cards from the bottom (the Ace, or a wild card standing for it) up."""
    needs: int
    """The rank the stack takes next (1, an Ace, when the slot is empty)."""

    @property
    def is_empty(self) -> bool:
        """True when no stack stands in this slot."""
        return not self.cards

    @property
    def top(self) -> Card | None:
        """The top card, or ``None``."""
        return self.cards[-1] if self.cards else None


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's public state, as every player sees it (rule 29)."""

    seat: int
    """The seat (0-based, in the order the players sat down)."""
    payoff_top: Card | None
    """The face-up top of his pay-off pile (``None`` when empty)."""
    payoff_count: int
    """Cards in his pay-off pile, the top included."""
    hand_size: int
    """Cards in his hand (never which)."""
    sides: tuple[tuple[Card, ...], ...]
    """His side stacks, every card from the bottom."""
    side_ranks: SideRanks
    """Per side-stack card, the ranks it stands for (see ``View.side_ranks``)."""
    on_turn: bool
    """True when he is on turn in a game still going on."""
    has_left: bool
    """True once he left the game (rule 26): his piles stay, out of play."""
    is_absent: bool
    """True when he was not dealt in (he left the match in an earlier game)."""


@dataclass(frozen=True, slots=True)
class View:
    """A game as seen by seat ``viewer`` (0 to 3), or by a spectator (``viewer`` is ``None``).

    The per-seat tuples are indexed by seat and hold one entry per seat of the table.
    """

    rules: RuleSet
    """The rule set in force."""
    viewer: int | None
    """The seat this view is for; ``None`` for the public view."""
    hand: tuple[Card, ...] | None
    """The viewer's own hand; ``None`` in the public view."""
    hand_sizes: tuple[int, ...]
    """Cards in each hand."""
    payoff_tops: tuple[Card | None, ...]
    """Each pay-off pile's face-up top card (``None`` when empty)."""
    payoff_counts: tuple[int, ...]
    """Cards in each pay-off pile, the top included."""
    sides: tuple[tuple[tuple[Card, ...], ...], ...]
    """Each player's side stacks, every card in order from the bottom."""
    centre: tuple[CentreStackView, ...]
    """The centre stack slots."""
    stock_size: int
    """Cards in the stock."""
    turn: int
    """The seat on turn."""
    turn_number: int
    """Turns completed so far."""
    first_player: int
    """The seat that played first."""
    plays_this_turn: int
    """Plays made so far in the current turn."""
    legal_moves: tuple[Move, ...]
    """The viewer's legal moves when on turn (empty otherwise, and in the public view)."""
    compulsory: tuple[Move, ...]
    """The compulsory plays due to the viewer (classic rules 10 and 11); the public view never
    shows them, since they would reveal an Ace or 2 in the hand."""
    recent: tuple[tuple[int, Move], ...]
    """The last moves made, oldest first, with the seat that made each."""
    result: Result | None
    """How the game ended, or ``None`` while it goes on."""
    side_ranks: tuple[SideRanks, ...] = ()
    """Each player's side stacks as in ``sides``, with for every card the ranks it stands for,
    lowest first: a natural card its own rank; a joker (classic rule 13) every rank it could
    legally have been placed as, fixed when it was placed and public (``(7, 8)`` for a joker
    placed on an 8)."""
    left: tuple[int, ...] = ()
    """Seats that left the game (rule 26), in the order they left."""
    absent: tuple[int, ...] = ()
    """Seats not dealt into this game (they left the match earlier, rule 27)."""
    idle_streak: int = 0
    """Turns ended in a row without a play or discard, by players still seated (rules 16 and
    25: a player who leaves drops out of the count; public, since every move is)."""

    @property
    def players(self) -> int:
        """Seats at the table (absent ones included)."""
        return len(self.payoff_counts)

    @property
    def seated(self) -> tuple[int, ...]:
        """Seats still playing (dealt in and not left), in seat order."""
        return tuple(s for s in range(len(self.payoff_counts))
                     if s not in self.left and s not in self.absent)

    def seat(self, seat: int) -> SeatView:
        """The public state of ``seat``."""
        return SeatView(
            seat=seat,
            payoff_top=self.payoff_tops[seat],
            payoff_count=self.payoff_counts[seat],
            hand_size=self.hand_sizes[seat],
            sides=self.sides[seat],
            side_ranks=self.side_ranks[seat] if self.side_ranks else tuple(
                tuple(() if c.is_joker else (c.rank,) for c in pile) for pile in self.sides[seat]),
            on_turn=self.turn == seat and self.result is None,
            has_left=seat in self.left,
            is_absent=seat in self.absent,
        )

    @property
    def opponents(self) -> tuple[SeatView, ...]:
        """Every seat but the viewer's (absent ones excepted), in seat order starting after the
        viewer: the order in which they play after him. In the public view, every seat from
        seat 0."""
        n = len(self.payoff_counts)
        start = 0 if self.viewer is None else self.viewer + 1
        order = [(start + k) % n for k in range(n)]
        return tuple(self.seat(s) for s in order
                     if s != self.viewer and s not in self.absent)

    @property
    def next_seat(self) -> int:
        """The seat that plays after the viewer (after the seat on turn in the public view)."""
        n = len(self.payoff_counts)
        seat = self.turn if self.viewer is None else self.viewer
        gone = set(self.left).union(self.absent)
        nxt = (seat + 1) % n
        while nxt in gone and nxt != seat:
            nxt = (nxt + 1) % n
        return nxt

    @property
    def is_public(self) -> bool:
        """True for the spectators' view."""
        return self.viewer is None

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.result is not None

    @property
    def my_turn(self) -> bool:
        """True when the viewer is on turn."""
        return self.viewer is not None and self.viewer == self.turn and self.result is None

    def joker_ranks(self, player: int, side: int) -> list[tuple[int, ...]]:
        """For side stack ``side`` of seat ``player`` (both 0-based), bottom first: the ranks
        each joker stands for, ``()`` for a natural card."""
        if not self.side_ranks:
            return [() for _ in self.sides[player][side]]
        return [ranks if card.is_joker else ()
                for card, ranks in zip(self.sides[player][side],
                                       self.side_ranks[player][side], strict=True)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form with cards and moves in text notation."""

        def cards(seq: tuple[Card, ...] | None) -> list[str] | None:
            return None if seq is None else [c.text for c in seq]

        return {
            "rules": self.rules.to_dict(),
            "viewer": self.viewer,
            "hand": cards(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "payoff_tops": [c.text if c else None for c in self.payoff_tops],
            "payoff_counts": list(self.payoff_counts),
            "sides": [[cards(s) for s in player] for player in self.sides],
            "centre": [{"cards": cards(c.cards), "needs": c.needs} for c in self.centre],
            "stock_size": self.stock_size,
            "turn": self.turn,
            "turn_number": self.turn_number,
            "first_player": self.first_player,
            "plays_this_turn": self.plays_this_turn,
            "legal_moves": [m.text for m in self.legal_moves],
            "compulsory": [m.text for m in self.compulsory],
            "recent": [[p, m.text] for p, m in self.recent],
            "result": self.result.to_dict() if self.result else None,
            "side_ranks": [[[list(ranks) for ranks in pile] for pile in player]
                           for player in self.side_ranks],
            "left": list(self.left),
            "absent": list(self.absent),
            "idle_streak": self.idle_streak,
        }
