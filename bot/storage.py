"""All SQL of the bot, in one place: SQLite through aiosqlite, numbered migrations, WAL mode.

The interface is kept small on purpose (a PostgreSQL backend will implement the same methods):
rows come back as frozen dataclasses, and every write that must not be applied twice is a
compare-and-set (a challenge moves out of ``open`` once; a game's ``version`` goes up by exactly
one per saved move, in the same transaction as the move's log entry).
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import aiosqlite

__all__ = [
    "ChallengeRow",
    "GameRow",
    "GuildSettings",
    "Storage",
    "StorageError",
]


class StorageError(RuntimeError):
    """A row that can't be read back (damaged data) or a database that can't be opened."""


MIGRATIONS: tuple[str, ...] = (
    # 1: settings, challenges, games and their move log.
    """
    CREATE TABLE guild_settings (
        guild_id            INTEGER PRIMARY KEY,
        default_rules       TEXT    NOT NULL DEFAULT 'kings',
        refill_empty_hand   INTEGER NOT NULL DEFAULT 1,
        king_starts_stack   INTEGER NOT NULL DEFAULT 1,
        challenge_expiry_s  INTEGER NOT NULL DEFAULT 900,
        reminder_s          INTEGER NOT NULL DEFAULT 43200,
        claim_s             INTEGER NOT NULL DEFAULT 259200
    );
    CREATE TABLE challenges (
        id             INTEGER PRIMARY KEY,
        guild_id       INTEGER NOT NULL,
        channel_id     INTEGER NOT NULL,
        message_id     INTEGER,
        challenger_id  INTEGER NOT NULL,
        opponent_id    INTEGER NOT NULL,
        names          TEXT    NOT NULL DEFAULT '["Player 1", "Player 2"]',
        rules          TEXT    NOT NULL,
        status         TEXT    NOT NULL DEFAULT 'open'
                       CHECK (status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')),
        created_at     REAL    NOT NULL,
        expires_at     REAL    NOT NULL,
        game_id        INTEGER
    );
    CREATE INDEX challenges_open ON challenges (status, expires_at);
    CREATE TABLE games (
        id               INTEGER PRIMARY KEY,
        guild_id         INTEGER NOT NULL,
        channel_id       INTEGER NOT NULL,
        player0_id       INTEGER NOT NULL,
        player1_id       INTEGER NOT NULL,
        names            TEXT    NOT NULL DEFAULT '["Player 1", "Player 2"]',
        vs_computer      INTEGER NOT NULL DEFAULT 0,
        rules            TEXT    NOT NULL,
        state            TEXT    NOT NULL,
        version          INTEGER NOT NULL DEFAULT 0,
        status           TEXT    NOT NULL DEFAULT 'active'
                         CHECK (status IN ('active', 'finished')),
        board_message_id INTEGER,
        board_turn       INTEGER,
        created_at       REAL    NOT NULL,
        updated_at       REAL    NOT NULL,
        turn_started_at  REAL    NOT NULL,
        reminded_at      REAL,
        result           TEXT
    );
    CREATE INDEX games_active ON games (status, channel_id);
    CREATE TABLE moves (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        user_id     INTEGER,
        move        TEXT    NOT NULL,
        created_at  REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    """,
)


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's settings; a game keeps the settings it started with."""

    guild_id: int
    default_rules: str = "kings"
    refill_empty_hand: bool = True
    king_starts_stack: bool = True
    challenge_expiry_s: int = 900
    reminder_s: int = 43_200
    claim_s: int = 259_200


SETTING_COLUMNS = (
    "default_rules",
    "refill_empty_hand",
    "king_starts_stack",
    "challenge_expiry_s",
    "reminder_s",
    "claim_s",
)


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """An open or settled challenge."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    names: tuple[str, str]
    rules: dict[str, Any]
    status: str
    created_at: float
    expires_at: float
    game_id: int | None


@dataclass(frozen=True, slots=True)
class GameRow:
    """A game (in fact a match of one or more games) between two seats."""

    id: int
    guild_id: int
    channel_id: int
    players: tuple[int, int]
    names: tuple[str, str]
    vs_computer: bool
    rules: dict[str, Any]
    state: dict[str, Any]
    version: int
    status: str
    board_message_id: int | None
    board_turn: int | None
    created_at: float
    updated_at: float
    turn_started_at: float
    reminded_at: float | None
    result: dict[str, Any] | None


def _loads(text: str | None, what: str) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"The saved {what} is damaged.") from exc


P = ParamSpec("P")
R = TypeVar("R")


def _serialised(
    method: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    # One connection is shared by every coroutine; without this lock a statement of one
    # coroutine could land inside another's open transaction (and be rolled back with it).
    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        self = args[0]
        async with self._lock:  # type: ignore[attr-defined]
            return await method(*args, **kwargs)

    return wrapper


class Storage:
    """The bot's database. Open with ``await Storage.open(path)``; close with ``close()``."""

    def __init__(self, db: aiosqlite.Connection, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._lock = asyncio.Lock()
        self.clock = clock
        """Where timestamps come from (tests pass a fake clock)."""

    @classmethod
    async def open(cls, path: str | Path, clock: Callable[[], float] = time.time) -> Storage:
        """Open (creating if needed) the SQLite database at ``path`` and migrate it."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA busy_timeout=5000")
        storage = cls(db, clock)
        try:
            await storage._migrate()
        except BaseException:
            await db.close()
            raise
        return storage

    @_serialised
    async def close(self) -> None:
        """Close the connection."""
        await self._db.close()

    async def _migrate(self) -> None:
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        if current > len(MIGRATIONS):
            raise StorageError(
                f"The database is at schema version {current}, newer than this bot knows "
                f"({len(MIGRATIONS)}). Update the bot."
            )
        for number in range(current + 1, len(MIGRATIONS) + 1):
            script = MIGRATIONS[number - 1]
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _statements(script):
                    await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version = {number}")
                await self._db.execute("COMMIT")
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise

    @_serialised
    async def schema_version(self) -> int:
        """The migration number the database is at."""
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------------ settings

    @_serialised
    async def get_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (defaults if it never changed any)."""
        return await self._settings(guild_id)

    async def _settings(self, guild_id: int) -> GuildSettings:
        async with self._db.execute(
            "SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(
            guild_id=row["guild_id"],
            default_rules=row["default_rules"],
            refill_empty_hand=bool(row["refill_empty_hand"]),
            king_starts_stack=bool(row["king_starts_stack"]),
            challenge_expiry_s=int(row["challenge_expiry_s"]),
            reminder_s=int(row["reminder_s"]),
            claim_s=int(row["claim_s"]),
        )

    @_serialised
    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change some of a server's settings and return them all."""
        unknown = set(changes) - set(SETTING_COLUMNS)
        if unknown:
            raise ValueError(f"Unknown settings: {sorted(unknown)}")
        await self._db.execute(
            "INSERT INTO guild_settings (guild_id) VALUES (?) ON CONFLICT DO NOTHING", (guild_id,)
        )
        if changes:
            assignments = ", ".join(f"{column} = ?" for column in changes)
            await self._db.execute(
                f"UPDATE guild_settings SET {assignments} WHERE guild_id = ?",
                (*changes.values(), guild_id),
            )
        return await self._settings(guild_id)

    # ------------------------------------------------------------------ challenges

    @_serialised
    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        names: tuple[str, str],
        rules: dict[str, Any],
        expires_at: float,
    ) -> ChallengeRow:
        """Record a new open challenge (``names``: challenger's and opponent's)."""
        now = self.clock()
        async with self._db.execute(
            "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, names, "
            "rules, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (guild_id, channel_id, challenger_id, opponent_id, json.dumps(list(names)),
             json.dumps(rules), now, expires_at),
        ) as cur:
            challenge_id = cur.lastrowid
        assert challenge_id is not None
        async with self._db.execute("SELECT * FROM challenges WHERE id = ?", (challenge_id,)) as c:
            row = await c.fetchone()
        assert row is not None
        return _challenge(row)

    @_serialised
    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the public message that shows the challenge."""
        await self._db.execute(
            "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
        )

    @_serialised
    async def get_challenge(self, challenge_id: int) -> ChallengeRow | None:
        """One challenge, or ``None``."""
        async with self._db.execute(
            "SELECT * FROM challenges WHERE id = ?", (challenge_id,)
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else _challenge(row)

    @_serialised
    async def settle_challenge(self, challenge_id: int, status: str) -> bool:
        """Move an open challenge to ``declined``, ``cancelled`` or ``expired``.

        Returns False if it was no longer open (someone else settled it first).
        """
        cur = await self._db.execute(
            "UPDATE challenges SET status = ? WHERE id = ? AND status = 'open'",
            (status, challenge_id),
        )
        return cur.rowcount == 1

    @_serialised
    async def accept_challenge(
        self,
        challenge_id: int,
        *,
        players: tuple[int, int],
        names: tuple[str, str],
        rules: dict[str, Any],
        state: dict[str, Any],
        vs_computer: bool = False,
    ) -> int | None:
        """Atomically close an open challenge and create its game; returns the game id, or
        ``None`` if the challenge was no longer open."""
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            async with self._db.execute(
                "SELECT guild_id, channel_id FROM challenges WHERE id = ? AND status = 'open'",
                (challenge_id,),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                await self._db.execute("ROLLBACK")
                return None
            game_id = await self._insert_game(
                row["guild_id"], row["channel_id"], players, names, rules, state, vs_computer
            )
            await self._db.execute(
                "UPDATE challenges SET status = 'accepted', game_id = ? WHERE id = ?",
                (game_id, challenge_id),
            )
            await self._db.execute("COMMIT")
            return game_id
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    @_serialised
    async def open_challenges(self) -> list[ChallengeRow]:
        """Every open challenge (expired or not), oldest first."""
        async with self._db.execute(
            "SELECT * FROM challenges WHERE status = 'open' ORDER BY id"
        ) as cur:
            rows = await cur.fetchall()
        return [_challenge(r) for r in rows]

    @_serialised
    async def open_between(self, channel_id: int, a: int, b: int) -> str | None:
        """``'challenge'`` or ``'game'`` if the two already have one open in the channel."""
        async with self._db.execute(
            "SELECT 1 FROM challenges WHERE status = 'open' AND channel_id = ? AND "
            "((challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?))",
            (channel_id, a, b, b, a),
        ) as cur:
            if await cur.fetchone():
                return "challenge"
        async with self._db.execute(
            "SELECT 1 FROM games WHERE status = 'active' AND channel_id = ? AND "
            "((player0_id = ? AND player1_id = ?) OR (player0_id = ? AND player1_id = ?))",
            (channel_id, a, b, b, a),
        ) as cur:
            if await cur.fetchone():
                return "game"
        return None

    # ------------------------------------------------------------------ games

    @_serialised
    async def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        players: tuple[int, int],
        names: tuple[str, str],
        rules: dict[str, Any],
        state: dict[str, Any],
        vs_computer: bool = False,
    ) -> int:
        """Create a game directly (a game against the computer needs no challenge)."""
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            game_id = await self._insert_game(
                guild_id, channel_id, players, names, rules, state, vs_computer
            )
            await self._db.execute("COMMIT")
            return game_id
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    async def _insert_game(
        self,
        guild_id: int,
        channel_id: int,
        players: tuple[int, int],
        names: tuple[str, str],
        rules: dict[str, Any],
        state: dict[str, Any],
        vs_computer: bool,
    ) -> int:
        now = self.clock()
        async with self._db.execute(
            "INSERT INTO games (guild_id, channel_id, player0_id, player1_id, names, vs_computer, "
            "rules, state, created_at, updated_at, turn_started_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (guild_id, channel_id, players[0], players[1], json.dumps(list(names)),
             int(vs_computer), json.dumps(rules), json.dumps(state), now, now, now),
        ) as cur:
            game_id = cur.lastrowid
        assert game_id is not None
        return game_id

    @_serialised
    async def get_game(self, game_id: int) -> GameRow | None:
        """One game, or ``None``; raises ``StorageError`` if its row is damaged."""
        async with self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else _game(row)

    @_serialised
    async def save_moves(
        self,
        game_id: int,
        *,
        expected_version: int,
        state: dict[str, Any],
        moves: Sequence[tuple[int, int | None, str]],
        finished: bool,
        result: dict[str, Any] | None,
        turn_passed: bool,
    ) -> bool:
        """Save a game's new state and its move log entries in one transaction.

        ``moves`` are (seat, user id, notation). The save succeeds only if the stored version is
        still ``expected_version`` (so a move is never applied twice); it returns False otherwise.
        """
        now = self.clock()
        new_version = expected_version + len(moves)
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            cur = await self._db.execute(
                "UPDATE games SET state = ?, version = ?, status = ?, result = ?, updated_at = ?, "
                "turn_started_at = CASE WHEN ? THEN ? ELSE turn_started_at END, "
                "reminded_at = CASE WHEN ? THEN NULL ELSE reminded_at END "
                "WHERE id = ? AND version = ?",
                (json.dumps(state), new_version, "finished" if finished else "active",
                 json.dumps(result) if result is not None else None, now, int(turn_passed), now,
                 int(turn_passed), game_id, expected_version),
            )
            if cur.rowcount != 1:
                await self._db.execute("ROLLBACK")
                return False
            await self._db.executemany(
                "INSERT INTO moves (game_id, seq, seat, user_id, move, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, expected_version + i + 1, seat, user, text, now)
                 for i, (seat, user, text) in enumerate(moves)],
            )
            await self._db.execute("COMMIT")
            return True
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    @_serialised
    async def move_log(self, game_id: int) -> list[tuple[int, int, int | None, str]]:
        """The game's saved moves: (seq, seat, user id, notation), in order."""
        async with self._db.execute(
            "SELECT seq, seat, user_id, move FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
        ) as cur:
            rows = await cur.fetchall()
        return [(r["seq"], r["seat"], r["user_id"], r["move"]) for r in rows]

    @_serialised
    async def set_board(self, game_id: int, message_id: int, turn: int) -> None:
        """Remember the current public board message and the turn it belongs to."""
        await self._db.execute(
            "UPDATE games SET board_message_id = ?, board_turn = ? WHERE id = ?",
            (message_id, turn, game_id),
        )

    @_serialised
    async def set_reminded(self, game_id: int, when: float) -> None:
        """Note that the player on turn was reminded."""
        await self._db.execute("UPDATE games SET reminded_at = ? WHERE id = ?", (when, game_id))

    @_serialised
    async def active_game_ids(self) -> list[int]:
        """Ids of all games still going on."""
        async with self._db.execute(
            "SELECT id FROM games WHERE status = 'active' ORDER BY id"
        ) as cur:
            rows = await cur.fetchall()
        return [int(r["id"]) for r in rows]

    @_serialised
    async def user_games(
        self, user_id: int, *, guild_id: int | None = None, channel_id: int | None = None,
        active_only: bool = True,
    ) -> list[GameRow]:
        """The games a user plays in, newest first; damaged rows are skipped."""
        sql = "SELECT * FROM games WHERE (player0_id = ? OR player1_id = ?)"
        args: list[Any] = [user_id, user_id]
        if active_only:
            sql += " AND status = 'active'"
        if guild_id is not None:
            sql += " AND guild_id = ?"
            args.append(guild_id)
        if channel_id is not None:
            sql += " AND channel_id = ?"
            args.append(channel_id)
        sql += " ORDER BY id DESC"
        async with self._db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        out = []
        for row in rows:
            try:
                out.append(_game(row))
            except StorageError:
                continue
        return out


def _challenge(row: aiosqlite.Row) -> ChallengeRow:
    return ChallengeRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        names=_names(row["names"]),
        rules=_loads(row["rules"], "challenge terms"),
        status=row["status"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        game_id=row["game_id"],
    )


def _game(row: aiosqlite.Row) -> GameRow:
    state = _loads(row["state"], "game")
    if not isinstance(state, dict):
        raise StorageError("The saved game is damaged.")
    return GameRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        players=(row["player0_id"], row["player1_id"]),
        names=_names(row["names"]),
        vs_computer=bool(row["vs_computer"]),
        rules=_loads(row["rules"], "game terms"),
        state=state,
        version=row["version"],
        status=row["status"],
        board_message_id=row["board_message_id"],
        board_turn=row["board_turn"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        turn_started_at=row["turn_started_at"],
        reminded_at=row["reminded_at"],
        result=_loads(row["result"], "result"),
    )


def _names(text: str) -> tuple[str, str]:
    names = _loads(text, "player names")
    if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise StorageError("The saved player names are damaged.")
    return (names[0], names[1])


def _statements(script: str) -> Iterable[str]:
    # The migrations contain no semicolons inside literals, so a plain split is safe here.
    for statement in script.split(";"):
        if statement.strip():
            yield statement
