"""Round robin for two-player games, up to 8 players: everyone meets everyone once.

The rules chosen:

- **Schedule:** the circle method over the seeds. Seed 1 stays put and the others turn one place
  a round; each round pairs the first position with the last, the second with the one before
  last, and so on: n − 1 rounds for an even n.
- **An odd number of players:** an empty place joins the circle, so there are n rounds and
  whoever meets the empty place has a **bye** that round (everyone exactly one); a bye counts as
  a win (see ``scoring``).
- The whole schedule is fixed when the tournament starts; round r + 1 begins when every table
  of round r is decided.
- **Leaving.** A player who leaves forfeits every game of his not decided yet: each of his
  opponents, in this round and the later ones, gets the win without playing; a bye of his in a
  later round is dropped. Games he finished stand.
- **Standings:** points, then **Sonneborn-Berger** (the points of each opponent beaten, plus half
  the points of each opponent drawn with), then rating.
"""

from __future__ import annotations

from collections.abc import Sequence

from .scoring import Record, ScoredTournament
from .tournament import Entrant, Round, Table, TournamentError

__all__ = ["MAX_PLAYERS", "RoundRobin", "circle_schedule"]

MAX_PLAYERS = 8
"""The most players a round robin takes (it lasts players − 1 rounds, or players when odd)."""


def circle_schedule(players: Sequence[int]) -> list[list[tuple[int | None, int | None]]]:
    """Each round's pairs by the circle method (``None``: the empty place of an odd count)."""
    circle: list[int | None] = list(players)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    rounds = []
    for r in range(n - 1):
        others = circle[1:]
        turned = others[len(others) - r:] + others[:len(others) - r]
        at = [circle[0], *turned]
        rounds.append([(at[i], at[n - 1 - i]) for i in range(n // 2)])
    return rounds


class RoundRobin(ScoredTournament):
    """Round robin (see the module for the rules)."""

    format_name = "round robin"

    def __init__(self, entrants: Sequence[Entrant], seats: int = 2) -> None:
        if len(entrants) > MAX_PLAYERS:
            raise TournamentError(f"A round robin takes at most {MAX_PLAYERS} players.")
        super().__init__(entrants, seats)

    @property
    def total_rounds(self) -> int:
        """Players − 1, or players when odd."""
        return len(self._schedule())

    def _schedule(self) -> list[list[tuple[int | None, int | None]]]:
        return circle_schedule(self.seeding)

    def _draw(self, number: int) -> Round | None:
        schedule = self._schedule()
        if number > len(schedule):
            return None
        tables: list[Table] = []
        byes: list[int] = []
        for p, q in schedule[number - 1]:
            if p is not None and q is not None:
                tables.append(Table((p, q)))
            else:
                alone = p if q is None else q
                if alone is not None and alone not in self.withdrawn:
                    byes.append(alone)
        return Round(number, tuple(tables), tuple(byes))

    def tie_break(self, player: int, records: dict[int, Record]) -> float:
        """Sonneborn-Berger: the points of the opponents beaten, half of those drawn with."""
        return sum(got * records[q].points for q, got in records[player].games)
