"""Backups: a consistent copy of the SQLite database while it is written, the check that a file
is a database of this bot, restore (refused while a bot runs, keeping what it replaces), the
daily automatic backups, the PostgreSQL advice, and ``python -m bot backup/restore``."""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.ops.backup import (
    TABLES,
    BackupError,
    DailyBackups,
    InvalidDatabase,
    UsePostgresTools,
    backup,
    check,
    daily_backup,
    restore,
)
from bot.ops.dblock import DatabaseInUse
from bot.storage import SQLITE_SCHEMA_VERSION, GameEntry, Storage

ROOT = Path(__file__).resolve().parents[2]
G, ANN, BOB = 10, 101, 102


async def make_database(path: Path, games: int = 3) -> None:
    """A database with finished staked games (each with its ledger line), a game going on and a
    payment, written through the bot's storage."""
    storage = await Storage.open(path)
    try:
        for n in range(games):
            game_id = await storage.games.create_game(guild_id=G, channel_id=2, players=(ANN, BOB),
                                                      names=("Ann", "Bob"), rules={"name": "kings"},
                                                      state={"n": n})
            entry = GameEntry(G, game_id, BOB, ANN, 50 + n, "kings", ANN, n)
            assert await storage.games.save_moves(game_id, expected_version=0, state={"end": n},
                                                  moves=[(1, BOB, "resign")], finished=True,
                                                  result={"winner": 0}, turn_passed=True,
                                                  entry=entry)
        going = await storage.games.create_game(guild_id=G, channel_id=2, players=(ANN, BOB),
                                                names=("Ann", "Bob"), rules={"name": "kings"},
                                                state={"going": True})
        assert await storage.games.save_moves(going, expected_version=0, state=None,
                                              moves=[(
                                                  0, ANN, "7H>C1")], finished=False, result=None,
                                              turn_passed=False)
        await storage.ledger.add_entry(guild_id=G, kind="payment", debtor_id=ANN, creditor_id=BOB,
                                       amount_cents=25, note="cash", created_by=ANN)
    finally:
        await storage.close()


@contextlib.contextmanager
def opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that commits and is closed at the end of the block (so it leaves no -wal
    file open behind it)."""
    db = sqlite3.connect(path)
    try:
        with db:
            yield db
    finally:
        db.close()


def rows(path: Path, table: str) -> list[tuple[object, ...]]:
    with opened(path) as db:
        return db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()


def dump(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


CRASH = (
    # A process killed with its last commit only in the -wal file (no checkpoint on close).
    "import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
    "db.execute('PRAGMA wal_autocheckpoint=0'); "
    "db.execute(\"INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
    "created_at) VALUES (10, 'payment', 101, 102, 99, 0)\"); os._exit(0)")


@pytest.fixture
async def database(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "spite-malice.sqlite3"
    await make_database(path)
    return path


# ------------------------------------------------------------------ backup


def test_a_backup_is_a_private_copy_that_the_bot_opens(database: Path, tmp_path: Path) -> None:
    info = backup(database, tmp_path / "copy.sqlite3")
    assert info.path == tmp_path / "copy.sqlite3"
    assert (info.games, info.ledger_lines, info.schema_version) == (4, 4, SQLITE_SCHEMA_VERSION)
    assert info.size == info.path.stat().st_size
    assert info.path.stat().st_mode & 0o777 == 0o600
    assert dump(info.path) == dump(database)
    # One self-contained file: nothing beside it, and no temporary file left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite3", "data"]
    with opened(info.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_a_backup_refuses_to_overwrite_unless_told(database: Path, tmp_path: Path) -> None:
    dest = tmp_path / "copy.sqlite3"
    dest.write_bytes(b"precious")
    with pytest.raises(BackupError, match="already exists"):
        backup(database, dest)
    assert dest.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.sqlite3", "data"]
    assert backup(database, dest, overwrite=True).games == 4
    assert dump(dest) == dump(database)


def test_a_backup_into_a_folder_is_named_after_the_database_and_time(database: Path,
                                                                     tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    stamp = time.mktime((2026, 12, 1, 16, 30, 5, 0, 0, -1))
    info = backup(database, folder, now=lambda: stamp)
    assert info.path == folder / "spite-malice-2026-12-01-163005.sqlite3"
    assert check(info.path).games == 4
    new = backup(database, f"{tmp_path}/new/", now=lambda: stamp)  # a folder that is made
    assert new.path == tmp_path / "new" / "spite-malice-2026-12-01-163005.sqlite3"


def test_a_sqlite_url_names_the_same_file(database: Path, tmp_path: Path) -> None:
    assert backup(f"sqlite:///{database}", tmp_path / "copy.sqlite3").games == 4
    assert daily_backup(f"sqlite:///{database}", 7, date(2026, 12, 1)) == (
        database.parent / "backups" / "spite-malice-2026-12-01.sqlite3")
    with pytest.raises(BackupError, match="in-memory"):
        backup(":memory:", tmp_path / "memory.sqlite3")


def test_a_missing_database_is_not_created_by_a_backup(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="no database at"):
        backup(tmp_path / "nothing.sqlite3", tmp_path / "copy.sqlite3")
    assert list(tmp_path.iterdir()) == []


def test_a_backup_skips_a_transaction_not_yet_committed(database: Path, tmp_path: Path) -> None:
    writer = sqlite3.connect(database, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, "
                       "amount_cents, created_at) VALUES (?, 'payment', ?, ?, 1, 0)",
                       (G, BOB, ANN))
        during = backup(database, tmp_path / "during.sqlite3")  # doesn't wait for the writer
        writer.execute("COMMIT")
    finally:
        writer.close()
    after = backup(database, tmp_path / "after.sqlite3")
    assert (during.ledger_lines, after.ledger_lines) == (4, 5)


def _write_pairs(path: Path, stop: threading.Event, done: list[int]) -> None:
    # Each transaction adds a finished game and its ledger line: a consistent copy always has
    # as many of one as of the other.
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        while not stop.is_set():
            db.execute("BEGIN IMMEDIATE")
            cur = db.execute(
                "INSERT INTO games (guild_id, channel_id, player0_id, player1_id, rules, state, "
                "status, created_at, updated_at, turn_started_at) "
                "VALUES (?, 2, ?, ?, '{}', ?, 'finished', 0, 0, 0)",
                (G, ANN, BOB, "x" * 2000))
            db.execute("INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
                       "game_id, created_at) VALUES (?, 'game', ?, ?, 5, ?, 0)",
                       (G, BOB, ANN, cur.lastrowid))
            db.execute("COMMIT")
            done[0] += 1
    finally:
        db.close()


def test_backups_taken_while_the_database_is_written_are_consistent(database: Path,
                                                                      tmp_path: Path) -> None:
    stop, done = threading.Event(), [0]
    writer = threading.Thread(target=_write_pairs, args=(database, stop, done))
    writer.start()
    copies = []
    try:
        while len(copies) < 6 or done[0] < 200:
            before = done[0]
            copies.append((before, backup(database, tmp_path / f"copy-{len(copies)}.sqlite3")))
    finally:
        stop.set()
        writer.join()
    assert done[0] >= 200
    for before, info in copies:
        # check() ran SQLite's integrity check on each; the pairs are whole.
        assert info.games - 4 == info.ledger_lines - 4 >= before
    assert len({info.games for _, info in copies}) > 1  # the writes went on meanwhile


# ------------------------------------------------------------------ what is a valid file


def _invalid_files(tmp: Path, good: Path) -> Iterator[tuple[Path, str]]:
    noise = tmp / "noise.bin"
    noise.write_bytes(os.urandom(8192))
    yield noise, "is not a SQLite database"
    nothing = tmp / "zero.sqlite3"
    nothing.write_bytes(b"")
    yield nothing, r"is empty \(0 bytes\)"
    empty = tmp / "empty.sqlite3"
    with opened(empty) as db:
        db.execute("CREATE TABLE x (a)")
        db.execute("DROP TABLE x")
    yield empty, "an empty SQLite database"
    other = tmp / "other-app.sqlite3"
    with opened(other) as db:
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        db.execute("PRAGMA user_version = 3")
    yield other, "not a database of this bot"
    newer = tmp / "newer.sqlite3"
    backup(good, newer)
    with opened(newer) as db:
        db.execute(f"PRAGMA user_version = {SQLITE_SCHEMA_VERSION + 1}")
    yield newer, "made by a newer bot"
    cut = tmp / "cut.sqlite3"
    data = (tmp / "whole.sqlite3").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    yield cut, "cut short"
    yield tmp / "missing.sqlite3", "no file at"
    yield tmp, "a folder"


def test_a_whole_database_of_this_bot_passes_the_check(database: Path) -> None:
    info = check(database)
    assert (info.games, info.ledger_lines) == (4, 4)


def test_the_check_knows_every_table_the_migrations_make(database: Path) -> None:
    with opened(database) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert set(TABLES) <= tables and max(TABLES.values()) <= SQLITE_SCHEMA_VERSION


def test_invalid_files_are_refused_with_their_reason_and_change_nothing(
        database: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    backup(database, bad / "whole.sqlite3")
    before = dump(database)
    listing = sorted(p.name for p in database.parent.iterdir())
    for path, reason in _invalid_files(bad, database):
        contents = path.read_bytes() if path.is_file() else None
        with pytest.raises(InvalidDatabase, match=reason) as refused:
            check(path)
        assert "\n" not in str(refused.value)
        with pytest.raises(InvalidDatabase, match=reason):
            restore(path, database)
        assert dump(database) == before
        assert sorted(p.name for p in database.parent.iterdir()) == listing
        if contents is not None:
            assert path.read_bytes() == contents
            assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


def test_a_damaged_page_is_found_by_the_integrity_check(database: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.sqlite3"
    backup(database, damaged)
    with opened(damaged) as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ledger'").fetchone()[0]
    data = bytearray(damaged.read_bytes())
    start = (root - 1) * page_size
    data[start:start + page_size] = b"\xff" * page_size
    damaged.write_bytes(bytes(data))
    with pytest.raises(InvalidDatabase, match="damaged|can't be read"):
        check(damaged)


# ------------------------------------------------------------------ restore


async def test_restore_round_trip_keeps_the_replaced_database(database: Path,
                                                              tmp_path: Path) -> None:
    saved = backup(database, tmp_path / "saved.sqlite3").path
    games, ledger = rows(database, "games"), rows(database, "ledger")
    # Later changes, some still in the -wal file of the live database when it is replaced.
    storage = await Storage.open(database)
    await storage.ledger.add_entry(guild_id=G, kind="payment", debtor_id=ANN, creditor_id=BOB,
                                   amount_cents=7, note="later", created_by=ANN)
    changed = dump(database)
    stamp = time.mktime((2026, 12, 1, 17, 0, 0, 0, 0, -1))
    await storage.close()  # a bot must be stopped to restore

    done = restore(saved, database, now=lambda: stamp)

    assert rows(database, "games") == games and rows(database, "ledger") == ledger
    assert (done.restored.games, done.restored.ledger_lines) == (4, 4)
    assert database.stat().st_mode & 0o777 == 0o600
    assert done.kept == database.with_name("spite-malice.sqlite3.before-restore-20261201-170000")
    assert dump(done.kept) == changed  # nothing of the replaced database was lost
    assert not Path(f"{database}-wal").exists() and not Path(f"{database}-shm").exists()
    storage = await Storage.open(database)  # the bot opens it and goes on
    assert await storage.schema_version() == SQLITE_SCHEMA_VERSION
    await storage.close()
    again = restore(saved, database, now=lambda: stamp)  # a second restore in the same second
    assert again.kept is not None and again.kept != done.kept and again.kept.exists()


async def test_restore_keeps_the_last_moves_of_a_database_left_by_a_crash(
        database: Path, tmp_path: Path) -> None:
    saved = backup(database, tmp_path / "saved.sqlite3").path
    # A process killed with its last commits only in the -wal file (no checkpoint on close).
    subprocess.run([sys.executable, "-c", CRASH, str(database)], check=True, timeout=60)
    assert Path(f"{database}-wal").stat().st_size > 0
    done = restore(saved, database)
    assert done.kept is not None
    assert [r[5] for r in rows(done.kept, "ledger")][-1] == 99
    assert rows(database, "ledger") == rows(saved, "ledger")


async def test_a_stray_wal_file_never_reaches_the_restored_database(database: Path,
                                                                    tmp_path: Path) -> None:
    saved = backup(database, tmp_path / "saved.sqlite3").path
    subprocess.run([sys.executable, "-c", CRASH, str(database)], check=True, timeout=60)
    database.unlink()  # the database went, its -wal stayed
    assert Path(f"{database}-wal").exists()
    done = restore(saved, database)
    assert done.kept is None and not Path(f"{database}-wal").exists()
    storage = await Storage.open(database)  # the bot switches it to WAL mode
    await storage.close()
    assert rows(database, "ledger") == rows(saved, "ledger")


def test_restore_is_refused_while_a_bot_holds_the_database(database: Path,
                                                           tmp_path: Path) -> None:
    saved = backup(database, tmp_path / "saved.sqlite3").path
    with opened(database) as db:
        db.execute("DELETE FROM games WHERE status = 'active'")
    before = dump(database)
    held = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from bot.ops.dblock import hold_database; "
         f"h = hold_database({str(database)!r}); print('held', flush=True); time.sleep(60)"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE)
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == b"held"
        listing = sorted(p.name for p in database.parent.iterdir())
        with pytest.raises(DatabaseInUse, match="Another bot process"):
            restore(saved, database)
        assert dump(database) == before
        assert sorted(p.name for p in database.parent.iterdir()) == listing
    finally:
        held.kill()
        held.wait()
    assert restore(saved, database).restored.games == 4  # once it has stopped


def test_a_database_is_not_restored_onto_itself(database: Path) -> None:
    before = dump(database)
    with pytest.raises(BackupError, match="the database itself"):
        restore(database, database)
    assert dump(database) == before


def test_restore_into_a_new_place_needs_no_old_database(database: Path, tmp_path: Path) -> None:
    done = restore(database, tmp_path / "fresh" / "bot.sqlite3")
    assert done.kept is None and dump(done.database) == dump(database)


# ------------------------------------------------------------------ daily backups


def test_daily_backups_one_a_day_keeping_the_newest(database: Path) -> None:
    folder = database.parent / "backups"
    first = date(2026, 11, 25)
    made = []
    for n in range(6):
        day = first + timedelta(days=n)
        made.append(daily_backup(database, 3, day))
        assert daily_backup(database, 3, day) is None  # at most one per day
    assert all(m is not None for m in made)
    (folder / "notes.txt").write_text("mine")  # other files there are never touched
    # What a copy killed midway leaves: removed once it is an hour old (never a copy going on).
    stale, fresh = (folder / f".spite-malice-2026-11-20.sqlite3.{n}.99.tmp" for n in (1, 2))
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    daily_backup(database, 3, first + timedelta(days=6))
    assert sorted(p.name for p in folder.iterdir()) == [
        fresh.name, "notes.txt", "spite-malice-2026-11-29.sqlite3",
        "spite-malice-2026-11-30.sqlite3", "spite-malice-2026-12-01.sqlite3"]
    assert check(folder / "spite-malice-2026-12-01.sqlite3").games == 4
    assert folder.stat().st_mode & 0o777 == 0o700


def test_no_daily_backups_when_keep_is_zero_or_for_postgresql(database: Path) -> None:
    assert daily_backup(database, 0, date(2026, 12, 1)) is None
    assert daily_backup("postgresql://bot@db/spite", 7, date(2026, 12, 1)) is None
    assert not (database.parent / "backups").exists()


async def test_the_housekeeping_backup_runs_once_a_day_and_logs_a_failure_once(
        database: Path, caplog: pytest.LogCaptureFixture) -> None:
    now = [time.mktime((2026, 12, 1, 9, 0, 0, 0, 0, -1))]
    backups = DailyBackups(str(database), 7, clock=lambda: now[0])
    assert await backups.run_due() == database.parent / "backups/spite-malice-2026-12-01.sqlite3"
    assert await backups.run_due() is None
    # The folder can't be written: logged once, never raised, tried again an hour later.
    (database.parent / "backups").rename(database.parent / "old-backups")
    (database.parent / "backups").write_text("not a folder")
    now[0] += 86400
    with caplog.at_level(logging.ERROR, logger="bot.ops.backup"):
        for _ in range(3):
            assert await backups.run_due() is None
            now[0] += 60
    assert len([r for r in caplog.records if "daily backup" in r.message]) == 1
    (database.parent / "backups").unlink()
    assert await backups.run_due() is None  # within the hour: not tried again yet
    now[0] += 3600
    made = await backups.run_due()
    assert made == database.parent / "backups/spite-malice-2026-12-02.sqlite3"


# ------------------------------------------------------------------ PostgreSQL


def test_postgresql_is_backed_up_with_pg_dump_and_no_password_is_shown(tmp_path: Path) -> None:
    url = "postgresql://bot:s3cret@db:5432/spite?sslmode=require&password=s3cret"
    with pytest.raises(UsePostgresTools) as advice:
        backup(url, tmp_path / "spite malice.dump")
    dest = shlex.quote(str(tmp_path / "spite malice.dump"))
    assert advice.value.command == (
        f"pg_dump --format=custom --file={dest} 'postgresql://bot@db:5432/spite?sslmode=require'")
    assert advice.value.command in str(advice.value) and "PGPASSWORD" in str(advice.value)
    with pytest.raises(UsePostgresTools) as advice:
        restore(tmp_path / "x.dump", url)
    assert advice.value.command == ("pg_restore --clean --if-exists --no-owner "
                                    "--dbname='postgresql://bot@db:5432/spite?sslmode=require' "
                                    f"{tmp_path / 'x.dump'}")
    assert "s3cret" not in str(advice.value)
    assert list(tmp_path.iterdir()) == []


def test_the_pg_dump_line_works(postgres_url: str, tmp_path: Path) -> None:
    import asyncio
    import shutil

    import asyncpg

    if shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not installed")

    async def create() -> None:
        conn = await asyncpg.connect(postgres_url)
        try:
            await conn.execute("CREATE TABLE ledger (id integer); INSERT INTO ledger VALUES (1)")
        finally:
            await conn.close()

    asyncio.run(create())
    with pytest.raises(UsePostgresTools) as advice:
        backup(postgres_url, tmp_path / "pg.dump")
    subprocess.run(shlex.split(advice.value.command), check=True, timeout=120)
    assert (tmp_path / "pg.dump").read_bytes().startswith(b"PGDMP")
    listing = subprocess.run(["pg_restore", "--list", str(tmp_path / "pg.dump")], check=True,
                             capture_output=True, text=True, timeout=60).stdout
    assert "TABLE DATA" in listing and " ledger " in listing


# ------------------------------------------------------------------ the command line


@pytest.fixture
def cli(database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)  # neither command needs the token
    monkeypatch.setenv("DATABASE", str(database))
    return database


def test_cli_backup_and_restore(cli: Path, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backup", "copy.sqlite3"]) == 0
    out = capsys.readouterr().out
    assert f"Backed up {cli} to copy.sqlite3" in out and "4 games, 4 ledger lines" in out
    assert "KB" in out
    assert main(["backup", "copy.sqlite3"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["backup", "copy.sqlite3", "--overwrite"]) == 0
    capsys.readouterr()
    assert main(["restore", "copy.sqlite3"]) == 0
    out = capsys.readouterr().out
    assert f"Restored {cli} from copy.sqlite3" in out and "kept at" in out
    (tmp_path / "junk.sqlite3").write_bytes(b"hello")
    assert main(["restore", "junk.sqlite3"]) == 1
    assert "not a SQLite database" in capsys.readouterr().err


def test_cli_refusals_and_usage(cli: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    for wrong in (["backup"], ["restore"], ["backup", "a", "b"], ["restore", "--overwrite", "x"],
                  ["backup", "--overwite", "x"]):
        assert main(wrong) == 2, wrong
        assert f"python -m bot {wrong[0]} PATH" in capsys.readouterr().err
    monkeypatch.setenv("DATABASE", "postgresql://bot:s3cret@db/spite")
    assert main(["backup", "x.dump"]) == 1
    err = capsys.readouterr().err
    assert "pg_dump --format=custom --file=x.dump postgresql://bot@db/spite" in err
    assert "s3cret" not in err
    assert main(["restore", "x.dump"]) == 1
    assert "pg_restore" in capsys.readouterr().err


def test_python_m_bot_backup_runs_without_a_token(database: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env.update(PYTHONPATH=str(ROOT), DATABASE=str(database))
    done = subprocess.run([sys.executable, "-m", "bot", "backup", "out.sqlite3"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 games" in done.stdout and check(tmp_path / "out.sqlite3").games == 4


def test_without_arguments_it_still_runs_the_bot(cli: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.app.running

    started = []

    async def run(config: object) -> None:
        started.append(config)

    monkeypatch.setenv("DISCORD_TOKEN", "x" * 50)
    monkeypatch.setattr(bot.app.running, "run", run)
    assert main([]) == 0 and len(started) == 1


async def test_the_running_bot_takes_the_daily_backup(tmp_path: Path) -> None:
    # The housekeeping loop of the real bot (against the local fake Discord) takes today's
    # backup on its first round, while the bot keeps its database open.
    from bot.app.client import SpiteBot
    from bot.ops.config import Config
    from bot.sandbox import start_bot
    from tests.fake_discord_fixtures import fake_discord_server
    from tests.support import Clock

    database = tmp_path / "bot.sqlite3"
    await make_database(database)
    clock = Clock(time.mktime((2026, 12, 1, 12, 0, 0, 0, 0, -1)))
    expected = tmp_path / "backups" / "bot-2026-12-01.sqlite3"
    async with fake_discord_server() as fake:
        bot = SpiteBot(Config(token=fake.token, database=str(database), tick=3600,
                              backup_keep=2), clock=clock)
        handle = await start_bot(fake, bot)
        try:
            await fake.wait_for(expected.exists, timeout=30, description="the daily backup")
            assert check(expected).games == 4
        finally:
            await handle.stop()


def test_backup_keep_is_a_count_of_days() -> None:
    from bot.ops.config import Config, ConfigError

    assert Config.from_env({}, require_token=False).backup_keep == 7
    assert Config.from_env({"BACKUP_KEEP": "0"}, require_token=False).backup_keep == 0
    assert Config.from_env({"BACKUP_KEEP": " 30 "}, require_token=False).backup_keep == 30
    for wrong in ("-1", "seven", "1.5"):
        with pytest.raises(ConfigError, match="BACKUP_KEEP must be a whole number"):
            Config.from_env({"BACKUP_KEEP": wrong}, require_token=False)
