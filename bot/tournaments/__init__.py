"""Tournament pairing and standings, without Discord, storage or I/O (issue 33).

A tournament is rebuilt from its entrants (with their ratings at the start), its seats per table
and its events in order (:class:`Played` results and :class:`Withdrawal` s), like a game from its
seed and moves: :func:`replay` gives the same rounds every time, so a restart recomputes the
round in progress. The formats and the rules each one follows are in their modules:
``knockout`` (tables of two to four), ``swiss`` and ``round_robin`` (two-player games);
``tournament`` has what they share (seeding, forfeits), ``scoring`` the points of the two-player
formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .knockout import Knockout
from .round_robin import RoundRobin
from .swiss import Swiss
from .tournament import (
    Entrant,
    Event,
    Played,
    Round,
    Standing,
    Table,
    Tournament,
    TournamentError,
    Withdrawal,
)

__all__ = [
    "FORMATS",
    "Entrant",
    "Event",
    "Knockout",
    "Played",
    "Round",
    "RoundRobin",
    "Standing",
    "Swiss",
    "Table",
    "Tournament",
    "TournamentError",
    "Withdrawal",
    "replay",
]

FORMATS: dict[str, type[Tournament]] = {
    Knockout.format_name: Knockout,
    Swiss.format_name: Swiss,
    RoundRobin.format_name: RoundRobin,
}
"""The formats by name."""


def replay(format_name: str, entrants: Sequence[Entrant], history: Iterable[Event] = (),
           seats: int = 2) -> Tournament:
    """The tournament of ``format_name`` rebuilt from its entrants and events (no events: just
    started, round 1 drawn)."""
    if format_name not in FORMATS:
        raise TournamentError(f"There is no tournament format {format_name!r}.")
    return FORMATS[format_name].replay(entrants, history, seats)
