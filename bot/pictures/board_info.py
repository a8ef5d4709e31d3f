"""What a picture shows beyond the view (``BoardInfo``: names, match, last moves) and the
words a board writes of it: the seat names and the result in a line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine import EndReason, Result, View


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """What a picture shows beyond the view: the names, the match, and the last moves in words."""

    names: tuple[str, ...]
    """Display names, one per seat of the table (two to four), in seat order."""
    game_number: int = 1
    """Which game of the match this is (1 for the first)."""
    match_scores: tuple[int, ...] = (0, 0)
    """Match points per seat, as the caller wants them shown (a seat missing counts 0)."""
    match_target: int | None = None
    """Points that win the match, or ``None`` for a single game."""
    last_moves: tuple[str, ...] = ()
    """Short public descriptions of the last moves, oldest first (``"Ann: 7♥ from hand → C2"``)."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _public(view: View) -> View:
    """The view with everything private taken out (rule 8): all the board may read, whoever the
    view is for. (The hand, the legal and compulsory moves are gone; the rest is public.)"""
    return replace(view, viewer=None, hand=None, legal_moves=(), compulsory=())

_REASONS = {
    EndReason.PAYOFF_EMPTIED: "pay-off pile emptied",
    EndReason.STALEMATE: "stalemate",
    EndReason.TURN_LIMIT: "turn limit reached",
    EndReason.STOCK_OUT: "the stock ran out",
    EndReason.RESIGNED: "resigned",
}


def _and(words: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def result_line(result: Result, names: Sequence[str]) -> str:
    """The end of a game in a line: ``Ann wins · 12 points · pay-off pile emptied``.

    At a table of three or four the leavers are named (``Bob and Cy left``)."""
    if len(names) > 2 and result.reason is EndReason.RESIGNED and result.left:
        why = _and([names[s] for s in result.left]) + " left"
    elif result.reason is EndReason.RESIGNED and result.winner is not None:
        why = f"{names[1 - result.winner]} resigned"
    elif result.reason is EndReason.STALEMATE and result.winner is None:
        why = ("stalemate, equal pay-off piles" if len(names) == 2
               else "stalemate, fewest pay-off cards shared")
    else:
        why = _REASONS[result.reason]
    if result.winner is None:
        return f"Tie · no points · {why}"
    return f"{names[result.winner]} wins · {_plural(result.score, 'point')} · {why}"


def _names(info: BoardInfo, players: int) -> tuple[str, ...]:
    """A name per seat (``Seat 3`` for one the caller did not name)."""
    return tuple(info.names[s] if s < len(info.names) else f"Seat {s + 1}"
                 for s in range(players))


def _points(info: BoardInfo, seat: int) -> int:
    return info.match_scores[seat] if seat < len(info.match_scores) else 0
