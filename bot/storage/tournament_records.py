"""Tournaments: the tournament, its entrants, the games of its tables and its events.

What a tournament is comes from its entrants and its events in the order they happened (the
pure core in ``bot.tournaments`` replays them); the records only keep them, and every write
that must happen once is a compare-and-set or a unique key:

- a tournament moves out of ``open`` once (started or cancelled), out of ``running`` once;
- an entrant signs up once (a unique index), only while it is open and not full;
- a table's game is made once per (tournament, round, table, attempt): the game's row and its
  link are written in one transaction, and the key refuses a second (a round is never
  started twice, whatever crashed in between);
- a game's result is an event once (a unique index on the event's game).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..shards import ShardSet
from .base import Records
from .game_records import insert_game, owned
from .interface import Conn, Row
from .ledger_records import insert_pot_lines

__all__ = ["EntrantRow", "EventRow", "TableGameRow", "TournamentRecords", "TournamentRow"]


@dataclass(frozen=True, slots=True)
class EntrantRow:
    """A player signed up (``rating``: his rating when the tournament started; 0 before)."""

    user_id: int
    name: str
    rating: float


@dataclass(frozen=True, slots=True)
class EventRow:
    """An event in order: ``played`` (a table's ``places``, from ``game_id`` or none) or
    ``withdrawal`` (``player_id``)."""

    seq: int
    kind: str
    round: int | None
    table_no: int | None
    places: tuple[int, ...] | None
    player_id: int | None
    game_id: int | None


@dataclass(frozen=True, slots=True)
class TableGameRow:
    """The game of a table of a round (``attempt``: 0, then 1 after a drawn knockout game)."""

    round: int
    table_no: int
    attempt: int
    game_id: int
    created_at: float
    posted: bool


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament as saved, with its entrants in sign-up order."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    board_message_id: int | None
    result_message_id: int | None
    organiser_id: int
    name: str
    rules: dict[str, Any]
    format: str
    seats: int
    stake_cents: int
    buy_in_cents: int
    currency: str
    allow_computer: bool
    deadline_s: int
    start_at: float | None
    status: str
    created_at: float
    board_events: int
    entrants: tuple[EntrantRow, ...]

    def entrant(self, user_id: int) -> EntrantRow | None:
        """The user's entry, or ``None``."""
        return next((e for e in self.entrants if e.user_id == user_id), None)


def _row(row: Row, entrants: Sequence[Row]) -> TournamentRow:
    return TournamentRow(
        id=int(row["id"]), guild_id=int(row["guild_id"]), channel_id=int(row["channel_id"]),
        message_id=_opt(row["message_id"]), board_message_id=_opt(row["board_message_id"]),
        result_message_id=_opt(row["result_message_id"]), organiser_id=int(row["organiser_id"]),
        name=str(row["name"]), rules=json.loads(row["rules"]), format=str(row["format"]),
        seats=int(row["seats"]), stake_cents=int(row["stake_cents"]),
        buy_in_cents=int(row["buy_in_cents"]), currency=str(row["currency"]),
        allow_computer=bool(row["allow_computer"]), deadline_s=int(row["deadline_s"]),
        start_at=None if row["start_at"] is None else float(row["start_at"]),
        status=str(row["status"]), created_at=float(row["created_at"]),
        board_events=int(row["board_events"]),
        entrants=tuple(EntrantRow(int(e["user_id"]), str(e["name"]), float(e["rating"]))
                       for e in entrants))


def _opt(value: Any) -> int | None:
    return None if value is None else int(value)


async def _read(conn: Conn, tournament_id: int) -> TournamentRow | None:
    row = await conn.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
    if row is None:
        return None
    entrants = await conn.fetchall(
        "SELECT * FROM tournament_entrants WHERE tournament_id = ? ORDER BY position",
        (tournament_id,))
    return _row(row, entrants)


class TournamentRecords(Records):
    """``tournaments``, ``tournament_entrants``, ``tournament_games``, ``tournament_events``."""

    async def create(
        self, *, guild_id: int, channel_id: int, organiser_id: int, name: str,
        rules: dict[str, Any], format_name: str, seats: int, stake_cents: int,
        buy_in_cents: int, currency: str, allow_computer: bool, deadline_s: int,
        start_at: float | None,
    ) -> TournamentRow:
        """A new tournament, open for sign-up."""
        async with self._db.transaction() as conn:
            new_id = await conn.fetchval(
                "INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, rules, "
                "format, seats, stake_cents, buy_in_cents, currency, allow_computer, "
                "deadline_s, start_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?) RETURNING id",
                (guild_id, channel_id, organiser_id, name, json.dumps(rules), format_name,
                 seats, stake_cents, buy_in_cents, currency, int(allow_computer), deadline_s,
                 start_at, self.clock()))
            made = await _read(conn, int(new_id))
        assert made is not None
        return made

    async def get(self, tournament_id: int) -> TournamentRow | None:
        """One tournament with its entrants, or ``None``."""
        async with self._db.connection() as conn:
            return await _read(conn, tournament_id)

    async def in_status(self, statuses: Sequence[str], shards: ShardSet | None = None,
                        guild_id: int | None = None, newest: int | None = None
                        ) -> list[TournamentRow]:
        """The tournaments in one of ``statuses`` (of the ``shards``' servers, or one
        server), oldest first; with ``newest``, that many of the newest, newest first."""
        marks = ", ".join("?" for _ in statuses)
        sql = f"SELECT id FROM tournaments WHERE status IN ({marks}) AND {owned(shards)}"
        args: list[Any] = list(statuses)
        if guild_id is not None:
            sql += " AND guild_id = ?"
            args.append(guild_id)
        async with self._db.connection() as conn:
            if newest is not None:
                sql += " ORDER BY id DESC LIMIT ?"
                args.append(newest)
            else:
                sql += " ORDER BY id"
            ids = [int(r["id"]) for r in await conn.fetchall(sql, args)]
            out = [await _read(conn, i) for i in ids]
        return [t for t in out if t is not None]

    async def set_message(self, tournament_id: int, column: str, message_id: int) -> None:
        """Remember a message: ``message_id`` (sign-up), ``board_message_id`` (bracket or
        standings), ``result_message_id`` (the final result, posted once)."""
        if column not in ("message_id", "board_message_id", "result_message_id"):
            raise ValueError(column)
        async with self._db.connection() as conn:
            await conn.execute(f"UPDATE tournaments SET {column} = ? WHERE id = ?",
                               (message_id, tournament_id))

    async def set_board_events(self, tournament_id: int, events: int) -> None:
        """The bracket picture shows the tournament after ``events`` events."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE tournaments SET board_events = ? WHERE id = ?",
                               (events, tournament_id))

    # ------------------------------------------------------------------ sign-up

    async def join(self, tournament_id: int, user_id: int, name: str, most: int) -> str:
        """Sign up: ``'joined'``, or why not (``'joined already'``, ``'full'``, ``'closed'``).
        Counted and written in one transaction: of two people taking the last place at once,
        one gets it."""
        async with self._db.transaction() as conn:
            status = await conn.fetchval(
                "UPDATE tournaments SET status = status WHERE id = ? RETURNING status",
                (tournament_id,))  # takes the row's lock on PostgreSQL
            if status != "open":
                return "closed"
            if await conn.fetchone("SELECT 1 FROM tournament_entrants WHERE tournament_id = ? "
                                   "AND user_id = ?", (tournament_id, user_id)):
                return "joined already"
            count = int(await conn.fetchval(
                "SELECT COUNT(*) FROM tournament_entrants WHERE tournament_id = ?",
                (tournament_id,)) or 0)
            if count >= most:
                return "full"
            await conn.execute(
                "INSERT INTO tournament_entrants (tournament_id, position, user_id, name, "
                "rating) SELECT ?, COALESCE(MAX(position), -1) + 1, ?, ?, 0 FROM "
                "tournament_entrants WHERE tournament_id = ?",
                (tournament_id, user_id, name, tournament_id))
        return "joined"

    async def leave(self, tournament_id: int, user_id: int) -> bool:
        """Take back a sign-up while the tournament is open; False if he had none or it is no
        longer open."""
        async with self._db.transaction() as conn:
            changed = await conn.execute(
                "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ? AND "
                "EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status = 'open')",
                (tournament_id, user_id, tournament_id))
        return changed == 1

    async def start(self, tournament_id: int, ratings: dict[int, float]) -> bool:
        """Close the sign-up and fix each entrant's rating for the seeding; False if it was
        no longer open (started or cancelled by someone else first)."""
        async with self._db.transaction() as conn:
            if await conn.execute("UPDATE tournaments SET status = 'running' WHERE id = ? AND "
                                  "status = 'open'", (tournament_id,)) != 1:
                return False
            await conn.executemany(
                "UPDATE tournament_entrants SET rating = ? WHERE tournament_id = ? AND "
                "user_id = ?", [(r, tournament_id, u) for u, r in ratings.items()])
        return True

    async def settle(self, tournament_id: int, old: Sequence[str], new: str) -> bool:
        """Move the tournament from one of ``old`` to ``new`` (cancelled, finished); False if
        it was in none of them (done already)."""
        marks = ", ".join("?" for _ in old)
        async with self._db.connection() as conn:
            changed = await conn.execute(
                f"UPDATE tournaments SET status = ? WHERE id = ? AND status IN ({marks})",
                (new, tournament_id, *old))
        return changed == 1

    # ------------------------------------------------------------------ games and events

    async def table_games(self, tournament_id: int) -> list[TableGameRow]:
        """Every game of the tournament's tables, in the order they were made."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM tournament_games WHERE tournament_id = ? "
                "ORDER BY round, table_no, attempt", (tournament_id,))
        return [TableGameRow(int(r["round"]), int(r["table_no"]), int(r["attempt"]),
                             int(r["game_id"]), float(r["created_at"]), bool(r["posted"]))
                for r in rows]

    async def tournament_of_game(self, game_id: int) -> int | None:
        """The tournament a game was played for, or ``None``."""
        async with self._db.connection() as conn:
            value = await conn.fetchval(
                "SELECT tournament_id FROM tournament_games WHERE game_id = ?", (game_id,))
        return None if value is None else int(value)

    async def start_table(
        self, tournament_id: int, round_number: int, table_no: int, attempt: int, *,
        guild_id: int, channel_id: int, players: tuple[int, ...], names: tuple[str, ...],
        rules: dict[str, Any], state: dict[str, Any], vs_computer: bool,
        stakes: tuple[int, int, str], computer_level: str,
    ) -> int | None:
        """Make a table's game and its link in one transaction; the game's id, or ``None``
        when that table's game was made already (or the tournament isn't running)."""
        async with self._db.transaction() as conn:
            if await conn.fetchval("SELECT status FROM tournaments WHERE id = ?",
                                   (tournament_id,)) != "running":
                return None
            if await conn.fetchone(
                    "SELECT 1 FROM tournament_games WHERE tournament_id = ? AND round = ? AND "
                    "table_no = ? AND attempt = ?",
                    (tournament_id, round_number, table_no, attempt)):
                return None
            game_id = await insert_game(conn, self.clock(), guild_id, channel_id, players,
                                        names, rules, state, vs_computer, stakes,
                                        computer_level)
            # The key refuses a second link made at the same moment (PostgreSQL): the whole
            # transaction, the game with it, is rolled back.
            await conn.execute(
                "INSERT INTO tournament_games (tournament_id, round, table_no, attempt, "
                "game_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, round_number, table_no, attempt, game_id, self.clock()))
        return game_id

    async def set_posted(self, game_id: int) -> None:
        """The table's game was announced (its thread opened, its players pinged)."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE tournament_games SET posted = 1 WHERE game_id = ?",
                               (game_id,))

    async def events(self, tournament_id: int) -> list[EventRow]:
        """The tournament's events in the order they happened."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM tournament_events WHERE tournament_id = ? ORDER BY seq",
                (tournament_id,))
        return [EventRow(int(r["seq"]), str(r["kind"]), _opt(r["round"]), _opt(r["table_no"]),
                         None if r["places"] is None else tuple(json.loads(r["places"])),
                         _opt(r["player_id"]), _opt(r["game_id"])) for r in rows]

    async def add_event(self, tournament_id: int, *, kind: str, seq: int,
                        round_number: int | None = None, table_no: int | None = None,
                        places: Sequence[int] | None = None, player_id: int | None = None,
                        game_id: int | None = None) -> bool:
        """Append an event as number ``seq`` (the count of events the caller replayed): False
        when another event took that number, or the game's result is an event already, so an
        event decided on a stale view is never written."""
        async with self._db.transaction() as conn:
            if await conn.fetchone(
                    "SELECT 1 FROM tournament_events WHERE tournament_id = ? AND "
                    "(seq >= ? OR (game_id IS NOT NULL AND game_id = ?))",
                    (tournament_id, seq, game_id if game_id is not None else -1)):
                return False
            await conn.execute(
                "INSERT INTO tournament_events (tournament_id, seq, kind, round, table_no, "
                "places, player_id, game_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, seq, kind, round_number, table_no,
                 None if places is None else json.dumps(list(places)), player_id, game_id,
                 self.clock()))
        return True

    async def finish(self, tournament_id: int, guild_id: int,
                     pot: Sequence[tuple[int, int, int]], note: str) -> bool:
        """Running to finished, with the pot's ledger lines (``(debtor, creditor, cents)``)
        in the same transaction: paid once. False if it was no longer running."""
        async with self._db.transaction() as conn:
            if await conn.execute("UPDATE tournaments SET status = 'finished' WHERE id = ? AND "
                                  "status = 'running'", (tournament_id,)) != 1:
                return False
            await insert_pot_lines(conn, guild_id, pot, note, self.clock())
        return True

    async def pot_lines(self, guild_id: int, note: str) -> list[tuple[int, int, int]]:
        """The pot's lines of a tournament (by its note), ``(debtor, creditor, cents)``."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT debtor_id, creditor_id, amount_cents FROM ledger WHERE guild_id = ? "
                "AND kind = 'pot' AND note = ? ORDER BY id", (guild_id, note))
        return [(int(r["debtor_id"]), int(r["creditor_id"]), int(r["amount_cents"]))
                for r in rows]
