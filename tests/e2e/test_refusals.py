"""Refusals in the rule set's own terms, end to end."""

from __future__ import annotations

import pytest

from .conftest import World, select_options
from .test_bot_play import hand, live_game, start_challenge


@pytest.mark.parametrize("to", ["C9", "banana", "C4"])
async def test_kings_names_its_three_centre_stacks(world: World, no_error_logs, to: str) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    card = select_options(await hand(world, user))[0]["value"]
    inter = await world.fake.slash(user, world.channel, "play", card=card, to=to)
    reply = await inter.message()
    assert reply.ephemeral
    assert "C1 to C3" in reply.content and "C4" not in reply.content.replace(f"{to}", "")
    assert live.version == 0, "nothing changed"


async def test_each_computer_level_says_what_it_is_like(world: World) -> None:
    command = world.fake.state.commands()["challenge"]
    level = next(o for o in command.options if o["name"] == "level")
    choices = {c["value"]: c["name"] for c in level["choices"]}
    assert set(choices) == {"easy", "normal", "hard"}
    for value, name in choices.items():
        assert name.startswith(value + ":") and len(name) > len(value) + 20
        assert len(name) <= 100
