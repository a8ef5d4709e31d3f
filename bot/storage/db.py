"""The databases the storage runs on, behind one small interface (``interface.Database``):
``sqlite_driver`` (the default) and ``postgres_driver``, one module per backend.

SQL is written once, with ``?`` placeholders and the SQL that SQLite and PostgreSQL share.
Where the dialects differ, the difference is a member of the interface that each backend
class implements: its migrations, its SQL for the later moves of a game, its bulk load, what a
copy must do after loading rows. Nothing outside the two driver modules asks which backend it
is on. This module picks the backend a ``DATABASE`` setting names.
"""

from __future__ import annotations

from pathlib import Path

from .interface import Conn, Database, Row
from .postgres_driver import PostgresDatabase
from .sqlite_driver import SqliteDatabase

__all__ = ["Conn", "Database", "Row", "is_postgres_url", "open_database", "sqlite_path"]


def is_postgres_url(database: str) -> bool:
    """Whether ``DATABASE`` names a PostgreSQL server rather than a SQLite file."""
    return database.startswith(("postgresql://", "postgres://"))


def sqlite_path(database: str | Path) -> str:
    """The file of a SQLite ``DATABASE`` (a path, or ``sqlite:///path``)."""
    text = str(database)
    if text.startswith("sqlite:///"):
        return text[len("sqlite:///"):] or ":memory:"
    if text.startswith("sqlite://"):
        return text[len("sqlite://"):] or ":memory:"
    return text


async def open_database(database: str | Path) -> Database:
    """Connect to the database that ``DATABASE`` names."""
    if is_postgres_url(str(database)):
        return await PostgresDatabase.connect(str(database))
    return await SqliteDatabase.connect(sqlite_path(database))
