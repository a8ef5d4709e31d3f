"""All SQL of the bot, in one place: SQLite through aiosqlite, numbered migrations, WAL mode.

The interface is kept small on purpose (a PostgreSQL backend will implement the same methods):
rows come back as frozen dataclasses, and every write that must not be applied twice is a
compare-and-set (a challenge moves out of ``open`` once; a game's ``version`` goes up by exactly
one per saved move, in the same transaction as the move's log entry).

A game is saved as appended moves with a snapshot now and then: ``games.state`` is the match
state at ``games.state_version`` and the ``moves`` table holds every move, so the game at its
``version`` is the snapshot plus the moves after it (``GameRow.later_moves``), replayed by the
caller with the engine. Saving a move writes one small row and a few columns, whatever the
length of the game; the caller decides when a new snapshot is worth writing.

Every commit is flushed to disk before it returns (WAL with ``synchronous=FULL``): a move is
saved before the player is told, so an acknowledged move survives a crash or a power cut.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import aiosqlite

from .shards import ShardSet

__all__ = [
    "ChallengeRow",
    "GameEntry",
    "GameRow",
    "LedgerRow",
    "OwedExceeded",
    "SettlementRow",
    "GuildSettings",
    "Storage",
    "StorageError",
    "SQLITE_SCHEMA_VERSION",
]


class StorageError(RuntimeError):
    """A row that can't be read back (damaged data) or a database that can't be opened."""


class OwedExceeded(ValueError):
    """A settlement larger than what is owed in its direction (it would flip the debt)."""

    def __init__(self, owed_cents: int) -> None:
        super().__init__(f"only {owed_cents} cents are owed")
        self.owed_cents = owed_cents


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
    # 2: stakes, the append-only ledger, its running summaries, ratings, settlements.
    """
    ALTER TABLE guild_settings ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE guild_settings ADD COLUMN points_only INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN stake_kings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN per_card_kings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN stake_classic INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN per_card_classic INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN stake_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN per_card_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE games ADD COLUMN stake_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN per_card_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE games ADD COLUMN computer_level TEXT NOT NULL DEFAULT 'normal';
    CREATE TABLE ledger (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        kind          TEXT    NOT NULL CHECK (kind IN ('game', 'payment', 'forgive', 'void')),
        debtor_id     INTEGER NOT NULL,
        creditor_id   INTEGER NOT NULL,
        amount_cents  INTEGER NOT NULL CHECK (amount_cents >= 0),
        game_id       INTEGER REFERENCES games (id),
        rules         TEXT,
        winner_id     INTEGER,
        margin        INTEGER,
        voids_id      INTEGER REFERENCES ledger (id),
        note          TEXT,
        created_by    INTEGER,
        created_at    REAL    NOT NULL
    );
    CREATE UNIQUE INDEX ledger_one_per_game ON ledger (game_id) WHERE kind = 'game';
    CREATE UNIQUE INDEX ledger_one_void ON ledger (voids_id) WHERE voids_id IS NOT NULL;
    CREATE INDEX ledger_debtor ON ledger (guild_id, debtor_id, creditor_id, id);
    CREATE INDEX ledger_creditor ON ledger (guild_id, creditor_id, debtor_id, id);
    CREATE INDEX ledger_games ON ledger (guild_id, kind, id);
    CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TABLE pair_balances (
        guild_id     INTEGER NOT NULL,
        low_id       INTEGER NOT NULL,
        high_id      INTEGER NOT NULL,
        owed_cents   INTEGER NOT NULL DEFAULT 0,
        games        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, low_id, high_id)
    );
    CREATE INDEX pair_balances_high ON pair_balances (guild_id, high_id);
    CREATE TABLE player_stats (
        guild_id     INTEGER NOT NULL,
        user_id      INTEGER NOT NULL,
        rules        TEXT    NOT NULL,
        games        INTEGER NOT NULL DEFAULT 0,
        wins         INTEGER NOT NULL DEFAULT 0,
        losses       INTEGER NOT NULL DEFAULT 0,
        ties         INTEGER NOT NULL DEFAULT 0,
        net_cents    INTEGER NOT NULL DEFAULT 0,
        margin_sum   INTEGER NOT NULL DEFAULT 0,
        best_margin  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id, rules)
    );
    CREATE TABLE ratings (
        guild_id     INTEGER NOT NULL,
        user_id      INTEGER NOT NULL,
        rules        TEXT    NOT NULL,
        mu           REAL    NOT NULL,
        sigma        REAL    NOT NULL,
        games        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id, rules)
    );
    CREATE TABLE rating_progress (
        guild_id       INTEGER PRIMARY KEY,
        last_ledger_id INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE settlements (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        channel_id    INTEGER NOT NULL,
        payer_id      INTEGER NOT NULL,
        payee_id      INTEGER NOT NULL,
        amount_cents  INTEGER NOT NULL CHECK (amount_cents > 0),
        status        TEXT    NOT NULL DEFAULT 'open'
                      CHECK (status IN ('open', 'confirmed', 'refused', 'expired')),
        created_at    REAL    NOT NULL,
        expires_at    REAL    NOT NULL,
        ledger_id     INTEGER REFERENCES ledger (id)
    );
    """,
    # 3: a game keeps the reminder and claim times it started with; which version its board
    # shows (so a restart can repair a board that fell behind); when a claim was offered.
    """
    ALTER TABLE games ADD COLUMN reminder_s INTEGER NOT NULL DEFAULT 43200;
    ALTER TABLE games ADD COLUMN claim_s INTEGER NOT NULL DEFAULT 259200;
    ALTER TABLE games ADD COLUMN board_version INTEGER;
    ALTER TABLE games ADD COLUMN claim_offered_at REAL;
    UPDATE games SET
        reminder_s = COALESCE((SELECT s.reminder_s FROM guild_settings s
                               WHERE s.guild_id = games.guild_id), 43200),
        claim_s = COALESCE((SELECT s.claim_s FROM guild_settings s
                            WHERE s.guild_id = games.guild_id), 259200);
    UPDATE games SET board_version = version WHERE status = 'finished';
    """,
    # 4: a game lives in a thread of its own; its result is announced in the channel once.
    """
    ALTER TABLE games ADD COLUMN thread_id INTEGER;
    ALTER TABLE games ADD COLUMN result_message_id INTEGER;
    ALTER TABLE guild_settings ADD COLUMN use_threads INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE guild_settings ADD COLUMN thread_notice_at REAL;
    UPDATE games SET result_message_id = 0 WHERE status = 'finished';
    CREATE INDEX games_thread ON games (thread_id) WHERE thread_id IS NOT NULL;
    """,
    # 5 (ledger at scale): /stats reads through indexes only, whatever the history's length.
    # A player's latest lines of one kind, from either side, newest first, with the winner
    # (his streak, read from the index alone);
    # ``money_points``: his running net money after each of his game and void lines, numbered
    # 1, 2, 3… per player (derived from the ledger like the summaries, rebuilt with them), so
    # a chart's evenly spaced points are a few lookups by number, not a sum over his history.
    # ``pair_points``: the same for two players, every line between them, with what the lower
    # id owes the higher after it: a page of /ledger user is a range of numbers.
    """
    CREATE INDEX ledger_debtor_kind ON ledger (guild_id, debtor_id, kind, id, winner_id);
    CREATE INDEX ledger_creditor_kind ON ledger (guild_id, creditor_id, kind, id, winner_id);
    CREATE TABLE money_points (
        guild_id    INTEGER NOT NULL,
        user_id     INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        ledger_id   INTEGER NOT NULL,
        created_at  REAL    NOT NULL,
        balance     INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX money_points_balance ON money_points (guild_id, user_id, balance, seq);
    CREATE TABLE pair_points (
        guild_id    INTEGER NOT NULL,
        low_id      INTEGER NOT NULL,
        high_id     INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        ledger_id   INTEGER NOT NULL,
        owed_cents  INTEGER NOT NULL,
        PRIMARY KEY (guild_id, low_id, high_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents)
    SELECT guild_id, MIN(debtor_id, creditor_id), MAX(debtor_id, creditor_id),
           ROW_NUMBER() OVER win, id,
           SUM(CASE WHEN debtor_id < creditor_id THEN amount_cents ELSE -amount_cents END)
               OVER win
    FROM ledger
    WINDOW win AS (PARTITION BY guild_id, MIN(debtor_id, creditor_id),
                   MAX(debtor_id, creditor_id) ORDER BY id ROWS UNBOUNDED PRECEDING);
    INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, balance)
    SELECT guild_id, user_id, ROW_NUMBER() OVER win, id, created_at, SUM(delta) OVER win
    FROM (SELECT guild_id, creditor_id AS user_id, id, created_at, amount_cents AS delta
          FROM ledger WHERE kind IN ('game', 'void') UNION ALL
          SELECT guild_id, debtor_id, id, created_at, -amount_cents
          FROM ledger WHERE kind IN ('game', 'void'))
    WINDOW win AS (PARTITION BY guild_id, user_id ORDER BY id ROWS UNBOUNDED PRECEDING);
    """,
    # 6: a move is an appended row, the state a snapshot now and then: ``state`` is the match at
    # ``state_version`` (every game saved before this was saved whole at each move). The move
    # log is clustered by game (WITHOUT ROWID), so appending a move writes one page of it, not
    # a table page and an index page.
    """
    ALTER TABLE games ADD COLUMN state_version INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET state_version = version;
    CREATE TABLE moves_by_game (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        user_id     INTEGER,
        move        TEXT    NOT NULL,
        created_at  REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO moves_by_game (game_id, seq, seat, user_id, move, created_at)
        SELECT game_id, seq, seat, user_id, move, created_at FROM moves;
    DROP TABLE moves;
    ALTER TABLE moves_by_game RENAME TO moves;
    """,
)

SQLITE_SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version (``PRAGMA user_version``) of a SQLite database this bot has migrated."""


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
    currency: str = "$"
    points_only: bool = False
    stake_kings: int = 0
    per_card_kings: int = 0
    stake_classic: int = 0
    per_card_classic: int = 0
    use_threads: bool = True
    """Play each game in a thread of its own (when the bot may create one)."""
    thread_notice_at: float | None = None
    """When the server was told which permission would move games into threads."""

    def default_stakes(self, rules: str) -> tuple[int, int]:
        """(flat stake, per card) in cents for new challenges of ``rules``."""
        if rules == "classic":
            return self.stake_classic, self.per_card_classic
        return self.stake_kings, self.per_card_kings


SETTING_COLUMNS = (
    "default_rules",
    "refill_empty_hand",
    "king_starts_stack",
    "challenge_expiry_s",
    "reminder_s",
    "claim_s",
    "currency",
    "points_only",
    "stake_kings",
    "per_card_kings",
    "stake_classic",
    "per_card_classic",
    "use_threads",
    "thread_notice_at",
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
    stake_cents: int = 0
    per_card_cents: int = 0
    currency: str = "$"


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
    """The match (``Match.to_dict()``) at ``state_version``: a snapshot, see ``later_moves``."""
    version: int
    """Moves saved so far (each ``resign`` or ``claim`` counts as one)."""
    status: str
    board_message_id: int | None
    board_turn: int | None
    created_at: float
    updated_at: float
    turn_started_at: float
    reminded_at: float | None
    result: dict[str, Any] | None
    stake_cents: int = 0
    per_card_cents: int = 0
    currency: str = "$"
    computer_level: str = "normal"
    reminder_s: int = 43_200
    """Seconds before the player on turn is reminded (fixed when the game started)."""
    claim_s: int = 259_200
    """Seconds before the opponent may claim the game (fixed when the game started)."""
    board_version: int | None = None
    """The version the public board was last drawn at (``None``: never drawn)."""
    claim_offered_at: float | None = None
    """When the opponent was offered a claim of this turn (``None``: not yet)."""
    thread_id: int | None = None
    """The game's own thread (``None``: it is played in ``channel_id`` itself)."""
    result_message_id: int | None = None
    """The result announced in the channel (``None``: not yet; 0: from before announcements)."""
    state_version: int = 0
    """The version ``state`` was saved at (equal to ``version`` for a finished game)."""
    later_moves: tuple[tuple[int, str], ...] = ()
    """(seat, notation) of the moves saved after ``state``, in order: ``state`` with these
    replayed (``resign`` and ``claim`` as ``Match.resign(seat)``) is the game at ``version``."""


@dataclass(frozen=True, slots=True)
class GameEntry:
    """The ledger line of a finished game: the loser (debtor) owes the winner (creditor)."""

    guild_id: int
    game_id: int
    debtor_id: int
    creditor_id: int
    amount_cents: int
    rules: str
    winner_id: int | None
    margin: int


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One line of the ledger: ``debtor`` owes ``creditor`` ``amount_cents`` more after it."""

    id: int
    guild_id: int
    kind: str
    debtor_id: int
    creditor_id: int
    amount_cents: int
    game_id: int | None
    rules: str | None
    winner_id: int | None
    margin: int | None
    voids_id: int | None
    note: str | None
    created_by: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class SettlementRow:
    """A payment waiting for the payee's confirmation."""

    id: int
    guild_id: int
    channel_id: int
    payer_id: int
    payee_id: int
    amount_cents: int
    status: str
    created_at: float
    expires_at: float
    ledger_id: int | None


DEFAULT_SETTINGS = GuildSettings(0)
"""What a server that never changed a setting has."""


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
            _private_file(Path(path))
        db = await aiosqlite.connect(str(path), isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode=WAL")
        # Each commit waits for the WAL's fsync: a move is acknowledged only once it is on disk
        # (NORMAL would lose the last commits on a power cut). FULL is SQLite's default; it is
        # set here so that no build or distribution default can weaken it.
        await db.execute("PRAGMA synchronous=FULL")
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
            currency=str(row["currency"]),
            points_only=bool(row["points_only"]),
            stake_kings=int(row["stake_kings"]),
            per_card_kings=int(row["per_card_kings"]),
            stake_classic=int(row["stake_classic"]),
            per_card_classic=int(row["per_card_classic"]),
            use_threads=bool(row["use_threads"]),
            thread_notice_at=row["thread_notice_at"],
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
        stake_cents: int = 0,
        per_card_cents: int = 0,
        currency: str = "$",
    ) -> ChallengeRow:
        """Record a new open challenge (``names``: challenger's and opponent's)."""
        now = self.clock()
        async with self._db.execute(
            "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, names, "
            "rules, created_at, expires_at, stake_cents, per_card_cents, currency) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (guild_id, channel_id, challenger_id, opponent_id, json.dumps(list(names)),
             json.dumps(rules), now, expires_at, stake_cents, per_card_cents, currency),
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
                "SELECT guild_id, channel_id, stake_cents, per_card_cents, currency "
                "FROM challenges WHERE id = ? AND status = 'open'",
                (challenge_id,),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                await self._db.execute("ROLLBACK")
                return None
            game_id = await self._insert_game(
                row["guild_id"], row["channel_id"], players, names, rules, state, vs_computer,
                (row["stake_cents"], row["per_card_cents"], row["currency"]),
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
    async def open_challenges(self, shards: ShardSet | None = None) -> list[ChallengeRow]:
        """Every open challenge (expired or not), oldest first (of the ``shards``' servers)."""
        async with self._db.execute(
            f"SELECT * FROM challenges WHERE status = 'open' AND {_owned(shards)} ORDER BY id"
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
        computer_level: str = "normal",
    ) -> int:
        """Create a game directly (a game against the computer needs no challenge)."""
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            game_id = await self._insert_game(
                guild_id, channel_id, players, names, rules, state, vs_computer
            )
            await self._db.execute("UPDATE games SET computer_level = ? WHERE id = ?",
                                   (computer_level, game_id))
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
        stakes: tuple[int, int, str] = (0, 0, "$"),
    ) -> int:
        now = self.clock()
        async with self._db.execute(
            # The reminder and claim times are the server's as the game starts; later changes
            # of the settings don't touch a game already going.
            "INSERT INTO games (guild_id, channel_id, player0_id, player1_id, names, vs_computer, "
            "rules, state, created_at, updated_at, turn_started_at, stake_cents, per_card_cents, "
            "currency, reminder_s, claim_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "COALESCE((SELECT reminder_s FROM guild_settings WHERE guild_id = ?), ?), "
            "COALESCE((SELECT claim_s FROM guild_settings WHERE guild_id = ?), ?))",
            (guild_id, channel_id, players[0], players[1], json.dumps(list(names)),
             int(vs_computer), json.dumps(rules), json.dumps(state), now, now, now, *stakes,
             guild_id, DEFAULT_SETTINGS.reminder_s, guild_id, DEFAULT_SETTINGS.claim_s),
        ) as cur:
            game_id = cur.lastrowid
        assert game_id is not None
        return game_id

    @_serialised
    async def get_game(self, game_id: int) -> GameRow | None:
        """One game (its snapshot and the moves after it), or ``None``; raises
        ``StorageError`` if its row is damaged."""
        async with self._db.execute(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?",
                                    (game_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else _game(row)

    @_serialised
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
        entry: GameEntry | None = None,
    ) -> bool:
        """Append a game's moves and, if ``state`` is given, a new snapshot, in one transaction.

        ``moves`` are (seat, user id, notation). ``state`` is the match after these moves, or
        ``None`` to append the moves alone (the game is then the last snapshot plus the moves
        after it); a finished game must come with its final state, which history and replays
        read. The save succeeds only if the stored version is still ``expected_version`` (so a
        move is never applied twice); it returns False otherwise. A finished game's ledger
        ``entry`` is written in the same transaction (at most one per game: the database
        refuses a second).
        """
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
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            cur = await self._db.execute(
                f"UPDATE games SET {', '.join(sets)} WHERE id = ? AND version = ?",
                (*args, game_id, expected_version),
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
            if entry is not None:
                await self._insert_game_entry(entry, now)
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
    async def set_board(self, game_id: int, message_id: int, turn: int, version: int) -> None:
        """Remember the public board message, the turn it belongs to and the game version it
        shows."""
        await self._db.execute(
            "UPDATE games SET board_message_id = ?, board_turn = ?, board_version = ? "
            "WHERE id = ?",
            (message_id, turn, version, game_id),
        )

    @_serialised
    async def set_board_version(self, game_id: int, version: int) -> None:
        """Note that the board message now shows ``version`` of the game."""
        await self._db.execute(
            "UPDATE games SET board_version = ? WHERE id = ? AND "
            "(board_version IS NULL OR board_version < ?)", (version, game_id, version))

    @_serialised
    async def boards_behind(self, shards: ShardSet | None = None) -> list[int]:
        """Games whose public board doesn't show their saved version: every active one, and
        finished ones whose final board was never drawn (e.g. a crash right after the last
        move)."""
        return await self._game_ids("(board_version IS NULL OR board_version < version)", shards)

    @_serialised
    async def last_move(self, game_id: int) -> str | None:
        """The notation of the game's latest saved move (``claim`` for a claimed game)."""
        async with self._db.execute(
            "SELECT move FROM moves WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else str(row["move"])

    @_serialised
    async def set_thread(self, game_id: int, thread_id: int) -> None:
        """Remember the game's own thread."""
        await self._db.execute("UPDATE games SET thread_id = ? WHERE id = ?",
                               (thread_id, game_id))

    @_serialised
    async def set_result_message(self, game_id: int, message_id: int) -> None:
        """Remember the message that announced the game's result."""
        await self._db.execute("UPDATE games SET result_message_id = ? WHERE id = ?",
                               (message_id, game_id))

    @_serialised
    async def results_unannounced(self, shards: ShardSet | None = None) -> list[int]:
        """Finished games whose result was never announced (e.g. a crash right after)."""
        return await self._game_ids("status = 'finished' AND result_message_id IS NULL", shards)

    @_serialised
    async def set_claim_offered(self, game_id: int, when: float) -> None:
        """Note that the opponent was offered a claim of the current turn."""
        await self._db.execute("UPDATE games SET claim_offered_at = ? WHERE id = ?",
                               (when, game_id))

    @_serialised
    async def set_reminded(self, game_id: int, when: float) -> None:
        """Note that the player on turn was reminded."""
        await self._db.execute("UPDATE games SET reminded_at = ? WHERE id = ?", (when, game_id))

    @_serialised
    async def active_game_ids(self, shards: ShardSet | None = None) -> list[int]:
        """Ids of all games still going on (in the ``shards``' servers)."""
        return await self._game_ids("status = 'active'", shards)

    async def _game_ids(self, where: str, shards: ShardSet | None) -> list[int]:
        # ``where`` is one of this module's own conditions, never user input.
        async with self._db.execute(
            f"SELECT id FROM games WHERE {where} AND {_owned(shards)} ORDER BY id"
        ) as cur:
            rows = await cur.fetchall()
        return [int(r["id"]) for r in rows]

    @_serialised
    async def user_games(
        self, user_id: int, *, guild_id: int | None = None, channel_id: int | None = None,
        active_only: bool = True,
    ) -> list[GameRow]:
        """The games a user plays in, newest first; damaged rows are skipped."""
        sql = f"SELECT {_GAME_COLUMNS} FROM games WHERE (player0_id = ? OR player1_id = ?)"
        args: list[Any] = [user_id, user_id]
        if active_only:
            sql += " AND status = 'active'"
        if guild_id is not None:
            sql += " AND guild_id = ?"
            args.append(guild_id)
        if channel_id is not None:  # the channel a game was challenged in, or its thread
            sql += " AND (channel_id = ? OR thread_id = ?)"
            args.extend((channel_id, channel_id))
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


    # ------------------------------------------------------------------ the ledger

    async def _insert_game_entry(self, entry: GameEntry, now: float) -> int:
        async with self._db.execute(
            "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, game_id, "
            "rules, winner_id, margin, created_at) VALUES (?, 'game', ?, ?, ?, ?, ?, ?, ?, ?)",
            (entry.guild_id, entry.debtor_id, entry.creditor_id, entry.amount_cents,
             entry.game_id, entry.rules, entry.winner_id, entry.margin, now),
        ) as cur:
            entry_id = cur.lastrowid
        assert entry_id is not None
        await self._apply_to_summaries(entry.guild_id, entry.debtor_id, entry.creditor_id,
                                       entry.amount_cents, game=(entry.rules, entry.winner_id,
                                                                 entry.margin), sign=1)
        await self._add_money_points(entry.guild_id, entry_id, entry.debtor_id,
                                     entry.creditor_id, entry.amount_cents, now)
        await self._add_pair_point(entry.guild_id, entry_id, entry.debtor_id,
                                   entry.creditor_id, entry.amount_cents)
        return entry_id

    async def _add_pair_point(self, guild_id: int, entry_id: int, debtor: int, creditor: int,
                              amount: int) -> None:
        """The pair's next point after any ledger line (in the line's transaction)."""
        low, high = min(debtor, creditor), max(debtor, creditor)
        key = "guild_id = ? AND low_id = ? AND high_id = ?"
        await self._db.execute(
            "INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents) "
            f"SELECT ?, ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ? + COALESCE((SELECT owed_cents "
            f"FROM pair_points WHERE {key} ORDER BY seq DESC LIMIT 1), 0) "
            f"FROM pair_points WHERE {key}",
            (guild_id, low, high, entry_id, amount if debtor == low else -amount,
             guild_id, low, high, guild_id, low, high))

    async def _add_money_points(self, guild_id: int, entry_id: int, debtor: int, creditor: int,
                                amount: int, when: float) -> None:
        """Each player's next money point after a game or void line (in its transaction)."""
        for user, delta in ((creditor, amount), (debtor, -amount)):
            await self._db.execute(
                "INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, "
                "balance) SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? + COALESCE(("
                "SELECT balance FROM money_points WHERE guild_id = ? AND user_id = ? "
                "ORDER BY seq DESC LIMIT 1), 0) FROM money_points "
                "WHERE guild_id = ? AND user_id = ?",
                (guild_id, user, entry_id, when, delta, guild_id, user, guild_id, user))

    async def _apply_to_summaries(
        self, guild_id: int, debtor: int, creditor: int, amount: int,
        game: tuple[str, int | None, int] | None, sign: int,
    ) -> None:
        """Keep the running summaries equal to the sum of the ledger (``sign`` -1 reverses)."""
        low, high = min(debtor, creditor), max(debtor, creditor)
        owed = amount if debtor == low else -amount
        games = sign if game is not None else 0
        await self._db.execute(
            "INSERT INTO pair_balances (guild_id, low_id, high_id, owed_cents, games) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, low_id, high_id) DO UPDATE SET "
            "owed_cents = owed_cents + excluded.owed_cents, games = games + excluded.games",
            (guild_id, low, high, owed * sign, games),
        )
        if game is None:
            return
        rules, winner, margin = game
        for user in (debtor, creditor):
            if winner is None:
                wins, losses, ties, net, margin_add = 0, 0, 1, 0, 0
            elif user == winner:
                wins, losses, ties, net, margin_add = 1, 0, 0, amount, margin
            else:
                wins, losses, ties, net, margin_add = 0, 1, 0, -amount, 0
            await self._db.execute(
                "INSERT INTO player_stats (guild_id, user_id, rules, games, wins, losses, ties, "
                "net_cents, margin_sum, best_margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id, user_id, rules) DO UPDATE SET "
                "games = games + excluded.games, wins = wins + excluded.wins, "
                "losses = losses + excluded.losses, ties = ties + excluded.ties, "
                "net_cents = net_cents + excluded.net_cents, "
                "margin_sum = margin_sum + excluded.margin_sum, "
                "best_margin = MAX(best_margin, excluded.best_margin)",
                (guild_id, user, rules, sign, sign * wins, sign * losses, sign * ties,
                 sign * net, sign * margin_add, margin_add if sign > 0 else 0),
            )
        if sign < 0 and winner is not None:
            # A best win can't be taken back by arithmetic: look it up again.
            await self._db.execute(
                "UPDATE player_stats SET best_margin = COALESCE((SELECT MAX(l.margin) FROM "
                "ledger l WHERE l.guild_id = ? AND l.kind = 'game' AND l.winner_id = ? AND "
                "l.rules = ? AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = l.id)), 0) "
                "WHERE guild_id = ? AND user_id = ? AND rules = ?",
                (guild_id, winner, rules, guild_id, winner, rules),
            )

    @_serialised
    async def add_entry(
        self, *, guild_id: int, kind: str, debtor_id: int, creditor_id: int, amount_cents: int,
        note: str | None, created_by: int | None, voids_id: int | None = None,
        settlement_id: int | None = None, within_owed: bool = False,
    ) -> LedgerRow | None:
        """Append a payment, forgiveness or void; returns it (``None`` if it was already done:
        a void of a voided entry, or a settlement no longer open).

        ``within_owed``: the line may only lower what ``creditor_id`` owes ``debtor_id`` (a
        payment or forgiveness); checked in the same transaction as the write, so nothing
        written meanwhile (another settlement, a game's result, from any process) can make it
        flip the debt: ``OwedExceeded`` is raised and nothing is written.
        """
        if kind not in ("payment", "forgive", "void"):
            raise ValueError(kind)
        now = self.clock()
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            game: tuple[str, int | None, int] | None = None
            original: aiosqlite.Row | None = None
            if within_owed:
                owed = await self._owed(guild_id, creditor_id, debtor_id)
                if amount_cents > owed:
                    raise OwedExceeded(max(0, owed))  # rolled back below
            if settlement_id is not None:
                cur = await self._db.execute(
                    "UPDATE settlements SET status = 'confirmed' WHERE id = ? AND status = 'open'",
                    (settlement_id,))
                if cur.rowcount != 1:
                    await self._db.execute("ROLLBACK")
                    return None
            if voids_id is not None:
                async with self._db.execute(
                    "SELECT * FROM ledger WHERE id = ? AND guild_id = ? AND kind = 'game' AND "
                    "NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = ledger.id)",
                    (voids_id, guild_id),
                ) as cur:
                    original = await cur.fetchone()
                if original is None:
                    await self._db.execute("ROLLBACK")
                    return None
                game = (original["rules"], original["winner_id"], original["margin"] or 0)
            copied = (None, None, None, None)
            if original is not None:
                copied = (original["game_id"], original["rules"], original["winner_id"],
                          original["margin"])
            async with self._db.execute(
                "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
                "voids_id, note, created_by, created_at, game_id, rules, winner_id, margin) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (guild_id, kind, debtor_id, creditor_id, amount_cents, voids_id, note,
                 created_by, now, *copied),
            ) as cur:
                entry_id = cur.lastrowid
            assert entry_id is not None
            if settlement_id is not None:
                await self._db.execute("UPDATE settlements SET ledger_id = ? WHERE id = ?",
                                       (entry_id, settlement_id))
            await self._add_pair_point(guild_id, entry_id, debtor_id, creditor_id, amount_cents)
            if game is not None:
                # Undo the voided game: the debtor of the void is the original winner.
                await self._apply_to_summaries(guild_id, creditor_id, debtor_id, amount_cents,
                                               game=game, sign=-1)
                await self._add_money_points(guild_id, entry_id, debtor_id, creditor_id,
                                             amount_cents, now)
            else:
                await self._apply_to_summaries(guild_id, debtor_id, creditor_id, amount_cents,
                                               game=None, sign=1)
            await self._db.execute("COMMIT")
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise
        async with self._db.execute("SELECT * FROM ledger WHERE id = ?", (entry_id,)) as cur:
            row = await cur.fetchone()
        assert row is not None
        return _ledger(row)

    @_serialised
    async def ledger_entry(self, entry_id: int) -> LedgerRow | None:
        """One ledger line."""
        async with self._db.execute("SELECT * FROM ledger WHERE id = ?", (entry_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else _ledger(row)

    @_serialised
    async def game_entry(self, guild_id: int, game_id: int) -> LedgerRow | None:
        """The ledger line of a game, or ``None``."""
        async with self._db.execute(
            "SELECT * FROM ledger WHERE guild_id = ? AND game_id = ? AND kind = 'game'",
            (guild_id, game_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else _ledger(row)

    @_serialised
    async def balances(self, guild_id: int, user_id: int) -> list[tuple[int, int, int]]:
        """(other user, cents ``user_id`` owes them (negative: they owe), games), largest first."""
        async with self._db.execute(
            "SELECT * FROM (SELECT high_id AS other, owed_cents AS owed, games "
            "FROM pair_balances WHERE guild_id = ? AND low_id = ? UNION ALL "
            "SELECT low_id AS other, -owed_cents AS owed, games FROM pair_balances "
            "WHERE guild_id = ? AND high_id = ?) ORDER BY ABS(owed) DESC, games DESC, other",
            (guild_id, user_id, guild_id, user_id),
        ) as cur:
            rows = await cur.fetchall()
        return [(int(r["other"]), int(r["owed"]), int(r["games"])) for r in rows]

    @_serialised
    async def pair_balance(self, guild_id: int, a: int, b: int) -> int:
        """Cents ``a`` owes ``b`` (negative: ``b`` owes ``a``)."""
        return await self._owed(guild_id, a, b)

    async def _owed(self, guild_id: int, a: int, b: int) -> int:
        low, high = min(a, b), max(a, b)
        async with self._db.execute(
            "SELECT owed_cents FROM pair_balances "
            "WHERE guild_id = ? AND low_id = ? AND high_id = ?",
            (guild_id, low, high),
        ) as cur:
            row = await cur.fetchone()
        owed = int(row["owed_cents"]) if row else 0
        return owed if a == low else -owed

    @_serialised
    async def pair_entries(
        self, guild_id: int, a: int, b: int, *, offset: int = 0, limit: int | None = None,
    ) -> tuple[list[tuple[LedgerRow, int]], int]:
        """Lines between ``a`` and ``b``, newest first, each with the running balance (cents
        ``a`` owes ``b`` after it); and how many lines there are in all.

        Read from ``pair_points`` by number: a page costs its own lines, wherever it lies in
        the pair's history."""
        low, high = min(a, b), max(a, b)
        key = "guild_id = ? AND low_id = ? AND high_id = ?"
        async with self._db.execute(f"SELECT MAX(seq) FROM pair_points WHERE {key}",
                                    (guild_id, low, high)) as cur:
            total_row = await cur.fetchone()
        total = int(total_row[0]) if total_row and total_row[0] is not None else 0
        newest = total - offset
        oldest = 1 if limit is None else max(1, newest - limit + 1)
        if newest < oldest:
            return [], total
        async with self._db.execute(
            "SELECT l.*, p.owed_cents AS running FROM pair_points p JOIN ledger l "
            "ON l.id = p.ledger_id WHERE p.guild_id = ? AND p.low_id = ? AND p.high_id = ? "
            "AND p.seq BETWEEN ? AND ? ORDER BY p.seq DESC",
            (guild_id, low, high, oldest, newest),
        ) as cur:
            rows = await cur.fetchall()
        sign = 1 if a == low else -1
        return [(_ledger(r), sign * int(r["running"])) for r in rows], total

    @_serialised
    async def leaderboard(
        self, guild_id: int, order: str, rules: str | None, min_games: int,
    ) -> list[tuple[int, int, int, int, int, int]]:
        """(user, games, wins, losses, ties, net cents) by ``order`` (net, wins or win_rate)."""
        rule_filter = "" if rules is None else "AND rules = ?"
        args: list[Any] = [guild_id] + ([rules] if rules else [])
        key = {"net": "net DESC, wins DESC", "wins": "wins DESC, net DESC",
               "win_rate": "CAST(wins AS REAL) / MAX(1, wins + losses) DESC, wins DESC"}[order]
        async with self._db.execute(
            f"SELECT user_id, SUM(games) AS games, SUM(wins) AS wins, SUM(losses) AS losses, "
            f"SUM(ties) AS ties, SUM(net_cents) AS net FROM player_stats "
            f"WHERE guild_id = ? {rule_filter} GROUP BY user_id HAVING SUM(games) >= ? "
            f"AND SUM(games) > 0 ORDER BY {key}, user_id",
            (*args, min_games),
        ) as cur:
            rows = await cur.fetchall()
        return [(int(r["user_id"]), int(r["games"]), int(r["wins"]), int(r["losses"]),
                 int(r["ties"]), int(r["net"])) for r in rows]

    @_serialised
    async def player_stats(self, guild_id: int, user_id: int) -> dict[str, dict[str, int]]:
        """Per rule set: games, wins, losses, ties, net_cents, margin_sum, best_margin."""
        async with self._db.execute(
            "SELECT * FROM player_stats WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
        ) as cur:
            rows = await cur.fetchall()
        return {r["rules"]: {k: int(r[k]) for k in ("games", "wins", "losses", "ties",
                                                    "net_cents", "margin_sum", "best_margin")}
                for r in rows}

    @_serialised
    async def recent_results(self, guild_id: int, user_id: int, limit: int = 200
                             ) -> list[int | None]:
        """Winners of the user's latest games (newest first), voided games left out."""
        # One index range per side (loser, winner), each read newest first and cut at
        # ``limit``: what is read is bounded by ``limit``, not by the user's history.
        side = ("SELECT id, winner_id FROM ledger l WHERE guild_id = ? AND {who} = ? AND "
                "kind = 'game' AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = l.id) "
                "ORDER BY id DESC LIMIT ?")
        async with self._db.execute(
            f"SELECT winner_id FROM (SELECT * FROM ({side.format(who='debtor_id')}) UNION ALL "
            f"SELECT * FROM ({side.format(who='creditor_id')})) ORDER BY id DESC LIMIT ?",
            (guild_id, user_id, limit, guild_id, user_id, limit, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [r["winner_id"] for r in rows]

    @_serialised
    async def latest_game_id(self, guild_id: int, user_id: int) -> int | None:
        """The game of the user's latest game line in the server (voided or not), or ``None``."""
        side = ("SELECT id, game_id FROM ledger WHERE guild_id = ? AND {who} = ? AND "
                "kind = 'game' ORDER BY id DESC LIMIT 1")
        async with self._db.execute(
            f"SELECT game_id FROM (SELECT * FROM ({side.format(who='debtor_id')}) UNION ALL "
            f"SELECT * FROM ({side.format(who='creditor_id')})) ORDER BY id DESC LIMIT 1",
            (guild_id, user_id, guild_id, user_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None or row[0] is None else int(row[0])

    @_serialised
    async def money_series(self, guild_id: int, user_id: int, points: int = 200
                           ) -> list[tuple[float, int]]:
        """The user's net money (cents) over time, as ``(time, running balance)`` after his
        game and void lines, oldest first, downsampled for a chart.

        Of his ``n`` lines, ``points`` are kept evenly spaced by entry, always the first and
        the last (whose balance is his true net), plus the lines where the balance is lowest
        and highest, so the chart's range is the true one: at most ``points + 2``. With
        ``n <= points`` every line is kept. Read from ``money_points`` by number: the work is
        bounded by ``points``, not by ``n``.
        """
        points = max(2, points)
        key = "guild_id = ? AND user_id = ?"
        async with self._db.execute(
            f"SELECT (SELECT MAX(seq) FROM money_points WHERE {key}), "
            f"(SELECT seq FROM money_points WHERE {key} ORDER BY balance, seq LIMIT 1), "
            f"(SELECT seq FROM money_points WHERE {key} ORDER BY balance DESC, seq LIMIT 1)",
            (guild_id, user_id) * 3,
        ) as cur:
            head = await cur.fetchone()
        if head is None or head[0] is None:
            return []
        n, lowest, highest = int(head[0]), int(head[1]), int(head[2])
        wanted = {1 + k * (n - 1) // (points - 1) for k in range(points)} if n > points \
            else set(range(1, n + 1))
        wanted |= {lowest, highest}
        async with self._db.execute(
            f"SELECT created_at, balance FROM money_points WHERE {key} AND seq IN "
            f"(SELECT value FROM json_each(?)) ORDER BY seq",
            (guild_id, user_id, json.dumps(sorted(wanted))),
        ) as cur:
            rows = await cur.fetchall()
        return [(float(r["created_at"]), int(r["balance"])) for r in rows]

    @_serialised
    async def import_ledger_lines(self, lines: Iterable[LedgerRow]) -> int:
        """For benchmarks and imports of an old notebook only: append many ledger lines in
        one transaction, then rebuild the running summaries of every server they touch.

        The lines are written as given, in order; their ``id`` is ignored (new ids follow
        the ledger's last). Their ``game_id`` and ``voids_id`` are not checked against the
        games and the ledger (an imported notebook's games are not in this database), so
        the caller vouches for them. Ratings are not touched: ``LedgerService.update_ratings``
        applies the imported games. Returns how many lines were written.
        """
        async with self._db.execute("PRAGMA cache_size") as cur:
            cache = await cur.fetchone()
        # Sorting a million index keys wants memory: SQLite's default page cache is 2 MB.
        await self._db.execute("PRAGMA cache_size=-262144")
        await self._db.execute("PRAGMA foreign_keys=OFF")  # no effect inside a transaction
        guilds: set[int] = set()
        count = 0

        def values() -> Iterable[tuple[Any, ...]]:
            nonlocal count
            for line in lines:
                guilds.add(line.guild_id)
                count += 1
                yield (line.guild_id, line.kind, line.debtor_id, line.creditor_id,
                       line.amount_cents, line.game_id, line.rules, line.winner_id, line.margin,
                       line.voids_id, line.note, line.created_by, line.created_at)

        try:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                # Building an index once from sorted keys is quicker than growing it by
                # random inserts (300,000 lines: 4.6 s against 6.3 s): the ledger's indexes
                # are dropped and built again around the inserts, in the same transaction.
                async with self._db.execute(
                    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
                    "tbl_name = 'ledger' AND sql IS NOT NULL",
                ) as cur:
                    indexes = [(str(r["name"]), str(r["sql"])) for r in await cur.fetchall()]
                for name, _ in indexes:
                    await self._db.execute(f'DROP INDEX "{name}"')
                await self._db.executemany(
                    "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
                    "game_id, rules, winner_id, margin, voids_id, note, created_by, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values())
                for _, sql in indexes:  # a unique index refuses a duplicate here
                    await self._db.execute(sql)
                await self._db.execute("COMMIT")
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            for guild_id in sorted(guilds):
                await self._rebuild_summaries(guild_id)
        finally:
            await self._db.execute("PRAGMA foreign_keys=ON")
            await self._db.execute(f"PRAGMA cache_size={int(cache[0]) if cache else -2000}")
        return count

    @_serialised
    async def rebuild_summaries(self, guild_id: int) -> None:
        """Recompute the running summaries of a server from its ledger (they are derived)."""
        await self._rebuild_summaries(guild_id)

    async def _rebuild_summaries(self, guild_id: int) -> None:
        live_games = ("FROM ledger l WHERE l.guild_id = ? AND l.kind = 'game' AND NOT EXISTS "
                      "(SELECT 1 FROM ledger v WHERE v.voids_id = l.id)")
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            await self._db.execute("DELETE FROM pair_balances WHERE guild_id = ?", (guild_id,))
            await self._db.execute("DELETE FROM player_stats WHERE guild_id = ?", (guild_id,))
            await self._db.execute("DELETE FROM money_points WHERE guild_id = ?", (guild_id,))
            await self._db.execute("DELETE FROM pair_points WHERE guild_id = ?", (guild_id,))
            await self._db.execute(
                "INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents) "
                "SELECT guild_id, MIN(debtor_id, creditor_id), MAX(debtor_id, creditor_id), "
                "ROW_NUMBER() OVER win, id, SUM(CASE WHEN debtor_id < creditor_id "
                "THEN amount_cents ELSE -amount_cents END) OVER win FROM ledger "
                "WHERE guild_id = ? WINDOW win AS (PARTITION BY MIN(debtor_id, creditor_id), "
                "MAX(debtor_id, creditor_id) ORDER BY id ROWS UNBOUNDED PRECEDING)",
                (guild_id,))
            await self._db.execute(
                "INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, "
                "balance) SELECT ?, user_id, ROW_NUMBER() OVER win, id, created_at, "
                "SUM(delta) OVER win FROM (SELECT creditor_id AS user_id, id, created_at, "
                "amount_cents AS delta FROM ledger WHERE guild_id = ? AND kind IN "
                "('game', 'void') UNION ALL SELECT debtor_id, id, created_at, -amount_cents "
                "FROM ledger WHERE guild_id = ? AND kind IN ('game', 'void')) "
                "WINDOW win AS (PARTITION BY user_id ORDER BY id ROWS UNBOUNDED PRECEDING)",
                (guild_id, guild_id, guild_id))
            await self._db.execute(
                "INSERT INTO pair_balances (guild_id, low_id, high_id, owed_cents, games) "
                "SELECT guild_id, MIN(debtor_id, creditor_id), MAX(debtor_id, creditor_id), "
                "SUM(CASE WHEN debtor_id < creditor_id THEN amount_cents ELSE -amount_cents END), "
                "SUM(CASE WHEN kind = 'game' THEN 1 WHEN kind = 'void' THEN -1 ELSE 0 END) "
                "FROM ledger WHERE guild_id = ? GROUP BY 1, 2, 3", (guild_id,))
            await self._db.execute(
                "INSERT INTO player_stats (guild_id, user_id, rules, games, wins, losses, ties, "
                "net_cents, margin_sum, best_margin) "
                "SELECT ?, user_id, rules, COUNT(*), SUM(won), SUM(lost), SUM(tied), SUM(net), "
                "SUM(CASE WHEN won = 1 THEN margin ELSE 0 END), "
                "MAX(CASE WHEN won = 1 THEN margin ELSE 0 END) FROM ("
                "SELECT l.creditor_id AS user_id, l.rules, l.winner_id IS NOT NULL AS won, "
                f"0 AS lost, l.winner_id IS NULL AS tied, l.amount_cents AS net, l.margin "
                f"{live_games} "
                "UNION ALL "
                f"SELECT l.debtor_id, l.rules, 0, l.winner_id IS NOT NULL, l.winner_id IS NULL, "
                f"-l.amount_cents, 0 {live_games}) GROUP BY user_id, rules",
                (guild_id, guild_id, guild_id))
            await self._db.execute("COMMIT")
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ ratings

    @_serialised
    async def unrated_games(self, guild_id: int) -> list[LedgerRow]:
        """Game and void lines not yet applied to the ratings, oldest first."""
        async with self._db.execute(
            "SELECT l.* FROM ledger l WHERE l.guild_id = ? AND l.kind IN ('game', 'void') AND "
            "l.id > COALESCE((SELECT last_ledger_id FROM rating_progress WHERE guild_id = ?), 0) "
            "ORDER BY l.id",
            (guild_id, guild_id),
        ) as cur:
            rows = await cur.fetchall()
        return [_ledger(r) for r in rows]

    @_serialised
    async def rated_history(self, guild_id: int) -> list[LedgerRow]:
        """Every game line that has not been voided, oldest first (to recompute ratings)."""
        async with self._db.execute(
            "SELECT * FROM ledger l WHERE guild_id = ? AND kind = 'game' AND NOT EXISTS "
            "(SELECT 1 FROM ledger v WHERE v.voids_id = l.id) ORDER BY id",
            (guild_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [_ledger(r) for r in rows]

    @_serialised
    async def ratings(self, guild_id: int, rules: str | None = None, user_id: int | None = None
                      ) -> dict[tuple[int, str], tuple[float, float, int]]:
        """(user, rules) → (mu, sigma, games); of one user only with ``user_id``."""
        sql = "SELECT * FROM ratings WHERE guild_id = ?"
        args: list[Any] = [guild_id]
        if user_id is not None:
            sql += " AND user_id = ?"
            args.append(user_id)
        if rules:
            sql += " AND rules = ?"
            args.append(rules)
        async with self._db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return {(int(r["user_id"]), r["rules"]): (float(r["mu"]), float(r["sigma"]),
                                                  int(r["games"])) for r in rows}

    @_serialised
    async def store_ratings(
        self, guild_id: int, values: dict[tuple[int, str], tuple[float, float, int]],
        last_ledger_id: int, *, replace: bool = False,
    ) -> None:
        """Save ratings and how far through the ledger they go (``replace``: all of them)."""
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            if replace:
                await self._db.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
            await self._db.executemany(
                "INSERT INTO ratings (guild_id, user_id, rules, mu, sigma, games) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id, rules) DO UPDATE SET "
                "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games",
                [(guild_id, user, rules, mu, sigma, games)
                 for (user, rules), (mu, sigma, games) in values.items()],
            )
            await self._db.execute(
                "INSERT INTO rating_progress (guild_id, last_ledger_id) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET last_ledger_id = excluded.last_ledger_id",
                (guild_id, last_ledger_id),
            )
            await self._db.execute("COMMIT")
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ settlements

    @_serialised
    async def create_settlement(self, *, guild_id: int, channel_id: int, payer_id: int,
                                payee_id: int, amount_cents: int, expires_at: float
                                ) -> SettlementRow:
        """A payment that waits for the payee's confirmation."""
        async with self._db.execute(
            "INSERT INTO settlements (guild_id, channel_id, payer_id, payee_id, amount_cents, "
            "created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (guild_id, channel_id, payer_id, payee_id, amount_cents, self.clock(), expires_at),
        ) as cur:
            settlement_id = cur.lastrowid
        async with self._db.execute("SELECT * FROM settlements WHERE id = ?",
                                    (settlement_id,)) as cur:
            row = await cur.fetchone()
        assert row is not None
        return _settlement(row)

    @_serialised
    async def get_settlement(self, settlement_id: int) -> SettlementRow | None:
        """One settlement, or ``None``."""
        async with self._db.execute("SELECT * FROM settlements WHERE id = ?",
                                    (settlement_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else _settlement(row)

    @_serialised
    async def close_settlement(self, settlement_id: int, status: str) -> bool:
        """Refuse or expire an open settlement; False if it was no longer open."""
        cur = await self._db.execute(
            "UPDATE settlements SET status = ? WHERE id = ? AND status = 'open'",
            (status, settlement_id))
        return cur.rowcount == 1

    @_serialised
    async def all_entries(self, guild_id: int) -> int:
        """How many ledger lines the server has."""
        async with self._db.execute("SELECT COUNT(*) FROM ledger WHERE guild_id = ?",
                                    (guild_id,)) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------------ history and replay

    @_serialised
    async def finished_games(
        self, guild_id: int, user_id: int, *, offset: int = 0, limit: int = 10,
    ) -> tuple[list[tuple[GameRow, str | None]], int]:
        """A page of the user's finished games in the server, the latest finished first, each
        with the last entry of its move log (``claim`` tells a game lost on time from a
        resignation), and how many there are in all. Damaged rows are skipped."""
        where = ("FROM games WHERE guild_id = ? AND status = 'finished' AND "
                 "(player0_id = ? OR player1_id = ?)")
        args = (guild_id, user_id, user_id)
        async with self._db.execute(f"SELECT COUNT(*) {where}", args) as cur:
            row = await cur.fetchone()
        total = int(row[0]) if row else 0
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS}, (SELECT move FROM moves m WHERE m.game_id = games.id "
            f"ORDER BY seq DESC LIMIT 1) AS last_move {where} "
            "ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
            (*args, max(0, limit), max(0, offset)),
        ) as cur:
            rows = await cur.fetchall()
        out = []
        for r in rows:
            try:
                out.append((_game(r), r["last_move"]))
            except StorageError:
                continue
        return out, total


def _owned(shards: ShardSet | None) -> str:
    return "1 = 1" if shards is None else shards.sql()


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
        stake_cents=int(row["stake_cents"]),
        per_card_cents=int(row["per_card_cents"]),
        currency=str(row["currency"]),
    )


_GAME_COLUMNS = (
    "games.*, (SELECT json_group_array(json_array(m.seq, m.seat, m.move)) FROM moves m "
    "WHERE m.game_id = games.id AND m.seq > games.state_version) AS later_moves"
)
"""What a ``GameRow`` is read from: the row and the moves saved after its snapshot."""


def _later_moves(row: aiosqlite.Row) -> tuple[tuple[int, str], ...]:
    entries = _loads(row["later_moves"], "move log")
    try:
        ordered = sorted((int(seq), int(seat), str(move)) for seq, seat, move in entries)
    except (TypeError, ValueError) as exc:
        raise StorageError("The saved move log is damaged.") from exc
    first, version = int(row["state_version"]), int(row["version"])
    if [seq for seq, _, _ in ordered] != list(range(first + 1, version + 1)):
        raise StorageError("The saved move log is damaged: moves are missing.")
    return tuple((seat, move) for _, seat, move in ordered)


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
        stake_cents=int(row["stake_cents"]),
        per_card_cents=int(row["per_card_cents"]),
        currency=str(row["currency"]),
        computer_level=str(row["computer_level"]),
        reminder_s=int(row["reminder_s"]),
        claim_s=int(row["claim_s"]),
        board_version=row["board_version"],
        claim_offered_at=row["claim_offered_at"],
        thread_id=row["thread_id"],
        result_message_id=row["result_message_id"],
        state_version=int(row["state_version"]),
        later_moves=_later_moves(row),
    )


def _ledger(row: aiosqlite.Row) -> LedgerRow:
    return LedgerRow(
        id=row["id"], guild_id=row["guild_id"], kind=row["kind"], debtor_id=row["debtor_id"],
        creditor_id=row["creditor_id"], amount_cents=row["amount_cents"],
        game_id=row["game_id"], rules=row["rules"], winner_id=row["winner_id"],
        margin=row["margin"], voids_id=row["voids_id"], note=row["note"],
        created_by=row["created_by"], created_at=row["created_at"],
    )


def _settlement(row: aiosqlite.Row) -> SettlementRow:
    return SettlementRow(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        payer_id=row["payer_id"], payee_id=row["payee_id"], amount_cents=row["amount_cents"],
        status=row["status"], created_at=row["created_at"], expires_at=row["expires_at"],
        ledger_id=row["ledger_id"],
    )


def _names(text: str) -> tuple[str, str]:
    names = _loads(text, "player names")
    if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise StorageError("The saved player names are damaged.")
    return (names[0], names[1])


def _private_file(path: Path) -> None:
    # The database holds every deal's seed (and so every hidden card): only the bot's own user
    # may read it. SQLite gives the -wal and -shm files the database file's mode, so creating
    # the file 0600 before SQLite opens it covers all three; an older file is tightened.
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if name.exists() and name.stat().st_mode & 0o077:
            name.chmod(0o600)


def _statements(script: str) -> Iterable[str]:
    # Split on complete statements (a trigger's body holds semicolons of its own).
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer
            buffer = ""
    if buffer.strip():
        yield buffer
