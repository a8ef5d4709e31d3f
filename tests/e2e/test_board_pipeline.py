"""The board's drawing pipeline (issue 35): a board is drawn once for the newest position, and
not drawn again when its message already shows it."""

from __future__ import annotations

from typing import Any

from .conftest import World
from .test_bot_play import live_game, start_challenge


async def test_a_board_already_showing_its_version_is_not_drawn_again(
        world: World, no_error_logs: Any) -> None:
    await start_challenge(world, "kings")
    bot = world.bot
    assert bot is not None
    game_id = live_game(world).id
    await bot.boards.flush()
    drawn, skipped = bot.boards.drawn_count, bot.boards.up_to_date_count
    posts = len(world.boards())
    # Asked again with nothing new (as when a move's request comes after the round that drew
    # it had read the game): nothing is drawn, nothing sent.
    bot.boards.request(game_id, at_once=True)
    await bot.boards.flush()
    assert (bot.boards.drawn_count, bot.boards.up_to_date_count) == (drawn, skipped + 1)
    assert len(world.boards()) == posts
    # A note to show is a reason to draw, and so is a move.
    bot.boards.request(game_id, "A note.", at_once=True)
    await bot.boards.flush()
    assert bot.boards.drawn_count == drawn + 1
    live = live_game(world)
    await bot.service.playing.play(game_id, live.on_turn,
                                   bot.service.live.view(live, live.on_turn).legal_moves[0].text)
    bot.boards.request(game_id, at_once=True)
    await bot.boards.flush()
    assert bot.boards.drawn_count == drawn + 2
