"""Which servers a shard process owns: Discord's rule, in Python and in SQL alike."""

from __future__ import annotations

import sqlite3

import pytest

from bot.shards import ShardSet, shard_of

GUILDS = [0, 1 << 22, 2 << 22, 3 << 22, 81384788765712384, 1234567890123456789]


def test_discords_rule() -> None:
    assert shard_of(81384788765712384, 2) == (81384788765712384 >> 22) % 2
    assert [shard_of(g, 2) for g in GUILDS[:4]] == [0, 1, 0, 1]


def test_every_server_has_exactly_one_owner() -> None:
    shards = [ShardSet(4, frozenset({i})) for i in range(4)]
    for guild in GUILDS:
        assert sum(s.owns(guild) for s in shards) == 1


def test_sql_agrees_with_python() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE games (guild_id INTEGER)")
    db.executemany("INSERT INTO games VALUES (?)", [(g,) for g in GUILDS])
    for shard in (ShardSet(2, frozenset({0})), ShardSet(2, frozenset({1})),
                  ShardSet(3, frozenset({0, 2})), ShardSet.single()):
        got = {g for (g,) in db.execute(f"SELECT guild_id FROM games WHERE {shard.sql()}")}
        assert got == {g for g in GUILDS if shard.owns(g)}


@pytest.mark.parametrize(("count", "ids"), [(0, {0}), (2, set()), (2, {2}), (2, {-1})])
def test_bad_shard_sets_are_refused(count: int, ids: set[int]) -> None:
    with pytest.raises(ValueError):
        ShardSet(count, frozenset(ids))
