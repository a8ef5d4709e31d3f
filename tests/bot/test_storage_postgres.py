"""PostgreSQL: the compare-and-set guarantees hold between processes sharing one database.

Two ``Storage`` objects on one schema stand for two shard processes: each has its own pool of
connections, so their statements really run at once on the server.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bot.storage import GameEntry, OwedExceeded, Storage, StorageError
from bot.storage.migrations_postgres import POSTGRES_SCHEMA_VERSION
from tests.dbtools import run_sql

G = 7


@pytest.fixture
async def pair(postgres_url: str):
    # Both open (and so migrate) at once: the migration lock lets one of them do it.
    one, two = await asyncio.gather(Storage.open(postgres_url), Storage.open(postgres_url))
    yield one, two, postgres_url
    await one.close()
    await two.close()


async def test_two_processes_opening_at_once_migrate_once(pair) -> None:
    one, two, url = pair
    assert await one.schema_version() == await two.schema_version() == POSTGRES_SCHEMA_VERSION


async def test_a_newer_schema_is_refused(postgres_url: str) -> None:
    await (await Storage.open(postgres_url)).close()  # migrated
    await run_sql(postgres_url, "UPDATE bot_schema SET version = 99")
    with pytest.raises(StorageError, match="newer"):
        await Storage.open(postgres_url)


async def test_a_move_is_saved_once_whoever_saves_it(pair) -> None:
    one, two, url = pair
    game_id = await one.games.create_game(guild_id=G, channel_id=1, players=(3, 4),
                                          names=("Ann", "Bob"), rules={}, state={"v": 0})
    for version in range(20):
        results = await asyncio.gather(*(
            storage.games.save_moves(game_id, expected_version=version, state=None,
                                     moves=[(0, 3, f"move {version} by {n}")], finished=False,
                                     result=None, turn_passed=False)
            for n, storage in enumerate((one, two, one, two))))
        assert sorted(results) == [False, False, False, True]
    row = await two.games.get_game(game_id)
    assert row is not None and row.version == 20 and len(row.later_moves) == 20


async def test_a_challenge_is_accepted_once(pair) -> None:
    one, two, url = pair
    row = await one.challenges.create_challenge(
        guild_id=G, channel_id=1, challenger_id=3, opponent_id=4,
                                      names=("Ann", "Bob"), rules={}, expires_at=1e12)
    games = await asyncio.gather(*(
        storage.challenges.accept_challenge(row.id, players=(3, 4), names=("Ann", "Bob"), rules={},
                                            state={}) for storage in (one, two, one, two)))
    assert sum(g is not None for g in games) == 1
    assert len(await run_sql(url, "SELECT id FROM games")) == 1


async def test_ledger_lines_from_two_processes_add_up(pair) -> None:
    one, two, url = pair
    # Two people play many games at once, their results written by both processes; with
    # payments in between, capped at what is owed.
    ids = []
    for _n in range(24):
        ids.append(await one.games.create_game(guild_id=G, channel_id=1, players=(3, 4),
                                               names=("Ann", "Bob"), rules={}, state={}))

    async def finish(storage: Storage, game_id: int, n: int) -> None:
        loser, winner = (3, 4) if n % 3 else (4, 3)
        assert await storage.games.save_moves(
            game_id, expected_version=0, state={}, moves=[(0, loser, "resign")],
            finished=True, result={}, turn_passed=True,
            entry=GameEntry(G, game_id, loser, winner, 100 + n, "kings", winner, n))

    async def pay(storage: Storage) -> None:
        with contextlib.suppress(OwedExceeded):
            await storage.ledger.add_entry(guild_id=G, kind="payment", debtor_id=4, creditor_id=3,
                                           amount_cents=150, note=None, created_by=3,
                                           within_owed=True)

    await asyncio.gather(*(finish((one, two)[n % 2], game_id, n) for n, game_id in
                           enumerate(ids)), *(pay((two, one)[n % 2]) for n in range(10)))
    lines = await run_sql(
        url, "SELECT kind, debtor_id, creditor_id, amount_cents FROM ledger ORDER BY id")
    owed = 0  # what 3 owes 4, line by line: never below zero after a payment
    for kind, debtor, _creditor, amount in lines:
        owed += amount if debtor == 3 else -amount
        if kind == "payment":
            assert owed >= 0
    assert await one.ledger.pair_balance(G, 3, 4) == await two.ledger.pair_balance(G, 3, 4) == owed
    # The numbered points are gapless and end at the same balance.
    page, total = await two.ledger.pair_entries(G, 3, 4)
    assert total == len(lines) and page[0][1] == owed
    stats = await one.standings.player_stats(G, 4)
    assert stats["kings"]["games"] == 24
    series = await two.standings.money_series(G, 4, points=1000)
    assert len(series) == 24 and series[-1][1] == stats["kings"]["net_cents"]


async def test_a_shard_runs_in_one_process_only(pair) -> None:
    from bot.shards import ShardSet
    from bot.storage import ShardInUse

    one, two, url = pair
    await one.claim_shards(ShardSet(2, frozenset({0, 1})))
    await one.claim_shards(ShardSet(2, frozenset({0, 1})))  # the same process again: fine
    with pytest.raises(ShardInUse, match="already runs shard 1"):
        await two.claim_shards(ShardSet(2, frozenset({1})))
    await one.close()  # its locks go with it (as with a process that dies)
    await two.claim_shards(ShardSet(2, frozenset({1})))
    three = await Storage.open(url)
    try:
        with pytest.raises(ShardInUse, match="already runs shard 1"):
            await three.claim_shards(ShardSet(2, frozenset({0, 1})))
        # Nothing was kept of the try: another process can take shard 0.
        await two.claim_shards(ShardSet(2, frozenset({0})))
    finally:
        await three.close()


async def test_every_process_on_a_database_has_the_same_shard_count(pair) -> None:
    # SHARD_COUNT=2 on one process and 3 on another split the servers two ways: the server
    # (guild_id >> 22) == 4 is shard 0 of two and shard 1 of three, looked after by both.
    from bot.shards import ShardSet
    from bot.storage import ShardInUse

    one, two, url = pair
    await one.claim_shards(ShardSet(2, frozenset({0})))
    with pytest.raises(ShardInUse, match="runs with SHARD_COUNT=2, this one with SHARD_COUNT=3"):
        await two.claim_shards(ShardSet(3, frozenset({1})))
    with pytest.raises(ShardInUse, match="SHARD_COUNT=2, this one unsharded"):
        await two.claim_shards(ShardSet.single())
    # Nothing was kept of those tries: the same count is welcome, and its shard still free.
    await two.claim_shards(ShardSet(2, frozenset({1})))
    three = await Storage.open(url)
    try:
        with pytest.raises(ShardInUse, match="already runs shard 1"):
            await three.claim_shards(ShardSet(2, frozenset({1})))
        await one.close()
        with pytest.raises(ShardInUse, match="SHARD_COUNT=2"):  # two still runs
            await three.claim_shards(ShardSet(4, frozenset({0, 1, 2, 3})))
        await two.close()
        await three.claim_shards(ShardSet(4, frozenset({0, 1, 2, 3})))  # all gone: a new count
    finally:
        await three.close()


async def test_bots_in_two_schemas_each_run_their_shard_zero(pair) -> None:
    # Advisory locks are one space per database: a bot keeping its tables in another schema of
    # the same database (or another test run on the same server) has shards of its own.
    import uuid

    from bot.shards import ShardSet
    from tests.conftest import postgres_base_url

    one, _, _ = pair
    await one.claim_shards(ShardSet(2, frozenset({0})))
    base, schema = postgres_base_url(), f"t_{uuid.uuid4().hex[:12]}"
    await run_sql(base, f"CREATE SCHEMA {schema}")
    other = await Storage.open(f"{base}{'&' if '?' in base else '?'}search_path={schema}")
    try:
        await other.claim_shards(ShardSet(2, frozenset({0})))
    finally:
        await other.close()
        await run_sql(base, f"DROP SCHEMA {schema} CASCADE")


async def test_shard_locks_are_taken_again_after_a_database_restart(private_postgres) -> None:
    # The session locks die with their connection when the server restarts: the process that
    # held them takes them again, and one that finds them taken meanwhile is told to stop.
    from bot.shards import ShardSet
    from bot.storage import DatabaseUnavailable, ShardInUse

    url = private_postgres.url
    one = await Storage.open(url)
    await one.claim_shards(ShardSet(2, frozenset({0})))
    private_postgres.stop()
    with pytest.raises(DatabaseUnavailable):  # the server is away: nothing to take yet
        await one.keep_shards()
    with pytest.raises(DatabaseUnavailable):  # and again: the locks are still wanted
        await one.keep_shards()
    private_postgres.start()
    await one.keep_shards()  # its lock again, on a new connection
    two = await Storage.open(url)
    try:
        with pytest.raises(ShardInUse, match="already runs shard 0"):
            await two.claim_shards(ShardSet(2, frozenset({0})))
        # Now the other way: after a restart another process is quicker.
        private_postgres.stop()
        private_postgres.start()
        await two.claim_shards(ShardSet(2, frozenset({0})))
        with pytest.raises(ShardInUse, match="took shard 0 while the database was away"):
            await one.keep_shards()
    finally:
        await one.close()
        await two.close()


async def test_a_connection_that_cannot_be_reset_fails_nothing_done_on_it(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # Right after a server restart asyncpg failed to reset a connection given back to the pool
    # ("another operation is in progress"), after its transaction had committed: the board
    # was saved, yet its update was reported as failed. What was done stands; the pool drops
    # the connection and makes a new one.
    import asyncpg  # type: ignore[import-untyped]

    storage = await Storage.open(postgres_url)
    try:
        game_id = await storage.games.create_game(guild_id=G, channel_id=1, players=(3, 4),
                                                  names=("Ann", "Bob"), rules={},
                                                  state={"v": 0})
        resets: list[int] = []

        async def reset(self: object, *, timeout: float | None = None) -> None:
            resets.append(1)
            raise asyncpg.exceptions.InternalClientError(
                "cannot switch to state 15; another operation (2) is in progress")

        with monkeypatch.context() as patch:
            patch.setattr(asyncpg.Connection, "reset", reset)
            await storage.games.set_board(game_id, 55, 1, 0)  # a transaction
            row = await storage.games.get_game(game_id)  # a plain connection
        assert len(resets) == 2
        assert row is not None and row.board_message_id == 55
        assert caplog.text.count("could not be reset") == 2
        await storage.games.set_board(game_id, 56, 1, 0)  # the pool goes on
        row = await storage.games.get_game(game_id)
        assert row is not None and row.board_message_id == 56
    finally:
        await storage.close()


def test_a_connection_stuck_mid_way_counts_as_the_database_away() -> None:
    # Given out by asyncpg's pool right after a server restart (2 runs in 80 of
    # tests/e2e/test_database_faults.py): the use is tried again later, like a lost connection.
    import asyncpg

    from bot.storage.errors import DatabaseUnavailable
    from bot.storage.postgres_driver import postgres_unavailable

    stuck = asyncpg.exceptions.InternalClientError(
        "cannot switch to state 15; another operation (2) is in progress")
    assert isinstance(postgres_unavailable(stuck), DatabaseUnavailable)
    assert postgres_unavailable(asyncpg.exceptions.InternalClientError("a bug")) is None
    assert postgres_unavailable(ValueError("another operation")) is None
