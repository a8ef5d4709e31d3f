"""Tests' own access to a database, from outside the bot's storage (as a person with a SQL
shell would have): to damage a row, or to look at what was written."""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.storage.db import is_postgres_url, sqlite_path
from bot.storage.postgres_driver import numbered


async def run_sql(database: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run one statement on ``database`` (a SQLite path or a PostgreSQL URL) on a connection
    of its own; the rows it returns."""
    if is_postgres_url(database):
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(database)
        try:
            return [tuple(r) for r in await conn.fetch(numbered(sql), *args)]
        finally:
            await conn.close()
    raw = sqlite3.connect(sqlite_path(database), isolation_level=None)
    try:
        return list(raw.execute(sql, args).fetchall())
    finally:
        raw.close()
