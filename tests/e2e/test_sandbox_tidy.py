"""The sandbox's housekeeping (``world.tidy``) forgets old pictures and records, never what a
message shows now, and the bot plays on after it."""

from __future__ import annotations

from bot.sandbox.world import tidy

from .conftest import World, select_options
from .test_bot_play import choose, hand, live_game, start_challenge


async def move(world: World, step: int) -> None:
    """The player on turn moves through the hand's menu and buttons."""
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    has_pass = any(c.endswith(":pass") for c in message.custom_ids())
    choice = choose(select_options(message), has_pass, step)
    if choice is None:
        custom_id = next(c for c in message.custom_ids() if c.endswith(":pass"))
    else:
        token, target = choice
        menu = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
        await (await world.fake.select(user, message, menu, [token])).settled()
        custom_id = next(c for c in message.custom_ids() if c.endswith(f":{token}>{target}"))
    await (await world.fake.click(user, message, custom_id)).settled()


async def test_tidying_keeps_what_messages_show_and_the_game_goes_on(world: World) -> None:
    fake = world.fake
    await start_challenge(world, "kings")
    for user in (world.alice, world.bob):
        await hand(world, user)
    turns = len(live_game(world).last_moves)
    before = len(fake.state.attachments)

    tidy(fake, now=fake.interactions[-1].created_wall + 16 * 60)  # every token has expired

    assert fake.interactions == [] and all(not r.files for r in fake.requests)
    shown = {a.id for m in fake.state.messages_by_id.values() for a in m.attachments}
    assert shown and set(fake.state.attachments) == shown and len(shown) <= before
    assert all(len(m.history) <= 2 for m in fake.state.messages_by_id.values())
    # New interactions, board edits and hands work as before.
    for step in range(1, 5):
        await move(world, step)
    await world.settle()
    assert len(live_game(world).last_moves) > turns
    fake.assert_clean(allow_rejected=False)
