"""End to end: the real bot against the local fake Discord, from challenge to result.

Players act only through interactions (slash commands, autocomplete, buttons, menus); the tests
read the bot's internal state only to check it (legal moves, hidden cards), never to act.
"""

from __future__ import annotations

import asyncio
import io
import re
import statistics
from typing import Any

import pytest
from PIL import Image

from bot.sandbox.models import FakeMessage
from engine import Card, Move

from .conftest import World, option_targets, select_options

RANK_ORDER = "A 2 3 4 5 6 7 8 9 10 J Q K".split()


# ---------------------------------------------------------------------- helpers


async def hand(world: World, user: Any) -> FakeMessage:
    inter = await world.fake.slash(user, world.channel, "hand")
    message = await inter.message()
    assert message.ephemeral and message.visible_to == user.id
    return message


def live_game(world: World) -> Any:
    assert world.bot is not None
    games = list(world.bot.service.live._live.values())
    assert games, "no game in memory"
    return max(games, key=lambda g: g.id)


def choose(options: list[dict[str, Any]], has_pass: bool, step: int) -> tuple[str, str] | None:
    """A quick-finishing policy: pay-off first, then side tops, then hand cards to the centre,
    then a discard (in classic, sometimes a pass instead)."""
    parsed = [(o["value"], option_targets(o)) for o in options]
    for token, targets in parsed:
        if token == "P" and any(t.startswith("C") for t in targets):
            return token, next(t for t in targets if t.startswith("C"))
    for token, targets in parsed:
        if re.fullmatch(r"S\d", token):
            centre = [t for t in targets if t.startswith("C")]
            if centre:
                return token, centre[0]
    for token, targets in parsed:
        centre = [t for t in targets if t.startswith("C")]
        if centre:
            return token, centre[0]
    if has_pass and step % 3 == 0:
        return None
    discards = [(token, targets) for token, targets in parsed
                if any(t.startswith("S") for t in targets)]
    if discards:
        token, targets = max(discards, key=lambda d: RANK_ORDER.index(d[0][:-1]))
        return token, next(t for t in targets if t.startswith("S"))
    return None


def public_texts(world: World) -> list[str]:
    return [m.text() for m in world.public()]


def assert_no_hidden_card_in_public(world: World) -> None:
    """The current board names no card that sits only in a hand.

    (Older boards show older positions, whose public cards may since have been shuffled back
    into the stock and drawn, so only the board of the current turn is compared with the
    current hands; the renderer tests prove the image reads public facts only.)
    """
    live = live_game(world)
    game = live.match.game
    view = game.public_view()
    public_cards: set[str] = set()
    for seat in (0, 1):
        for pile in view.sides[seat]:
            public_cards.update(c.display for c in pile)
        if view.payoff_tops[seat] is not None:
            public_cards.add(view.payoff_tops[seat].display)
    for stack in view.centre:
        public_cards.update(c.display for c in stack.cards)
    history_text = " ".join(live.last_moves)
    hidden = {c.display for h in game.hands for c in h} - public_cards
    boards = world.boards()
    assert boards
    text = boards[-1].text()
    for shown in hidden:
        if shown in history_text:
            continue  # named in a public line about a move already made (maybe another copy)
        assert not re.search(rf"(?<![0-9]){re.escape(shown)}", text), (
            f"hidden hand card {shown} appears on the public board: {text[:300]}")


def assert_png(data: bytes) -> None:
    image = Image.open(io.BytesIO(data))
    image.verify()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


async def play_through(world: World, *, max_moves: int = 1500, check_every: int = 10) -> int:
    """Both players play by interactions until the current game ends; returns moves made."""
    live = live_game(world)
    game_number = live.match.games_dealt
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    current: dict[int, FakeMessage] = {}
    for step in range(max_moves):
        if live.match.games_dealt != game_number or live.finished:
            return step
        user = users[live.on_turn]
        message = current.get(user.id)
        if message is None or not select_options(message) and "pass" not in " ".join(
                message.custom_ids()):
            message = await hand(world, user)
        options = select_options(message)
        has_pass = any(cid.endswith(":pass") for cid in message.custom_ids())
        choice = choose(options, has_pass, step)
        engine_legal = {m.text for m in live.match.game.legal_moves()}
        if step % 2 == 0:
            # By buttons: the card menu, then the target button.
            if choice is None:
                pass_id = next(c for c in message.custom_ids() if c.endswith(":pass"))
                inter = await world.fake.click(user, message, pass_id)
                await inter.settled()
            else:
                token, target = choice
                src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
                inter = await world.fake.select(user, message, src_id, [token])
                await inter.settled()
                offered = {c.rsplit(":", 1)[1] for c in message.custom_ids()
                           if c.startswith("sm:mv:")}
                assert offered == {m for m in engine_legal if m.startswith(token + ">")}, (
                    "the target buttons must be exactly the legal moves of that card")
                move_id = next(c for c in message.custom_ids() if c.endswith(f":{token}>{target}"))
                inter = await world.fake.click(user, message, move_id)
                await inter.settled()
            current[user.id] = message
        else:
            # Typed: /play with autocomplete, checked against the engine.
            if choice is None:
                inter = await world.fake.slash(user, world.channel, "pass")
            else:
                token, target = choice
                if step % 10 == 1:
                    sources = await world.fake.autocomplete(user, world.channel, "play", "card", "")
                    assert {c["value"] for c in sources} == {
                        Move.parse(m).source_token for m in engine_legal if m != "pass"}
                    targets = await world.fake.autocomplete(
                        user, world.channel, "play", "to", "", card=token)
                    assert {c["value"] for c in targets} == {
                        Move.parse(m).target_token for m in engine_legal
                        if m.startswith(token + ">")}
                inter = await world.fake.slash(user, world.channel, "play", card=token, to=target)
            reply = await inter.message()
            assert reply.ephemeral and "✅" in reply.content, reply.content
            current[user.id] = reply
        if step % check_every == 0:
            await world.settle()
            assert_no_hidden_card_in_public(world)
    raise AssertionError(f"the game did not end within {max_moves} moves")


async def start_challenge(world: World, rules: str | None, **options: Any) -> FakeMessage:
    """Alice challenges Bob (with ``options`` such as stakes), Bob accepts, the board is up."""
    if rules is not None:
        options["rules"] = rules
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob,
                                   **options)
    challenge = await inter.message()
    assert not challenge.ephemeral
    assert "A challenge!" in challenge.text() and (rules or "") in challenge.text()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    inter = await world.fake.click(world.bob, challenge, accept)
    await inter.settled()
    assert "accepted" in challenge.content
    assert all(b.get("disabled") for b in challenge.buttons())
    await world.fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    await world.settle()
    return challenge


async def resign(world: World, user: Any) -> None:
    """``user`` resigns his game through /resign and its confirmation button."""
    live = live_game(world)
    confirm = await (await world.fake.slash(user, world.channel, "resign")).message()
    assert confirm.ephemeral
    await (await world.fake.click(user, confirm, f"sm:rs:v1:{live.id}")).settled()
    await world.settle()


# ---------------------------------------------------------------------- tests


async def test_commands_are_registered(world: World) -> None:
    names = set(world.fake.state.commands())
    assert {"challenge", "play", "pass", "resign", "board", "games", "hand", "rules", "help",
            "settings"} <= names


@pytest.mark.parametrize("rules", ["kings", "classic"])
async def test_a_whole_game_from_challenge_to_result(world: World, no_error_logs,
                                                     rules: str) -> None:
    await start_challenge(world, rules)
    boards = world.boards()
    assert boards, "a board is posted when the challenge is accepted"
    board = boards[-1]
    assert board.attachments and board.attachments[0].filename == "board.png"
    assert_png(board.attachments[0].data)
    assert "Show my hand" in board.text()
    moves = await play_through(world)
    await world.settle()
    assert moves > 0
    for message in world.boards():
        for attachment in message.attachments:
            assert_png(attachment.data)
    live = live_game(world)
    if rules == "kings" and not live.finished:
        # A kings match goes on to 50 points: the next game is dealt; end it by resigning.
        await resign(world, world.alice)
    assert live.finished
    assert "wins the match" in world.boards()[-1].text() or "level" in world.boards()[-1].text()
    await world.settle()
    results = [m for m in world.in_channel() if "🏁" in m.text()]
    assert len(results) == 1, "the result is announced once, in the channel"
    assert f"<@{world.alice.id}>" in results[0].content and f"<@{world.bob.id}>" in \
        results[0].content
    assert_no_hidden_card_in_public(world)
    assert world.bot is not None and not world.bot.cached_messages, \
        "boards were posted, edited and closed by id, with discord.py's message cache off"
    report = world.fake.state.latency_report()
    print(f"\n{rules}: {moves} moves, {report.count} interactions, first reply median "
          f"{report.median * 1000:.1f} ms, p95 {report.p95 * 1000:.1f} ms, worst "
          f"{report.worst * 1000:.1f} ms ({report.worst_name})")
    assert report.unanswered == 0


async def test_wrong_actions_get_private_reasons_and_change_nothing(world: World,
                                                                   no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    # No game yet.
    reply = await (await fake.slash(alice, world.channel, "hand")).message()
    assert reply.ephemeral and "no game going" in reply.content
    # Challenging yourself / another bot.
    reply = await (await fake.slash(alice, world.channel, "challenge", opponent=alice)).message()
    assert reply.ephemeral and "yourself" in reply.content
    robot = fake.add_member(world.guild, "robot", bot=True)
    reply = await (await fake.slash(alice, world.channel, "challenge", opponent=robot)).message()
    assert reply.ephemeral and "Other bots" in reply.content
    # A challenge: wrong people press the buttons.
    inter = await fake.slash(alice, world.channel, "challenge", opponent=bob, rules="classic")
    challenge = await inter.message()
    ids = {c.rsplit(":", 1)[1]: c for c in challenge.custom_ids()}
    for user, action, words in ((alice, "accept", "Only the challenged"),
                                (carol, "decline", "Only the challenged"),
                                (bob, "cancel", "Only the challenger")):
        inter = await fake.click(user, challenge, ids[action])
        reply = await inter.settled()
        assert reply.ephemeral and words in reply.content
    reply = await (await fake.slash(bob, world.channel, "challenge", opponent=alice)).message()
    assert "already an open challenge" in reply.content
    await (await fake.click(bob, challenge, ids["accept"])).settled()
    await world.settle()
    live = live_game(world)
    before = live.match.to_dict()
    on_turn = alice if live.on_turn == alice.id else bob
    off_turn = bob if on_turn is alice else alice
    legal = live.match.game.legal_moves()
    token = legal[0].source_token
    target = legal[0].target_token or "C1"
    # Not your turn; not in this game; malformed options; an illegal move.
    reply = await (await fake.slash(off_turn, world.channel, "play", card=token,
                                    to=target)).message()
    assert reply.ephemeral and "not your turn" in reply.content
    board = world.boards()[-1]
    inter = await fake.click(carol, board, f"sm:hand:v1:{live.id}")
    reply = await inter.message()
    assert reply.ephemeral and "not playing" in reply.content
    reply = await (await fake.slash(on_turn, world.channel, "play", card="ZZ",
                                    to="C1")).message()
    assert reply.ephemeral and "is not a source" in reply.content
    reply = await (await fake.slash(on_turn, world.channel, "play", card=token,
                                    to="X9")).message()
    assert reply.ephemeral and "is not a target" in reply.content
    hand_cards = live.match.game.hands[live.match.game.turn]
    absent = next(c for c in ("KS", "KH", "KD", "KC", "QS", "QH")
                  if Card.parse(c) not in hand_cards)
    reply = await (await fake.slash(on_turn, world.channel, "play", card=absent,
                                    to="C1")).message()
    assert reply.ephemeral and "You don't have" in reply.content
    illegal = next((m for m in live.match.game.legal_moves() if m.is_discard), None)
    if illegal is not None and not live.match.game.compulsory_plays():
        # Pay-off card to a side stack is never legal: the engine's reason comes back.
        reply = await (await fake.slash(on_turn, world.channel, "play", card="P",
                                        to="S1")).message()
        assert "pay-off card can only go to a centre stack" in reply.content
    assert live.match.to_dict() == before, "refused actions changed the game"
    # Settings: anyone may look, only Manage Server may change.
    reply = await (await fake.slash(alice, world.channel, "settings")).message()
    assert "Default rules" in reply.content
    reply = await (await fake.slash(alice, world.channel, "settings", rules="classic")).message()
    assert "Manage Server" in reply.content
    # Game over: resign, then try to move.
    await resign(world, alice)
    reply = await (await fake.slash(on_turn, world.channel, "play", card=token,
                                    to=target, game=live.id)).message()
    assert reply.ephemeral and "over" in reply.content
    assert "🏆" in world.boards()[-1].text()


async def test_expired_challenge(world: World, no_error_logs) -> None:
    fake = world.fake
    inter = await fake.slash(world.alice, world.channel, "challenge", opponent=world.bob)
    challenge = await inter.message()
    world.clock.now += 16 * 60
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    inter = await fake.click(world.bob, challenge, accept)
    reply = await inter.wait_followups(1)
    assert reply[0].ephemeral and "expired" in reply[0].content
    assert "expired" in challenge.content
    assert all(b.get("disabled") for b in challenge.buttons())
    # Unanswered, a challenge expires by itself: the housekeeping disables its buttons.
    inter = await fake.slash(world.alice, world.channel, "challenge", opponent=world.bob)
    challenge = await inter.message()
    world.clock.now += 16 * 60
    assert world.bot is not None
    await world.bot.tick()
    await fake.wait_for(lambda: "expired" in challenge.content, timeout=5,
                        description="challenge marked expired")
    assert all(b.get("disabled") for b in challenge.buttons())


async def test_no_view_is_kept_after_its_message(world: World, no_error_logs) -> None:
    """Every button and menu is a ``DynamicItem``, dispatched by its ``custom_id``: discord.py
    keeps none of the views they were sent with (it kept a private hand's for 15 minutes, with
    a task waiting on that timeout), and the hands shown keep working."""
    await start_challenge(world, "classic")
    with pytest.raises(AssertionError, match="did not end within 12 moves"):
        await play_through(world, max_moves=12)  # by the hands' menus, buttons and commands
    assert world.bot is not None
    store = world.bot._connection._view_store
    assert not store._views and not store._synced_message_views
    waiting = [t for t in asyncio.all_tasks() if "timeout_task" in repr(t.get_coro())]
    assert not waiting, waiting


async def test_double_click_applies_once(world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    options = select_options(message)
    token, targets = options[0]["value"], option_targets(options[0])
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    await (await world.fake.select(user, message, src_id, [token])).settled()
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{token}>{targets[0]}"))
    snapshot = FakeMessage(**{**message.__dict__})  # the message as the user saw it
    version = live.version
    first = await world.fake.click(user, message, move_id)
    second = await world.fake.click(user, snapshot, move_id, force=True)
    replies = [(await first.settled()).content, (await second.settled()).content]
    assert live.version == version + 1, "the move was applied exactly once"
    assert sum("✅" in r for r in replies) == 1, replies
    assert sum("moved on" in r for r in replies) == 1, "the other click is told why not"


async def test_restart_mid_game_keeps_everything_and_old_buttons_work(world: World,
                                                                      no_error_logs) -> None:
    await start_challenge(world, "classic")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    options = select_options(message)
    token, targets = options[0]["value"], option_targets(options[0])
    inter = await world.fake.slash(user, world.channel, "play", card=token, to=targets[0])
    await inter.message()
    saved = live.match.to_dict()
    version = live.version
    board = world.boards()[-1]
    await world.stop()
    await world.start()
    # The old board's button still works after the restart (even if that board has since
    # been closed: a client that hasn't refreshed still shows the button).
    inter = await world.fake.click(user, board, f"sm:hand:v1:{live.id}", force=True)
    reply = await inter.message()
    assert reply.ephemeral and "Your hand" in reply.content
    reloaded = live_game(world)
    assert reloaded.match.to_dict() == saved and reloaded.version == version
    # A button from before the restart that is out of date is refused politely.
    stale = [c for c in message.custom_ids() if c.startswith("sm:src:")]
    if stale:
        inter = await world.fake.select(user, message, stale[0], [select_options(message)[0]
                                                                  ["value"]], force=True)
        await inter.settled()
        assert "moved on" in message.content or "Your hand" in message.content


@pytest.mark.parametrize(("level", "turns"), [("easy", 20), ("hard", 4)])
async def test_practice_against_the_computer(world: World, no_error_logs, level: str,
                                             turns: int) -> None:
    fake = world.fake
    assert world.bot is not None and world.bot.user is not None
    me = world.guild.member(world.bot.user.name) if hasattr(world.guild, "member") else None
    bot_member = me or next(m for m in world.guild.members.values()
                            if m.user.id == world.bot.user.id)
    inter = await fake.slash(world.alice, world.channel, "challenge", opponent=bot_member,
                             rules="kings", level=level)
    reply = await inter.message()
    assert "against the computer" in reply.content and level in reply.content
    await world.settle()
    live = live_game(world)
    assert live.terms.vs_computer and live.terms.computer_level == level
    for _ in range(turns):
        await world.settle()
        if live.finished or live.match.games_dealt > 1:
            break
        assert live.on_turn == world.alice.id, "after the computer's turn it is Alice's"
        message = await hand(world, world.alice)
        options = select_options(message)
        choice = choose(options, False, 1)
        assert choice is not None
        inter = await fake.slash(world.alice, world.channel, "play", card=choice[0],
                                 to=choice[1])
        await inter.message()
    history_seats = {seat for seat, _ in live.match.game.history}
    assert history_seats == {0, 1}, "both the human and the computer have moved"
    assert_no_hidden_card_in_public(world)


async def test_reminder_then_claim(world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    assert world.bot is not None
    idle = live.on_turn
    other = world.bob if idle == world.alice.id else world.alice
    world.clock.now += 13 * 3600
    await world.bot.tick()
    assert any("⏰" in t and f"<@{idle}>" in t for t in public_texts(world))
    world.clock.now += 60 * 3600
    await world.bot.tick()
    notice = next(m for m in world.public() if any(c.startswith("sm:claim:")
                                                    for c in m.custom_ids()))
    inter = await world.fake.click(other, notice, f"sm:claim:v1:{live.id}")
    reply = await inter.message()
    assert "claimed" in reply.content
    await world.settle()
    assert live.finished and live.match.winner == live.terms.seat_of(other.id)


async def test_rules_help_games_and_board(world: World, no_error_logs) -> None:
    fake = world.fake
    for command, words in (("rules", "Kings"), ("help", "/challenge")):
        reply = await (await fake.slash(world.alice, world.channel, command)).message()
        assert reply.ephemeral and words in reply.content
    reply = await (await fake.slash(world.alice, world.channel, "rules",
                                    rules="classic")).message()
    assert "jokers" in reply.content.lower()
    await start_challenge(world, "kings")
    reply = await (await fake.slash(world.alice, world.channel, "games")).message()
    assert "vs bob" in reply.content.lower()
    count = len(world.boards())
    reply = await (await fake.slash(world.bob, world.channel, "board")).message()
    await world.settle()
    assert len(world.boards()) == count + 1
    # The answer comes once the board is up, and leads to it.
    assert reply.ephemeral and reply.content.endswith(f"/{world.boards()[-1].id}"), \
        reply.content


def test_latency_summary_helper() -> None:
    assert statistics.median([1, 2, 3]) == 2


async def test_choosing_a_card_keeps_the_hand_picture_and_a_move_sends_a_new_one(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    shown = [a.id for a in message.attachments]
    assert len(shown) == 1
    options = select_options(message)
    token, targets = options[0]["value"], option_targets(options[0])
    src_id = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    await (await world.fake.select(user, message, src_id, [token])).settled()
    assert "Move" in message.content and [a.id for a in message.attachments] == shown, \
        "the same picture, not sent again"
    again = await hand(world, user)  # a second hand message, its menu for this version
    move_id = next(c for c in message.custom_ids() if c.endswith(f":{token}>{targets[0]}"))
    await (await world.fake.click(user, message, move_id)).settled()
    assert message.content.startswith("✅"), message.content
    assert len(message.attachments) == 1 and message.attachments[0].id not in shown

    # A card chosen from the menu of a hand the game has moved past: the hand as it is now,
    # with its new picture.
    before = [a.id for a in again.attachments]
    await (await world.fake.select(user, again, src_id, [token])).settled()
    assert "moved on" in again.content, again.content
    assert len(again.attachments) == 1 and again.attachments[0].id not in before
