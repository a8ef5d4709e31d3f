"""A season's arithmetic, without storage or Discord: the calendar (which month or quarter a
moment falls in, in UTC) and the season table (points for wins and places, then net money).

Calendar seasons run on UTC: a monthly season is ``[1st 00:00 UTC, next 1st 00:00 UTC)``, a
quarterly one starts on 1 January, April, July and October. One timezone for every server
keeps "the game ended in November" the same answer for everyone, whatever clock they read.

Points (the season table): a player scores per game he finished in the season,

- a win: 3 points;
- a drawn game: 1 point to each player;
- a loss at a table of ``n``: ``n - place`` (second of four 2, third of four 1, second of
  three 1, last 0; a loser of two 0); places come from the margins, equal margins share the
  better place, as for ratings (rule 28).

The table ranks by points, then net money, then wins, then fewer games (the same points in
fewer games); players equal on all four share the place (1, 1, 3: two champions), listed by
user id (so it never shuffles). A player with fewer than
``MIN_SEASON_GAMES`` games is listed after the ranked ones without a place.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from bot.storage import LedgerRow, SeasonPlace

__all__ = ["MIN_SEASON_GAMES", "MODES", "POINTS_FOR_WIN", "GameLine", "SeasonStanding",
           "SeasonTally", "period", "season_table", "table_of_games"]

MODES = ("off", "monthly", "quarterly", "manual")
"""A server's seasons: none, one a calendar month, one a calendar quarter, or started and ended
by an admin (``/season start``, ``/season end``)."""

MIN_SEASON_GAMES = 3
"""Games a player needs in a season to be ranked (and to be its champion)."""

POINTS_FOR_WIN = 3
POINTS_FOR_DRAW = 1

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def period(mode: str, at: float) -> tuple[float, float, str]:
    """The calendar season of ``mode`` (``monthly`` or ``quarterly``) that the moment ``at``
    (Unix seconds) falls in: ``(start, end, name)``, ``start <= at < end``, in UTC.

    >>> period("monthly", 1_800_000_000.0)[2]
    'January 2027'
    >>> period("quarterly", 1_800_000_000.0)[2]
    'Q1 2027'
    """
    when = dt.datetime.fromtimestamp(at, dt.UTC)
    if mode == "monthly":
        first, months = when.month, 1
        name = f"{_MONTHS[first - 1]} {when.year}"
    elif mode == "quarterly":
        first, months = 3 * ((when.month - 1) // 3) + 1, 3
        name = f"Q{(first - 1) // 3 + 1} {when.year}"
    else:
        raise ValueError(f"not a calendar season: {mode!r}")
    start = dt.datetime(when.year, first, 1, tzinfo=dt.UTC)
    year, month = divmod(first - 1 + months, 12)
    end = dt.datetime(when.year + year, month + 1, 1, tzinfo=dt.UTC)
    return start.timestamp(), end.timestamp(), name


SeasonStanding = SeasonPlace
"""One player's line of a season table (saved as it is when the season ends)."""


@dataclass
class _Tally:
    points: int = 0
    games: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    net: int = 0
    run: int = 0
    best: int = 0

    def result(self, kind: str, points: int) -> None:
        self.games += 1
        self.points += points
        if kind == "W":
            self.wins += 1
            self.run += 1
            self.best = max(self.best, self.run)
        else:
            self.run = 0
            if kind == "T":
                self.ties += 1
            else:
                self.losses += 1


GameLine = tuple[int, int | None, int, int, int, int | None, int | None]
"""A game line as the season table reads it: ``(id, game_id, debtor, creditor, cents,
winner, margin)`` (``SeasonRecords.game_lines`` reads only these, as plain tuples)."""


def season_table(lines: Iterable[LedgerRow], min_games: int = MIN_SEASON_GAMES
                 ) -> list[SeasonStanding]:
    """The season table of the game lines ``lines`` (in ledger order, voided ones left out):
    the ranked players first, by points, net money, wins, fewer games; then the others."""
    return table_of_games(((r.id, r.game_id, r.debtor_id, r.creditor_id, r.amount_cents,
                            r.winner_id, r.margin) for r in lines if r.kind == "game"),
                          min_games)


def table_of_games(lines: Iterable[GameLine], min_games: int = MIN_SEASON_GAMES
                   ) -> list[SeasonStanding]:
    """``season_table`` of game lines given as ``GameLine`` tuples (in ledger order)."""
    tally = SeasonTally()
    tally.add(lines)
    return tally.table(min_games)


class SeasonTally:
    """A season table being built: game lines folded in, in ledger order, a batch at a time
    (a running season's table takes each new game without reading the season again). A
    game's lines must come in one batch (they are written in one transaction)."""

    def __init__(self) -> None:
        self._tallies: dict[int, _Tally] = {}
        self.lines = 0
        """Game lines folded in."""
        self.last_id = 0
        """The highest ledger id folded in."""

    def copy(self) -> SeasonTally:
        """An independent copy (to fold more lines into while this one stays as it is)."""
        other = SeasonTally()
        other._tallies = {user: dataclasses.replace(t) for user, t in self._tallies.items()}
        other.lines, other.last_id = self.lines, self.last_id
        return other

    def _tally(self, user: int) -> _Tally:
        return self._tallies.setdefault(user, _Tally())

    def add(self, lines: Iterable[GameLine]) -> None:
        """Fold in game lines newer than those folded in before, in ledger order."""
        games: dict[int, list[GameLine]] = {}
        for line in lines:
            games.setdefault(line[1] if line[1] is not None else -line[0], []).append(line)
            self.lines += 1
            self.last_id = max(self.last_id, line[0])
        tally = self._tally
        for group in games.values():
            for _, _, debtor, creditor, cents, _, _ in group:
                tally(creditor).net += cents
                tally(debtor).net -= cents
            _, _, _, winner_seat, _, winner, _ = group[0]
            if winner is None:
                for user in dict.fromkeys([winner_seat] + [line[2] for line in group]):
                    tally(user).result("T", POINTS_FOR_DRAW)
                continue
            table_size = len(group) + 1
            tally(winner_seat).result("W", POINTS_FOR_WIN)
            margins = sorted(line[6] or 0 for line in group)
            for line in group:
                place = 2 + margins.index(line[6] or 0)  # equal margins share the better place
                tally(line[2]).result("L", table_size - place)

    def table(self, min_games: int = MIN_SEASON_GAMES) -> list[SeasonStanding]:
        """The table as it stands: the ranked players first, by points, net money, wins,
        fewer games (equal on all four: the same place); then the others."""
        order = sorted(self._tallies.items(), key=lambda item: (
            item[1].games < min_games, -item[1].points, -item[1].net, -item[1].wins,
            item[1].games, item[0]))
        out = []
        place, last = 0, None
        for i, (user, t) in enumerate(order):
            ranked = t.games >= min_games
            if ranked and (t.points, t.net, t.wins, t.games) != last:
                place, last = i + 1, (t.points, t.net, t.wins, t.games)
            out.append(SeasonStanding(place if ranked else None, user, t.points, t.games,
                                      t.wins, t.losses, t.ties, t.net, t.best))
        return out
