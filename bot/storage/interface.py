"""The storage's interface to a database: what the record modules may ask of a connection and
of a database. ``sqlite_driver`` and ``postgres_driver`` implement it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Conn", "Database", "Row", "ShardClash", "Write"]


@dataclass(frozen=True, slots=True)
class ShardClash:
    """Why a process may not run its shards on a database: another process holds ``shard``,
    or runs with another shard ``count``."""

    shard: int | None = None
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Write:
    """One statement of ``Database.write``: ``args`` its arguments, or with ``many`` a sequence
    of rows of arguments (the statement run once per row). With ``must_change``, the statement
    must change exactly that many rows, or nothing of the whole write is kept."""

    sql: str
    args: Sequence[Any] = ()
    many: bool = False
    must_change: int | None = None


class Row(Protocol):
    """A result row: by column name or position (``aiosqlite.Row`` and ``asyncpg.Record``)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Conn(Protocol):
    """One connection (or one transaction on it) of either database."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run a statement once per row of arguments."""
        ...

    async def copy_rows(self, table: str, columns: Sequence[str],
                        rows: Sequence[Sequence[Any]]) -> None:
        """Load ``rows`` (values of ``columns``, in that order) into ``table`` as they are,
        the fastest way the backend has: PostgreSQL's COPY, SQLite's INSERT per row. Defaults
        and constraints hold as for an INSERT (a duplicate key is refused)."""
        ...

    async def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or ``None``."""
        ...

    async def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Every row of a query."""
        ...

    async def fetchtuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a query as a plain tuple: for many rows of a few columns read by
        position (no row object made per row; on SQLite a third of ``fetchall``'s work)."""
        ...

    async def fetchval(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """The first column of the first row (``None`` if there is no row)."""
        ...

    async def lock_ledger(self, guild_id: int) -> None:
        """Inside a transaction: wait until no other process writes this server's ledger
        (until the transaction ends)."""
        ...


class Database(Protocol):
    """A database: connections for reads and single statements, transactions for the rest."""

    dialect: str
    """``"sqlite"`` or ``"postgresql"``."""

    def connection(self) -> contextlib.AbstractAsyncContextManager[Conn]:
        """A connection in autocommit mode (each statement commits on its own)."""
        ...

    def transaction(self) -> contextlib.AbstractAsyncContextManager[Conn]:
        """A write transaction: committed when the block ends, rolled back if it raises."""
        ...

    async def write(self, statements: Sequence[Write]) -> bool:
        """Run ``statements`` in order in one transaction, committed before this returns.
        False, and nothing written, if one changed another number of rows than its
        ``must_change``; an error rolls it all back. For the writes the bot makes at every move:
        on SQLite it is one hop to the database's thread where a ``transaction`` block takes one
        per statement and two more (each hop holds the one connection until the event loop
        has seen it back). A write whose caller is cancelled is kept whole or not at all."""
        ...

    async def close(self) -> None:
        """Close every connection."""
        ...

    async def trace(self, callback: Callable[[str], None] | None) -> None:
        """Call ``callback`` with each statement sent from now on (``None``: stop)."""
        ...

    async def hold_locks(self, keys: Iterable[int], count: int) -> ShardClash | None:
        """Hold this process's shard locks ``keys`` of ``count`` shards while the database is
        open; what another process holds that clashes (none are then taken), or ``None``."""
        ...

    async def keep_locks(self) -> ShardClash | None:
        """Hold the locks ``hold_locks`` took again if the database dropped them (a restart);
        what another process took meanwhile (none are then held), or ``None``."""
        ...

    async def migrate(self) -> None:
        """Bring the schema up to this code's version (this backend's numbered migrations)."""
        ...

    async def schema_version(self) -> int:
        """The migration number the database is at (each backend numbers its own)."""
        ...

    later_moves_sql: str
    """A scalar SQL expression, in a query of ``games``: the moves saved after the game's
    snapshot (``seq > games.state_version``) as one JSON text ``[[seq, seat, move], …]``."""

    async def bulk_insert(self, table: str, insert: str,
                          rows: Iterable[Sequence[Any]]) -> None:
        """Run ``insert`` once per row, all or nothing, as fast as the backend can load many
        rows into ``table`` (a unique index still refuses a duplicate)."""
        ...

    def references_checked_after(self, conn: Conn) -> contextlib.AbstractAsyncContextManager[None]:
        """Inside a transaction of ``conn``, around loading many rows: the references between
        tables are checked once, when the block ends, rather than row by row (PostgreSQL drops
        its foreign keys and adds them back, which checks every row in one pass each; a row
        pointing nowhere fails the transaction). SQLite checks as it always does."""
        ...

    async def reset_identities(self, conn: Conn, tables: Iterable[str]) -> None:
        """After rows were copied in with their ids: the next id each table hands out is
        past the largest copied."""
        ...
