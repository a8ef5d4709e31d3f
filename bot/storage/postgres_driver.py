"""The PostgreSQL backend: an asyncpg pool; each use takes a connection of its own, and a
transaction is PostgreSQL's (READ COMMITTED): the compare-and-set updates (``WHERE version =
?``, ``WHERE status = 'open'``) are decided by the row lock, and ledger writes take a
transaction-scoped advisory lock per server (``Conn.lock_ledger``), so two processes never
interleave the lines of one server. Commits are durable (``synchronous_commit`` is on by
default; the bot never turns it off). SQL is written with ``?`` placeholders; ``numbered``
turns them into asyncpg's ``$1``, ``$2``…"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .errors import DatabaseUnavailable, StorageError
from .interface import Conn, Row, ShardClash, Write
from .migrations_postgres import migrate as migrate_postgres
from .migrations_postgres import schema_version as postgres_version

__all__ = ["PostgresDatabase", "numbered", "postgres_unavailable", "scratch_schema"]

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1``, ``$2``… (none sits inside a string literal
    of this package's SQL; quoted text is skipped all the same)."""
    out: list[str] = []
    quoted = False
    n = 0
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(char)
    return "".join(out)


def _count(status: str) -> int:
    # asyncpg returns the command tag: "UPDATE 1", "INSERT 0 3", "DELETE 0".
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


_LEDGER_LOCK = 0x5350_4954  # "SPIT": the advisory-lock namespace of the ledger
_SHARD_LOCK = "SELECT hashtext('spite-malice-bot shards in ' || current_schema())"
"""The advisory-lock namespace of the shard locks: one per schema, since PostgreSQL's advisory
locks are one space per database, and two bots (or two test runs) may keep their tables in two
schemas of one database: each must claim shard 0 of its own tables, not of the other's."""

_COUNT_LOCK = "SELECT hashtext('spite-malice-bot shard count in ' || current_schema())"
"""The namespace of the shard-count locks: each process holds a shared lock on its
``SHARD_COUNT`` (1 unsharded), so a process started with another count sees it in ``pg_locks``:
two counts on one database split the servers two ways, and some would be looked after twice."""

_OTHER_COUNTS = """
SELECT DISTINCT objid::bigint FROM pg_locks
WHERE locktype = 'advisory' AND objsubid = 2 AND classid = $1::int::oid AND objid <> $2::int::oid
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY 1"""


class _PgConn:
    def __init__(self, conn: Any, tracer: Callable[[str], None] | None) -> None:
        self._conn = conn
        self._tracer = tracer

    def _sql(self, sql: str, times: int = 1) -> str:
        if self._tracer is not None:
            for _ in range(times):
                self._tracer(sql)
        return numbered(sql)

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return _count(await self._conn.execute(self._sql(sql), *args))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(r) for r in rows]
        await self._conn.executemany(self._sql(sql, len(batch)), batch)

    async def copy_rows(self, table: str, columns: Sequence[str],
                        rows: Sequence[Sequence[Any]]) -> None:
        # COPY … FROM STDIN in binary, the table found by the search path as any query's;
        # values are encoded by the same codecs as a query's arguments.
        self._sql(f"COPY {table} ({', '.join(columns)}) FROM STDIN")
        await self._conn.copy_records_to_table(table, records=rows, columns=list(columns))

    async def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        row: Row | None = await self._conn.fetchrow(self._sql(sql), *args)
        return row

    async def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return list(await self._conn.fetch(self._sql(sql), *args))

    async def fetchtuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await self._conn.fetch(self._sql(sql), *args)]

    async def fetchval(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return await self._conn.fetchval(self._sql(sql), *args)

    async def lock_ledger(self, guild_id: int) -> None:
        # Two int4 keys: the namespace and the server folded into 32 bits (two servers
        # sharing a lock only wait for each other, which is harmless).
        key = (guild_id ^ (guild_id >> 32)) & 0x7FFF_FFFF
        await self._conn.execute("SELECT pg_advisory_xact_lock($1, $2)", _LEDGER_LOCK, key)


def postgres_unavailable(exc: BaseException) -> DatabaseUnavailable | None:
    """The ``DatabaseUnavailable`` an error of asyncpg stands for (the server down,
    restarting or unreachable), or ``None`` for any other error."""
    import asyncpg  # type: ignore[import-untyped]

    if isinstance(exc, DatabaseUnavailable):
        return exc
    lost = (asyncpg.PostgresConnectionError, asyncpg.CannotConnectNowError,
            asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
            asyncpg.ConnectionDoesNotExistError, OSError, TimeoutError)
    # A connection left mid-way by the server's going (asyncpg 0.32 gave one out of its pool,
    # right after a restart, that still waited for the end of an error: "cannot switch to
    # state 15; another operation (2) is in progress") is as good as lost; the pool drops it
    # when it is given back (``_acquired``). asyncpg issue 784 tells of the same.
    stuck = isinstance(exc, asyncpg.InternalClientError) and "another operation" in str(exc)
    if isinstance(exc, lost) or stuck or (isinstance(exc, asyncpg.InterfaceError)
                                          and "closed" in str(exc)):
        return DatabaseUnavailable("the database server is not answering",
                                   f"{type(exc).__name__}: {exc}"[:200])
    return None


@contextlib.contextmanager
def _postgres_faults() -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        unavailable = postgres_unavailable(exc)
        if unavailable is None or unavailable is exc:
            raise
        raise unavailable from exc


class _NotWritten(Exception):
    """A statement of ``write`` changed another number of rows than it must: roll back."""


class PostgresDatabase:
    """An asyncpg pool."""

    dialect = "postgresql"

    ACQUIRE_TIMEOUT = 5.0
    """Seconds a use waits for a connection of the pool (a new one included) before the
    database counts as not answering."""
    CONNECT_TIMEOUT = 5.0
    """Seconds a new connection may take (asyncpg's default is 60)."""

    def __init__(self, pool: Any, url: str = "") -> None:
        self._pool = pool
        self._url = url
        self._tracer: Callable[[str], None] | None = None
        self._held: Any = None  # the connection that holds this process's shard locks
        self._held_keys: list[int] = []  # the shard locks it holds
        self._held_count: int | None = None  # the shard count whose shared lock it holds

    @classmethod
    async def connect(cls, url: str, settings: Mapping[str, str] | None = None
                      ) -> PostgresDatabase:
        import asyncpg

        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=10, timeout=cls.CONNECT_TIMEOUT,
                server_settings=dict(settings) if settings else None)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StorageError(
                f"Can't connect to the PostgreSQL database ({type(exc).__name__}: {exc})."
            ) from exc
        return cls(pool, url)

    @contextlib.asynccontextmanager
    async def _acquired(self) -> AsyncIterator[Any]:
        """A connection of the pool, given back after use.

        Given back, a connection is reset for its next user; should that fail, the pool closes
        it (it makes a new one when one is wanted) and raises. That is not a failure of what
        was done on it, which was committed or rolled back before: it is logged, not raised.
        (Seen right after a server restart: asyncpg 0.32's "cannot switch to state 15; another
        operation (2) is in progress", raised by the reset of a connection whose transaction
        had committed: a board saved, then reported as failed.)"""
        conn = await self._pool.acquire(timeout=self.ACQUIRE_TIMEOUT)
        try:
            yield conn
        finally:
            try:
                await self._pool.release(conn)
            except Exception as exc:
                log.warning("PostgreSQL: a connection could not be reset after use and was "
                            "closed (%s: %s)", type(exc).__name__, str(exc)[:200])

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[Conn]:
        with _postgres_faults():
            async with self._acquired() as conn:
                yield _PgConn(conn, self._tracer)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        # A server that is down, restarting or unreachable is DatabaseUnavailable: the
        # transaction was rolled back (or never began), and the pool connects again by itself
        # once the server is back.
        with _postgres_faults():
            async with self._acquired() as conn:
                if self._tracer is not None:
                    self._tracer("BEGIN")  # as SQLite's trace shows its BEGIN and COMMIT
                async with conn.transaction():
                    yield _PgConn(conn, self._tracer)
                if self._tracer is not None:
                    self._tracer("COMMIT")

    async def write(self, statements: Sequence[Write]) -> bool:
        try:
            async with self.transaction() as conn:
                for statement in statements:
                    if statement.many:
                        await conn.executemany(statement.sql, statement.args)
                        continue
                    changed = await conn.execute(statement.sql, statement.args)
                    if statement.must_change not in (None, changed):
                        raise _NotWritten
        except _NotWritten:
            return False
        return True

    async def close(self) -> None:
        if self._held is not None:
            await self._held.close()  # the shard locks go with it
            self._held, self._held_keys, self._held_count = None, [], None
        await self._pool.close()

    async def hold_locks(self, keys: Iterable[int], count: int) -> ShardClash | None:
        """Take the session locks ``keys`` (of the shard namespace) and a shared lock on the
        shard ``count`` on a connection of their own, held until ``close`` (or until this
        process dies: the server then drops them). What clashes (none are then taken): a key
        another process holds, or another process's shard count; ``None`` when all are held."""
        import asyncpg

        keys = list(keys)
        if self._held is not None and not await self._held_alive():
            await self._drop_held()
        with _postgres_faults():  # a server away is DatabaseUnavailable, as for any use
            if self._held is None:
                self._held = await asyncpg.connect(self._url, timeout=self.CONNECT_TIMEOUT)
                self._held_count = None
            clash = await self._take_count(count)
            if clash is not None:
                return clash
            taken = await self._take(keys)
            return None if taken is None else ShardClash(shard=taken)

    async def _take_count(self, count: int) -> ShardClash | None:
        space = int(await self._held.fetchval(_COUNT_LOCK))
        if self._held_count != count:
            if self._held_count is not None:
                await self._held.execute("SELECT pg_advisory_unlock_shared($1, $2)", space,
                                         self._held_count)
            # Taken before looking: of two processes starting at once, each sees the other.
            await self._held.execute("SELECT pg_advisory_lock_shared($1, $2)", space, count)
            self._held_count = count
        other = await self._held.fetchval(_OTHER_COUNTS, space, count)
        if other is None:
            return None
        await self._held.execute("SELECT pg_advisory_unlock_shared($1, $2)", space, count)
        self._held_count = None
        return ShardClash(count=int(other))

    async def _take(self, keys: list[int]) -> int | None:
        space = int(await self._held.fetchval(_SHARD_LOCK))
        taken: list[int] = []
        for key in keys:
            if not await self._held.fetchval("SELECT pg_try_advisory_lock($1, $2)",
                                             space, key):
                for done in taken:
                    await self._held.execute("SELECT pg_advisory_unlock($1, $2)",
                                             space, done)
                return key
            taken.append(key)
        self._held_keys = sorted(set(self._held_keys) | set(taken))
        return None

    async def keep_locks(self) -> ShardClash | None:
        """The session locks die with the connection that holds them: a server restart (or a
        cut connection) frees them for any other process. Check the connection; if it is gone,
        take the locks again on a new one. What another process took meanwhile (none are then
        held), or ``None``."""
        if not self._held_keys or self._held_count is None:
            return None
        if self._held is not None and await self._held_alive():
            return None
        # (The keys stay wanted while the server is still away: the next round tries again.)
        return await self.hold_locks(self._held_keys, self._held_count)

    async def _held_alive(self) -> bool:
        try:
            if self._held.is_closed():
                return False
            await asyncio.wait_for(self._held.fetchval("SELECT 1"), self.CONNECT_TIMEOUT)
        except Exception:
            return False
        return True

    async def _drop_held(self) -> None:
        """Forget the connection of the shard locks (dead: the locks went with it; they are
        still wanted, ``_held_keys``)."""
        with contextlib.suppress(Exception):
            await self._held.close(timeout=1)
        self._held = None

    async def migrate(self) -> None:
        # PostgreSQL's DDL is transactional: the whole migration, or none of it.
        async with self.transaction() as conn:
            await migrate_postgres(conn)

    async def schema_version(self) -> int:
        async with self.connection() as conn:
            return await postgres_version(conn)

    later_moves_sql = (
        "(SELECT COALESCE(json_agg(json_build_array(m.seq, m.seat, m.move)), '[]')::text "
        "FROM moves m WHERE m.game_id = games.id AND m.seq > games.state_version)")

    async def bulk_insert(self, table: str, insert: str,
                          rows: Iterable[Sequence[Any]]) -> None:
        async with self.transaction() as conn:
            await conn.executemany(insert, rows)

    @contextlib.asynccontextmanager
    async def references_checked_after(self, conn: Conn) -> AsyncIterator[None]:
        keys = await conn.fetchall(
            "SELECT conrelid::regclass::text AS tab, conname, pg_get_constraintdef(oid) AS def "
            "FROM pg_constraint WHERE contype = 'f' "
            "AND connamespace = to_regnamespace(current_schema()) ORDER BY 1, 2")
        for key in keys:
            await conn.execute(f"ALTER TABLE {key['tab']} DROP CONSTRAINT \"{key['conname']}\"")
        yield
        # Not reached when the block fails: the transaction is then rolled back, which brings
        # the foreign keys back as they were.
        import asyncpg

        for key in keys:
            try:
                await conn.execute(
                    f"ALTER TABLE {key['tab']} ADD CONSTRAINT \"{key['conname']}\" {key['def']}")
            except asyncpg.ForeignKeyViolationError as exc:
                raise StorageError(
                    f"Rows of {key['tab']} point to rows that don't exist "
                    f"({exc.detail or exc}).") from None

    async def reset_identities(self, conn: Conn, tables: Iterable[str]) -> None:
        for table in tables:
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")

    async def trace(self, callback: Callable[[str], None] | None) -> None:
        self._tracer = callback


@contextlib.asynccontextmanager
async def scratch_schema(url: str, prefix: str = "scratch") -> AsyncIterator[str]:
    """For benchmarks: a new empty schema on the PostgreSQL server at ``url``, as a URL of its
    own (asyncpg passes ``search_path`` to the server), dropped with everything in it after."""
    import asyncpg

    name = f"{prefix}_{os.getpid()}_{os.urandom(4).hex()}"
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}search_path={name}"
        finally:
            await conn.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await conn.close()
