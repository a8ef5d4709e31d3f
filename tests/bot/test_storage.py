"""Storage: migrations, settings, challenges and games with compare-and-set writes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot.games.game_service import GameService
from bot.storage import Storage, StorageError
from bot.storage.migrations_sqlite import MIGRATIONS, _statements
from bot.storage.sqlite_driver import SqliteDatabase
from engine import KINGS, Match
from tests.dbtools import run_sql


@pytest.fixture
async def storage(database: str):
    db = await Storage.open(database)
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
    settings = await storage.settings.get_settings(1)
    assert settings.default_rules == "kings" and settings.challenge_expiry_s == 900
    changed = await storage.settings.update_settings(1, default_rules="classic", reminder_s=60)
    assert changed.default_rules == "classic" and changed.reminder_s == 60
    assert (await storage.settings.get_settings(2)).default_rules == "kings"
    with pytest.raises(ValueError):
        await storage.settings.update_settings(1, bogus=1)


async def test_challenge_settles_once(storage: Storage) -> None:
    row = await storage.challenges.create_challenge(
        guild_id=1, channel_id=2, challenger_id=3, opponent_id=4,
                                                    names=("Ann", "Bob"), rules={"name": "kings"},
                                                    expires_at=1e12)
    assert row.status == "open" and row.names == ("Ann", "Bob")
    assert await storage.challenges.open_between(2, 4, 3) == "challenge"
    assert await storage.challenges.settle_challenge(row.id, "declined")
    assert not await storage.challenges.settle_challenge(row.id, "cancelled")
    assert (await storage.challenges.get_challenge(
        row.id)).status == "declined"  # type: ignore[union-attr]
    assert await storage.challenges.open_between(2, 3, 4) is None


async def test_accept_creates_the_game_once(storage: Storage) -> None:
    row = await storage.challenges.create_challenge(
        guild_id=1, channel_id=2, challenger_id=3, opponent_id=4,
                                                    names=("Ann", "Bob"), rules={"name": "kings"},
                                                    expires_at=1e12)
    game_id = await storage.challenges.accept_challenge(row.id, players=(3, 4), names=(
        "Ann", "Bob"),
                                                        rules={"name": "kings"}, state={"x": 1})
    assert game_id is not None
    again = await storage.challenges.accept_challenge(row.id, players=(3, 4), names=("Ann", "Bob"),
                                                      rules={"name": "kings"}, state={"x": 1})
    assert again is None
    assert await storage.challenges.open_between(2, 3, 4) == "game"


async def test_save_moves_is_compare_and_set(storage: Storage) -> None:
    game_id = await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                              names=("Ann", "Bob"), rules={}, state={"v": 0})
    ok = await storage.games.save_moves(game_id, expected_version=0, state={"v": 1},
                                        moves=[(0, 3, "7H>C1")], finished=False, result=None,
                                        turn_passed=False)
    assert ok
    stale = await storage.games.save_moves(game_id, expected_version=0, state={"v": 99},
                                           moves=[(0, 3, "7H>C1")], finished=False, result=None,
                                           turn_passed=False)
    assert not stale
    row = await storage.games.get_game(game_id)
    assert row is not None and row.state == {"v": 1} and row.version == 1
    assert await storage.games.move_log(game_id) == [(1, 0, 3, "7H>C1")]


async def test_moves_are_appended_between_snapshots(storage: Storage) -> None:
    game_id = await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                              names=("Ann", "Bob"), rules={}, state={"v": 0})
    for version, (seat, text) in enumerate([(0, "7H>C1"), (0, "8H>S1"), (1, "P>C2")]):
        assert await storage.games.save_moves(game_id, expected_version=version, state=None,
                                              moves=[(seat, 3 + seat, text)], finished=False,
                                              result=None, turn_passed=seat == 0)
    row = await storage.games.get_game(game_id)
    assert row is not None and row.version == 3
    assert row.state == {"v": 0} and row.state_version == 0
    assert row.later_moves == ((0, "7H>C1"), (0, "8H>S1"), (1, "P>C2"))
    # A double click: the same move again at the same version is refused, nothing appended.
    assert not await storage.games.save_moves(game_id, expected_version=2, state=None,
                                              moves=[(1, 4, "P>C2")], finished=False, result=None,
                                              turn_passed=False)
    # A snapshot: the state at the new version, no moves after it.
    assert await storage.games.save_moves(game_id, expected_version=3, state={"v": 4},
                                          moves=[(1, 4, "9S>S2")], finished=False, result=None,
                                          turn_passed=True)
    row = await storage.games.get_game(game_id)
    assert row is not None and (row.state, row.state_version, row.version) == ({"v": 4}, 4, 4)
    assert row.later_moves == () and row.status == "active"
    assert [m for _, _, _, m in await storage.games.move_log(game_id)] == [
        "7H>C1", "8H>S1", "P>C2", "9S>S2"]
    listed = await storage.games.user_games(3)
    assert [(g.id, g.state_version, g.later_moves) for g in listed] == [(game_id, 4, ())]
    # A finished game is always saved with its final state (history and replays read it).
    with pytest.raises(ValueError, match="final state"):
        await storage.games.save_moves(game_id, expected_version=4, state=None,
                                       moves=[(0, 3, "resign")], finished=True, result={},
                                       turn_passed=True)
    assert await storage.games.save_moves(game_id, expected_version=4, state={"v": "end"},
                                          moves=[(0, 3, "resign")], finished=True,
                                          result={"winner": 1}, turn_passed=True)
    row = await storage.games.get_game(game_id)
    assert row is not None and row.status == "finished" and row.result == {"winner": 1}
    assert (row.state_version, row.version, row.later_moves) == (5, 5, ())


async def test_a_move_log_with_a_gap_is_damaged(storage: Storage, database: str) -> None:
    game_id = await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                              names=("Ann", "Bob"), rules={}, state={"v": 0})
    for version in range(3):
        assert await storage.games.save_moves(game_id, expected_version=version, state=None,
                                              moves=[(0, 3, "7H>C1")], finished=False, result=None,
                                              turn_passed=False)
    await run_sql(database, "DELETE FROM moves WHERE game_id = ? AND seq = 2", game_id)
    with pytest.raises(StorageError, match="damaged"):
        await storage.games.get_game(game_id)


async def test_every_sqlite_commit_waits_for_the_disk(tmp_path: Path) -> None:
    # synchronous=FULL (2): in WAL mode each commit fsyncs the log before it returns, so a
    # move the player was told about survives a power cut.
    db = await SqliteDatabase.connect(str(tmp_path / "d.sqlite3"))
    try:
        async with db.connection() as conn:
            assert await conn.fetchval("PRAGMA synchronous") == 2
    finally:
        await db.close()


async def test_a_game_saved_whole_at_each_move_loads_as_before(tmp_path: Path) -> None:
    # A database at schema 4, as the bot left it before moves were appended: each move saved
    # the whole state with it.
    path = tmp_path / "old.sqlite3"
    match, _ = Match.new(KINGS, 42)
    log = []
    for _ in range(7):
        seat = match.game.turn
        move = match.game.legal_moves()[-1]
        match.play(move, seat)
        log.append((seat, move.text))
    raw = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:4], 1):
        for statement in _statements(script):
            raw.execute(statement)
        raw.execute(f"PRAGMA user_version = {number}")
    raw.execute(
        "INSERT INTO games (id, guild_id, channel_id, player0_id, player1_id, rules, state, "
        "version, created_at, updated_at, turn_started_at) "
        "VALUES (5, 1, 2, 3, 4, ?, ?, 7, 0, 0, 0)",
        (json.dumps(KINGS.to_dict()), json.dumps(match.to_dict())))
    raw.executemany("INSERT INTO moves (game_id, seq, seat, user_id, move, created_at) "
                    "VALUES (5, ?, ?, NULL, ?, 0)",
                    [(seq, seat, text) for seq, (seat, text) in enumerate(log, 1)])
    raw.close()
    storage = await Storage.open(path)
    try:
        assert await storage.schema_version() == len(MIGRATIONS)
        row = await storage.games.get_game(5)
        assert row is not None and (row.version, row.state_version, row.later_moves) == (7, 7, ())
        assert [(seat, text) for _, seat, _, text in await storage.games.move_log(5)] == log
        service = GameService(storage, computer_id=999)
        live = await service.live.game(5)
        assert live.match == match and live.version == 7
        # It plays on the new way (moves appended) and still loads exactly.
        for _ in range(3):
            user = live.on_turn
            move = service.live.view(live, user).legal_moves[0]
            await service.playing.play(5, user, move.text)
            match.play(move.text, match.game.turn)
        row = await storage.games.get_game(5)
        assert row is not None and (row.version, row.state_version) == (10, 7)
        assert (await GameService(storage, computer_id=999).live.game(5)).match == match
    finally:
        await storage.close()
    with sqlite3.connect(path) as raw:
        sql = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'moves'").fetchone()[0]
    assert "WITHOUT ROWID" in sql


async def test_damaged_game_row_raises_storage_error(storage: Storage, database: str) -> None:
    game_id = await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                              names=("Ann", "Bob"), rules={}, state={"v": 0})
    await run_sql(database, "UPDATE games SET state = '{not json' WHERE id = ?", game_id)
    with pytest.raises(StorageError, match="damaged"):
        await storage.games.get_game(game_id)
    assert await storage.games.user_games(3) == []  # a damaged row is skipped, not a crash


@pytest.mark.parametrize("names", ['["Ann"]', '["Ann", "Bob", "Cy"]', '["Ann", 7]', '"Ann"'])
async def test_a_game_row_whose_names_dont_match_its_seats_is_refused(
        storage: Storage, database: str, names: str) -> None:
    # The number of seats is the engine's to check when a game starts; on load the storage
    # checks the row against itself: a name for each seat of the row.
    game_id = await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4),
                                              names=("Ann", "Bob"), rules={}, state={"v": 0})
    await run_sql(database, "UPDATE games SET names = ? WHERE id = ?", names, game_id)
    with pytest.raises(StorageError, match="player names are damaged"):
        await storage.games.get_game(game_id)


@pytest.mark.parametrize("names", ["[]", '["Ann"]', '["Ann", "Bob", "Cy"]', '[1, 2]'])
async def test_a_challenge_row_with_damaged_names_is_refused(
        storage: Storage, database: str, names: str) -> None:
    row = await storage.challenges.create_challenge(
        guild_id=1, channel_id=2, challenger_id=3, opponent_id=4, names=("Ann", "Bob"),
        rules={}, expires_at=10.0)
    await run_sql(database, "UPDATE challenges SET names = ? WHERE id = ?", names, row.id)
    with pytest.raises(StorageError, match="player names are damaged"):
        await storage.challenges.get_challenge(row.id)


async def test_a_game_of_more_players_than_the_row_has_seats_is_refused(
        storage: Storage) -> None:
    # A game row has four seat columns: a fifth player would be lost, so it is refused.
    with pytest.raises(ValueError, match="seat"):
        await storage.games.create_game(guild_id=1, channel_id=2, players=(3, 4, 5, 6, 7),
                                        names=("A", "B", "C", "D", "E"), rules={},
                                        state={"v": 0})
    assert await storage.games.game_ids() == []


async def test_the_database_files_are_private(tmp_path: Path) -> None:
    # They hold every deal's seed, so every hidden card: readable by the bot's user only.
    path = tmp_path / "data" / "p.sqlite3"
    db = await Storage.open(path)
    try:
        await db.settings.update_settings(
            1, currency="€")  # a write, so the -wal and -shm files exist
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
    await storage.ledger.add_entry(guild_id=1, kind="payment", debtor_id=202, creditor_id=101,
                                   amount_cents=500, note="setup", created_by=101)
    assert await storage.ledger.pair_balance(1, 202, 101) == 500
    # Ann records 6.00 received: more than Bob owes, refused, nothing written.
    with pytest.raises(OwedExceeded) as refused:
        await storage.ledger.add_entry(guild_id=1, kind="payment", debtor_id=101, creditor_id=202,
                                       amount_cents=600, note="too much", created_by=101,
                                       within_owed=True)
    assert refused.value.owed_cents == 500
    assert await storage.ledger.pair_balance(1, 202, 101) == 500
    row = await storage.ledger.add_entry(guild_id=1, kind="payment", debtor_id=101, creditor_id=202,
                                         amount_cents=500, note="all of it", created_by=101,
                                         within_owed=True)
    assert row is not None and await storage.ledger.pair_balance(1, 202, 101) == 0
    with pytest.raises(OwedExceeded):
        await storage.ledger.add_entry(guild_id=1, kind="forgive", debtor_id=101, creditor_id=202,
                                       amount_cents=1, note="nothing owed", created_by=101,
                                       within_owed=True)
    # The connection is still usable after a refused write.
    assert await storage.ledger.pair_balance(1, 202, 101) == 0


def test_each_storage_class_holds_one_capability() -> None:
    # Issue 32: records split by capability, each small enough to read in one sitting
    # (inherited methods count: ``Storage`` was once 63 methods from mixins).
    import importlib
    import inspect
    import pkgutil

    import bot.storage

    sizes = {}
    modules = [bot.storage] + [importlib.import_module(f"bot.storage.{info.name}")
                               for info in pkgutil.iter_modules(bot.storage.__path__)]
    for module in modules:
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                # Methods of the bot's own classes (a subclass of sqlite3's connection is not
                # sqlite3's 22 methods).
                ours = {attr for k in cls.__mro__ if k.__module__.startswith("bot.")
                        for attr in vars(k)}
                sizes[f"{module.__name__}.{name}"] = sum(
                    1 for attr in dir(cls) if not attr.startswith("_") and attr in ours
                    and inspect.isroutine(getattr(cls, attr)))
    assert sizes["bot.storage.game_records.GameRecords"] > 10 and "bot.storage.Storage" in sizes
    assert {name: n for name, n in sizes.items() if n > 20} == {}
