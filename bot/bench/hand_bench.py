"""``python -m bot.bench hand``: the private hand message shown again and again.

A player clicks **Show my hand**, picks a card, clicks **Back**, picks another: each answer is
``ui.hand_payload`` for the same game, version and seat. This plays ``--games`` seeded games
some moves into the deal (through ``GameService`` on an in-memory database) and builds each
on-turn player's hand message ``--repeats`` times in a row, timing every call; one JSON line:

    {"name": "hand_repeated", "games": 20, "repeats": 10, "first_ms": 11.8, "again_ms": 0.4}

``first_ms`` is the median of the first call per hand (a drawing), ``again_ms`` the median of
the calls after it.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from typing import Any, cast

from bot.app.host import Host
from bot.app.ui import hand_payload
from bot.games.game_service import GameService, LiveGame
from bot.storage import Storage

__all__ = ["run_hand"]


class _Bot:
    # All ``hand_payload`` reads of the bot is its service.
    def __init__(self, service: GameService) -> None:
        self.service = service


async def _measure(games: int, repeats: int, seed: int) -> dict[str, Any]:
    storage = await Storage.open(":memory:")
    seeds = iter(range(seed * 1000, seed * 1000 + games))
    service = GameService(storage, computer_id=1, seed_source=lambda: next(seeds))
    bot = cast(Host, _Bot(service))
    rng = random.Random(seed)
    first: list[float] = []
    again: list[float] = []
    try:
        for n in range(games):
            row = await service.inviting.challenge(
                guild_id=1, channel_id=10 + n, challenger_id=100 + 2 * n,
                opponent_id=101 + 2 * n, opponent_is_bot=False,
                rules_name=("kings", "classic")[n % 2], names=("Ann", "Bob"))
            assert not isinstance(row, LiveGame)
            _, live = await service.inviting.accept(row.id, 101 + 2 * n)
            for _ in range(rng.randrange(10, 60)):
                if live.finished:
                    break
                user = live.on_turn
                moves = service.live.view(live, user).legal_moves
                live = (await service.playing.play(live.id, user, rng.choice(moves).text)).game
            user = live.on_turn
            for i in range(repeats):
                started = time.perf_counter()
                await hand_payload(bot, live, user)
                (first if i == 0 else again).append(time.perf_counter() - started)
    finally:
        await storage.close()
    return {"name": "hand_repeated", "games": games, "repeats": repeats,
            "first_ms": round(statistics.median(first) * 1000, 2),
            "again_ms": round(statistics.median(again) * 1000, 2)}


def run_hand(games: int = 20, repeats: int = 10, seed: int = 1) -> dict[str, Any]:
    """Build each of ``games`` hands ``repeats`` times; the figures."""
    return asyncio.run(_measure(games, repeats, seed))
