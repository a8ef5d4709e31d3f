"""The SQLite backend's whole-file operations, for backups: what a file holds, a consistent
copy of one, a -wal folded back into its file.

Synchronous (a backup runs in a thread or a command of its own) and on files that need not be
this bot's: each opens the file by URI, so that a missing file is an error rather than a new
empty database. Every SQLite error leaves as ``FileError``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FileContents", "FileError", "copy_file", "fold_wal", "read_contents"]


class FileError(Exception):
    """SQLite could not read or write the file (the message is SQLite's)."""


@dataclass(frozen=True, slots=True)
class FileContents:
    """What a SQLite file holds: ``problems`` of SQLite's integrity check (``["ok"]``: none;
    otherwise nothing else was read), its ``PRAGMA user_version``, its tables, and the rows of
    ``games`` and ``ledger`` (0 where the table is missing)."""

    problems: list[str]
    version: int = 0
    tables: frozenset[str] = frozenset()
    games: int = 0
    ledger_lines: int = 0


@contextlib.contextmanager
def _open(path: Path, *, read_only: bool, wal: bool = False) -> Iterator[sqlite3.Connection]:
    # A WAL file opened read-only would need its -shm index, which we must not create beside
    # someone's file: with no -wal beside it, nothing is pending, and ``immutable`` reads it as
    # it is.
    mode = "ro" if read_only else "rw"
    extra = ("&immutable=1" if read_only and wal and not Path(f"{path}-wal").exists() else "")
    try:
        with contextlib.closing(sqlite3.connect(
                f"{path.resolve().as_uri()}?mode={mode}{extra}", uri=True, timeout=30,
                isolation_level=None)) as db:
            yield db
    except sqlite3.Error as exc:
        raise FileError(str(exc)) from None


def read_contents(path: Path, *, wal: bool) -> FileContents:
    """Read ``path`` read-only (``wal``: its header says WAL mode) and never change it."""
    with _open(path, read_only=True, wal=wal) as db:
        problems = [str(row[0]) for row in db.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            return FileContents(problems)
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        tables = frozenset(str(row[0]) for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"))
        counts = {name: int(db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
                  for name in ("games", "ledger") if name in tables}
    return FileContents(problems, version, tables, counts.get("games", 0),
                        counts.get("ledger", 0))


def copy_file(source: Path, dest: Path, *, read_only: bool, wal: bool = False) -> None:
    """Copy the database ``source`` (one snapshot, while others may write it) into the
    existing empty file ``dest``, as one file in rollback-journal mode, so that the copy needs
    no -wal or -shm beside it."""
    with _open(source, read_only=read_only, wal=wal) as db:
        try:
            with contextlib.closing(sqlite3.connect(str(dest), isolation_level=None)) as target:
                db.backup(target)  # all pages in one step: one read transaction, one snapshot
                target.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as exc:
            raise FileError(str(exc)) from None


def fold_wal(path: Path) -> None:
    """Make the database ``path`` one file again: opening it replays its -wal, and leaving
    WAL mode writes the pages into the file."""
    with _open(path, read_only=False) as db:
        try:
            db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error as exc:
            raise FileError(str(exc)) from None
