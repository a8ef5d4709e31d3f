"""Backups of the bot's SQLite database: a consistent copy while the bot runs, a check that a
file is a database of this bot, a restore that keeps what it replaces, and the daily automatic
copy the housekeeping loop takes.

A copy is taken with SQLite's online backup API, which reads one snapshot of the database (in
WAL mode the bot keeps writing meanwhile), and is written under a temporary name and renamed, so
a file with the final name is always whole. PostgreSQL has its own tools: for a
``postgresql://`` database every function here says which ``pg_dump`` or ``pg_restore`` command
to run instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot.storage import SQLITE_SCHEMA_VERSION, is_postgres_url
from bot.storage import sqlite_path as database_file
from bot.storage.schema import TABLES as DECLARED
from bot.storage.sqlite_files import FileError, copy_file, fold_wal, read_contents

from .dblock import hold_database

__all__ = [
    "BackupError",
    "DailyBackups",
    "DatabaseInfo",
    "InvalidDatabase",
    "RestoreResult",
    "UsePostgresTools",
    "backup",
    "check",
    "daily_backup",
    "is_postgres",
    "restore",
    "sqlite_path",
]

log = logging.getLogger(__name__)

TABLES: dict[str, int] = {t.name: t.since for t in DECLARED}
"""The bot's tables (the schema's declaration), each with the schema version that brought it:
a database at version N has every table of a version up to N."""

SQLITE_HEADER = b"SQLite format 3\x00"


class BackupError(Exception):
    """A backup or restore that can't be done; the message says why, in one polite line."""


class InvalidDatabase(BackupError):
    """The file is not a whole, readable database of this bot (the message says what is
    wrong)."""


class UsePostgresTools(BackupError):
    """The database is PostgreSQL: ``command`` is the ``pg_dump`` or ``pg_restore`` line to
    run instead."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


@dataclass(frozen=True)
class DatabaseInfo:
    """What a valid database file of this bot holds."""

    path: Path
    size: int
    """Bytes."""
    schema_version: int
    games: int
    ledger_lines: int

    def describe(self) -> str:
        """``"1.2 MB: 40 games, 120 ledger lines"``."""
        return (f"{_size(self.size)}: {_plural(self.games, 'game')}, "
                f"{_plural(self.ledger_lines, 'ledger line')}")


@dataclass(frozen=True)
class RestoreResult:
    """What ``restore`` did."""

    database: Path
    restored: DatabaseInfo
    """The database now in place."""
    kept: Path | None
    """Where the database it replaced was put (``None``: there was none)."""


# ------------------------------------------------------------------ which database


def is_postgres(database: str | Path) -> bool:
    """Whether ``DATABASE`` names a PostgreSQL server rather than a SQLite file."""
    return is_postgres_url(str(database))


def sqlite_path(database: str | Path) -> Path:
    """The SQLite file that ``DATABASE`` names (a path, or ``sqlite:///path``), as the storage
    reads it."""
    text = database_file(database)
    if text in ("", ":memory:"):
        raise BackupError("An in-memory database has nothing to back up or restore.")
    return Path(text)


LIBPQ_PARAMETERS = frozenset({
    "host", "hostaddr", "port", "dbname", "user", "passfile", "channel_binding",
    "connect_timeout", "client_encoding", "options", "application_name",
    "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
    "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode",
    "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode",
    "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "require_auth",
    "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib",
    "gssdelegation", "service", "target_session_attrs", "load_balance_hosts",
})
"""The URL parameters ``pg_dump`` understands (libpq's); asyncpg passes any other one to the
server as a setting, which libpq would refuse."""


def public_url(url: str) -> str:
    """``url`` as libpq reads it, without its password (from the user part or a ``password=``
    parameter): libpq then takes it from ``PGPASSWORD`` or ``~/.pgpass``, and it never reaches
    a terminal or a shell history. Server settings only asyncpg understands are left out."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k in LIBPQ_PARAMETERS])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _schemas(url: str) -> list[str]:
    # A ``search_path`` setting names the schema the bot's tables live in: dump that one.
    return [name.strip() for k, v in parse_qsl(urlsplit(url).query) if k == "search_path"
            for name in v.split(",") if name.strip()]


def _has_password(url: str) -> bool:
    parts = urlsplit(url)
    return parts.password is not None or any(
        k == "password" for k, _ in parse_qsl(parts.query, keep_blank_values=True))


def pg_dump_command(url: str, dest: str | Path) -> str:
    """The ``pg_dump`` line that backs up the PostgreSQL database at ``url`` into ``dest``."""
    schemas = "".join(f"--schema={shlex.quote(name)} " for name in _schemas(url))
    return (f"pg_dump --format=custom {schemas}--file={shlex.quote(str(dest))} "
            f"{shlex.quote(public_url(url))}")


def pg_restore_command(url: str, src: str | Path) -> str:
    """The ``pg_restore`` line that puts the ``pg_dump`` file ``src`` back into ``url``."""
    return (f"pg_restore --clean --if-exists --no-owner "
            f"--dbname={shlex.quote(public_url(url))} {shlex.quote(str(src))}")


def _password_note(url: str) -> str:
    if not _has_password(url):
        return ""
    return ("\nThe password is left out: give it in PGPASSWORD or ~/.pgpass, or type it when "
            "asked.")


# ------------------------------------------------------------------ checking a file


def check(path: str | Path) -> DatabaseInfo:
    """What the database file at ``path`` holds, if it is a whole database of this bot.

    Raises ``InvalidDatabase`` with the reason otherwise: no such file, not SQLite, cut short,
    damaged (SQLite's ``integrity_check``), another application's, or made by a newer bot.
    The file is opened read-only and never changed (beside a file with a -wal, SQLite may
    create the -shm index it reads that -wal through).
    """
    return _check(Path(path), str(path))


def _check(path: Path, label: str) -> DatabaseInfo:
    """``check``, naming the file ``label`` in its messages (a temporary copy is named after
    what it copies)."""
    if not path.exists():
        raise InvalidDatabase(f"There is no file at {label}.")
    if not path.is_file():
        raise InvalidDatabase(f"{label} is a folder, not a database file.")
    size = path.stat().st_size
    if size == 0:
        raise InvalidDatabase(f"{label} is empty (0 bytes), not a database.")
    with path.open("rb") as file:
        header = file.read(100)
    if not header.startswith(SQLITE_HEADER):
        raise InvalidDatabase(f"{label} is not a SQLite database (it lacks SQLite's header).")
    if len(header) < 100:
        raise InvalidDatabase(f"{label} is cut short ({size} bytes): an incomplete copy?")
    expected = _size_from_header(header)
    if expected is not None and expected > size:
        raise InvalidDatabase(
            f"{label} is cut short: its header says {expected} bytes, the file has {size} "
            "(an incomplete copy?).")
    try:
        contents = read_contents(path, wal=header[18] == 2)
    except FileError as exc:
        raise InvalidDatabase(f"{label} can't be read as a database ({exc}).") from None
    if contents.problems != ["ok"]:
        raise InvalidDatabase(f"{label} is damaged: SQLite's integrity check says "
                              f"{contents.problems[0]!r}.")
    version = _verify_schema(label, contents.version, contents.tables)
    return DatabaseInfo(path, size, version, contents.games, contents.ledger_lines)


def _verify_schema(label: str, version: int, tables: frozenset[str]) -> int:
    ours = {name for name, since in TABLES.items() if since <= max(1, version)}
    missing = sorted(ours - tables)
    if version > SQLITE_SCHEMA_VERSION and {"games", "ledger"} <= tables:
        raise InvalidDatabase(
            f"{label} was made by a newer bot (schema version {version}; this bot knows up to "
            f"{SQLITE_SCHEMA_VERSION}): update the bot before restoring it.")
    if not tables:
        raise InvalidDatabase(f"{label} is an empty SQLite database (it has no tables).")
    if missing:
        shown = ", ".join(missing[:4]) + (", …" if len(missing) > 4 else "")
        raise InvalidDatabase(
            f"{label} is not a database of this bot (it has no {shown} table"
            f"{'s' if len(missing) > 1 else ''}): another application's file?")
    if version < 1:
        raise InvalidDatabase(f"{label} has the bot's tables but no schema version "
                              "(PRAGMA user_version is 0): it wasn't made by this bot.")
    return version


def _size_from_header(header: bytes) -> int | None:
    # The header's page count is trustworthy only when its "version-valid-for" number equals
    # the change counter (every SQLite since 3.7.0 keeps them equal).
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages == 0 or header[92:96] != header[24:28]:
        return None
    return page_size * pages


# ------------------------------------------------------------------ copying


def _copy(source: Path, dest: Path, *, read_only: bool, wal: bool = False) -> None:
    """Copy the database ``source`` (one snapshot) into the new file ``dest`` (0600), through
    the storage's SQLite driver (``sqlite_files.copy_file``)."""
    fd = os.open(dest, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)
    try:
        copy_file(source, dest, read_only=read_only, wal=wal)
        _fsync(dest)
    except BaseException:
        _remove(dest)
        raise


def _temporary(beside: Path) -> Path:
    return beside.with_name(f".{beside.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")


def _remove(path: Path) -> None:
    for name in (path, Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a folder be synced
        _fsync(path)


def _place(tmp: Path, dest: Path, overwrite: bool) -> None:
    """Give the finished ``tmp`` the name ``dest`` in one step (never a half-written file under
    that name); without ``overwrite``, an existing ``dest`` is left alone."""
    if overwrite:
        os.replace(tmp, dest)
    else:
        try:
            os.link(tmp, dest)  # fails if dest exists, where a rename would replace it
        except FileExistsError:
            raise _exists(dest) from None
        except OSError:  # a filesystem without hard links
            if dest.exists():
                raise _exists(dest) from None
            os.rename(tmp, dest)
        else:
            tmp.unlink()
    _fsync_dir(dest.parent)


def _exists(dest: Path) -> BackupError:
    return BackupError(f"{dest} already exists; I left it as it was (--overwrite replaces it).")


def backup(database: str | Path, dest: str | Path, *, overwrite: bool = False,
           now: Callable[[], float] = time.time) -> DatabaseInfo:
    """Copy the SQLite database ``database`` into ``dest`` while the bot may be running.

    ``dest`` may be a folder, existing or ending in ``/`` (the copy is then named after the
    database and the time). The copy is one consistent snapshot, readable by the owner only,
    checked before it gets its name; an existing file is replaced only with ``overwrite``.
    Raises ``UsePostgresTools`` for a PostgreSQL database and ``BackupError`` when the copy
    can't be made.
    """
    if is_postgres(database):
        command = pg_dump_command(str(database), dest)
        raise UsePostgresTools(
            "The database is PostgreSQL: back it up with pg_dump (the bot may keep running):\n"
            f"    {command}{_password_note(str(database))}", command)
    source_path = sqlite_path(database)
    folder = str(dest).endswith(("/", os.sep))  # "backups/": a folder, even a new one
    dest = Path(dest)
    if folder or dest.is_dir():
        stamp = datetime.fromtimestamp(now()).strftime("%Y-%m-%d-%H%M%S")
        dest = dest / f"{source_path.stem}-{stamp}{source_path.suffix or '.sqlite3'}"
    if not source_path.is_file():
        raise BackupError(f"There is no database at {source_path} to back up.")
    if dest.exists() and not overwrite:
        raise _exists(dest)
    with contextlib.suppress(FileNotFoundError):
        if dest.resolve() == source_path.resolve():
            raise BackupError("A backup can't be written over the database itself.")
    dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = _temporary(dest)
    try:
        _copy(source_path, tmp, read_only=False)
        info = _check(tmp, str(source_path))
        _place(tmp, dest, overwrite)
    except FileError as exc:
        raise BackupError(f"The backup of {source_path} failed: {exc}.") from None
    except OSError as exc:
        raise BackupError(f"I couldn't write the backup {dest}: {exc.strerror or exc}.") \
            from None
    except InvalidDatabase as exc:
        raise BackupError(f"I didn't keep the copy: {exc}") from None
    finally:
        _remove(tmp)
    return replace(info, path=dest)


# ------------------------------------------------------------------ restoring


def restore(src: str | Path, database: str | Path,
            now: Callable[[], float] = time.time) -> RestoreResult:
    """Put the backup ``src`` in place of the SQLite database ``database``.

    ``src`` is checked first (``InvalidDatabase`` says why it can't be used; nothing changes).
    The bot must be stopped: while a bot process holds the database this raises
    ``DatabaseInUse``. The current database is not destroyed: it is renamed with the time
    (``….before-restore-YYYYMMDD-HHMMSS``), together with its -wal file, which may hold its
    last saved moves. The copy is taken with SQLite's backup API, readable by the owner only.
    """
    if is_postgres(database):
        command = pg_restore_command(str(database), src)
        raise UsePostgresTools(
            "The database is PostgreSQL: stop the bot, then restore a pg_dump file with "
            f"pg_restore:\n    {command}{_password_note(str(database))}", command)
    src = Path(src)
    target = sqlite_path(database)
    with contextlib.suppress(OSError):
        if target.exists() and src.resolve() == target.resolve():
            raise BackupError(f"{src} is the database itself; name a backup to restore.")
    check(src)
    kept: Path | None = None
    lock = hold_database(target)  # DatabaseInUse while a bot runs on it; kept to the end
    try:
        tmp = _temporary(target)
        try:
            _copy(src, tmp, read_only=True, wal=_is_wal_file(src))
            restored = _check(tmp, str(src))
            stamp = datetime.fromtimestamp(now()).strftime("%Y%m%d-%H%M%S")
            kept = _set_aside(target, target.with_name(f"{target.name}.before-restore-{stamp}"))
            try:
                os.rename(tmp, target)
            except BaseException:
                if kept is not None:
                    _move_set(kept, target)
                raise
            _fsync_dir(target.parent)
        except (FileError, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise BackupError(f"The restore from {src} failed ({reason}); the database was "
                              "left as it was.") from None
        except InvalidDatabase as exc:
            raise BackupError(f"The copy of {src} isn't valid, so nothing was changed: {exc}") \
                from None
        finally:
            _remove(tmp)
    finally:
        if lock is not None:
            lock.close()
    if kept is not None:
        _fold_wal(kept)
    return RestoreResult(target, replace(restored, path=target), kept)


def _is_wal_file(path: Path) -> bool:
    with path.open("rb") as file:
        header = file.read(20)
    return len(header) == 20 and header[18] == 2


def _set_aside(database: Path, aside: Path) -> Path | None:
    """Rename the database and its -wal and -journal files (which may hold saved changes) to
    ``aside``; its -shm (an index SQLite rebuilds from the -wal) is removed. ``None`` if there
    was no database."""
    base, n = aside, 1
    while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-journal")):  # same second
        n += 1
        aside = base.with_name(f"{base.name}-{n}")
    # A -wal left beside the new database would be replayed into it: it never stays behind,
    # even without its database (then it is moved, and nothing is reported as kept).
    existed = database.exists()
    _move_set(database, aside)
    with contextlib.suppress(FileNotFoundError):
        Path(f"{database}-shm").unlink()
    return aside if existed else None


def _move_set(database: Path, to: Path) -> None:
    for suffix in ("-wal", "-journal"):
        companion = Path(f"{database}{suffix}")
        if companion.exists():
            os.rename(companion, Path(f"{to}{suffix}"))
    if database.exists():
        os.rename(database, to)


def _fold_wal(path: Path) -> None:
    # Make the kept database one file again: opening it replays its -wal, and leaving WAL mode
    # writes the pages into the file. A damaged old database stays as it was, -wal and all.
    if not Path(f"{path}-wal").exists() and not Path(f"{path}-journal").exists():
        return
    try:
        fold_wal(path)
    except FileError as exc:
        log.warning("kept %s with its -wal file as it was (%s)", path, exc)


# ------------------------------------------------------------------ daily backups


def _daily_name(database: Path) -> tuple[str, re.Pattern[str]]:
    stem, suffix = database.stem, database.suffix or ".sqlite3"
    return (f"{stem}-{{day}}{suffix}",
            re.compile(rf"{re.escape(stem)}-(\d{{4}}-\d{{2}}-\d{{2}}){re.escape(suffix)}"))


def daily_backup(database: str | Path, keep: int, today: date) -> Path | None:
    """Today's automatic backup of the SQLite database, if not taken yet: into ``backups/``
    beside it, named with the date (``spite-malice-2026-12-01.sqlite3``); then only the newest
    ``keep`` of those files are kept (other files in that folder are never touched).

    Returns the new backup's path, or ``None`` when there was nothing to do (already taken
    today, ``keep`` is 0, or the database is PostgreSQL, which ``pg_dump`` backs up).
    """
    if keep <= 0 or is_postgres(database) or str(database) == ":memory:":
        return None
    path = sqlite_path(database)
    if not path.is_file():
        return None
    folder = path.parent / "backups"
    template, pattern = _daily_name(path)
    dest = folder / template.format(day=today.isoformat())
    if dest.exists():
        return None
    _remove_stale_temporaries(folder, time.time() - 3600)
    backup(path, dest)
    ours = sorted(p for p in folder.iterdir() if pattern.fullmatch(p.name))
    for old in ours[:-keep]:
        old.unlink()
    return dest


def _remove_stale_temporaries(folder: Path, before: float) -> None:
    # A copy cut off by a kill leaves its temporary file (never one with a backup's name).
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if re.fullmatch(r"\..+\.\d+\.\d+\.tmp(-journal)?", path.name):
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_mtime < before:
                    path.unlink()


class DailyBackups:
    """The housekeeping loop's daily backup: run in a thread (a copy of a large database takes
    seconds), at most once a day; a failure is logged once (not at every round) and tried again
    an hour later, and never stops the loop."""

    RETRY_S = 3600.0

    def __init__(self, database: str, keep: int, clock: Callable[[], float] = time.time) -> None:
        self.database = database
        self.keep = keep
        self.clock = clock
        self._done: date | None = None
        self._retry_at = 0.0
        self._failing: str | None = None

    async def run_due(self) -> Path | None:
        """Take today's backup if it is due; the new file's path, or ``None``."""
        now = self.clock()
        today = date.fromtimestamp(now)
        if self.keep <= 0 or self._done == today or now < self._retry_at:
            return None
        try:
            made = await asyncio.to_thread(daily_backup, self.database, self.keep, today)
        except Exception as exc:
            self._retry_at = now + self.RETRY_S
            if str(exc) != self._failing:
                log.error("the daily backup of %s failed (trying again hourly, logged once): "
                          "%s", self.database, exc)
                self._failing = str(exc)
            return None
        if self._failing is not None:
            log.info("the daily backup works again")
            self._failing = None
        self._done = today
        if made is not None:
            log.info("daily backup written: %s", made)
        return made


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
