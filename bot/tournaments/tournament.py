"""What every tournament format shares: entrants and their seeding, the two events a tournament
is rebuilt from (a table's result and a withdrawal), rounds of tables, and the standings.

A tournament is like a game of the engine: a plain value rebuilt by replaying its history. The
entrants (with their ratings when the tournament started) and the events in the order they
happened give the same rounds every time, so a restart recomputes the rounds already played and
the one in progress exactly; nothing here is random, reads a clock or does I/O.

Rules common to the formats:

- **Seeding.** Seed 1 is the highest rating; equal ratings keep the order of sign-up (the order
  the entrants are given in).
- **A round** is a list of tables (each a list of seats, players in seat order) plus the players
  with a bye. Round n + 1 is drawn the moment the last table of round n is decided.
- **A result** is a table's places, one per seat, 1 the best, as the engine ranks a table
  (``Result.ranks``: a shared place skips the next, 1, 2, 2, 4; a drawn game ranks everyone 1).
- **A forfeit.** A player who leaves or is removed (a :class:`Withdrawal`) loses his remaining
  games: a table of his that is not decided yet and has one player left is decided at once, that
  player winning and the leaver placed last; a table of three or four with two or more players
  left plays on without him (the engine's rule 26) and he can't go on from it. Results decided
  before he left stand. He takes no part in a later round.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

__all__ = [
    "Entrant",
    "Event",
    "Played",
    "Round",
    "Standing",
    "Table",
    "Tournament",
    "TournamentError",
    "Withdrawal",
    "rank_by",
]


class TournamentError(ValueError):
    """An event the tournament's state forbids (a result for a table that is already decided,
    a player who is not an entrant, ...): nothing was changed. The message can be shown."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player signed up, with the rating he had when the tournament started (seeding and the
    pairing order use it; it never changes during the tournament)."""

    player: int
    rating: float


@dataclass(frozen=True, slots=True)
class Played:
    """A finished game at table ``table`` (0-based) of round ``round`` (1-based): ``places``
    per seat in the table's seat order, 1 the best (shared places allowed, 1, 1 a draw)."""

    round: int
    table: int
    places: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A player left the tournament or was removed: he forfeits his remaining games."""

    player: int


Event = Played | Withdrawal
"""What a tournament is rebuilt from, in the order it happened."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table of a round: its seats (players, in seat order) and, once decided, its places
    (1 the best). ``forfeit`` is true when a withdrawal decided it without a game. ``draws``
    counts drawn games that decided nothing (a knockout table plays a draw again)."""

    seats: tuple[int, ...]
    places: tuple[int, ...] | None = None
    forfeit: bool = False
    draws: int = 0

    @property
    def decided(self) -> bool:
        """True once the table has its result (a game, or a forfeit)."""
        return self.places is not None

    def winners(self) -> tuple[int, ...]:
        """The players placed first (one, or several on a draw); none while undecided, nor
        when everyone at the table left."""
        if self.places is None:
            return ()
        return tuple(p for p, place in zip(self.seats, self.places, strict=True) if place == 1)


@dataclass(frozen=True, slots=True)
class Round:
    """A round: its number (1-based), its tables and the players with a bye."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        """True when every table has its result."""
        return all(t.decided for t in self.tables)

    @property
    def players(self) -> tuple[int, ...]:
        """Everyone in the round: at a table or with a bye."""
        return tuple(p for t in self.tables for p in t.seats) + self.byes


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line in the standings. ``place`` is 1 the best, shared on a tie (1, 2, 2, 4);
    ``None`` while not known yet (a knockout player still in). ``points`` is the score (a win 1,
    a draw ½, a bye 1) in Swiss and round robin, the rounds won in a knockout; ``tie_break`` the
    format's tie-break (Buchholz, Sonneborn-Berger; 0 in a knockout)."""

    player: int
    place: int | None
    points: float
    tie_break: float
    wins: int
    draws: int
    losses: int
    byes: int
    withdrawn: bool


def rank_by(keys: Sequence[tuple[int, tuple[float, ...]]]) -> dict[int, int]:
    """Places from ``(player, key)`` pairs, the larger key the better: equal keys share a place
    and the next one is skipped (1, 2, 2, 4)."""
    ordered = sorted(keys, key=lambda pk: pk[1], reverse=True)
    places: dict[int, int] = {}
    for i, (player, key) in enumerate(ordered):
        places[player] = places[ordered[i - 1][0]] if i and ordered[i - 1][1] == key else i + 1
    return places


class Tournament(ABC):
    """A tournament's state, changed only by :meth:`play` and :meth:`withdraw` (each checks
    fully first, then changes, and raises :class:`TournamentError` on what the state forbids);
    :meth:`replay` rebuilds it from its entrants and history."""

    format_name: str = ""
    """The format's name, as the commands offer it."""

    def __init__(self, entrants: Sequence[Entrant], seats: int = 2) -> None:
        players = [e.player for e in entrants]
        if len(set(players)) != len(players):
            raise TournamentError("A player can join a tournament only once.")
        if len(entrants) < 2:
            raise TournamentError("A tournament needs at least two players.")
        if seats not in (2, 3, 4):
            raise TournamentError("A table seats two, three or four players.")
        self.seats = seats
        self.entrants = tuple(entrants)
        # Seed 1 first: highest rating, sign-up order on equal ratings (sorted is stable).
        self.seeding: tuple[int, ...] = tuple(
            e.player for e in sorted(entrants, key=lambda e: -e.rating))
        self.rating = {e.player: e.rating for e in entrants}
        self.seed = {p: i + 1 for i, p in enumerate(self.seeding)}
        self.rounds: list[Round] = []
        self.withdrawn: list[int] = []
        self.history: list[Event] = []
        self.finished = False
        self._next_round()

    # -- replay ----------------------------------------------------------------------------

    @classmethod
    def replay(cls, entrants: Sequence[Entrant], history: Iterable[Event],
               seats: int = 2) -> Tournament:
        """The tournament rebuilt from its entrants and its events in order (the same
        arguments always give the same state)."""
        tournament = cls(entrants, seats)
        for event in history:
            tournament.apply(event)
        return tournament

    def apply(self, event: Event) -> None:
        """Apply one event (a :class:`Played` or a :class:`Withdrawal`)."""
        if isinstance(event, Played):
            self.play(event.round, event.table, event.places)
        else:
            self.withdraw(event.player)

    # -- what the bot asks -----------------------------------------------------------------

    @property
    def current(self) -> Round | None:
        """The round being played; ``None`` once the tournament is finished."""
        return None if self.finished or not self.rounds else self.rounds[-1]

    def pending(self) -> list[tuple[int, int, tuple[int, ...]]]:
        """The games to play now: ``(round, table, seats)`` for each undecided table of the
        current round (a knockout table drawn before is played again)."""
        now = self.current
        if now is None:
            return []
        return [(now.number, i, t.seats) for i, t in enumerate(now.tables) if not t.decided]

    @abstractmethod
    def standings(self) -> tuple[Standing, ...]:
        """Everyone's line, best place first (players with no place yet last, by seed)."""

    # -- events ----------------------------------------------------------------------------

    def verify_play(self, round_number: int, table: int, places: Sequence[int]) -> None:
        """Raise :class:`TournamentError` unless ``places`` may be recorded for that table."""
        now = self.current
        if now is None:
            raise TournamentError("The tournament is over.")
        if round_number != now.number:
            raise TournamentError(f"Round {round_number} is not the round being played "
                                  f"(round {now.number}).")
        if not 0 <= table < len(now.tables):
            raise TournamentError(f"Round {now.number} has no table {table + 1}.")
        seated = now.tables[table]
        if seated.decided:
            raise TournamentError(f"Table {table + 1} of round {now.number} is decided already.")
        size = len(seated.seats)
        if len(places) != size or any(not 1 <= p <= size for p in places) or min(places) != 1:
            raise TournamentError(f"A result for a table of {size} gives each seat a place "
                                  f"from 1 to {size}, someone first.")

    def play(self, round_number: int, table: int, places: Sequence[int]) -> None:
        """Record a finished game at a table of the current round."""
        self.verify_play(round_number, table, places)
        self.history.append(Played(round_number, table, tuple(places)))
        self._set_table(table, self._decide(self.rounds[-1].tables[table], tuple(places)))

    def verify_withdraw(self, player: int) -> None:
        """Raise :class:`TournamentError` unless ``player`` may withdraw now."""
        if player not in self.seed:
            raise TournamentError("That player isn't in this tournament.")
        if player in self.withdrawn:
            raise TournamentError("That player has left the tournament already.")
        if self.finished:
            raise TournamentError("The tournament is over.")

    def withdraw(self, player: int) -> None:
        """A player leaves or is removed: his open tables of the current round are forfeited
        where only one other player is left (see the module's rules)."""
        self.verify_withdraw(player)
        self.history.append(Withdrawal(player))
        self.withdrawn.append(player)
        # A bye already given stands; a later round leaves him out. He sits at one table.
        for i, t in enumerate(self.rounds[-1].tables):
            if player in t.seats and not t.decided:
                forfeited = self._forfeit(t)
                if forfeited is not None:
                    self._set_table(i, forfeited)
                break

    # -- for the formats -------------------------------------------------------------------

    def _forfeit(self, table: Table) -> Table | None:
        """The table decided by withdrawals, or ``None`` while two or more are left to play."""
        left = [p for p in table.seats if p not in self.withdrawn]
        if len(left) >= 2:
            return None
        last = len(table.seats)
        return replace(table, places=tuple(1 if p in left else last for p in table.seats),
                       forfeit=True)

    def _decide(self, table: Table, places: tuple[int, ...]) -> Table:
        """The table after a game's result (the knockout plays a draw again)."""
        return replace(table, places=places)

    def _set_table(self, index: int, table: Table) -> None:
        now = self.rounds[-1]
        tables = list(now.tables)
        tables[index] = table
        self.rounds[-1] = replace(now, tables=tuple(tables))
        if self.rounds[-1].decided:
            self._next_round()

    def _next_round(self) -> None:
        """Draw the next round (its tables already forfeited where the leavers decide them),
        going on past rounds with nothing to play; or finish the tournament."""
        while True:
            drawn = self._draw(len(self.rounds) + 1)
            if drawn is None:
                self.finished = True
                return
            tables = tuple((self._forfeit(t) or t) if set(t.seats) & set(self.withdrawn) else t
                           for t in drawn.tables)
            self.rounds.append(replace(drawn, tables=tables))
            if not self.rounds[-1].decided:
                return

    @abstractmethod
    def _draw(self, number: int) -> Round | None:
        """Round ``number``'s tables and byes from the rounds so far, or ``None`` when the
        tournament is over."""

    def _active(self) -> list[int]:
        """The players who have not withdrawn, in seed order."""
        return [p for p in self.seeding if p not in self.withdrawn]
