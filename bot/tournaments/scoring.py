"""Points for the formats of two-player games (Swiss and round robin), and their standings.

- A win is 1 point, a draw ½, a loss 0. **A bye counts as a win** (1 point; it is no game, so it
  adds nothing to a tie-break). A game won by a forfeit is a win, lost by one a loss.
- Standings rank by points, then the format's tie-break, then rating; players equal on all three
  share a place (1, 2, 2, 4). Players who left are ranked below everyone who stayed, in the same
  order among themselves: their remaining games were forfeited.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from .tournament import Entrant, Standing, Tournament, TournamentError, rank_by

__all__ = ["Record", "ScoredTournament"]


@dataclass(slots=True)
class Record:
    """A player's games so far: points, counts, and each opponent met with the points he took
    from that game (1, ½ or 0)."""

    points: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    games: list[tuple[int, float]] = field(default_factory=list)


class ScoredTournament(Tournament):
    """A format of two-player games scored by points (see the module for the rules)."""

    def __init__(self, entrants: Sequence[Entrant], seats: int = 2) -> None:
        if seats != 2:
            raise TournamentError(f"{self.format_name.capitalize()} is for two-player games.")
        super().__init__(entrants, seats)

    def records(self) -> dict[int, Record]:
        """Every player's record from the decided tables and the byes so far."""
        out = {p: Record() for p in self.seeding}
        for r in self.rounds:
            for p in r.byes:
                out[p].points += 1
                out[p].byes += 1
            for t in r.tables:
                if not t.decided:
                    continue
                firsts = t.winners()
                for p, other in (t.seats, t.seats[::-1]):
                    rec = out[p]
                    got = 0.0 if p not in firsts else 1.0 if len(firsts) == 1 else 0.5
                    rec.points += got
                    rec.wins += got == 1.0
                    rec.draws += got == 0.5
                    rec.losses += got == 0.0
                    rec.games.append((other, got))
        return out

    @abstractmethod
    def tie_break(self, player: int, records: dict[int, Record]) -> float:
        """The format's tie-break for ``player`` (larger is better)."""

    def standings(self) -> tuple[Standing, ...]:
        records = self.records()
        breaks = {p: self.tie_break(p, records) for p in self.seeding}
        places = rank_by([(p, (float(p not in self.withdrawn), records[p].points, breaks[p],
                               self.rating[p])) for p in self.seeding])
        lines = [Standing(p, places[p], records[p].points, breaks[p], records[p].wins,
                          records[p].draws, records[p].losses, records[p].byes,
                          p in self.withdrawn) for p in self.seeding]
        return tuple(sorted(lines, key=lambda s: (s.place or 0, self.seed[s.player])))
