"""Knockout (single elimination) for tables of two, three or four.

The rules chosen:

- **Rounds.** With n players at tables of k, the bracket has the fewest rounds R with
  k^R >= n; each table sends its winner on, so round R is one table (the final): 8 players at
  tables of two play 3 rounds, 9 at tables of three play 2 (3 tables, then a final of three).
- **Seeding and byes.** Round 1 has T = k^(R-1) tables, one led by each of seeds 1..T. The
  other players ("challengers", seeds T+1..n) need ceil((n-T)/(k-1)) of those tables; the
  tables of the lowest leading seeds play and the top seeds have the byes (a table of one).
  Challengers are dealt in turns over the tables that play, each turn from seed T's table up to
  the best seed's, so the best seed meets the weakest challenger of each turn (a table may play
  a seat short): 8 players at tables of two give 1-8, 2-7, 3-6, 4-5 (listed by their leading
  seed), 6 give byes to 1 and 2 and 3-6, 4-5; 9 at tables of three give 1-6-9, 2-5-8, 3-4-7,
  and 7 a bye to 1 and 2-5-7, 3-4-6; 7 at tables of four give byes to 1, 2, 3 and 4-5-6-7.
- **Later rounds.** The bracket is fixed by the seeds: the winner of seed s's table takes slot
  s, and slots are grouped the same way (slot 1 with the last slot of each turn), so the top k
  seeds can meet only in the final, the top k^2 only from the semi-final on, and so on. A slot
  whose player left is empty: his table's others go on (a walkover), and a table left with one
  player is a bye.
- **A drawn game** (shared first place among those still seated) decides nothing: the table
  plays again; after the second draw at a table the better seed among those who drew goes on.
- **Places.** The winner is 1st; players knocked out in the same round share a place, counted as
  the rules count a table (1, 2, 2, 4): one more than the number of players who went further.
  With tables of two: 1, 2, 3, 3, 5, 5, 5, 5. A player who leaves is knocked out in the round he
  left in (a winner who leaves before his next round forfeits that round's game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .tournament import Entrant, Round, Standing, Table, Tournament

__all__ = ["MAX_DRAWS", "Knockout", "bracket_groups", "first_round_groups", "rounds_needed"]

MAX_DRAWS = 2
"""Drawn games at one table before the better seed goes on."""


def rounds_needed(players: int, seats: int) -> int:
    """The fewest rounds R with ``seats ** R >= players``."""
    rounds, size = 0, 1
    while size < players:
        rounds, size = rounds + 1, size * seats
    return rounds


def bracket_groups(slots: int, seats: int) -> list[list[int]]:
    """The slots (0-based, in seed order) that meet at each table of a full round:
    ``slots // seats`` tables; table i holds slot i and, from each further turn of
    ``slots // seats`` slots, the one counted from that turn's end (slot 0 meets the last of
    each turn)."""
    m = slots // seats
    return [[i] + [t * m + (m - 1 - i) for t in range(1, seats)] for i in range(m)]


def first_round_groups(players: int, seats: int) -> list[list[int]]:
    """Round 1's tables as seeds (0-based), table i led by seed i: the challengers sit at the
    tables of the lowest leading seeds, so the top seeds have the byes (see the module)."""
    rounds = rounds_needed(players, seats)
    tables = seats ** (rounds - 1)
    challengers = players - tables
    playing = -(-challengers // (seats - 1))  # tables that get challengers: the lowest seeds'
    groups = [[i] for i in range(tables)]
    for j in range(challengers):
        groups[tables - 1 - j % playing].append(tables + j)
    return groups


class Knockout(Tournament):
    """Single elimination (see the module for the rules)."""

    format_name = "knockout"

    def __init__(self, entrants: Sequence[Entrant], seats: int = 2) -> None:
        # Per round, per slot: the players drawn into it (a table, a bye, or nobody).
        self._slots: list[list[tuple[int, ...]]] = []
        # (round, seats) -> who goes on from a table a game decided.
        self._goes_on: dict[tuple[int, tuple[int, ...]], int] = {}
        self.champion: int | None = None
        super().__init__(entrants, seats)

    @property
    def total_rounds(self) -> int:
        """Rounds in the full bracket (fewer are played when everyone else left)."""
        return rounds_needed(len(self.entrants), self.seats)

    # -- drawing rounds ----------------------------------------------------------------------

    def _draw(self, number: int) -> Round | None:
        if number == 1:
            groups = [tuple(self.seeding[s] for s in g)
                      for g in first_round_groups(len(self.seeding), self.seats)]
        else:
            on = [p if p is not None and p not in self.withdrawn else None
                  for p in self._winners(number - 1)]
            alive = [p for p in on if p is not None]
            if number > self.total_rounds or len(alive) <= 1:
                self.champion = alive[0] if alive else None
                return None
            groups = [tuple(p for p in (on[s] for s in g) if p is not None)
                      for g in bracket_groups(len(on), self.seats)]
        groups = [tuple(p for p in g if p not in self.withdrawn) for g in groups]
        self._slots.append(groups)
        return Round(number, tuple(Table(g) for g in groups if len(g) >= 2),
                     tuple(g[0] for g in groups if len(g) == 1))

    def _winners(self, number: int) -> list[int | None]:
        """Per slot of round ``number``, who goes on from it (``None``: nobody, or not yet)."""
        tables = {t.seats: t for t in self.rounds[number - 1].tables}
        out: list[int | None] = []
        for group in self._slots[number - 1]:
            if len(group) <= 1:
                out.append(group[0] if group else None)
            else:
                out.append(self._goes_on_from(number, tables[group]))
        return out

    def _goes_on_from(self, number: int, table: Table) -> int | None:
        if not table.decided:
            return None
        if table.forfeit:
            return next(iter(table.winners()), None)
        return self._goes_on[(number, table.seats)]

    def _decide(self, table: Table, places: tuple[int, ...]) -> Table:
        seated = [(place, self.seed[p], p) for p, place in zip(table.seats, places, strict=True)
                  if p not in self.withdrawn]
        best = min(place for place, _, _ in seated)
        firsts = sorted((seed, p) for place, seed, p in seated if place == best)
        if len(firsts) > 1 and table.draws + 1 < MAX_DRAWS:
            return replace(table, draws=table.draws + 1)
        self._goes_on[(self.rounds[-1].number, table.seats)] = firsts[0][1]
        return replace(table, places=places, draws=table.draws + (len(firsts) > 1))

    # -- standings ---------------------------------------------------------------------------

    def standings(self) -> tuple[Standing, ...]:
        won: dict[int, int] = dict.fromkeys(self.seeding, 0)
        lost: dict[int, int] = dict.fromkeys(self.seeding, 0)
        byes: dict[int, int] = dict.fromkeys(self.seeding, 0)
        survived: dict[int, int] = dict.fromkeys(self.seeding, 0)
        alive: set[int] = set()
        for r in self.rounds:
            for player, slot in zip(self._winners(r.number), self._slots[r.number - 1],
                                    strict=True):
                if player is not None:
                    survived[player] = r.number
                    if len(slot) == 1:
                        byes[player] += 1
                    else:
                        won[player] += 1
            for t in r.tables:
                if t.decided:
                    for p in t.seats:
                        lost[p] += survived[p] != r.number
        now = self.current
        if now is not None:
            tables = {t.seats: t for t in now.tables}
            for group in self._slots[now.number - 1]:
                undecided = len(group) >= 2 and not tables[group].decided
                alive.update(p for p in group if p not in self.withdrawn
                             and (undecided or survived[p] == now.number))
        lines = []
        for p in self.seeding:
            place: int | None
            if p == self.champion:
                place = 1
            elif p in alive or (now is not None and survived[p] + 1 >= now.number):
                place = None  # still in, or knocked out in the round being played
            else:
                place = 1 + sum(1 for q in self.seeding if q != p and (
                    q == self.champion or q in alive or survived[q] > survived[p]))
            lines.append(Standing(p, place, float(survived[p]), 0.0, won[p], 0, lost[p],
                                  byes[p], p in self.withdrawn))
        return tuple(sorted(lines, key=lambda s: (s.place is None, s.place or 0,
                                                  self.seed[s.player])))

