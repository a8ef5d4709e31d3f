"""All SQL of the bot, in one package: SQLite (the default) or PostgreSQL, one interface.

``await Storage.open(database)`` takes a SQLite file path (or ``sqlite:///path``) or a
``postgresql://`` URL, migrates the database and returns the storage. Nothing outside this
package touches a connection.

- ``rows``: the rows handed out, as frozen dataclasses, and the errors;
- ``settings_records``, ``challenge_records``, ``game_records``, ``ledger_records``,
  ``settlement_records``, ``standing_records``: the records of each capability, each one
  attribute of ``Storage`` (``storage.settings``, ``storage.challenges``, ``storage.games``,
  ``storage.ledger``, ``storage.settlements``, ``storage.standings``), ``season_records``
  (``storage.seasons``);
  ``settlement_records``, ``plan_records``, ``standing_records``: the records of each
  capability, each one attribute of ``Storage`` (``storage.settings``, ``storage.challenges``,
  ``storage.games``, ``storage.ledger``, ``storage.settlements``, ``storage.plans``,
  ``storage.standings``);
- ``schema``: the one declaration of the tables, their columns, keys and indexes, from which
  each backend's DDL for a new database, the copy's table order and the backup's table list
  come;
- ``migrations_sqlite``, ``migrations_postgres``: each backend's numbered migrations, the
  history an existing database is upgraded along;
- ``interface``: what the records may ask of a database; ``sqlite_driver`` and
  ``postgres_driver``: the two backends behind it (``db`` picks one)
  (where SQLite and PostgreSQL differ, the backend class says how, never an ``if``).
- ``sqlite_files``: the SQLite backend's whole-file operations, for backups (what a file holds,
  a consistent copy, a -wal folded back).

Every write that must not be applied twice is a compare-and-set, in any number of processes:
a challenge moves out of ``open`` once; a game's ``version`` goes up by exactly one per saved
move, in the same transaction as the move; a game's ledger line is written once (a unique
index). A move is saved (and on disk) before the player is told.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from ..shards import ShardSet
from . import copy
from .challenge_records import ChallengeRecords
from .db import Database, is_postgres_url, open_database, sqlite_path
from .errors import DatabaseUnavailable, ShardInUse
from .game_records import GameRecords
from .ledger_records import LedgerRecords
from .migrations_sqlite import SQLITE_SCHEMA_VERSION
from .plan_records import PlanRecords
from .rows import (
    DEFAULT_SETTINGS,
    SETTING_COLUMNS,
    ChallengeRow,
    GameEntry,
    GameRow,
    GameTerms,
    GuildSettings,
    LedgerRow,
    OwedExceeded,
    SeatRow,
    SettlementRow,
    StorageError,
)
from .season_records import SeasonPlace, SeasonRecords, SeasonRow
from .settings_records import SettingsRecords
from .settlement_records import SettlementRecords
from .standing_records import StandingRecords
from .tournament_records import TournamentRecords

__all__ = [
    "DEFAULT_SETTINGS",
    "SETTING_COLUMNS",
    "SQLITE_SCHEMA_VERSION",
    "ChallengeRow",
    "DatabaseUnavailable",
    "GameEntry",
    "GameRow",
    "GameTerms",
    "GuildSettings",
    "LedgerRow",
    "OwedExceeded",
    "SeasonPlace",
    "SeasonRow",
    "SeatRow",
    "SettlementRow",
    "ShardInUse",
    "Storage",
    "StorageError",
    "is_postgres_url",
    "sqlite_path",
]


def _count_words(count: int) -> str:
    return f"with SHARD_COUNT={count}" if count > 1 else "unsharded (SHARD_COUNT unset)"


class Storage:
    """The bot's database. Open with ``await Storage.open(database)``; close with
    ``close()``. Its records, one attribute per capability, share its database and clock."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self.clock = clock
        """Where timestamps come from (tests pass a fake clock)."""
        now = self._now
        self.settings = SettingsRecords(db, now)
        """A server's settings."""
        self.challenges = ChallengeRecords(db, now)
        """Invitations: challenges, challenges of three or four, open tables."""
        self.games = GameRecords(db, now)
        """Games and their moves."""
        self.ledger = LedgerRecords(db, now)
        """The money ledger's lines and the running summaries derived from them."""
        self.settlements = SettlementRecords(db, now)
        """Payments waiting for the payee's confirmation."""
        self.plans = PlanRecords(db, now)
        """Plans that settle a group in the fewest payments, and who accepted them."""
        self.standings = StandingRecords(db, now)
        """The leaderboard, a player's statistics and money over time, and ratings."""
        self.seasons = SeasonRecords(db, now)
        """A server's seasons, their final tables and whether their end was posted."""
        self.tournaments = TournamentRecords(db, now)
        """Tournaments: entrants, the games of their tables, their events."""

    def _now(self) -> float:
        # Through ``self.clock`` at each call, so that every record reads the one clock.
        return self.clock()

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._db.dialect

    @classmethod
    async def open(cls, database: str | Path, clock: Callable[[], float] = time.time
                   ) -> Storage:
        """Open (creating a SQLite file if needed) the database and migrate it."""
        db = await open_database(database)
        try:
            await db.migrate()
        except BaseException:
            await db.close()
            raise
        return cls(db, clock)

    async def close(self) -> None:
        """Close the database."""
        await self._db.close()

    async def claim_shards(self, shards: ShardSet) -> None:
        """Make sure no other process runs these shards on this database (it would do their
        housekeeping twice): PostgreSQL holds a lock per shard for as long as this storage is
        open, or the process lives, and every process holds its shard count. Raises
        ``ShardInUse`` naming a shard already taken, or another process's shard count. (On
        SQLite one process is all there is: ``dblock`` sees to it.)"""
        clash = await self._db.hold_locks(sorted(shards.ids), shards.count)
        if clash is None:
            return
        if clash.count is not None:
            raise ShardInUse(
                f"Another bot process on this database runs {_count_words(clash.count)}, this "
                f"one {_count_words(shards.count)}. Every process must use the same "
                "SHARD_COUNT, or the servers are split two ways and some are looked after "
                "twice: stop the others or fix SHARD_COUNT.")
        raise ShardInUse(
            f"Another bot process already runs shard {clash.shard} on this database. Run "
            f"each shard (0 to {shards.count - 1}) in exactly one process: stop the "
            "other one, or fix SHARD_IDS.")

    async def keep_shards(self) -> None:
        """After a database restart the shard locks are gone with the connection that held
        them: take them again. Raises ``ShardInUse`` if another process took one meanwhile
        (this process must then stop: both would do that shard's housekeeping)."""
        clash = await self._db.keep_locks()
        if clash is None:
            return
        if clash.count is not None:
            raise ShardInUse(
                "While the database was away another bot process started on it "
                f"{_count_words(clash.count)}: this process stops, so that the servers are "
                "split one way only.")
        raise ShardInUse(
            f"Another bot process took shard {clash.shard} while the database was away: this "
            "process stops, so that one process runs each shard.")

    async def trace(self, callback: Callable[[str], None] | None) -> None:
        """For benchmarks: call ``callback`` with each SQL statement sent from now on (one per
        row of a batch); ``None`` stops."""
        await self._db.trace(callback)

    async def copy_into(self, target: Storage, progress: Callable[[str], None] | None = None,
                        every: float = 10.0) -> dict[str, int]:
        """Copy every row into ``target`` (migrated and empty), in one transaction of the
        target; rows copied per table. ``progress`` hears each table copied, and how far a
        long one is every ``every`` seconds."""
        return await copy.copy_tables(self._db, target._db, progress, every)

    async def table_counts(self) -> dict[str, int]:
        """How many rows each of the bot's tables holds."""
        return await copy.table_counts(self._db)

    async def ledger_pairs(self) -> dict[tuple[int, int, int], tuple[int, int]]:
        """(server, lower id, higher id) → (what the lower owes the higher summed from the
        ledger's lines, the same from the running summary): the two agree in a sound
        database."""
        return await copy.ledger_pairs(self._db)

    async def schema_version(self) -> int:
        """The migration number the database is at (each backend numbers its own)."""
        return await self._db.schema_version()
