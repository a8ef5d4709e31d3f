"""The SQLite and PostgreSQL schemas agree: the two migration lists are written by hand, so a
column, a key or an index added to one and forgotten in the other fails here.

Compared, after each backend's migrations: the tables, each column and whether it may be
NULL, the primary keys, the unique indexes (partial or not), the foreign keys, and the other
indexes by name and columns. Not compared: column types (the two spell them apart: INTEGER and
BIGINT, TEXT and JSON text) and CHECK constraints (SQLite keeps them only as text).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.storage import Storage
from bot.storage.interface import Conn

BOOKKEEPING = {"bot_schema"}
"""PostgreSQL's table of the schema version (SQLite keeps it in ``PRAGMA user_version``)."""


@dataclass(frozen=True)
class Table:
    columns: dict[str, bool]  # name -> NOT NULL
    primary_key: tuple[str, ...]
    unique: frozenset[tuple[tuple[str, ...], bool]]  # (columns, partial)
    foreign_keys: frozenset[tuple[str, str, str]]  # (column, table, column)
    indexes: frozenset[tuple[str, tuple[str, ...], bool]]  # (name, columns, partial)


async def _sqlite(conn: Conn) -> dict[str, Table]:
    tables = {}
    for (name,) in [tuple(r) for r in await conn.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]:
        cols = await conn.fetchall(f"PRAGMA table_info('{name}')")
        pk = tuple(str(r["name"]) for r in sorted((r for r in cols if r["pk"]),
                                                 key=lambda r: int(r["pk"])))
        unique, indexes = set(), set()
        for index in await conn.fetchall(f"PRAGMA index_list('{name}')"):
            columns = tuple(str(r["name"]) for r in await conn.fetchall(
                f"PRAGMA index_info('{index['name']}')"))
            if index["origin"] == "pk":
                continue
            if index["unique"]:
                unique.add((columns, bool(index["partial"])))
            else:
                indexes.add((str(index["name"]), columns, bool(index["partial"])))
        tables[str(name)] = Table(
            columns={str(r["name"]): bool(r["notnull"]) or bool(r["pk"]) for r in cols},
            primary_key=pk, unique=frozenset(unique),
            foreign_keys=frozenset((str(r["from"]), str(r["table"]), str(r["to"])) for r in
                                   await conn.fetchall(f"PRAGMA foreign_key_list('{name}')")),
            indexes=frozenset(indexes))
    return tables


async def _postgres(conn: Conn) -> dict[str, Table]:
    tables = {}
    for (name,) in [tuple(r) for r in await conn.fetchall(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema()")]:
        if name in BOOKKEEPING:
            continue
        cols = await conn.fetchall(
            "SELECT column_name, is_nullable FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ?", (name,))
        pk: tuple[str, ...] = ()
        unique, indexes = set(), set()
        for index in await conn.fetchall(
                "SELECT i.relname AS name, x.indisunique AS uniq, x.indisprimary AS pk, "
                "x.indpred IS NOT NULL AS partial, (SELECT array_agg(a.attname ORDER BY k.n) "
                "FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a "
                "ON a.attrelid = x.indrelid AND a.attnum = k.attnum) AS cols "
                "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
                "JOIN pg_class r ON r.oid = x.indrelid "
                "WHERE r.relname = ? AND r.relnamespace = current_schema()::regnamespace",
                (name,)):
            columns = tuple(str(c) for c in index["cols"])
            if index["pk"]:
                pk = columns
            elif index["uniq"]:
                unique.add((columns, bool(index["partial"])))
            else:
                indexes.add((str(index["name"]), columns, bool(index["partial"])))
        foreign_keys = await conn.fetchall(
            "SELECT kcu.column_name AS src, ccu.table_name AS tbl, ccu.column_name AS dst "
            "FROM information_schema.table_constraints tc "
            "JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = "
            "tc.constraint_name AND kcu.table_schema = tc.table_schema "
            "JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = "
            "tc.constraint_name AND ccu.table_schema = tc.table_schema "
            "WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_name = ? "
            "AND tc.table_schema = current_schema()", (name,))
        tables[str(name)] = Table(
            columns={str(r["column_name"]): r["is_nullable"] == "NO" for r in cols},
            primary_key=pk, unique=frozenset(unique),
            foreign_keys=frozenset((str(r["src"]), str(r["tbl"]), str(r["dst"]))
                                   for r in foreign_keys),
            indexes=frozenset(indexes))
    return tables


async def _schema(database: str) -> dict[str, Table]:
    storage = await Storage.open(database)
    try:
        async with storage._db.connection() as conn:
            if database.startswith("postgresql://"):
                return await _postgres(conn)
            return await _sqlite(conn)
    finally:
        await storage.close()


async def test_sqlite_and_postgresql_schemas_agree(tmp_path: Path, postgres_url: str) -> None:
    lite = await _schema(str(tmp_path / "parity.sqlite3"))
    pg = await _schema(postgres_url)
    assert sorted(lite) == sorted(pg)
    assert len(lite) >= 10 and "ledger" in lite and lite["ledger"].unique
    for name in sorted(lite):
        for part in ("columns", "primary_key", "unique", "foreign_keys", "indexes"):
            assert getattr(lite[name], part) == getattr(pg[name], part), (name, part)
