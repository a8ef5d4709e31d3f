"""Events: every change to a game, as frozen records.

``Game.play`` returns the events a move caused, in order. Most events are public; ``Drew``
carries the drawn cards, which only the drawing player may see, so anything shown to someone
else must go through ``Event.visible_to(viewer)`` (or ``public()``), which hides them.

Each event has a short notation (``event.notation``), one line in the engine's words with
seats as numbers (0-based, as in the move log) and cards and moves in their text notation:

- ``deal 7H KS first 1`` (the pay-off tops per seat, ``-`` for an absent seat; ``reshuffled 2``
  at the end when tied tops were reshuffled);
- ``0 drew 7H 9C KS``, or ``0 drew 3`` in the form shown to anyone but the drawer;
- ``0 7H>C2`` (a play; ``as 7`` follows for a wild card standing for another rank, ``reveals
  9D`` or ``empties P`` for a play from the pay-off pile), ``0 9D>S1`` (a discard), ``0 pass``;
- ``C2 completed 12`` (the cards shuffled into the stock);
- ``0 ends turn 5 next 1`` (``idle`` before ``next`` for a turn without a play or discard);
- ``2 left 12 next 0`` (the leaver's margin; ``over`` instead of ``next …`` when one player
  was left);
- ``over 1 wins 35 payoff_emptied``, ``over tie stock_out``.

The seat and the move of a play, a discard or a pass read back with
``engine.describe.parse_move_notation``. Words for people (names, sentences) are in
``engine.describe``.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card, rank_text
from .moves import Move, Source

__all__ = [
    "Dealt",
    "Drew",
    "EndReason",
    "Event",
    "GameOver",
    "Left",
    "Passed",
    "Played",
    "Discarded",
    "Result",
    "StackCompleted",
    "TurnEnded",
    "rank_places",
]


class EndReason(enum.Enum):
    """Why a game ended."""

    PAYOFF_EMPTIED = "payoff_emptied"
    """Rule 7: a player played his last pay-off card."""
    STALEMATE = "stalemate"
    """Rule 16 (classic): every player still seated ended a turn in a row without a play or
    discard (both players, at a table of two; a whole round, rule 25)."""
    TURN_LIMIT = "turn_limit"
    """Rules 16/22: the game reached its turn limit."""
    STOCK_OUT = "stock_out"
    """Rule 20 (kings): a player had to draw from an empty stock."""
    RESIGNED = "resigned"
    """A player gave the game up (or lost it on time, as the bot decides) and one player was
    left (rule 26)."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: the winner (``None`` for a tie or drawn game), the points scored, and
    each loser's margin (rules 7, 25 and 26).

    ``Result(winner, score, reason, payoff_left)`` describes a two-player game as it always
    did: the loser's margin is the score. At a table of three or four the engine also gives
    ``margins``, ``left`` and ``absent``; ``ranks`` orders the table for ratings (rule 28).
    """

    winner: int | None
    """Seat of the winner, or ``None`` for a tie."""
    score: int
    """Points to the winner: the sum of the losers' margins (0 when nobody won)."""
    reason: EndReason
    """Why the game ended."""
    payoff_left: tuple[int, ...]
    """Cards left in each seat's pay-off pile at the end."""
    margins: tuple[int | None, ...] = ()
    """Per seat: a loser's margin (rule 25: the cards left in his pay-off pile, or after a
    stalemate that count minus the winner's; rule 26: a leaver's count when he left); ``None``
    for the winner, for a player in a drawn game who did not leave, and for an absent seat.
    Left empty by a caller, it is worked out for two players (the loser's margin is the score)."""
    left: tuple[int, ...] = ()
    """Seats that left the game (rule 26), in the order they left."""
    absent: tuple[int, ...] = ()
    """Seats not dealt into this game (they left the match earlier, rule 27)."""

    def __post_init__(self) -> None:
        n = len(self.payoff_left)
        if not self.left and n == 2 and self.reason is EndReason.RESIGNED \
                and self.winner is not None:
            object.__setattr__(self, "left", (1 - self.winner,))
        if not self.margins:
            object.__setattr__(self, "margins", tuple(
                None if self.winner is None or seat == self.winner or seat in self.absent
                else (self.score if n == 2 else self.payoff_left[seat])
                for seat in range(n)))

    @property
    def is_tie(self) -> bool:
        """True when nobody won (stock-out, turn limit in kings, equal piles at a stalemate)."""
        return self.winner is None

    @property
    def players(self) -> int:
        """Seats at the table (absent ones included)."""
        return len(self.payoff_left)

    @property
    def losers(self) -> tuple[tuple[int, int], ...]:
        """Each loser as ``(seat, margin)``, best place first (smallest margin), seats in order
        on equal margins: one ledger line each (rule 28). Leavers of a drawn game are losers
        too, but nobody wins their stake."""
        out = [(seat, m) for seat, m in enumerate(self.margins) if m is not None]
        return tuple(sorted(out, key=lambda pair: (pair[1], pair[0])))

    @property
    def ranks(self) -> tuple[int | None, ...]:
        """Per seat, its place for ratings (rule 28), 1 the best: the winner first, then the
        losers by margin (smaller is better; equal margins share a place, the next place is
        skipped). A drawn game ranks everyone equal, its leavers too (rule 26: when the players
        still seated draw, nobody owes anything). ``None`` for an absent seat."""
        return rank_places(self.margins, self.absent)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (a two-player result keeps the form it always had)."""
        out: dict[str, Any] = {
            "winner": self.winner,
            "score": self.score,
            "reason": self.reason.value,
            "payoff_left": list(self.payoff_left),
        }
        if len(self.payoff_left) != 2:
            out["margins"] = list(self.margins)
            out["left"] = list(self.left)
            out["absent"] = list(self.absent)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild from ``to_dict`` output."""
        left = tuple(int(n) for n in data["payoff_left"])
        if not 2 <= len(left) <= 4:
            raise ValueError("a result needs two to four seats")
        margins = tuple(None if m is None else int(m) for m in data.get("margins", ()))
        return cls(data["winner"], int(data["score"]), EndReason(data["reason"]), left,
                   margins, tuple(int(s) for s in data.get("left", ())),
                   tuple(int(s) for s in data.get("absent", ())))


def rank_places(margins: Sequence[int | None], absent: Sequence[int]) -> tuple[int | None, ...]:
    """Places for ratings (rule 28), 1 the best, from per-seat margins: the winner (the one
    seat without a margin) first, then the losers by margin, smaller first, equal margins
    sharing a place (the next one is skipped: 1, 2, 2, 4). A drawn game (several seats
    without a margin: those who stayed) ranks everyone equal, its leavers included (rule 26).
    ``None`` for an ``absent`` seat."""
    top = [seat for seat, m in enumerate(margins) if m is None and seat not in absent]
    if len(top) != 1:
        # A drawn game (no single winner): everyone dealt in is equal, leavers too (rule 26).
        return tuple(None if seat in absent else 1 for seat in range(len(margins)))
    known = [m for m in margins if m is not None]
    places: list[int | None] = []
    for seat, m in enumerate(margins):
        if m is None:
            places.append(None if seat in absent else 1)
        else:
            places.append(2 + sum(1 for other in known if other < m))
    return tuple(places)


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of all events."""

    @property
    def kind(self) -> str:
        """A short name for the event: ``dealt``, ``drew``, ``played`` …"""
        return _KIND_NAMES[type(self)]

    def visible_to(self, viewer: int | None) -> Event:
        """This event as ``viewer`` may see it (``None``: a spectator)."""
        return self

    def public(self) -> Event:
        """This event as a spectator may see it."""
        return self.visible_to(None)

    @property
    def notation(self) -> str:
        """The event's short notation (see the module's docstring), e.g. ``0 7H>C2``.

        It says what the event holds: take it from ``visible_to(viewer)`` for a viewer."""
        raise NotImplementedError  # every event kind has its own

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, with cards and moves in their text notation."""
        out: dict[str, Any] = {"kind": self.kind}
        for field in dataclasses.fields(self):
            out[field.name] = _jsonable(getattr(self, field.name))
        return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, Card | Move):
        return value.text
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return value.value
    return value


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """The deal (rules 1 and 2): pay-off tops turned up and who plays first."""

    payoff_tops: tuple[Card | None, ...]
    """The pay-off tops that decided the first player, per seat (``None``: an absent seat)."""
    payoff_counts: tuple[int, ...]
    """Cards in each pay-off pile."""
    reshuffles: int
    """How often pay-off piles were reshuffled because the highest tops had equal ranks (only
    the tied piles are reshuffled, rule 24)."""
    first_player: int
    """The seat that plays first."""

    @property
    def notation(self) -> str:
        """``deal 7H KS first 1`` (``reshuffled 2`` at the end after tied tops)."""
        tops = " ".join("-" if card is None else card.text for card in self.payoff_tops)
        again = f" reshuffled {self.reshuffles}" if self.reshuffles else ""
        return f"deal {tops} first {self.first_player}{again}"


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """A player drew cards from the stock (rules 3 and 6). The cards are his alone to see."""

    player: int
    """Who drew."""
    count: int
    """How many cards were drawn (public)."""
    cards: tuple[Card, ...] | None
    """The cards drawn; ``None`` in the form shown to anyone but the drawer."""
    stock_left: int
    """Cards left in the stock afterwards."""

    def visible_to(self, viewer: int | None) -> Event:
        """Hides the cards from everyone but the drawer."""
        if viewer == self.player or self.cards is None:
            return self
        return dataclasses.replace(self, cards=None)

    @property
    def notation(self) -> str:
        """``0 drew 7H 9C KS``, or ``0 drew 3`` with the cards hidden."""
        if self.cards is None:
            return f"{self.player} drew {self.count}"
        return f"{self.player} drew " + " ".join(card.text for card in self.cards)


@dataclass(frozen=True, slots=True)
class Played(Event):
    """A card went to a centre stack."""

    player: int
    """Who played."""
    move: Move
    """The move as made."""
    card: Card
    """The card played."""
    centre: int
    """0-based centre stack."""
    as_rank: int
    """The rank the card stands for there (a wild card's chosen rank)."""
    revealed: Card | None
    """For a pay-off play: the new pay-off top turned up (``None`` if the pile is now empty)."""

    @property
    def notation(self) -> str:
        """``0 7H>C2``; ``0 JK>C2 as 7`` for a wild card; ``0 P>C1 reveals 9D`` (or ``empties
        P``) for a play from the pay-off pile."""
        out = f"{self.player} {self.move.text}"
        if self.card.is_joker or self.card.rank != self.as_rank:
            out += f" as {rank_text(self.as_rank)}"
        if self.move.source is Source.PAYOFF:
            out += " empties P" if self.revealed is None else f" reveals {self.revealed.text}"
        return out


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    """A card went from the hand to a side stack, ending the turn."""

    player: int
    """Who discarded."""
    move: Move
    """The move as made."""
    card: Card
    """The card discarded."""
    side: int
    """0-based side stack."""

    @property
    def notation(self) -> str:
        """``0 9D>S1``."""
        return f"{self.player} {self.move.text}"


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A player ended his turn without a discard (classic rule 14)."""

    player: int
    """Who passed."""

    @property
    def notation(self) -> str:
        """``0 pass``."""
        return f"{self.player} pass"


@dataclass(frozen=True, slots=True)
class StackCompleted(Event):
    """A centre stack reached its last rank and was shuffled into the stock (rule 5)."""

    centre: int
    """0-based centre stack, now empty again."""
    cards: int
    """How many cards went into the stock."""
    stock_size: int
    """Cards in the stock afterwards."""

    @property
    def notation(self) -> str:
        """``C2 completed 12``: the stack and the cards that went into the stock."""
        return f"C{self.centre + 1} completed {self.cards}"


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    """A turn ended; ``next_player`` is on turn unless the game is over."""

    player: int
    """Whose turn ended."""
    turn_number: int
    """Turns completed so far in the game."""
    idle: bool
    """True if the turn had no play and no discard (rule 16)."""
    next_player: int
    """Who is on turn next."""

    @property
    def notation(self) -> str:
        """``0 ends turn 5 next 1`` (``idle`` before ``next`` for a turn without a play or
        discard)."""
        idle = " idle" if self.idle else ""
        return f"{self.player} ends turn {self.turn_number}{idle} next {self.next_player}"


@dataclass(frozen=True, slots=True)
class Left(Event):
    """A player left the game (rule 26): he resigned, or another player claimed the game from
    him. His turns are skipped from now on; his pay-off pile and side stacks stay, out of play."""

    player: int
    """Who left."""
    margin: int
    """His margin: the cards in his pay-off pile as he left."""
    next_player: int | None
    """Who is on turn now (``None`` when the game ended, one player being left)."""

    @property
    def notation(self) -> str:
        """``2 left 12 next 0``: the leaver, his margin, who is on turn (``over`` if nobody)."""
        after = "over" if self.next_player is None else f"next {self.next_player}"
        return f"{self.player} left {self.margin} {after}"


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended."""

    result: Result
    """Winner, score and reason."""

    @property
    def notation(self) -> str:
        """``over 1 wins 35 payoff_emptied`` or ``over tie stock_out``."""
        result = self.result
        if result.winner is None:
            return f"over tie {result.reason.value}"
        return f"over {result.winner} wins {result.score} {result.reason.value}"


_KIND_NAMES: dict[type, str] = {
    Dealt: "dealt",
    Drew: "drew",
    Played: "played",
    Discarded: "discarded",
    Passed: "passed",
    StackCompleted: "stack_completed",
    TurnEnded: "turn_ended",
    Left: "left",
    GameOver: "game_over",
}
