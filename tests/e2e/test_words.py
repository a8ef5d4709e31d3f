"""End to end: what the bot says, checked word for word where a player reads it."""

from __future__ import annotations

import pytest

from bot.sandbox import ErrorLogGuard
from engine import CLASSIC, Game

from .conftest import World
from .test_bot_play import live_game, start_challenge

PASS_HINT = "No card can move: /pass ends your turn."


async def test_help_lists_every_command_and_option_and_the_rating(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    reply = await (await world.fake.slash(world.alice, world.channel, "help")).message()
    text = reply.content
    assert reply.ephemeral and len(text) <= 2000
    commands = world.fake.state.commands()
    assert {"ledger", "settle", "leaderboard", "stats", "void"} <= set(commands)
    for name in commands:
        assert f"/{name}" in text, f"/help leaves out /{name}"
    for option in ("stake", "per_card", "target", "level", "rules"):
        assert f"`{option}`" in text, f"/help leaves out the challenge option {option}"
    assert ("Ratings: an OpenSkill skill estimate shown on a scale where a new player starts "
            "at 1000; provisional until 5 games.") in text.replace("**", "")


def only_pass_position() -> Game:
    """Classic, seat 0 on turn: no Ace anywhere to start a centre stack, no hand card fits a
    side stack (they all show a 2), so passing is the only legal move."""
    return Game.from_layout(
        CLASSIC, payoffs=["5H", "6S"], hands=["KS QS JS 10S 9S", "KH QH JH 10H 9H"],
        sides=[["2C", "2D", "2H", "2S"], ["3C", "3D", "3H", "3S"]], turn=0)


async def test_when_only_passing_is_possible_play_offers_the_hint(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    await start_challenge(world, "classic")
    live = live_game(world)
    # No seed reaches this position quickly: it is set up in memory (never saved).
    live.match.game = only_pass_position()
    assert [m.text for m in live.match.game.legal_moves()] == ["pass"]
    player = world.alice if live.players[0] == world.alice.id else world.bob
    choices = await world.fake.autocomplete(player, world.channel, "play", "card", "")
    assert choices == [{"name": PASS_HINT, "value": "pass"}]
    choices = await world.fake.autocomplete(player, world.channel, "play", "to", "", card="pass")
    assert choices == [{"name": PASS_HINT, "value": "pass"}]
    inter = await world.fake.slash(player, world.channel, "play", card="pass", to="pass")
    reply = await inter.message()
    assert reply.ephemeral and reply.content == PASS_HINT
    assert [m.text for m in live.match.game.legal_moves()] == ["pass"], "nothing was played"
    # The other player, not on turn, gets no hint.
    other = world.bob if player is world.alice else world.alice
    assert await world.fake.autocomplete(other, world.channel, "play", "card", "") == []


@pytest.mark.parametrize(("target", "words"), [(1, "first to 1 point"),
                                               (2, "first to 2 points")])
async def test_the_match_target_is_pluralised(world: World, no_error_logs: ErrorLogGuard,
                                              target: int, words: str) -> None:
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob,
                                   rules="classic", target=target)
    text = (await inter.message()).text()
    assert words in text and "1 points" not in text, text


@pytest.mark.parametrize(("user", "action", "status"), [("bob", "accept", "Accepted"),
                                                        ("bob", "decline", "Declined"),
                                                        ("alice", "cancel", "Withdrawn")])
async def test_an_answered_challenge_no_longer_says_when_it_expires(
        world: World, no_error_logs: ErrorLogGuard, user: str, action: str,
        status: str) -> None:
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob,
                                   rules="kings", stake="0.50")
    challenge = await inter.message()
    assert "Expires <t:" in challenge.text()
    button = next(c for c in challenge.custom_ids() if c.endswith(f":{action}"))
    await (await world.fake.click(getattr(world, user), challenge, button)).settled()
    text = challenge.text()
    assert "Expires" not in text and "expires" not in text, text
    assert status in text and "Terms:" in text, "the terms stay, with the answer"
    await world.settle()
