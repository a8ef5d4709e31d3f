"""The SQLite backend (the default): one aiosqlite connection shared by every coroutine,
serialised by a lock (a statement of one coroutine must never land inside another's open
transaction); a write transaction is ``BEGIN IMMEDIATE``, and the transactions of savers that
come together are committed as a group; WAL with ``synchronous=FULL``, so a commit is on disk
before it returns."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from .errors import DatabaseUnavailable, StorageError
from .interface import Conn, Row, ShardClash, Write
from .migrations_sqlite import migrate as migrate_sqlite
from .migrations_sqlite import schema_version as sqlite_version

__all__ = ["SqliteDatabase", "private_file", "sqlite_unavailable"]

_T = TypeVar("_T")


_SQLITE_UNAVAILABLE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the database file is read-only",
    sqlite3.SQLITE_IOERR: "the disk failed to read or write",
    sqlite3.SQLITE_CANTOPEN: "the database file can't be opened",
    sqlite3.SQLITE_BUSY: "the database is busy",
    sqlite3.SQLITE_LOCKED: "the database is locked",
}


def sqlite_unavailable(exc: BaseException) -> DatabaseUnavailable | None:
    """The ``DatabaseUnavailable`` a SQLite error stands for (a full disk, a read-only
    file...), or ``None`` for any other error."""
    if isinstance(exc, DatabaseUnavailable):
        return exc
    cause = exc.__cause__ if isinstance(exc, StorageError) else exc
    if isinstance(cause, sqlite3.Error):
        code = getattr(cause, "sqlite_errorcode", None)
        if code is not None and code & 0xFF in _SQLITE_UNAVAILABLE:
            return DatabaseUnavailable(_SQLITE_UNAVAILABLE[code & 0xFF], str(cause))
    return None


@contextlib.contextmanager
def _sqlite_faults() -> Iterator[None]:
    try:
        yield
    except (sqlite3.Error, StorageError) as exc:
        unavailable = sqlite_unavailable(exc)
        if unavailable is None or unavailable is exc:
            raise
        raise unavailable from exc



class _Sqlite3Connection(sqlite3.Connection):
    """sqlite3's connection, whose instance takes attributes: a test replaces its ``execute``
    to raise what a failing disk raises (the statements run through it, on aiosqlite's
    thread)."""


def _on_thread(db: aiosqlite.Connection, work: Callable[[sqlite3.Connection], _T]) -> Awaitable[_T]:
    """Run ``work`` with the connection on aiosqlite's thread: ONE hop there and back for all
    it does. aiosqlite's own methods take a hop each (a cursor's execute, its fetch, its close:
    three for a read), and a hop costs the event loop more than a small statement costs SQLite.
    The work is queued in order with aiosqlite's own calls (``Connection._execute``, the queue
    every one of them goes through), and runs even if the caller is cancelled meanwhile."""
    return cast("Awaitable[_T]", db._execute(work, db._conn))  # type: ignore[no-untyped-call]


def _statement(sql: str, args: tuple[Any, ...], take: Callable[[sqlite3.Cursor], _T]
               ) -> Callable[[sqlite3.Connection], _T]:
    """One statement and what ``take`` reads of its cursor, the cursor closed after."""
    def work(raw: sqlite3.Connection) -> _T:
        cur = raw.execute(sql, args)
        try:
            return take(cur)
        finally:
            cur.close()
    return work


def _rowcount(cur: sqlite3.Cursor) -> int:
    return cur.rowcount


def _run(sql: str, args: tuple[Any, ...]) -> Callable[[sqlite3.Connection], int]:
    return _statement(sql, args, _rowcount)


def _script(*statements: str) -> Callable[[sqlite3.Connection], None]:
    """Statements without results, in order; the first that fails stops the rest."""
    def work(raw: sqlite3.Connection) -> None:
        for sql in statements:
            raw.execute(sql).close()
    return work


def _member(statements: Sequence[Write], *, begin: bool) -> Callable[[sqlite3.Connection], bool]:
    """A group member's whole write, for one hop to the database's thread: its savepoint (after
    the group's BEGIN if it opens the group), its statements in order and the savepoint's
    release; rolled back to the savepoint if a statement fails or changes another number of
    rows than it must (False then)."""
    def work(raw: sqlite3.Connection) -> bool:
        if begin:
            raw.execute("BEGIN IMMEDIATE").close()
        raw.execute("SAVEPOINT member").close()
        try:
            written = all(_written(raw, statement) for statement in statements)  # stops early
            if not written:
                raw.execute("ROLLBACK TO member").close()
            raw.execute("RELEASE member").close()
        except BaseException:
            with contextlib.suppress(Exception):  # gone if the error ended the transaction
                raw.execute("ROLLBACK TO member").close()
                raw.execute("RELEASE member").close()
            raise
        return written
    return work


def _written(raw: sqlite3.Connection, statement: Write) -> bool:
    if statement.many:
        raw.executemany(statement.sql, statement.args).close()
        return True
    cur = raw.execute(statement.sql, tuple(statement.args))
    try:
        return statement.must_change in (None, cur.rowcount)
    finally:
        cur.close()


def _outcome_read(task: asyncio.Future[Any]) -> None:
    # A write whose caller was cancelled: its failure is not reported as never retrieved.
    if not task.cancelled():
        task.exception()


class _SqliteConn:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        return await _on_thread(self._db, _run(sql, tuple(args)))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        def work(raw: sqlite3.Connection) -> None:
            raw.executemany(sql, rows).close()
        await _on_thread(self._db, work)

    async def copy_rows(self, table: str, columns: Sequence[str],
                        rows: Sequence[Sequence[Any]]) -> None:
        marks = ", ".join("?" * len(columns))
        await self.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    async def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        row = await _on_thread(self._db, _statement(sql, tuple(args), sqlite3.Cursor.fetchone))
        return cast("Row | None", row)

    async def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        rows = await _on_thread(self._db, _statement(sql, tuple(args), sqlite3.Cursor.fetchall))
        return cast("list[Row]", rows)

    async def fetchtuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        params = tuple(args)

        def work(raw: sqlite3.Connection) -> list[tuple[Any, ...]]:
            cur = raw.cursor()
            try:
                cur.row_factory = None  # plain tuples, made by sqlite3 itself: no Row objects
                cur.execute(sql, params)
                return cast("list[tuple[Any, ...]]", cur.fetchall())
            finally:
                cur.close()
        return await _on_thread(self._db, work)

    async def fetchval(self, sql: str, args: Sequence[Any] = ()) -> Any:
        row = await self.fetchone(sql, args)
        return None if row is None else row[0]

    async def lock_ledger(self, guild_id: int) -> None:
        return None  # BEGIN IMMEDIATE already holds the database's one write lock


class SqliteDatabase:
    """One aiosqlite connection, serialised, with group commit.

    Every commit waits for the WAL's fsync (``synchronous=FULL``), and under load that wait,
    one transaction after another on the one connection, was what kept a move's ✅ waiting
    (1,000 games: a move's save took 2.2 s at p95, 0.1 s once commits no longer waited for the
    disk). So a transaction that ends while others wait for the connection does not commit
    alone: the next ones run in the same SQLite transaction, each in a savepoint of its own (a
    failure rolls back its own statements only), and one commit makes the group durable,
    after ``GROUP_MAX`` members or ``GROUP_WAIT`` seconds at most. Each member's
    ``transaction()`` block returns only once the group's commit is done, so a move is still
    acknowledged only once it is on disk; if the commit fails, every member of the group
    raises. ``tests/bot/test_group_commit.py`` holds it to that under stress: hundreds of
    concurrent savers with failures, cancellations at random moments and failing commits.
    """

    dialect = "sqlite"

    GROUP_MAX = 64
    """Transactions committed together at most."""
    GROUP_WAIT = 0.05
    """Seconds a group stays open for more members at most."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._conn = _SqliteConn(db)
        self._lock = asyncio.Lock()
        self._waiting = 0
        """Callers waiting for the connection."""
        self._group: asyncio.Future[None] | None = None
        """The open group's commit, while an SQLite transaction is open."""
        self._group_size = 0
        self._group_opened = 0.0
        self._flusher: asyncio.Task[None] | None = None
        self.commits = 0
        """Commits made (a group counts once)."""

    @classmethod
    async def connect(cls, path: str) -> SqliteDatabase:
        if path != ":memory:":
            private_file(Path(path))
        db = await aiosqlite.connect(path, isolation_level=None, factory=_Sqlite3Connection)
        db.row_factory = aiosqlite.Row
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            # Each commit waits for the WAL's fsync: a move is acknowledged only once it is on
            # disk (NORMAL would lose the last commits on a power cut). FULL is SQLite's
            # default; it is set here so that no build or distribution default can weaken it.
            await db.execute("PRAGMA synchronous=FULL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
        except BaseException:
            await db.close()
            raise
        return cls(db)

    async def _acquire(self) -> None:
        self._waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1

    async def _commit_group(self) -> None:
        """Commit the open group, if any. The commit runs to its end and tells the members how
        it went even if the caller is cancelled meanwhile (the statement is queued already)."""
        group, self._group = self._group, None
        if group is not None:
            await asyncio.shield(asyncio.ensure_future(self._commit(group)))

    async def _commit(self, group: asyncio.Future[None]) -> None:
        try:
            await _on_thread(self._db, _script("COMMIT"))
        except Exception as exc:
            with contextlib.suppress(Exception):
                await _on_thread(self._db, _script("ROLLBACK"))
            failed = StorageError(f"the commit failed: {exc}")
            failed.__cause__ = exc
            group.set_exception(sqlite_unavailable(failed) or failed)
            group.exception()  # retrieved, whether or not a member still waits for it
        else:
            self.commits += 1
            group.set_result(None)

    async def _end_turn(self) -> None:
        """Release the connection, committing the open group unless others will join it."""
        try:
            loop = asyncio.get_running_loop()
            group = self._group
            if group is not None:
                if (not self._waiting or self._group_size >= self.GROUP_MAX
                        or loop.time() - self._group_opened >= self.GROUP_WAIT):
                    await self._commit_group()
                elif self._flusher is None or self._flusher.done():
                    # Should those waiting give up, the group is committed all the same.
                    self._flusher = loop.create_task(self._commit_later())
        finally:
            self._lock.release()

    async def _commit_later(self) -> None:
        # Whatever group is open by then: an earlier one's flusher, still waiting, is the
        # one a later group relies on (no second flusher is started while one waits).
        await asyncio.sleep(self.GROUP_WAIT)
        await self._acquire()
        try:
            await self._commit_group()
        finally:
            self._lock.release()

    async def _leave(self) -> None:
        """A member that failed (or was cancelled): its statements are undone, the others'
        stay. Statements already queued run first, in order, so this comes after them."""
        try:
            with contextlib.suppress(Exception):
                await _on_thread(self._db, _script("ROLLBACK TO member", "RELEASE member"))
            self._check_group()
        finally:
            await self._end_turn()

    def _check_group(self) -> None:
        """Some errors end SQLite's whole transaction, not just a savepoint (a full disk, an
        I/O error, RAISE(ROLLBACK)): the open group's work is gone with it. Its members are
        told so, and the next transaction begins a new one (a savepoint outside a transaction
        would begin one of its own, and its RELEASE commit it, unseen by the group)."""
        group = self._group
        if group is not None and not self._db.in_transaction:
            self._group = None
            group.set_exception(StorageError(
                "the transaction was rolled back by an error of another that shared it"))
            group.exception()  # retrieved, whether or not a member still waits for it

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[Conn]:
        with _sqlite_faults():
            async with self._connection() as conn:
                yield conn

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        # A full disk or a read-only file is DatabaseUnavailable: nothing of the failed
        # transaction is kept (its savepoint, or the whole group, is rolled back).
        with _sqlite_faults():
            async with self._transaction() as conn:
                yield conn

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[Conn]:
        await self._acquire()
        try:
            await self._commit_group()  # what follows is in autocommit mode
        except BaseException:
            self._lock.release()
            raise
        try:
            yield self._conn
        finally:
            self._lock.release()

    def _join_group(self) -> tuple[asyncio.Future[None], bool]:
        """The open group, joined, or a new one (whose first hop then begins SQLite's
        transaction), and whether it is new. Set before any statement is awaited: a caller
        cancelled while waiting leaves the statement queued, and it runs all the same."""
        self._check_group()
        if self._group is None:
            loop = asyncio.get_running_loop()
            self._group = loop.create_future()
            self._group_size, self._group_opened = 1, loop.time()
            return self._group, True
        self._group_size += 1
        return self._group, False

    def _first_hop_failed(self, opened: bool) -> None:
        if opened and not self._db.in_transaction:  # BEGIN failed: no group was opened
            self._group = None

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Conn]:
        await self._acquire()
        try:
            group, opened = self._join_group()
            begin = ("BEGIN IMMEDIATE",) if opened else ()
            try:  # one hop for both
                await _on_thread(self._db, _script(*begin, "SAVEPOINT member"))
            except Exception:
                self._first_hop_failed(opened)
                raise
        except BaseException:
            await self._leave()
            raise
        try:
            yield self._conn
        except BaseException:
            await self._leave()
            raise
        try:
            await _on_thread(self._db, _script("RELEASE member"))
        except BaseException:
            await self._leave()
            raise
        await self._end_turn()
        # Durable once the group's commit is done (shielded: a member cancelled meanwhile
        # must not cancel the others' commit).
        await asyncio.shield(group)

    async def write(self, statements: Sequence[Write]) -> bool:
        with _sqlite_faults():
            await self._acquire()
            # From here on the write runs to its end (its one hop, then the turn passed on)
            # whether or not its caller is cancelled meanwhile.
            member = asyncio.ensure_future(self._write(tuple(statements)))
            member.add_done_callback(_outcome_read)
            written, group = await asyncio.shield(member)
            await asyncio.shield(group)  # durable once the group's commit is done
            return written

    async def _write(self, statements: Sequence[Write]) -> tuple[bool, asyncio.Future[None]]:
        try:
            group, opened = self._join_group()
            try:
                written = await _on_thread(self._db, _member(statements, begin=opened))
            except Exception:
                self._first_hop_failed(opened)
                self._check_group()
                raise
            return written, group
        finally:
            await self._end_turn()

    async def close(self) -> None:
        await self._acquire()
        try:
            await self._commit_group()
            if self._flusher is not None:
                self._flusher.cancel()  # nothing left for it to commit
            await self._db.close()
        finally:
            self._lock.release()

    async def hold_locks(self, keys: Iterable[int], count: int) -> ShardClash | None:
        return None  # one process per SQLite file: dblock sees to it

    async def keep_locks(self) -> ShardClash | None:
        return None

    async def migrate(self) -> None:
        # Each migration takes its own transactions (some must run outside one).
        async with self.connection() as conn:
            await migrate_sqlite(conn)

    async def schema_version(self) -> int:
        async with self.connection() as conn:
            return await sqlite_version(conn)

    later_moves_sql = (
        "(SELECT json_group_array(json_array(m.seq, m.seat, m.move)) FROM moves m "
        "WHERE m.game_id = games.id AND m.seq > games.state_version)")

    @contextlib.asynccontextmanager
    async def references_checked_after(self, conn: Conn) -> AsyncIterator[None]:
        yield  # SQLite checks each row as it is written, as always

    async def bulk_insert(self, table: str, insert: str,
                          rows: Iterable[Sequence[Any]]) -> None:
        async with self.connection() as conn:
            cache = await conn.fetchval("PRAGMA cache_size")
            # Sorting a million index keys wants memory: SQLite's default page cache is 2 MB.
            await conn.execute("PRAGMA cache_size=-262144")
            await conn.execute("PRAGMA foreign_keys=OFF")  # no effect inside a transaction
            try:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    # Building an index once from sorted keys is quicker than growing it by
                    # random inserts (300,000 ledger lines: 4.6 s against 6.3 s): the table's
                    # indexes are dropped and built again around the inserts, in the same
                    # transaction.
                    indexes = [(str(r["name"]), str(r["sql"])) for r in await conn.fetchall(
                        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
                        "tbl_name = ? AND sql IS NOT NULL", (table,))]
                    for name, _ in indexes:
                        await conn.execute(f'DROP INDEX "{name}"')
                    await conn.executemany(insert, rows)
                    for _, sql in indexes:  # a unique index refuses a duplicate here
                        await conn.execute(sql)
                    await conn.execute("COMMIT")
                except BaseException:
                    await conn.execute("ROLLBACK")
                    raise
            finally:
                await conn.execute("PRAGMA foreign_keys=ON")
                await conn.execute(f"PRAGMA cache_size={int(cache) if cache else -2000}")

    async def reset_identities(self, conn: Conn, tables: Iterable[str]) -> None:
        return None  # an INTEGER PRIMARY KEY goes on from the largest id in the table

    async def trace(self, callback: Callable[[str], None] | None) -> None:
        # sqlite3's own hook: every statement SQLite runs, one per row of an executemany.
        await self._db.set_trace_callback(callback)  # type: ignore[arg-type]  # None stops


def private_file(path: Path) -> None:
    """Create the SQLite file 0600 (and tighten an older one's, with its -wal and -shm)."""
    # The database holds every deal's seed (and so every hidden card): only the bot's own user
    # may read it. SQLite gives the -wal and -shm files the database file's mode, so creating
    # the file 0600 before SQLite opens it covers all three; an older file is tightened.
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if name.exists() and name.stat().st_mode & 0o077:
            name.chmod(0o600)
