"""One bot process per SQLite database.

Two bot processes on one SQLite file would both run the housekeeping (two reminders, two claim
offers, two computer players moving in one game) and fight over the file's write lock. SQLite is
the one-process setup; several processes need a database server that they share.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from bot.storage.db import is_postgres_url, sqlite_path

__all__ = ["DatabaseInUse", "hold_database"]


class DatabaseInUse(RuntimeError):
    """Another bot process already runs on this SQLite database."""


def hold_database(path: str | Path) -> IO[bytes] | None:
    """Take the database's process lock for as long as the returned file stays open.

    ``None`` for an in-memory database and for PostgreSQL (which many processes share). The
    lock is the kernel's (released when the process ends, even by ``kill -9``), taken on a
    ``.lock`` file beside the database.
    """
    if is_postgres_url(str(path)):
        return None
    path = sqlite_path(path)
    if path == ":memory:":
        return None
    lock_path = Path(f"{path}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle = os.fdopen(os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600), "r+b")
    try:
        # A record lock belongs to the process: the bot restarting inside one process (as the
        # tests do) takes it again; another process can't.
        fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise DatabaseInUse(
            f"Another bot process is already running on {path}. A SQLite database serves one "
            "bot process: stop the other one, or, to run several processes (shards), use "
            "PostgreSQL, which they can share.") from None
    return handle
