"""SHARD_COUNT and SHARD_IDS: which shards a bot process runs, and clear refusals of nonsense."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.client import ShardedSpiteBot, SpiteBot, new_bot
from bot.ops.config import Config, ConfigError
from bot.shards import ShardSet


def _config(**env: str) -> Config:
    return Config.from_env({"DISCORD_TOKEN": "t", **env}, dotenv=False)


def test_without_shard_settings_the_bot_is_not_sharded() -> None:
    assert _config().shards is None
    assert _config(SHARD_COUNT=" ", SHARD_IDS="").shards is None


def test_shard_ids_of_a_count() -> None:
    assert _config(SHARD_IDS="0,1", SHARD_COUNT="4").shards == ShardSet(4, frozenset({0, 1}))
    assert _config(SHARD_IDS=" 3 , 1 ", SHARD_COUNT="4").shards == ShardSet(4, frozenset({1, 3}))
    assert _config(SHARD_IDS="0", SHARD_COUNT="1").shards == ShardSet(1, frozenset({0}))


def test_shard_count_alone_runs_every_shard() -> None:
    shards = _config(SHARD_COUNT="3").shards
    assert shards == ShardSet(3, frozenset({0, 1, 2}))
    assert shards.everything


def test_shard_ids_without_a_count_is_refused() -> None:
    with pytest.raises(ConfigError, match="SHARD_IDS needs SHARD_COUNT"):
        _config(SHARD_IDS="0,1")


@pytest.mark.parametrize("count", ["0", "-2", "two", "1.5", "²", "4x"])
def test_a_malformed_shard_count_is_refused(count: str) -> None:
    with pytest.raises(ConfigError, match="SHARD_COUNT must be a whole number"):
        _config(SHARD_COUNT=count)


@pytest.mark.parametrize("ids", ["0;1", "0,,1", "0,", "a", "-1", "1.0", "0 1", "¹"])
def test_malformed_shard_ids_are_refused(ids: str) -> None:
    with pytest.raises(ConfigError, match="SHARD_IDS must be shard numbers"):
        _config(SHARD_IDS=ids, SHARD_COUNT="4")


def test_shard_ids_beyond_the_count_are_refused() -> None:
    with pytest.raises(ConfigError, match="between 0 and 3"):
        _config(SHARD_IDS="0,4", SHARD_COUNT="4")


def test_a_shard_named_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="more than once"):
        _config(SHARD_IDS="1,1", SHARD_COUNT="2")


def test_a_sharded_config_makes_an_auto_sharded_bot() -> None:
    bot = new_bot(_config(SHARD_IDS="2,0", SHARD_COUNT="4"))
    assert isinstance(bot, ShardedSpiteBot)
    assert bot.shard_count == 4 and bot.shard_ids == [0, 2]


def test_an_unsharded_config_makes_the_plain_bot() -> None:
    bot = new_bot(_config())
    assert type(bot) is SpiteBot
    assert bot.shard_count is None


def test_the_plain_bot_refuses_a_sharded_config() -> None:
    # discord.py's plain Client would silently ignore shard_ids and IDENTIFY unsharded.
    with pytest.raises(TypeError, match="ShardedSpiteBot"):
        SpiteBot(_config(SHARD_COUNT="2"))


def test_the_heartbeat_of_an_unsharded_sqlite_bot_stays_beside_the_database() -> None:
    assert _config().heartbeat_path == Path("data/spite-malice.sqlite3.heartbeat")
    assert _config(DATABASE="sqlite:///var/bot.db").heartbeat_path == Path("var/bot.db.heartbeat")


def test_each_shard_process_has_a_heartbeat_of_its_own() -> None:
    url = "postgresql://bot:hunter2@db:5432/spite"
    paths = {_config(DATABASE=url, SHARD_COUNT="4", SHARD_IDS=ids).heartbeat_path
             for ids in ("0,1", "2", "3")}
    assert paths == {Path("data/spite-malice.shards-0-1.heartbeat"),
                     Path("data/spite-malice.shards-2.heartbeat"),
                     Path("data/spite-malice.shards-3.heartbeat")}
    # The URL (and its password) never becomes a file name that `health` prints.
    assert not any("hunter2" in str(p) or "postgresql" in str(p) for p in paths)
    assert _config(DATABASE=url).heartbeat_path == Path("data/spite-malice.heartbeat")


def test_heartbeat_file_wins() -> None:
    config = _config(SHARD_COUNT="2", SHARD_IDS="1", HEARTBEAT_FILE="/run/bot.beat")
    assert config.heartbeat_path == Path("/run/bot.beat")


@pytest.mark.parametrize(("name", "value"), [("DISCORD_GUILD_ID", "²"), ("BACKUP_KEEP", "²"),
                                             ("BACKUP_KEEP", "٣")])
def test_digits_int_refuses_are_a_polite_config_error(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({"DISCORD_TOKEN": "t", name: value}, dotenv=False)
