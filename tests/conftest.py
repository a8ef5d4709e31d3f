"""Fixtures every test folder may use: a clean PostgreSQL schema per test.

The PostgreSQL tests run against ``TEST_DATABASE_URL`` (``.ci/run`` sets it, so CI always runs
them, and fails if the server is down). Without it they try the usual local server at
``127.0.0.1:5432`` and, if none answers, are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


def _reachable(url: str) -> str | None:
    """None if PostgreSQL answers at ``url``, else why not."""
    import asyncpg

    async def probe() -> None:
        conn = await asyncpg.connect(url, timeout=3)
        await conn.close()

    try:
        asyncio.run(probe())
    except Exception as exc:  # any failure to connect is a reason to skip
        return f"{type(exc).__name__}: {exc}"
    return None


_probe: dict[str, str | None] = {}


def postgres_base_url() -> str:
    """The server the PostgreSQL tests use; skips the test if there is none (and none is
    required)."""
    required = os.environ.get("TEST_DATABASE_URL", "").strip()
    url = required or DEFAULT_URL
    if url not in _probe:
        _probe[url] = _reachable(url)
    problem = _probe[url]
    if problem is not None:
        if required:
            pytest.fail(f"TEST_DATABASE_URL={url} is set but PostgreSQL isn't reachable: {problem}")
        pytest.skip(f"no PostgreSQL at {url} ({problem}); set TEST_DATABASE_URL to run these")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database of each backend: a SQLite file, then a PostgreSQL schema."""
    if request.param == "sqlite":
        yield str(tmp_path / "test.sqlite3")
    else:
        yield from _postgres_schema()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL of an empty schema of its own on the test server, dropped after the test."""
    yield from _postgres_schema()


def _postgres_schema() -> Iterator[str]:
    import asyncpg

    base = postgres_base_url()
    schema = f"t_{uuid.uuid4().hex[:12]}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(base)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in base else "?"
    try:
        # asyncpg passes query parameters it doesn't know as server settings.
        yield f"{base}{sep}search_path={schema}"
    finally:
        asyncio.run(run(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture
def private_postgres() -> Iterator[Any]:
    """A PostgreSQL server of the test's own (``bot.bench.pgserver``), to stop and start
    without any other test seeing it down. Skipped where the server's binaries are missing,
    failed instead where ``TEST_DATABASE_URL`` says the PostgreSQL tests must run (CI)."""
    from bot.bench.pgserver import PrivatePostgres, missing

    reason = missing()
    if reason is not None:
        if os.environ.get("TEST_DATABASE_URL"):  # CI: these tests must run
            pytest.fail(f"a private PostgreSQL server is needed and can't start: {reason}")
        pytest.skip(f"no private PostgreSQL server: {reason}")
    server = PrivatePostgres()
    server.start()
    try:
        yield server
    finally:
        server.remove()
