"""Storage: migrations, settings, challenges and games with compare-and-set writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage import MIGRATIONS, Storage, StorageError


@pytest.fixture
async def storage(tmp_path: Path):
    db = await Storage.open(tmp_path / "t.sqlite3")
    yield db
    await db.close()


async def test_migrations_run_once_and_use_wal(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    db = await Storage.open(path)
    assert await db.schema_version() == len(MIGRATIONS)
    await db.close()
    db = await Storage.open(path)  # a second open must not re-run migration 1
    assert await db.schema_version() == len(MIGRATIONS)
    await db.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "n.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="newer"):
        await Storage.open(path)


async def test_settings_default_and_update(storage: Storage) -> None:
    settings = await storage.get_settings(1)
    assert settings.default_rules == "kings" and settings.challenge_expiry_s == 900
    changed = await storage.update_settings(1, default_rules="classic", reminder_s=60)
    assert changed.default_rules == "classic" and changed.reminder_s == 60
    assert (await storage.get_settings(2)).default_rules == "kings"
    with pytest.raises(ValueError):
        await storage.update_settings(1, bogus=1)


async def test_challenge_settles_once(storage: Storage) -> None:
    row = await storage.create_challenge(guild_id=1, channel_id=2, challenger_id=3, opponent_id=4,
                                         names=("Ann", "Bob"), rules={"name": "kings"},
                                         expires_at=1e12)
    assert row.status == "open" and row.names == ("Ann", "Bob")
    assert await storage.open_between(2, 4, 3) == "challenge"
    assert await storage.settle_challenge(row.id, "declined")
    assert not await storage.settle_challenge(row.id, "cancelled")
    assert (await storage.get_challenge(row.id)).status == "declined"  # type: ignore[union-attr]
    assert await storage.open_between(2, 3, 4) is None


async def test_accept_creates_the_game_once(storage: Storage) -> None:
    row = await storage.create_challenge(guild_id=1, channel_id=2, challenger_id=3, opponent_id=4,
                                         names=("Ann", "Bob"), rules={"name": "kings"},
                                         expires_at=1e12)
    game_id = await storage.accept_challenge(row.id, players=(3, 4), names=("Ann", "Bob"),
                                             rules={"name": "kings"}, state={"x": 1})
    assert game_id is not None
    again = await storage.accept_challenge(row.id, players=(3, 4), names=("Ann", "Bob"),
                                           rules={"name": "kings"}, state={"x": 1})
    assert again is None
    assert await storage.open_between(2, 3, 4) == "game"


async def test_save_moves_is_compare_and_set(storage: Storage) -> None:
    game_id = await storage.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                        names=("Ann", "Bob"), rules={}, state={"v": 0})
    ok = await storage.save_moves(game_id, expected_version=0, state={"v": 1},
                                  moves=[(0, 3, "7H>C1")], finished=False, result=None,
                                  turn_passed=False)
    assert ok
    stale = await storage.save_moves(game_id, expected_version=0, state={"v": 99},
                                     moves=[(0, 3, "7H>C1")], finished=False, result=None,
                                     turn_passed=False)
    assert not stale
    row = await storage.get_game(game_id)
    assert row is not None and row.state == {"v": 1} and row.version == 1
    assert await storage.move_log(game_id) == [(1, 0, 3, "7H>C1")]


async def test_damaged_game_row_raises_storage_error(storage: Storage, tmp_path: Path) -> None:
    game_id = await storage.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                        names=("Ann", "Bob"), rules={}, state={"v": 0})
    await storage._db.execute("UPDATE games SET state = '{not json' WHERE id = ?", (game_id,))
    with pytest.raises(StorageError, match="damaged"):
        await storage.get_game(game_id)
    assert await storage.user_games(3) == []  # a damaged row is skipped, not a crash


async def test_the_database_files_are_private(tmp_path: Path) -> None:
    # They hold every deal's seed, so every hidden card: readable by the bot's user only.
    path = tmp_path / "data" / "p.sqlite3"
    db = await Storage.open(path)
    try:
        await db.update_settings(1, currency="€")  # a write, so the -wal and -shm files exist
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        assert all(f.exists() for f in files)
        for f in files:
            assert f.stat().st_mode & 0o777 == 0o600, f
    finally:
        await db.close()


async def test_an_older_world_readable_database_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE t (x)")
    path.chmod(0o644)
    db = await Storage.open(path)
    await db.close()
    assert path.stat().st_mode & 0o777 == 0o600


async def test_a_settlement_is_capped_in_the_same_transaction_as_its_write(
        storage: Storage) -> None:
    # Bob (202) owes Ann (101) 5.00, set up with a line written without the cap.
    from bot.storage import OwedExceeded
    await storage.add_entry(guild_id=1, kind="payment", debtor_id=202, creditor_id=101,
                            amount_cents=500, note="setup", created_by=101)
    assert await storage.pair_balance(1, 202, 101) == 500
    # Ann records 6.00 received: more than Bob owes, refused, nothing written.
    with pytest.raises(OwedExceeded) as refused:
        await storage.add_entry(guild_id=1, kind="payment", debtor_id=101, creditor_id=202,
                                amount_cents=600, note="too much", created_by=101,
                                within_owed=True)
    assert refused.value.owed_cents == 500
    assert await storage.pair_balance(1, 202, 101) == 500
    row = await storage.add_entry(guild_id=1, kind="payment", debtor_id=101, creditor_id=202,
                                  amount_cents=500, note="all of it", created_by=101,
                                  within_owed=True)
    assert row is not None and await storage.pair_balance(1, 202, 101) == 0
    with pytest.raises(OwedExceeded):
        await storage.add_entry(guild_id=1, kind="forgive", debtor_id=101, creditor_id=202,
                                amount_cents=1, note="nothing owed", created_by=101,
                                within_owed=True)
    # The connection is still usable after a refused write.
    assert await storage.pair_balance(1, 202, 101) == 0
