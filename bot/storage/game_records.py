"""Games: the row of each game (terms, snapshot, version, board and thread), and its moves.

A game is saved as appended moves with a snapshot now and then: ``games.state`` is the match
state at ``games.state_version`` and the ``moves`` table holds every move, so the game at its
``version`` is the snapshot plus the moves after it (``GameRow.later_moves``), replayed by the
caller with the engine. Saving a move writes one small row and a few columns, whatever the
length of the game; the caller decides when a new snapshot is worth writing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..shards import ShardSet
from .base import Records
from .interface import Conn, Write
from .ledger_records import insert_game_entries
from .rows import DEFAULT_SETTINGS, GameEntry, GameRow, StorageError, game_row
from .schema import table as declared_table

__all__ = ["PLAYS_IN", "SEAT_COLUMNS", "GameRecords", "insert_game", "owned"]

SEAT_COLUMNS = tuple(c.name for c in declared_table("games").columns
                     if c.name.startswith("player") and c.name.endswith("_id"))
"""A game row's seat columns (``player0_id``…), one a player, in seat order."""

PLAYS_IN = f"? IN ({', '.join(SEAT_COLUMNS)})"
"""The condition "the user (the parameter) has a seat in the game" (a NULL seat is nobody's)."""

def owned(shards: ShardSet | None) -> str:
    """The SQL condition of the rows of the ``shards``' servers (every row for ``None``)."""
    return "1 = 1" if shards is None else shards.sql()


async def insert_game(
    conn: Conn,
    now: float,
    guild_id: int,
    channel_id: int,
    players: tuple[int, ...],
    names: tuple[str, ...],
    rules: dict[str, Any],
    state: dict[str, Any],
    vs_computer: bool,
    stakes: tuple[int, int, str] = (0, 0, "$"),
    computer_level: str = "normal",
) -> int:
    """Insert a game row (inside the caller's transaction); its id."""
    # The reminder and claim times are the server's as the game starts; later changes of the
    # settings don't touch a game already going.
    # How many players a game may have is the engine's to say, checked once where a game is
    # made; the row's own limit is its seat columns, and a player past them would be lost.
    if len(players) > len(SEAT_COLUMNS) or len(names) != len(players):
        raise ValueError(f"a game row has {len(SEAT_COLUMNS)} seats, each player a name: "
                         f"not {players} named {names}")
    seats = (*players, *[None] * (len(SEAT_COLUMNS) - len(players)))
    game_id = await conn.fetchval(
        "INSERT INTO games (guild_id, channel_id, player0_id, player1_id, player2_id, "
        "player3_id, names, vs_computer, "
        "rules, state, created_at, updated_at, turn_started_at, stake_cents, per_card_cents, "
        "currency, computer_level, reminder_s, claim_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?, ?, ?, "
        "COALESCE((SELECT reminder_s FROM guild_settings WHERE guild_id = ?), ?), "
        "COALESCE((SELECT claim_s FROM guild_settings WHERE guild_id = ?), ?)) RETURNING id",
        (guild_id, channel_id, *seats, json.dumps(list(names)),
         int(vs_computer), json.dumps(rules), json.dumps(state), now, now, now, *stakes,
         computer_level, guild_id, DEFAULT_SETTINGS.reminder_s, guild_id,
         DEFAULT_SETTINGS.claim_s),
    )
    return int(game_id)


class GameRecords(Records):
    """``games`` and ``moves``."""

    @property
    def _game_columns(self) -> str:
        return f"games.*, {self._db.later_moves_sql} AS later_moves"

    async def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        players: tuple[int, ...],
        names: tuple[str, ...],
        rules: dict[str, Any],
        state: dict[str, Any],
        vs_computer: bool = False,
        computer_level: str = "normal",
    ) -> int:
        """Create a game directly (a game against the computer needs no challenge)."""
        async with self._db.transaction() as conn:
            return await insert_game(conn, self.clock(), guild_id, channel_id, players, names,
                                     rules, state, vs_computer, computer_level=computer_level)

    async def get_game(self, game_id: int) -> GameRow | None:
        """One game (its snapshot and the moves after it), or ``None``; raises
        ``StorageError`` if its row is damaged."""
        async with self._db.connection() as conn:
            row = await conn.fetchone(f"SELECT {self._game_columns} FROM games WHERE id = ?",
                                      (game_id,))
        return None if row is None else game_row(row)

    async def save_moves(
        self,
        game_id: int,
        *,
        expected_version: int,
        state: dict[str, Any] | None,
        moves: Sequence[tuple[int, int | None, str]],
        finished: bool,
        result: dict[str, Any] | None,
        turn_passed: bool,
        entries: Sequence[GameEntry] = (),
        entry: GameEntry | None = None,
    ) -> bool:
        """Append a game's moves and, if ``state`` is given, a new snapshot, in one transaction.

        ``moves`` are (seat, user id, notation). ``state`` is the match after these moves, or
        ``None`` to append the moves alone (the game is then the last snapshot plus the moves
        after it); a finished game must come with its final state, which history and replays
        read. The save succeeds only if the stored version is still ``expected_version`` (so a
        move is never applied twice, by any process); it returns False otherwise. A finished
        game's ledger ``entries`` (one per loser) are written in the same transaction (at most
        one per game and debtor: the database refuses a second); ``entry`` is one more.
        """
        if entry is not None:
            entries = [*entries, entry]
        if finished and state is None:
            raise ValueError("a finished game is saved with its final state")
        now = self.clock()
        new_version = expected_version + len(moves)
        # Only the columns that change are set: setting ``status`` (indexed) at every move
        # would rewrite an index page each time, even to the same value.
        sets = ["version = ?", "updated_at = ?"]
        args: list[Any] = [new_version, now]
        if turn_passed:
            sets += ["turn_started_at = ?", "reminded_at = NULL", "claim_offered_at = NULL"]
            args.append(now)
        if state is not None:
            sets += ["state = ?", "state_version = ?"]
            args += [json.dumps(state), new_version]
        if finished:
            sets += ["status = 'finished'", "result = ?"]
            args.append(json.dumps(result) if result is not None else None)
        update = Write(f"UPDATE games SET {', '.join(sets)} WHERE id = ? AND version = ?",
                       (*args, game_id, expected_version), must_change=1)
        insert = Write("INSERT INTO moves (game_id, seq, seat, user_id, move, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       [(game_id, expected_version + i + 1, seat, user, text, now)
                        for i, (seat, user, text) in enumerate(moves)], many=True)
        if not entries:  # every save but the last of a match between people (its ledger lines)
            return await self._db.write([update, insert])
        async with self._db.transaction() as conn:
            await conn.lock_ledger(entries[0].guild_id)
            if await conn.execute(update.sql, update.args) != 1:
                return False  # nothing was written: the transaction commits nothing
            await conn.executemany(insert.sql, insert.args)
            await insert_game_entries(conn, entries, now)
            return True

    async def move_log(self, game_id: int) -> list[tuple[int, int, int | None, str]]:
        """The game's saved moves: (seq, seat, user id, notation), in order."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT seq, seat, user_id, move FROM moves WHERE game_id = ? ORDER BY seq",
                (game_id,))
        return [(int(r["seq"]), int(r["seat"]), r["user_id"], str(r["move"])) for r in rows]

    async def set_board(self, game_id: int, message_id: int, turn: int, version: int) -> None:
        """Remember the public board message, the turn it belongs to and the game version it
        shows."""
        await self._update("UPDATE games SET board_message_id = ?, board_turn = ?, "
                           "board_version = ? WHERE id = ?", (message_id, turn, version, game_id))

    async def set_board_version(self, game_id: int, version: int) -> None:
        """Note that the board message now shows ``version`` of the game."""
        await self._update(
            "UPDATE games SET board_version = ? WHERE id = ? AND "
            "(board_version IS NULL OR board_version < ?)", (version, game_id, version))

    async def boards_behind(self, shards: ShardSet | None = None) -> list[int]:
        """Games whose public board doesn't show their saved version: every active one, and
        finished ones whose final board was never drawn (e.g. a crash right after the last
        move)."""
        return await self._game_ids("(board_version IS NULL OR board_version < version)", shards)

    async def last_move(self, game_id: int) -> str | None:
        """The notation of the game's latest saved move (``claim`` for a claimed game)."""
        async with self._db.connection() as conn:
            move = await conn.fetchval(
                "SELECT move FROM moves WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,))
        return None if move is None else str(move)

    async def set_thread(self, game_id: int, thread_id: int) -> None:
        """Remember the game's own thread."""
        await self._update("UPDATE games SET thread_id = ? WHERE id = ?", (thread_id, game_id))

    async def set_result_message(self, game_id: int, message_id: int) -> None:
        """Remember the message that announced the game's result."""
        await self._update("UPDATE games SET result_message_id = ? WHERE id = ?",
                           (message_id, game_id))

    async def results_unannounced(self, shards: ShardSet | None = None) -> list[int]:
        """Finished games whose result was never announced (e.g. a crash right after)."""
        return await self._game_ids("status = 'finished' AND result_message_id IS NULL", shards)

    async def set_claim_offered(self, game_id: int, when: float) -> None:
        """Note that the opponent was offered a claim of the current turn."""
        await self._update("UPDATE games SET claim_offered_at = ? WHERE id = ?", (when, game_id))

    async def set_reminded(self, game_id: int, when: float) -> None:
        """Note that the player on turn was reminded."""
        await self._update("UPDATE games SET reminded_at = ? WHERE id = ?", (when, game_id))

    async def active_game_ids(self, shards: ShardSet | None = None) -> list[int]:
        """Ids of all games still going on (in the ``shards``' servers)."""
        return await self._game_ids("status = 'active'", shards)

    async def game_ids(self) -> list[int]:
        """Every game's id, finished or not."""
        return await self._game_ids("1 = 1", None)

    async def _update(self, sql: str, args: Sequence[Any]) -> None:
        # A write, so that on SQLite it joins the moves' group commits.
        await self._db.write([Write(sql, args)])

    async def _game_ids(self, where: str, shards: ShardSet | None) -> list[int]:
        # ``where`` is one of this module's own conditions, never user input.
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT id FROM games WHERE {where} AND {owned(shards)} ORDER BY id")
        return [int(r["id"]) for r in rows]

    async def user_games(
        self, user_id: int, *, guild_id: int | None = None, channel_id: int | None = None,
        active_only: bool = True,
    ) -> list[GameRow]:
        """The games a user plays in, newest first; damaged rows are skipped."""
        sql = f"SELECT {self._game_columns} FROM games WHERE {PLAYS_IN}"
        args: list[Any] = [user_id]
        if active_only:
            sql += " AND status = 'active'"
        if guild_id is not None:
            sql += " AND guild_id = ?"
            args.append(guild_id)
        if channel_id is not None:  # the channel a game was challenged in, or its thread
            sql += " AND (channel_id = ? OR thread_id = ?)"
            args.extend((channel_id, channel_id))
        sql += " ORDER BY id DESC"
        async with self._db.connection() as conn:
            rows = await conn.fetchall(sql, args)
        out = []
        for row in rows:
            try:
                out.append(game_row(row))
            except StorageError:
                continue
        return out

    async def finished_games(
        self, guild_id: int, user_id: int, *, offset: int = 0, limit: int = 10,
    ) -> tuple[list[tuple[GameRow, str | None, bool]], int]:
        """A page of the user's finished games in the server, the latest finished first, each
        with the last entry of its move log (``claim`` tells a game lost on time from a
        resignation) and whether its ledger line was voided, and how many there are in all.
        Damaged rows are skipped."""
        where = f"FROM games WHERE guild_id = ? AND status = 'finished' AND {PLAYS_IN}"
        args = (guild_id, user_id)
        async with self._db.connection() as conn:
            total = int(await conn.fetchval(f"SELECT COUNT(*) {where}", args) or 0)
            rows = await conn.fetchall(
                f"SELECT {self._game_columns}, (SELECT move FROM moves m "
                f"WHERE m.game_id = games.id ORDER BY seq DESC LIMIT 1) AS last_move, "
                "EXISTS (SELECT 1 FROM ledger g JOIN ledger v ON v.voids_id = g.id "
                f"WHERE g.game_id = games.id AND g.kind = 'game') AS voided {where} "
                "ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
                (*args, max(0, limit), max(0, offset)),
            )
        out = []
        for r in rows:
            try:
                out.append((game_row(r), r["last_move"], bool(r["voided"])))
            except StorageError:
                continue
        return out, total
