"""Seasons: a server's seasons as time ranges, their final tables, and whether their end was
posted.

A game belongs to the season its ledger lines were written in (``starts_at <= created_at <
ends_at``; an open season by command has no end yet). A season leaves ``open`` once, by a
compare-and-set that also saves its final table (``finish``); then the one process that moved
it posts it and marks it ``posted`` (or ``quiet``: nothing to post). A process that crashed
between the two leaves it ``claimed``: after ``stale`` seconds another round may take it again
(``retake``) and looks for the message before posting it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Records
from .interface import Row
from .rows import LedgerRow, ledger_row

__all__ = ["SeasonPlace", "SeasonRecords", "SeasonRow"]


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """A season of one server."""

    id: int
    guild_id: int
    name: str
    kind: str
    """monthly, quarterly or manual (started by ``/season start``)."""
    starts_at: float
    ends_at: float | None
    """``None``: a season by command still running."""
    state: str
    """open (running, or ended and not yet taken), claimed (ended, its table saved, being
    posted), posted, quiet (ended with nothing to post)."""
    claimed_at: float | None
    channel_id: int | None
    message_id: int | None

    def holds(self, at: float) -> bool:
        """Whether a game finished at ``at`` belongs to this season."""
        return self.starts_at <= at and (self.ends_at is None or at < self.ends_at)


@dataclass(frozen=True, slots=True)
class SeasonPlace:
    """One player's line of a season table."""

    place: int | None
    """1, 2, … among the ranked; ``None``: too few games to be ranked."""
    user_id: int
    points: int
    games: int
    wins: int
    losses: int
    ties: int
    net_cents: int
    best_streak: int
    """His longest run of wins in the season."""


def _season(row: Row) -> SeasonRow:
    return SeasonRow(int(row["id"]), int(row["guild_id"]), str(row["name"]), str(row["kind"]),
                     float(row["starts_at"]),
                     None if row["ends_at"] is None else float(row["ends_at"]),
                     str(row["state"]),
                     None if row["claimed_at"] is None else float(row["claimed_at"]),
                     None if row["channel_id"] is None else int(row["channel_id"]),
                     None if row["message_id"] is None else int(row["message_id"]))


def _place(row: Row) -> SeasonPlace:
    return SeasonPlace(None if row["place"] is None else int(row["place"]), int(row["user_id"]),
                       *(int(row[k]) for k in ("points", "games", "wins", "losses", "ties",
                                               "net_cents", "best_streak")))


_PLACE_COLUMNS = "place, user_id, points, games, wins, losses, ties, net_cents, best_streak"


class SeasonRecords(Records):
    """``seasons`` and ``season_places``."""

    async def start(self, guild_id: int, name: str, kind: str, starts_at: float,
                    ends_at: float | None) -> SeasonRow | None:
        """A new open season, or ``None`` if the server already has one open."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "INSERT INTO seasons (guild_id, name, kind, starts_at, ends_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *",
                (guild_id, name, kind, starts_at, ends_at))
        return None if row is None else _season(row)

    async def open_season(self, guild_id: int) -> SeasonRow | None:
        """The server's open season (running, or ended and not yet taken), if any."""
        async with self._db.connection() as conn:
            row = await conn.fetchone(
                "SELECT * FROM seasons WHERE guild_id = ? AND state = 'open'", (guild_id,))
        return None if row is None else _season(row)

    async def get(self, season_id: int) -> SeasonRow | None:
        """A season by id."""
        async with self._db.connection() as conn:
            row = await conn.fetchone("SELECT * FROM seasons WHERE id = ?", (season_id,))
        return None if row is None else _season(row)

    async def recent(self, guild_id: int, limit: int = 25) -> list[SeasonRow]:
        """The server's seasons, newest first."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM seasons WHERE guild_id = ? ORDER BY starts_at DESC, id DESC "
                "LIMIT ?", (guild_id, limit))
        return [_season(r) for r in rows]

    async def lines(self, guild_id: int, starts_at: float, ends_at: float | None
                    ) -> list[LedgerRow]:
        """The game lines written in ``[starts_at, ends_at)`` that were not voided, in ledger
        order (read through ``ledger_game_times``)."""
        end = "" if ends_at is None else "AND created_at < ?"
        args: list[Any] = [guild_id, starts_at] + ([] if ends_at is None else [ends_at])
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT * FROM ledger l WHERE guild_id = ? AND kind = 'game' AND "
                f"created_at >= ? {end} AND NOT EXISTS (SELECT 1 FROM ledger v "
                f"WHERE v.voids_id = l.id) ORDER BY id", args)
        return [ledger_row(r) for r in rows]

    async def game_lines(self, guild_id: int, starts_at: float, ends_at: float | None,
                         after_id: int = 0) -> list[tuple[Any, ...]]:
        """The game lines of ``lines`` (those after the ledger id ``after_id``), only what a
        season table reads, as plain tuples: ``(id, game_id, debtor, creditor, cents,
        winner, margin)`` (a quarter of a busy server is tens of thousands of lines: a row
        object of every column for each was most of the season board's time)."""
        end = "" if ends_at is None else "AND created_at < ?"
        args: list[Any] = [guild_id, starts_at] + ([] if ends_at is None else [ends_at])
        # Only with a last id seen: then the few lines after it are found by id; without, a
        # condition on the id would have SQLite walk every game line of the server by id
        # instead of the season's by time.
        after = "" if not after_id else "AND id > ?"
        async with self._db.connection() as conn:
            return await conn.fetchtuples(
                "SELECT id, game_id, debtor_id, creditor_id, amount_cents, winner_id, margin "
                f"FROM ledger l WHERE guild_id = ? AND kind = 'game' AND created_at >= ? {end} "
                f"{after} AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = l.id) "
                "ORDER BY id", [*args, *([after_id] if after_id else [])])

    async def game_lines_until(self, guild_id: int, starts_at: float, ends_at: float | None,
                               last_id: int) -> int:
        """How many game lines of the season have a ledger id up to ``last_id`` (a table kept
        since it saw ``last_id`` has seen them all only if none committed later)."""
        end = "" if ends_at is None else "AND created_at < ?"
        args: list[Any] = [guild_id, starts_at] + ([] if ends_at is None else [ends_at])
        async with self._db.connection() as conn:
            return int(await conn.fetchval(
                "SELECT COUNT(*) FROM ledger WHERE guild_id = ? AND kind = 'game' AND "
                f"created_at >= ? {end} AND id <= ?", [*args, last_id]) or 0)

    async def game_lines_mark(self, guild_id: int, starts_at: float, ends_at: float | None
                              ) -> tuple[int, int, int]:
        """What changes whenever a season's table may: its game lines' count and last id,
        and the server's voids (the ledger is append-only); read from the index alone."""
        end = "" if ends_at is None else "AND created_at < ?"
        args: list[Any] = [guild_id, starts_at] + ([] if ends_at is None else [ends_at])
        async with self._db.connection() as conn:
            row = await conn.fetchone(
                "SELECT COUNT(*), MAX(id) FROM ledger WHERE guild_id = ? AND kind = 'game' AND "
                f"created_at >= ? {end}", args)
            voids = await conn.fetchval(
                "SELECT COUNT(*) FROM ledger WHERE guild_id = ? AND kind = 'void'", (guild_id,))
        assert row is not None
        return int(row[0]), int(row[1] or 0), int(voids or 0)

    async def calendar_missing(self, guild_ids: Sequence[int] | None = None
                               ) -> list[tuple[int, str]]:
        """(server, monthly or quarterly) of the servers with calendar seasons and no open
        season (of ``guild_ids`` only, if given)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT guild_id, season_mode FROM guild_settings g WHERE season_mode IN "
                "('monthly', 'quarterly') AND NOT EXISTS (SELECT 1 FROM seasons s WHERE "
                "s.guild_id = g.guild_id AND s.state = 'open')")
        wanted = None if guild_ids is None else set(guild_ids)
        return [(int(r["guild_id"]), str(r["season_mode"])) for r in rows
                if wanted is None or int(r["guild_id"]) in wanted]

    async def due(self, now: float, stale_before: float) -> list[SeasonRow]:
        """Seasons whose end has come and not been taken, and seasons taken before
        ``stale_before`` and never marked posted (the process that took them stopped)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM seasons WHERE (state = 'open' AND ends_at <= ?) OR "
                "(state = 'claimed' AND claimed_at < ?) ORDER BY ends_at, id",
                (now, stale_before))
        return [_season(r) for r in rows]

    async def finish(self, season_id: int, ends_at: float, places: Sequence[SeasonPlace],
                     channel_id: int | None) -> SeasonRow | None:
        """Take an open season: end it at ``ends_at`` and save its final table, in one
        transaction. ``None`` if it was no longer open (another process or command took it)."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "UPDATE seasons SET state = 'claimed', claimed_at = ?, ends_at = ?, "
                "channel_id = ? WHERE id = ? AND state = 'open' RETURNING *",
                (self.clock(), ends_at, channel_id, season_id))
            if row is None:
                return None
            await conn.executemany(
                f"INSERT INTO season_places (season_id, {_PLACE_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(season_id, p.place, p.user_id, p.points, p.games, p.wins, p.losses,
                  p.ties, p.net_cents, p.best_streak) for p in places])
        return _season(row)

    async def retake(self, season_id: int, stale_before: float) -> SeasonRow | None:
        """Take again a season claimed before ``stale_before`` and never marked posted."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "UPDATE seasons SET claimed_at = ? WHERE id = ? AND state = 'claimed' AND "
                "claimed_at < ? RETURNING *", (self.clock(), season_id, stale_before))
        return None if row is None else _season(row)

    async def release(self, season_id: int) -> None:
        """Let the next round take a claimed season again at once (its post failed)."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE seasons SET claimed_at = 0 WHERE id = ? AND "
                               "state = 'claimed'", (season_id,))

    async def mark(self, season_id: int, state: str, message_id: int | None) -> None:
        """A claimed season was posted (``message_id``) or had nothing to post (quiet)."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE seasons SET state = ?, message_id = ? WHERE id = ? "
                               "AND state = 'claimed'", (state, message_id, season_id))

    async def places(self, season_id: int) -> list[SeasonPlace]:
        """A finished season's final table, ranked players first."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT {_PLACE_COLUMNS} FROM season_places WHERE season_id = ? "
                "ORDER BY place IS NULL, place, points DESC, user_id", (season_id,))
        return [_place(r) for r in rows]

    async def player_seasons(self, guild_id: int, user_id: int, limit: int = 5
                             ) -> list[tuple[SeasonRow, SeasonPlace]]:
        """The finished seasons the player played in, newest first, with his line."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT s.*, {', '.join('p.' + c for c in _PLACE_COLUMNS.split(', '))} "
                "FROM season_places p JOIN seasons s ON s.id = p.season_id "
                "WHERE p.user_id = ? AND s.guild_id = ? ORDER BY s.starts_at DESC LIMIT ?",
                (user_id, guild_id, limit))
        return [(_season(r), _place(r)) for r in rows]
