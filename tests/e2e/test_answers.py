"""End to end: every interaction is answered, at once and within Discord's limits.

Discord shows "This interaction failed" when the first response takes more than 3 s, when a
reply is refused (over 2,000 characters, say) and when nothing answers at all. These tests slow
the bot down, break it on purpose and send what only a modified client would send.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.app import ui
from bot.sandbox import CallbackType, ErrorLogGuard, MessageFlags

from .conftest import World, option_targets, select_options
from .test_bot_play import hand, live_game, start_challenge

SORRY = "Sorry, something went wrong on my side. Nothing was changed."

SLOW = 1.5
"""Seconds the hand picture takes in the slow tests: far more than a first response may."""


@pytest.fixture
def slow_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ui.pictures.hand

    async def slow(*args: Any) -> bytes:
        await asyncio.sleep(SLOW)  # drawn in another process, as the real drawing is
        return await real(*args)

    monkeypatch.setattr(ui.pictures, "hand", slow)
    monkeypatch.setattr(ui, "HAND_PICTURE_WAIT", 2 * SLOW)  # slow, not given up


async def test_a_picture_too_slow_to_draw_is_left_out_and_the_old_one_taken_away(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    await start_challenge(world, "kings")
    user = on_turn(world)
    message = await hand(world, user)
    assert len(message.attachments) == 1  # drawn in time
    real = ui.pictures.hand
    given_up: list[bool] = []

    async def stuck(*args: Any) -> bytes:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            given_up.append(True)
            raise
        return await real(*args)

    monkeypatch.setattr(ui.pictures, "hand", stuck)
    monkeypatch.setattr(ui, "HAND_PICTURE_WAIT", 0.3)
    option = select_options(message)[0]
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    await (await world.fake.select(user, message, src_id, [option["value"]])).settled()
    assert len(message.attachments) == 1, "choosing a card keeps the picture shown"
    target = option_targets(option)[0]
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{option['value']}>{target}"))
    edited = await (await world.fake.click(user, message, move_id)).settled(timeout=5)
    assert edited.content.startswith("✅") and "no picture this time" in edited.content
    assert edited.attachments == [], "the picture of the hand before the move is gone"
    reply = await (await world.fake.slash(on_turn(world), world.channel, "hand")).message()
    assert reply.attachments == [] and "no picture this time" in reply.content
    assert given_up == [True, True], "the drawings were given up, not left waiting"


def on_turn(world: World) -> Any:
    return world.alice if live_game(world).on_turn == world.alice.id else world.bob


async def test_play_and_move_buttons_answer_before_they_draw(
        world: World, no_error_logs: ErrorLogGuard, slow_pictures: None) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = on_turn(world)
    move = live.match.game.legal_moves()[0]
    inter = await world.fake.slash(user, world.channel, "play", card=move.source_token,
                                   to=move.target_token)
    first = await inter.response(timeout=SLOW)
    assert first.kind is CallbackType.DEFERRED_CHANNEL_MESSAGE
    assert first.data.get("flags", 0) & MessageFlags.EPHEMERAL, "a private answer, deferred"
    assert inter.latency is not None and inter.latency < SLOW / 2
    reply = await inter.message(timeout=10)
    assert reply.ephemeral and reply.content.startswith("✅"), reply.content
    assert reply.attachments, "the hand picture still arrives"

    user = on_turn(world)
    message = await hand(world, user)
    option = select_options(message)[0]
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    inter = await world.fake.select(user, message, src_id, [option["value"]])
    first = await inter.response(timeout=SLOW)
    # The card's targets need no new picture: ready at once, they are the response itself
    # (unless the machine is too busy even for that).
    assert first.kind in (CallbackType.UPDATE_MESSAGE, CallbackType.DEFERRED_UPDATE_MESSAGE)
    assert inter.latency is not None and inter.latency < SLOW / 2
    await inter.settled(timeout=10)
    version = live.version
    target = option_targets(option)[0]
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{option['value']}>{target}"))
    inter = await world.fake.click(user, message, move_id)
    first = await inter.response(timeout=SLOW)
    assert inter.latency is not None and inter.latency < SLOW / 2
    edited = await inter.settled(timeout=10)
    assert edited is message and message.content.startswith("✅"), message.content
    assert live.version == version + 1
    if edited.attachments:  # the turn goes on: the reply waited for the slow picture
        assert first.kind is CallbackType.DEFERRED_UPDATE_MESSAGE


async def test_a_refusal_after_a_public_defer_stays_private(world: World,
                                                           no_error_logs: ErrorLogGuard) -> None:
    # /challenge answers publicly, so it defers publicly; its refusals must not show in public.
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob)
    await inter.message()
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob)
    assert (await inter.response()).kind is CallbackType.DEFERRED_CHANNEL_MESSAGE
    reply = await inter.message()
    assert reply.ephemeral and "already an open challenge" in reply.content
    assert inter.response_message is not None and inter.response_message.deleted
    assert not any(m.loading for m in world.public() if not m.deleted), "a thinking… is left"


@pytest.mark.parametrize("where", ["show hand", "card menu", "move button", "challenge"])
async def test_a_failing_button_apologises_privately_and_logs_once(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    no_error_logs.allow("failed", logger="bot.app.ui")
    assert world.bot is not None
    service = world.bot.service
    if where == "challenge":
        inter = await world.fake.slash(world.alice, world.channel, "challenge",
                                       opponent=world.bob)
        message = await inter.message()
        monkeypatch.setattr(service.inviting, "accept", _boom)
        user, custom_id = world.bob, next(c for c in message.custom_ids()
                                          if c.endswith(":accept"))
    else:
        await start_challenge(world, "classic")
        live = live_game(world)
        user = on_turn(world)
        if where == "show hand":
            message = world.boards()[-1]
            custom_id = f"sm:hand:v1:{live.id}"
            monkeypatch.setattr(service.live, "game", _boom)
        else:
            message = await hand(world, user)
            option = select_options(message)[0]
            src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
            if where == "card menu":
                monkeypatch.setattr(service.live, "game", _boom)
                custom_id = src_id
            else:
                await (await world.fake.select(user, message, src_id,
                                               [option["value"]])).settled()
                custom_id = next(c for c in message.custom_ids() if c.startswith("sm:mv:"))
                monkeypatch.setattr(service.playing, "play", _boom)
    before = message.content
    no_error_logs.clear()
    if where == "card menu":
        inter = await world.fake.select(user, message, custom_id,
                                        [select_options(message)[0]["value"]])
    else:
        inter = await world.fake.click(user, message, custom_id)
    reply = await inter.settled()
    assert reply.ephemeral and reply.content == SORRY
    assert reply.visible_to == user.id
    assert message.content == before, "the message the button is on is left as it was"
    errors = [r for r in no_error_logs.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, no_error_logs.format_records(errors)
    assert errors[0].exc_info is not None and errors[0].name == "bot.app.ui"
    assert "sm:mv" not in errors[0].getMessage(), "a move's id names a hand card: not logged"


async def _boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the database went away")


async def test_quick_answers_are_the_response_itself(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    # A hand, a card's targets and a move ready within ui.QUICK_ANSWER: one request each.
    # (Longer here than the bot's: a busy machine must not make them late.)
    monkeypatch.setattr(ui, "QUICK_ANSWER", 2.5)
    await start_challenge(world, "kings")
    user = on_turn(world)
    for _ in range(20):  # the first drawing starts the drawing process: not always quick
        inter = await world.fake.slash(user, world.channel, "hand")
        message = await inter.message()
        if (await inter.response()).kind is CallbackType.CHANNEL_MESSAGE:
            break
    else:
        pytest.fail("/hand was never answered in its response")
    assert message.ephemeral and message.attachments and message.visible_to == user.id
    option = select_options(message)[0]
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    inter = await world.fake.select(user, message, src_id, [option["value"]])
    assert (await inter.response()).kind is CallbackType.UPDATE_MESSAGE
    await inter.settled()
    assert "Move" in message.content and len(message.attachments) == 1
    target = option_targets(option)[0]
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{option['value']}>{target}"))
    version = live_game(world).version
    inter = await world.fake.click(user, message, move_id)
    edited = await inter.settled()
    assert (await inter.response()).kind is CallbackType.UPDATE_MESSAGE
    assert edited is message and message.content.startswith("✅"), message.content
    assert live_game(world).version == version + 1
    calls = [r for r in world.fake.requests if inter.token in r.path]
    assert len(calls) == 1, [r.path for r in calls]


async def test_a_failure_after_the_quick_answer_time_follows_the_deferral(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    no_error_logs.allow("failed", logger="bot.app.ui")
    assert world.bot is not None
    await start_challenge(world, "kings")
    live = live_game(world)
    user = on_turn(world)

    async def late_boom(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(3 * ui.QUICK_ANSWER)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(world.bot.service.live, "game", late_boom)
    inter = await world.fake.click(user, world.boards()[-1], f"sm:hand:v1:{live.id}")
    first = await inter.response()
    assert first.kind is CallbackType.DEFERRED_CHANNEL_MESSAGE
    assert first.data.get("flags", 0) & MessageFlags.EPHEMERAL
    reply = await inter.message()
    assert reply.ephemeral and reply.content == SORRY and reply.visible_to == user.id
    assert len([r for r in no_error_logs.records if r.levelno >= logging.ERROR]) == 1


@pytest.mark.parametrize(("command", "options", "words"), [
    ("challenge", {"level": "godlike"}, "Unknown level `godlike`: choose easy, normal or hard."),
    ("challenge", {"rules": "poker"}, "Unknown rule set `poker`: choose kings or classic."),
    ("rules", {"rules": "poker"}, "Unknown rule set `poker`: choose kings or classic."),
    ("settings", {"rules": "x" * 3000}, "Unknown rule set `xxxxxxxx"),
    ("settings", {"currency": "€" * 3000}, "must be 1 to 4 characters"),
    ("settings", {"reminder_hours": 1e9}, "reminder hours must be between 0.1 and 720"),
    ("settings", {"challenge_expiry_minutes": 0}, "must be between 1 and 10080"),
])
async def test_a_forged_choice_is_refused_in_our_words(
        world: World, no_error_logs: ErrorLogGuard, command: str, options: dict[str, Any],
        words: str) -> None:
    # Discord's own clients offer only the choices; a modified client may send anything.
    if command == "challenge":
        options = {"opponent": world.bob, **options}
    inter = await world.fake.people.forged_slash(world.alice, world.channel, command, **options)
    reply = await inter.message()
    assert reply.ephemeral and words in reply.content, reply.content
    assert "Failed to convert" not in reply.content
    assert len(reply.content) < 200, "at most a short prefix of what was sent"
    assert all("A challenge!" not in m.text() for m in world.public())


@pytest.mark.parametrize("options", [
    {"card": "7H" * 1500, "to": "C1"},
    {"card": "P", "to": "C" * 3000},
    {"card": "é" * 200, "to": "S1"},
])
async def test_long_input_is_quoted_short(world: World, no_error_logs: ErrorLogGuard,
                                          options: dict[str, str]) -> None:
    await start_challenge(world, "kings")
    user = on_turn(world)
    inter = await world.fake.slash(user, world.channel, "play", **options)
    reply = await inter.message()
    assert reply.ephemeral and len(reply.content) < 200, reply.content
    assert "is not a" in reply.content


async def test_a_long_amount_in_settings_is_quoted_short(world: World,
                                                         no_error_logs: ErrorLogGuard) -> None:
    inter = await world.fake.slash(world.alice, world.channel, "settings",
                                   stake_kings="x" * 3000)
    reply = await inter.message()
    assert reply.ephemeral and len(reply.content) < 200, reply.content


@pytest.mark.parametrize("command", ["hand", "challenge"])
async def test_a_failing_command_apologises_privately(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch,
        command: str) -> None:
    # The tree's error handler (client.SpiteTree.on_error) replies through ui.reply_error,
    # after a private or a public "thinking…" alike.
    no_error_logs.allow("failed", logger="bot.app.client")
    assert world.bot is not None
    monkeypatch.setattr(world.bot.service.live, "find_game", _boom)
    monkeypatch.setattr(world.bot.service.inviting, "invite", _boom)
    options = {"opponent": world.bob} if command == "challenge" else {}
    inter = await world.fake.slash(world.alice, world.channel, command, **options)
    # /hand fails at once: its apology is the response itself (no "thinking…" first).
    assert (await inter.response()).kind is (CallbackType.DEFERRED_CHANNEL_MESSAGE
                                             if command == "challenge"
                                             else CallbackType.CHANNEL_MESSAGE)
    reply = await inter.message()
    assert reply.ephemeral and reply.content == SORRY
    assert not any(m.loading for m in world.public() if not m.deleted)
    assert len([r for r in no_error_logs.records if r.levelno >= logging.ERROR]) == 1


async def test_play_suggestions_come_in_time_or_not_at_all_when_the_database_is_slow(
        world: World, no_error_logs: ErrorLogGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    """Autocomplete can't be deferred: Discord takes suggestions for 3 s. With the game slow
    to find, /play's card option gets no suggestions in time rather than a late answer."""
    await start_challenge(world, "classic")
    assert world.bot is not None
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    assert await world.fake.autocomplete(user, world.channel, "play", "card", "")
    service = world.bot.service
    real = service.live.find_game

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(10)  # a database that has stopped answering
        return await real(*args, **kwargs)

    monkeypatch.setattr(service.live, "find_game", slow)
    loop = asyncio.get_running_loop()
    started = loop.time()
    choices = await world.fake.autocomplete(user, world.channel, "play", "card", "")
    assert choices == [] and loop.time() - started < 3
