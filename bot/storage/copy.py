"""Copying a whole database into an empty one, table by table, and what a copy is checked by.

Used by ``python -m bot migrate`` (SQLite → PostgreSQL). The rows are copied as they are, ids
included, in an order that keeps every reference valid (a game before its moves, a ledger line
before the void and the settlement that name it), by the target's bulk load
(``Conn.copy_rows``: PostgreSQL's COPY), with the references between tables checked once at the
end (``Database.references_checked_after``); the targets' id counters are then moved past the
copied ids, so new rows don't collide with them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .interface import Conn, Database
from .schema import TABLES as DECLARED

__all__ = ["TABLES", "copy_tables", "ledger_pairs", "table_counts"]

TABLES: tuple[tuple[str, str], ...] = tuple((t.name, t.key) for t in DECLARED)
"""Every table of the bot's schema with its key, in an order that keeps references valid (the
declaration's order)."""

_IDENTITIES = tuple(t.name for t in DECLARED if t.has_identity)

BATCH = 5_000


async def table_counts(db: Database) -> dict[str, int]:
    """How many rows each of the bot's tables holds."""
    async with db.connection() as conn:
        return {table: int(await conn.fetchval(f"SELECT COUNT(*) FROM {table}") or 0)
                for table, _ in TABLES}


async def ledger_pairs(db: Database) -> dict[tuple[int, int, int], tuple[int, int]]:
    """(server, lower id, higher id) → (what the lower owes the higher summed from the ledger's
    lines, the same read from the running summary)."""
    async with db.connection() as conn:
        summed = await conn.fetchall(
            "SELECT guild_id, CASE WHEN debtor_id < creditor_id THEN debtor_id "
            "ELSE creditor_id END AS low, CASE WHEN debtor_id < creditor_id THEN creditor_id "
            "ELSE debtor_id END AS high, SUM(CASE WHEN debtor_id < creditor_id "
            "THEN amount_cents ELSE -amount_cents END) AS owed FROM ledger GROUP BY 1, 2, 3")
        kept = await conn.fetchall("SELECT guild_id, low_id, high_id, owed_cents "
                                   "FROM pair_balances")
    out = {(int(r[0]), int(r[1]), int(r[2])): (int(r[3]), 0) for r in summed}
    for r in kept:
        key = (int(r[0]), int(r[1]), int(r[2]))
        out[key] = (out.get(key, (0, 0))[0], int(r[3]))
    return out


async def copy_tables(source: Database, target: Database,
                      progress: Callable[[str], None] | None = None,
                      every: float = 10.0) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` (both migrated, the target empty) in one
    transaction of the target; how many rows of each table were copied. ``progress`` hears
    each table copied, and how far a long one is every ``every`` seconds."""
    copied: dict[str, int] = {}
    async with source.connection() as reader, target.transaction() as writer:
        async with target.references_checked_after(writer):
            for table, key in TABLES:
                copied[table] = await _copy_table(reader, writer, table, key, progress, every)
                if progress is not None:
                    progress(f"{table}: {copied[table]} rows")
        await target.reset_identities(writer, _IDENTITIES)
    return copied


async def _copy_table(reader: Conn, writer: Conn, table: str, key: str,
                      progress: Callable[[str], None] | None, every: float) -> int:
    first = await reader.fetchone(f"SELECT * FROM {table} LIMIT 1")
    if first is None:
        return 0
    columns = [str(c) for c in list(first.keys())]
    names = ", ".join(columns)
    count = 0
    last: tuple[object, ...] | None = None
    width = len(key.split(","))
    told = time.monotonic()
    while True:
        # Keyset pages, in key order (a reference always points to an earlier row).
        if last is None:
            rows = await reader.fetchall(
                f"SELECT {names} FROM {table} ORDER BY {key} LIMIT {BATCH}")
        else:
            rows = await reader.fetchall(
                f"SELECT {names} FROM {table} WHERE ({key}) > ({', '.join('?' * width)}) "
                f"ORDER BY {key} LIMIT {BATCH}", last)
        if not rows:
            return count
        await writer.copy_rows(table, columns, [tuple(r[c] for c in columns) for r in rows])
        count += len(rows)
        if progress is not None and time.monotonic() - told >= every:
            progress(f"{table}: {count:,} rows so far…")
            told = time.monotonic()
        last = tuple(rows[-1][k.strip()] for k in key.split(","))
