"""The drawing pipeline (issue 35): a board is drawn once for the newest position, and not drawn
again when its message already shows it; a hand is drawn only when its reply needs it."""

from __future__ import annotations

from typing import Any

from .conftest import World, option_targets, select_options
from .test_bot_play import hand, live_game, start_challenge


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


async def test_a_move_that_ends_the_turn_answers_without_a_hand_picture(
        world: World, no_error_logs: Any) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    for _ in range(30):
        message = await hand(world, user)
        assert len(message.attachments) == 1, "a hand to choose from has its picture"
        options = select_options(message)
        side = [(o["value"], t) for o in options for t in option_targets(o) if t[0] == "S"]
        if side:
            break
        # An Ace or a 2 must go first: to the centre, and the turn goes on, with a picture.
        option = next(o for o in options if any(t[0] == "C" for t in option_targets(o)))
        target = next(t for t in option_targets(option) if t[0] == "C")
        reply = await (await world.fake.slash(user, world.channel, "play", card=option["value"],
                                              to=target)).message()
        assert reply.content.startswith("✅") and len(reply.attachments) == 1, reply.content
    else:
        raise AssertionError("no side stack was ever a target")
    # A discard ends the turn: the hand message says what was done and lists the cards, with
    # no picture (the one of the hand before the move is taken away).
    token, target = side[0]
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    await (await world.fake.select(user, message, src_id, [token])).settled()
    assert len(message.attachments) == 1, "choosing a card keeps the picture shown"
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{token}>{target}"))
    await (await world.fake.click(user, message, move_id)).settled()
    assert message.content.startswith("✅") and "opponent's turn" in message.content, \
        message.content
    assert message.attachments == [] and "Your hand:" in message.content
