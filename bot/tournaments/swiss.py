"""Swiss system for two-player games.

The rules chosen:

- **Rounds:** ⌈log2 n⌉ for n entrants (6 players: 3 rounds), fewer only when no round can
  be drawn (see below).
- **Pairing by score then rating.** The players still in are ranked by points, then rating, then
  seed; the first is paired with the next one he has not met, and so on down the list; when the
  rest can't be paired that way, the search goes back and tries the next opponent (a full
  search, so a round without a rematch is found whenever one exists). The better-ranked player
  takes the first seat.
- **No rematches.** Two players never meet twice. If no round without a rematch exists (only
  possible when players left), the tournament ends there.
- **Byes.** With an odd number of players, the lowest-ranked player who has not had a bye sits
  out with a bye, which **counts as a win** (1 point, no tie-break). If pairing the others
  fails, the next lowest without a bye is tried; only when all of them fail (or everyone has had
  one) does a player get a second bye, again the lowest-ranked first.
- **Standings:** points, then **Buchholz** (the sum of the points of every opponent met at a
  table, a forfeited game included; a bye adds nothing), then rating (see ``scoring``).
- **Leaving.** A player who leaves forfeits his game of the current round and is not paired
  again; the points he has stand.
"""

from __future__ import annotations

from .knockout import rounds_needed
from .scoring import Record, ScoredTournament
from .tournament import Round, Table

__all__ = ["Swiss", "pair_without_rematches"]


def pair_without_rematches(players: list[int], met: set[frozenset[int]]
                           ) -> list[tuple[int, int]] | None:
    """Pairs of ``players`` (best-ranked first) with no pair in ``met``, each player with the
    next one down he may meet, backtracking where that leaves the rest unpairable; ``None``
    when no such pairing exists."""
    failed: set[frozenset[int]] = set()

    def search(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        key = frozenset(rest)
        if key in failed:
            return None
        first = rest[0]
        for i in range(1, len(rest)):
            if frozenset((first, rest[i])) in met:
                continue
            tail = search(rest[1:i] + rest[i + 1:])
            if tail is not None:
                return [(first, rest[i]), *tail]
        failed.add(key)
        return None

    return search(players) if len(players) % 2 == 0 else None


class Swiss(ScoredTournament):
    """The Swiss system (see the module for the rules)."""

    format_name = "swiss"

    @property
    def total_rounds(self) -> int:
        """⌈log2 entrants⌉."""
        return rounds_needed(len(self.entrants), 2)

    def _draw(self, number: int) -> Round | None:
        active = self._active()
        if number > self.total_rounds or len(active) < 2:
            return None
        records = self.records()
        order = sorted(active, key=lambda p: (-records[p].points, -self.rating[p],
                                              self.seed[p]))
        met = {frozenset((p, q)) for p, rec in records.items() for q, _ in rec.games}
        candidates: list[int | None] = [None]
        if len(order) % 2:
            lowest_first = order[::-1]
            candidates = [p for p in lowest_first if not records[p].byes]
            candidates += [p for p in lowest_first if records[p].byes]
        for bye in candidates:
            pairs = pair_without_rematches([p for p in order if p != bye], met)
            if pairs is not None:
                return Round(number, tuple(Table(pair) for pair in pairs),
                             () if bye is None else (bye,))
        return None

    def tie_break(self, player: int, records: dict[int, Record]) -> float:
        """Buchholz: the points of the opponents met."""
        return sum(records[q].points for q, _ in records[player].games)
