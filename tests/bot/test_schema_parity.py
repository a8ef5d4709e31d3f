"""The SQLite and PostgreSQL schemas agree, with each other and with the one declaration
(``bot/storage/schema.py``): a new database is made from the declaration, an old one upgraded
along each backend's numbered migrations (written by hand), so a column, a key or an index
added to one and forgotten in another fails here; and the copy and the backup list exactly the
declared tables, which no other module of ``bot`` lists.

Compared, after each backend's migrations: the tables, each column and whether it may be
NULL, the primary keys, the unique indexes (partial or not), the foreign keys, and the other
indexes by name and columns. Not compared: column types (the two spell them apart: INTEGER and
BIGINT, TEXT and JSON text) and CHECK constraints (SQLite keeps them only as text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.ops import backup
from bot.storage import (
    SQLITE_SCHEMA_VERSION,
    Storage,
    copy,
    is_postgres_url,
    migrations_postgres,
    migrations_sqlite,
    schema,
)
from bot.storage.db import open_database
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


# ------------------------------------------------------------------ the one declaration
# ``bot/storage/schema.py`` declares the schema; a new database is made from it, an existing
# one upgraded along the numbered migrations (the history). The two must end the same, to the
# column order, types, defaults, CHECKs, triggers and clustering; and everything that lists
# the tables (the copy of ``migrate``, the backup) must list the declared ones.


def _balanced(text: str, start: int) -> str:
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i + 1]
    return text[start:]


def _squeeze(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).replace("( ", "(").replace(" )", ")").strip()


async def _sqlite_detail(conn: Conn) -> dict[str, object]:
    out: dict[str, object] = {}
    for r in await conn.fetchall("SELECT type, name, tbl_name, sql FROM sqlite_master "
                                 "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"):
        sql = str(r["sql"] or "")
        if r["type"] == "table":
            checks = sorted(_squeeze(_balanced(sql, m.end() - 1))
                            for m in re.finditer(r"CHECK\s*\(", sql))
            out[f"table {r['name']}"] = (
                [tuple(c) for c in await conn.fetchall(f"PRAGMA table_info('{r['name']}')")],
                sorted(tuple(f)[2:5] for f in await conn.fetchall(
                    f"PRAGMA foreign_key_list('{r['name']}')")),
                checks, sql.rstrip().upper().endswith("WITHOUT ROWID"))
        else:
            out[f"{r['type']} {r['name']}"] = (r["tbl_name"], _squeeze(sql))
    return out


async def _postgres_detail(conn: Conn) -> dict[str, object]:
    schema = str(await conn.fetchval("SELECT current_schema()"))

    def local(text: object) -> str:
        return _squeeze(str(text).replace(f"{schema}.", ""))

    out: dict[str, object] = {}
    for (name,) in [tuple(r) for r in await conn.fetchall(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() ORDER BY 1")]:
        out[f"table {name}"] = (
            [tuple(r) for r in await conn.fetchall(
                "SELECT ordinal_position, column_name, data_type, is_nullable, column_default, "
                "is_identity FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND table_name = ? ORDER BY ordinal_position", (name,))],
            sorted((str(r[0]), local(r[1])) for r in await conn.fetchall(
                "SELECT c.contype::text, pg_get_constraintdef(c.oid) FROM pg_constraint c "
                "JOIN pg_class r ON r.oid = c.conrelid WHERE r.relname = ? "
                "AND r.relnamespace = current_schema()::regnamespace", (name,))),
            sorted(local(r[0]) for r in await conn.fetchall(
                "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                "AND tablename = ?", (name,))),
            sorted(local(r[0]) for r in await conn.fetchall(
                "SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class r "
                "ON r.oid = t.tgrelid WHERE NOT t.tgisinternal AND r.relname = ? "
                "AND r.relnamespace = current_schema()::regnamespace", (name,))))
    for r in await conn.fetchall(
            "SELECT proname, pg_get_functiondef(p.oid) FROM pg_proc p "
            "WHERE pronamespace = current_schema()::regnamespace"):
        out[f"function {r[0]}"] = local(r[1])
    return out


async def _detail(database: str, *, history: bool) -> dict[str, object]:
    db = await open_database(database)
    try:
        if history:  # along every numbered migration, as an old database was upgraded
            if is_postgres_url(database):
                async with db.transaction() as conn:
                    await migrations_postgres.migrate(conn, history=True)
            else:
                async with db.connection() as conn:
                    await migrations_sqlite.migrate(conn, history=True)
        else:
            await db.migrate()
        async with db.connection() as conn:
            if is_postgres_url(database):
                return await _postgres_detail(conn)
            return await _sqlite_detail(conn)
    finally:
        await db.close()


@pytest.fixture
def history_database(request: pytest.FixtureRequest, database: str, tmp_path: Path) -> str:
    """A second empty database of the same backend as ``database``."""
    if is_postgres_url(database):
        return str(request.getfixturevalue("postgres_url"))
    return str(tmp_path / "history.sqlite3")


async def test_a_new_database_equals_one_upgraded_along_every_migration(
        database: str, history_database: str) -> None:
    fresh = await _detail(database, history=False)
    upgraded = await _detail(history_database, history=True)
    assert sorted(fresh) == sorted(upgraded)
    for name in sorted(fresh):
        assert fresh[name] == upgraded[name], name
    assert f"table {schema.TABLES[0].name}" in fresh


async def test_the_database_has_exactly_the_declared_schema(database: str) -> None:
    storage = await Storage.open(database)
    try:
        async with storage._db.connection() as conn:
            found = await (_postgres(conn) if is_postgres_url(database) else _sqlite(conn))
    finally:
        await storage.close()
    assert sorted(found) == sorted(t.name for t in schema.TABLES)
    for t in schema.TABLES:
        assert found[t.name] == Table(
            columns={c.name: c.not_null or c.name in t.primary_key for c in t.columns},
            primary_key=t.primary_key,
            unique=frozenset((i.columns, i.where is not None)
                             for i in t.indexes if i.unique),
            foreign_keys=frozenset(
                (c.name, *c.references.replace(")", "").split(" (")) for c in t.columns
                if c.references is not None),  # type: ignore[misc]
            indexes=frozenset((i.name, i.columns, i.where is not None)
                              for i in t.indexes if not i.unique)), t.name


def test_copy_and_backup_cover_every_declared_table() -> None:
    declared = [t.name for t in schema.TABLES]
    assert [name for name, _ in copy.TABLES] == declared  # in the declaration's order
    assert dict(copy.TABLES) == {t.name: ", ".join(t.primary_key) for t in schema.TABLES}
    assert set(backup.TABLES) == set(declared)
    assert {t.name: t.since for t in schema.TABLES} == backup.TABLES
    assert max(backup.TABLES.values()) <= SQLITE_SCHEMA_VERSION


ROOT = Path(__file__).resolve().parents[2]
HISTORY = {"bot/storage/migrations_sqlite.py", "bot/storage/migrations_postgres.py"}
"""The numbered migrations: the upgrade history, never edited once released (they create the
tables of their time, and are not a declaration of the schema)."""


def table_listings(text: str, names: set[str]) -> list[str]:
    """Where ``text`` declares or lists the bot's tables: a ``CREATE TABLE`` of one, or three
    or more of them quoted within five lines (a list, a tuple or a dict of tables)."""
    found = [f"CREATE TABLE {m.group(1)}" for m in re.finditer(
        r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", text) if m.group(1) in names]
    lines = text.splitlines()
    quoted = [{n for n in re.findall(r"[\"'](\w+)[\"']", line) if n in names} for line in lines]
    for i in range(len(lines)):
        if quoted[i] and len(set().union(*quoted[i:i + 5])) >= 3:
            found.append(f"a list of tables at line {i + 1}")
            break
    return found


def test_the_tables_are_declared_in_one_place() -> None:
    names = {t.name for t in schema.TABLES}
    declaration = (ROOT / "bot/storage/schema.py").read_text()
    for name in names:
        assert len(re.findall(rf"\bTable\(\"{name}\"", declaration)) == 1, name
    listed = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        if where in HISTORY or where == "bot/storage/schema.py":
            continue
        found = table_listings(path.read_text(), names)
        if found:
            listed[where] = found
    assert listed == {}


def test_a_second_list_of_tables_is_found() -> None:
    # The check above can fail: the lists copy.py and backup.py kept before the declaration.
    names = {t.name for t in schema.TABLES}
    old_copy = ('TABLES = (\n    ("guild_settings", "guild_id"),\n    ("challenges", "id"),\n'
                '    ("challenge_seats", "challenge_id, position"),\n)')
    old_backup = 'TABLES = {\n    "guild_settings": 1, "challenges": 1, "games": 1,\n}'
    assert table_listings(old_copy, names) and table_listings(old_backup, names)
    assert table_listings("CREATE TABLE ledger (id INTEGER)", names)
    assert not table_listings('name="ledger", description="The ledger."', names)
