"""The storage's errors."""

from __future__ import annotations

__all__ = ["DatabaseUnavailable", "OwedExceeded", "ShardInUse", "StorageError"]


class StorageError(RuntimeError):
    """A row that can't be read back (damaged data) or a database that can't be opened."""


class OwedExceeded(ValueError):
    """A settlement larger than what is owed in its direction (it would flip the debt)."""

    def __init__(self, owed_cents: int) -> None:
        super().__init__(f"only {owed_cents} cents are owed")
        self.owed_cents = owed_cents


class ShardInUse(StorageError):
    """Another process already runs one of this process's shards on the database."""


class DatabaseUnavailable(StorageError):
    """The database can't do the work now, though nothing is wrong with the data: the server
    is down or unreachable, the disk is full, the file is read-only. Nothing of the failed
    transaction was kept; the same work may succeed later."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}{f' ({detail})' if detail else ''}")
        self.reason = reason
