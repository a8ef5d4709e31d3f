"""The storage's two errors."""

from __future__ import annotations

__all__ = ["OwedExceeded", "ShardInUse", "StorageError"]


class StorageError(RuntimeError):
    """A row that can't be read back (damaged data) or a database that can't be opened."""


class OwedExceeded(ValueError):
    """A settlement larger than what is owed in its direction (it would flip the debt)."""

    def __init__(self, owed_cents: int) -> None:
        super().__init__(f"only {owed_cents} cents are owed")
        self.owed_cents = owed_cents


class ShardInUse(StorageError):
    """Another process already runs one of this process's shards on the database."""
