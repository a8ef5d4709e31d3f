"""A game lives in its own thread; the channel sees the challenge, the result and at most one
notice; one live board at a time; results that notify; Rematch."""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox import Perm
from bot.sandbox.models import FakeMessage

from .conftest import World
from .test_bot_play import hand, live_game, play_through, resign, start_challenge


def live_boards(world: World) -> list[FakeMessage]:
    """Boards that still carry controls (a Show my hand button)."""
    return [m for m in world.public() if any(c.startswith("sm:hand:") for c in m.custom_ids())]


def rematch_button(message: FakeMessage) -> str:
    return next(c for c in message.custom_ids() if c.startswith("sm:rematch:"))


async def _finish(world: World) -> None:
    """Play the current game out; a kings match that goes on is resigned."""
    live = live_game(world)
    await play_through(world)
    await world.settle()
    if not live.finished:
        await resign(world, world.alice)
    await world.settle()
    assert live.finished


async def test_a_whole_game_is_played_in_its_thread(world: World, no_error_logs) -> None:
    challenge = await start_challenge(world, "classic")
    threads = world.threads()
    assert len(threads) == 1
    thread = threads[0]
    live = live_game(world)
    assert thread.name == "alice vs bob · classic"
    assert thread.id == challenge.id, "the thread is opened from the challenge message"
    assert {world.alice.id, world.bob.id} <= thread.thread_member_ids
    assert f"<#{thread.id}>" in challenge.content
    assert world.boards() and all(b.channel_id == thread.id for b in world.boards())
    # Commands work from the thread without naming the game.
    user = world.alice if live.on_turn == world.alice.id else world.bob
    reply = await (await world.fake.slash(user, thread, "hand")).message()
    assert reply.ephemeral and "Your hand" in reply.content
    await _finish(world)
    # Turn pings were made in the thread, never in the channel.
    # (Closed boards dropped their ping line, so their first revision is read.)
    def first_content(m: FakeMessage) -> str:
        return m.history[0].content if m.history else m.content
    pings = [m for m in world.public() if "your turn" in first_content(m)]
    assert pings and all(m.channel_id == thread.id for m in pings)
    in_channel = world.in_channel()
    assert len(in_channel) <= 3, [m.text()[:60] for m in in_channel]
    assert in_channel[0].id == challenge.id
    results = [m for m in in_channel if "🏁" in m.content]
    assert len(results) == 1
    result = results[0]
    assert f"<@{world.alice.id}>" in result.content and f"<@{world.bob.id}>" in result.content
    assert "match" not in result.content.lower(), "one classic game is not a match"
    assert thread.archived, "the thread is archived after the result"
    # An archived thread stays readable: its messages are all there.
    assert world.fake.messages(thread)


async def test_exactly_one_live_board_after_every_turn(world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    turns = 0
    while not live.finished and turns < 30:
        user = world.alice if live.on_turn == world.alice.id else world.bob
        options = [o for o in _options(await hand(world, user))]
        token, target = _discard(options)
        await (await world.fake.slash(user, world.channel, "play", card=token,
                                      to=target)).message()
        await world.settle()
        turns += 1
        live_now = live_boards(world)
        assert len(live_now) == 1, f"turn {turns}: {len(live_now)} boards with controls"
        assert f"turn {live.match.game.turn_number + 1}" in live_now[0].text()
    closed = [b for b in world.boards() if b not in live_boards(world)]
    assert len(closed) >= 5
    for board in closed:
        assert "to play" not in board.text(), "a closed board no longer says who is to play"
        assert board.embeds and board.embeds[0].get("description", "").startswith("✔")


def _options(message: FakeMessage) -> list[dict[str, Any]]:
    from .conftest import select_options
    return select_options(message)


def _discard(options: list[dict[str, Any]]) -> tuple[str, str]:
    from .conftest import option_targets
    for option in options:
        for target in option_targets(option):
            if target.startswith("S"):
                return option["value"], target
    raise AssertionError("no discard offered")


async def test_without_thread_permissions_games_stay_in_the_channel_with_one_notice(
        world: World, no_error_logs) -> None:
    for role in world.guild.roles.values():
        role.permissions &= ~(Perm.CREATE_PUBLIC_THREADS | Perm.SEND_MESSAGES_IN_THREADS)
    await world.stop()
    await world.start()
    await start_challenge(world, "classic")
    assert world.threads() == []
    assert world.boards() and all(b.channel_id == world.channel.id for b in world.boards())
    notices = [m for m in world.in_channel() if "Create Public Threads" in m.content]
    assert len(notices) == 1
    await resign(world, world.alice)
    await start_challenge(world, "classic")
    notices = [m for m in world.in_channel() if "Create Public Threads" in m.content]
    assert len(notices) == 1, "the notice is given once"


async def test_threads_can_be_switched_off(world: World, no_error_logs) -> None:
    assert world.bot is not None
    await world.bot.service.inviting.update_settings(world.guild.id, use_threads=0)
    await start_challenge(world, "kings")
    assert world.threads() == []
    assert not [m for m in world.in_channel() if "Create Public Threads" in m.content]


async def test_a_staked_result_says_what_is_owed_and_the_balance(world: World,
                                                                 no_error_logs) -> None:
    await start_challenge(world, "classic", stake="0.50", per_card="0.05")
    await resign(world, world.bob)
    results = [m for m in world.in_channel() if "🏁" in m.content]
    assert len(results) == 1
    text = results[0].content
    assert "bob owes alice $" in text
    assert "Between them, bob owes alice" in text
    assert "gave the game up" in text


@pytest.mark.parametrize("answer", ["accept", "decline"])
async def test_rematch_offers_the_same_terms(world: World, no_error_logs, answer: str) -> None:
    await start_challenge(world, "classic", stake="1", per_card="0.10")
    first = live_game(world)
    await resign(world, world.alice)
    result = next(m for m in world.in_channel() if "🏁" in m.content)
    inter = await world.fake.click(world.bob, result, rematch_button(result))
    offer = await inter.message()
    assert not offer.ephemeral and "A challenge!" in offer.text()
    assert "$1.00" in offer.text() and "$0.10" in offer.text() and "classic" in offer.text()
    assert f"<@{world.alice.id}>" in offer.content, "the opponent is asked"
    button = next(c for c in offer.custom_ids() if c.endswith(f":{answer}"))
    await (await world.fake.click(world.alice, offer, button)).settled()
    await world.settle()
    if answer == "accept":
        second = live_game(world)
        assert second.id != first.id and not second.finished
        assert (second.terms.stake_cents, second.terms.per_card_cents) == (100, 10)
        assert second.match.rules == first.match.rules
        assert len(world.threads()) == 2
    else:
        assert "declined" in offer.content
        assert live_game(world).id == first.id


async def test_a_result_lost_in_a_crash_is_announced_after_the_restart(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "classic")
    assert world.bot is not None
    world.bot.announce_result = _never  # type: ignore[method-assign]
    await resign(world, world.alice)
    assert not [m for m in world.in_channel() if "🏁" in m.content]
    await world.stop()
    await world.start()
    await world.fake.wait_for(lambda: [m for m in world.in_channel() if "🏁" in m.content],
                              timeout=10, description="the result announced")
    await world.settle()
    await world.stop()
    await world.start()
    await world.settle()
    assert len([m for m in world.in_channel() if "🏁" in m.content]) == 1


async def _never(game_id: int) -> None:
    return None


async def test_a_repair_round_while_the_thread_opens_draws_the_first_board_in_the_thread(
        world: World, no_error_logs) -> None:
    # The shard test's rare 404: a housekeeping round found the new game's board missing
    # while its thread was being opened, posted it in the channel, and the game's next edit,
    # made in the thread, found no message there. Discord holds the thread's creation here
    # until the round has asked for the board.
    import asyncio

    from bot.sandbox.faults import Fault

    assert world.bot is not None
    release = asyncio.Event()
    world.fake.faults.script("thread", Fault.held(release))
    challenge = await (await world.fake.slash(world.alice, world.channel, "challenge",
                                              opponent=world.bob, rules="classic")).message()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    click = await world.fake.click(world.bob, challenge, accept)
    await world.fake.wait_for(lambda: any(r.method == "POST" and r.path.endswith("/threads")
                                          for r in world.fake.requests), timeout=30,
                              description="the thread's creation sent, and held")
    assert await world.bot.repair_boards() == 1, "the round finds the new game's board missing"
    release.set()
    await click.settled()
    await world.fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    await world.settle()
    (thread,) = world.threads()
    assert [b.channel_id for b in world.boards()] == [thread.id]
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    move = live.match.game.legal_moves()[0].text
    if move == "pass":
        reply = await (await world.fake.slash(user, thread, "pass")).message()
    else:
        card, to = move.split(">")
        reply = await (await world.fake.slash(user, thread, "play", card=card, to=to)).message()
    assert "✅" in reply.content, reply.content
    await world.settle()
    assert all(b.channel_id == thread.id for b in world.boards())
    world.fake.assert_clean(allow_rejected=False)  # the board's edit found its message
