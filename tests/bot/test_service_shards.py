"""GameService as a shard process: it loads and looks after its own shards' servers only.

Two services on one database stand for two shard processes; each sees, expires, repairs and
announces the games and challenges of its servers and never the other's. On both backends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.games.game_service import GameService, LiveGame, UserError
from bot.shards import ShardSet
from bot.storage import Storage
from tests.support import Clock

ANN, BOB, BOT = 101, 202, 999
GUILDS = (7 << 22, 8 << 22)
"""A server on shard 1 and one on shard 0 (of 2)."""


@pytest.fixture
async def pair(database: str) -> AsyncIterator[tuple[GameService, GameService, Clock]]:
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    shard0 = GameService(storage, computer_id=BOT, clock=clock, shards=ShardSet(2, frozenset({0})))
    shard1 = GameService(storage, computer_id=BOT, clock=clock, shards=ShardSet(2, frozenset({1})))
    yield shard0, shard1, clock
    await storage.close()


async def _game(service: GameService, guild_id: int) -> LiveGame:
    row = await service.inviting.challenge(guild_id=guild_id, channel_id=guild_id + 1,
                                           challenger_id=ANN, opponent_id=BOB,
                                           opponent_is_bot=False, rules_name="kings",
                                           names=("Ann", "Bob"))
    assert not isinstance(row, LiveGame)
    _, live = await service.inviting.accept(row.id, BOB)
    return live


async def test_each_shard_loads_the_games_of_its_servers(pair) -> None:
    shard0, shard1, _ = pair
    on1 = await _game(shard1, GUILDS[0])
    on0 = await _game(shard0, GUILDS[1])
    assert [g.id for g in await shard0.live.active_games()] == [on0.id]
    assert [g.id for g in await shard1.live.active_games()] == [on1.id]
    # Boards not yet drawn: each shard repairs its own.
    assert await shard0.playing.boards_behind() == [on0.id]
    assert await shard1.playing.boards_behind() == [on1.id]
    # A finished game's result is announced by its own shard.
    await shard1.playing.resign(on1.id, BOB)
    assert await shard0.finishing.results_unannounced() == []
    assert await shard1.finishing.results_unannounced() == [on1.id]


async def test_a_game_of_another_shard_is_not_played_here(pair) -> None:
    shard0, shard1, _ = pair
    theirs = await _game(shard1, GUILDS[0])
    with pytest.raises(UserError, match="another server"):
        await shard0.live.find_game(ANN, GUILDS[1] + 1, theirs.id)
    with pytest.raises(UserError, match="another server"):
        await shard0.playing.play(theirs.id, theirs.on_turn, "S1>C1")
    assert theirs.id not in shard0.live._live  # no copy to fall behind
    assert (await shard1.live.find_game(ANN, GUILDS[0] + 1, theirs.id)) is theirs


async def test_each_shard_expires_the_challenges_of_its_servers(pair) -> None:
    shard0, shard1, clock = pair
    rows = [await shard0.inviting.challenge(guild_id=g, channel_id=g + 1, challenger_id=ANN,
                                            opponent_id=BOB, opponent_is_bot=False, rules_name=None,
                                            names=("Ann", "Bob")) for g in GUILDS]
    assert not any(isinstance(r, LiveGame) for r in rows)
    clock.now += 30 * 24 * 3600
    assert [r.guild_id for r in await shard0.inviting.expire_due()] == [GUILDS[1]]
    assert [r.guild_id for r in await shard1.inviting.expire_due()] == [GUILDS[0]]
    assert await shard0.inviting.expire_due() == [] and await shard1.inviting.expire_due() == []


async def test_unsharded_service_looks_after_every_server(database: str) -> None:
    storage = await Storage.open(database, Clock())
    try:
        service = GameService(storage, computer_id=BOT)
        games = [await _game(service, g) for g in GUILDS]
        assert [g.id for g in await service.live.active_games()] == [g.id for g in games]
    finally:
        await storage.close()
