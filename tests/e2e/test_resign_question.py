"""End to end: /resign asks exactly what resigning will do before anyone presses Yes (issue 31,
point 4): in a `kings` match, that it ends the match, who wins it, the score and the money; at
a table of three, that you leave your seat and what the others play on for."""

from __future__ import annotations

from .conftest import World
from .test_bot_play import live_game, start_challenge
from .test_money import _dollars


async def test_the_question_of_a_kings_match_says_the_match_the_score_and_the_money(
        world: World, no_error_logs) -> None:
    fake, alice = world.fake, world.alice
    await start_challenge(world, "kings", stake="0.50", per_card="0.05")
    live = live_game(world)
    left = len(live.match.game.payoffs[0])  # alice's pay-off cards: bob's score (rules 25, 26)
    owed = _dollars(50 + 5 * left)
    confirm = await (await fake.slash(alice, world.channel, "resign")).message()
    text = confirm.content
    assert confirm.ephemeral
    assert "match" in text and "give up your game" not in text, text
    assert "bob wins the match" in text, text
    assert f"alice 0 – {left} bob (first to 50 points)" in text, text
    assert f"You pay bob {owed}" in text, text
    done = await (await fake.click(alice, confirm, f"sm:rs:v1:{live.id}")).settled()
    assert done.content.startswith("You resigned: the match is over"), done.content
    await world.settle()
    # What was said is what happened.
    result = next(m for m in world.in_channel() if "🏁" in m.text())
    assert f"alice 0 – {left} bob (first to 50 points)" in result.content
    assert f"alice owes bob {owed}" in result.content


async def test_the_question_at_a_table_says_your_seat_and_what_the_others_play_on_for(
        world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    challenge = await (await fake.slash(alice, world.channel, "challenge", opponent=bob,
                                        opponent2=carol, rules="kings", stake="0.20",
                                        per_card="0.01")).message()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    await (await fake.click(bob, challenge, accept)).settled()
    await (await fake.click(carol, challenge, accept)).settled()
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    confirm = await (await fake.slash(bob, world.channel, "resign")).message()
    text = confirm.content
    assert "your seat" in text and "the others play on" in text, text
    assert "alice and carol play on for the match (first to 50 points)" in text, text
    assert "alice 0, bob 0, carol 0" in text, text
    assert "$0.20" in text and "$0.01" in text, text
    done = await (await fake.click(bob, confirm, f"sm:rs:v1:{live_game(world).id}")).settled()
    assert done.content == "You left the table; the others play on.", done.content
