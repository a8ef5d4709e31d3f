"""Events: every change to a game, as frozen records.

``Game.play`` returns the events a move caused, in order. Most events are public; ``Drew``
carries the drawn cards, which only the drawing player may see, so anything shown to someone
else must go through ``Event.visible_to(viewer)`` (or ``public()``), which hides them.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from .cards import Card
from .moves import Move

__all__ = [
    "Dealt",
    "Drew",
    "EndReason",
    "Event",
    "GameOver",
    "Passed",
    "Played",
    "Discarded",
    "Result",
    "StackCompleted",
    "TurnEnded",
]


class EndReason(enum.Enum):
    """Why a game ended."""

    PAYOFF_EMPTIED = "payoff_emptied"
    """Rule 7: a player played his last pay-off card."""
    STALEMATE = "stalemate"
    """Rule 16 (classic): both players ended consecutive turns without a play or discard."""
    TURN_LIMIT = "turn_limit"
    """Rules 16/22: the game reached its turn limit."""
    STOCK_OUT = "stock_out"
    """Rule 20 (kings): a player had to draw from an empty stock."""
    RESIGNED = "resigned"
    """A player gave the game up (or lost it on time, as the bot decides)."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended: the winner (``None`` for a tie or drawn game) and the points scored."""

    winner: int | None
    """Seat 0 or 1 of the winner, or ``None`` for a tie."""
    score: int
    """Points to the winner: cards left in the loser's pay-off pile (or the difference)."""
    reason: EndReason
    """Why the game ended."""
    payoff_left: tuple[int, int]
    """Cards left in each pay-off pile at the end."""

    @property
    def is_tie(self) -> bool:
        """True when nobody won (stock-out, turn limit in kings, equal piles at a stalemate)."""
        return self.winner is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "winner": self.winner,
            "score": self.score,
            "reason": self.reason.value,
            "payoff_left": list(self.payoff_left),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild from ``to_dict`` output."""
        left = data["payoff_left"]
        return cls(data["winner"], int(data["score"]), EndReason(data["reason"]),
                   (int(left[0]), int(left[1])))


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

    payoff_tops: tuple[Card, Card]
    """The pay-off tops that decided the first player."""
    payoff_counts: tuple[int, int]
    """Cards in each pay-off pile."""
    reshuffles: int
    """How often the pay-off piles were reshuffled because the tops had equal ranks."""
    first_player: int
    """The seat that plays first."""


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


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A player ended his turn without a discard (classic rule 14)."""

    player: int
    """Who passed."""


@dataclass(frozen=True, slots=True)
class StackCompleted(Event):
    """A centre stack reached its last rank and was shuffled into the stock (rule 5)."""

    centre: int
    """0-based centre stack, now empty again."""
    cards: int
    """How many cards went into the stock."""
    stock_size: int
    """Cards in the stock afterwards."""


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


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended."""

    result: Result
    """Winner, score and reason."""


_KIND_NAMES: dict[type, str] = {
    Dealt: "dealt",
    Drew: "drew",
    Played: "played",
    Discarded: "discarded",
    Passed: "passed",
    StackCompleted: "stack_completed",
    TurnEnded: "turn_ended",
    GameOver: "game_over",
}
