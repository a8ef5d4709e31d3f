"""End to end: ``/history`` and ``/replay`` against the fake Discord.

Players and spectators act only through interactions; the tests read the bot's state (the live
match, the saved move log) only to check what they were shown.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from bot.sandbox.models import FakeMessage
from engine import GameOver, Match, TurnEnded

from .conftest import World, select_options
from .test_bot_play import (
    assert_png,
    choose,
    hand,
    live_game,
    play_through,
    resign,
    start_challenge,
)

# ---------------------------------------------------------------------- helpers


async def replay(world: World, user: Any, game_id: int) -> FakeMessage:
    inter = await world.fake.slash(user, world.channel, "replay", game=game_id)
    message = await inter.message()
    assert message.ephemeral and message.visible_to == user.id
    return message


def ids(message: FakeMessage, prefix: str) -> list[str]:
    return [c for c in message.custom_ids() if c.startswith(prefix)]


def step_id(message: FakeMessage, tag: str) -> str:
    return next(c for c in ids(message, "sm:rp:") if c.endswith(":" + tag))


def enabled(message: FakeMessage, custom_id: str) -> bool:
    return not message.component(custom_id).get("disabled")


def position(message: FakeMessage) -> tuple[int, int]:
    found = re.search(r"Position (\d+) of (\d+)", message.embeds[0]["description"])
    assert found, message.embeds[0]["description"]
    return int(found[1]), int(found[2])


def fields(message: FakeMessage) -> dict[str, str]:
    """The board's facts beside the picture (centre, both players, stock)."""
    return {f["name"].replace(" ▶ on turn", ""): f["value"]
            for f in message.embeds[0].get("fields", [])
            if f["name"] not in ("Last moves", "What led here")}


async def click(world: World, user: Any, message: FakeMessage, custom_id: str) -> FakeMessage:
    inter = await world.fake.click(user, message, custom_id)
    return await inter.settled()


async def play_turns(world: World, turns: int) -> list[dict[int, list[str]]]:
    """The players make ``turns`` turns by /play; returns each seat's hand (as displayed) at
    the start of every turn, the deal first."""
    live = live_game(world)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}

    def hands_now() -> dict[int, list[str]]:
        game = live.match.game
        return {live.players[s]: sorted(c.display for c in game.hands[s]) for s in (0, 1)}

    seen = [hands_now()]
    for _ in range(turns):
        turn = live.match.game.turn_number
        while live.match.game.turn_number == turn and not live.finished:
            user = users[live.on_turn]
            message = await hand(world, user)
            has_pass = any(c.endswith(":pass") for c in message.custom_ids())
            choice = choose(select_options(message), has_pass, 0)
            if choice is None:
                inter = await world.fake.slash(user, world.channel, "pass")
            else:
                inter = await world.fake.slash(user, world.channel, "play", card=choice[0],
                                               to=choice[1])
            assert "✅" in (await inter.message()).content
        if live.finished or live.match.games_dealt > 1:
            break
        seen.append(hands_now())
    await world.settle()
    return seen


def hidden_at_each_turn(live: Any, log: list[tuple[int, int, int | None, str]]
                        ) -> list[set[str]]:
    """Played again here with the engine alone: at each turn's start (and each game's end), the
    cards then in a hand that no public place showed (as displayed)."""
    match, _ = Match.new(live.match.rules, live.match.seed)
    out: list[set[str]] = []

    def note() -> None:
        view = match.game.public_view()
        public = {c.display for seat in (0, 1) for pile in view.sides[seat] for c in pile}
        public |= {c.display for stack in view.centre for c in stack.cards}
        public |= {c.display for c in view.payoff_tops if c is not None}
        out.append({c.display for h in match.game.hands for c in h} - public)

    note()
    for _, seat, _, text in log:
        events = match.resign(seat) if text in ("resign", "claim") else match.play(text, seat)
        if any(isinstance(e, GameOver) for e in events):
            note()
            if not match.is_over:
                match.next_game()
                note()
        elif any(isinstance(e, TurnEnded) for e in events):
            note()
    return out


def assert_shows_none_of(message: FakeMessage, hidden: set[str]) -> None:
    text = message.text()
    lines = "\n".join(f["value"] for f in message.embeds[0].get("fields", [])
                      if f["name"] == "What led here")
    for card in hidden:
        if card in lines:
            continue  # named in a move made before this turn (another copy of the card)
        assert not re.search(rf"(?<![0-9]){re.escape(card)}", text), (
            f"{card}, then hidden in a hand, shows in the replay: {text[:300]}")


# ---------------------------------------------------------------------- replay


async def test_a_spectator_steps_a_finished_match_from_first_to_last_turn(
        world: World, no_error_logs) -> None:
    carol = world.fake.add_member(world.guild, "carol")
    await start_challenge(world, "kings")
    live = live_game(world)
    await play_through(world)  # the first deal, played out
    if not live.finished:
        await resign(world, world.alice)  # the second deal, given up
    await world.settle()
    assert live.finished
    final_board = world.boards()[-1]
    message = await replay(world, carol, live.id)
    assert "Game 1 · turn 1" in message.embeds[0]["description"]
    assert not ids(message, "sm:rph:"), "a spectator has no hand to show"
    assert not enabled(message, step_id(message, "first"))
    assert not enabled(message, step_id(message, "prev"))
    index, total = position(message)
    assert index == 1 and total > 10
    assert len(select_options_of(message)) <= 25
    assert world.bot is not None
    hidden = hidden_at_each_turn(live, await world.bot.storage.games.move_log(live.id))
    assert len(hidden) == total
    assert_shows_none_of(message, hidden[0])
    labels = []
    while enabled(message, step_id(message, "next")):
        message = await click(world, carol, message, step_id(message, "next"))
        assert_shows_none_of(message, hidden[index])
        labels.append(message.embeds[0]["description"].split("**")[1])
        assert position(message) == (index + 1, total)
        index += 1
        assert message.attachments[0].filename == "replay.png"
    assert index == total
    assert "Game 2 · turn 1" in labels, "▶ goes on from the first deal's end to the second"
    assert labels[-1] == "Game 2 · end"
    assert "wins the match" in message.embeds[0]["description"]
    # The last turn is the saved final position: the same facts as the game's final board.
    assert fields(message) == fields(final_board)
    # /replay turn: (and deal:) opens at that turn; one that isn't there is named politely.
    for options, label in (({"turn": 3}, "Game 1 · turn 3"),
                           ({"turn": 1, "deal": 2}, "Game 2 · turn 1")):
        inter = await world.fake.slash(carol, world.channel, "replay", game=live.id, **options)
        opened = await inter.message()
        assert opened.ephemeral and label in opened.embeds[0]["description"], options
    inter = await world.fake.slash(carol, world.channel, "replay", game=live.id, turn=999)
    refused = await inter.message()
    assert refused.ephemeral and "There is no turn 999 in deal 1" in refused.content
    assert_png(message.attachments[0].data)
    # ⏮ and the jump menu.
    message = await click(world, carol, message, step_id(message, "first"))
    assert position(message) == (1, total)
    options = select_options_of(message)
    middle = options[len(options) // 2]
    inter = await world.fake.select(carol, message, f"sm:rpj:v1:{live.id}", [middle["value"]])
    message = await inter.settled()
    assert position(message) == (int(middle["value"]) + 1, total)
    assert message.embeds[0]["description"].split("**")[1] == middle["label"]
    # The match in the players' history: the match score, from each one's side.
    reply = await (await world.fake.slash(world.alice, world.channel, "history")).message()
    line = next(line for line in reply.content.splitlines() if line.startswith("`#"))
    seat = live.terms.seat_of(world.alice.id)
    assert seat is not None
    scores = live.match.scores
    assert f"`#{live.id}`" in line and "kings to 50 vs bob" in line
    assert f"{scores[seat]}–{scores[1 - seat]} in {len(live.match.results)} games" in line
    assert world.fake.latency_report().unanswered == 0


def select_options_of(message: FakeMessage) -> list[dict[str, Any]]:
    for comp in message.iter_components():
        if comp.get("type") == 3 and str(comp.get("custom_id", "")).startswith("sm:rpj:"):
            return list(comp.get("options", []))
    return []


async def test_each_player_steps_through_his_own_hands(world: World, no_error_logs) -> None:
    await start_challenge(world, "classic")
    live = live_game(world)
    seen = await play_turns(world, 5)
    await resign(world, world.bob)
    for user in (world.alice, world.bob):
        message = await replay(world, user, live.id)
        other = world.bob if user is world.alice else world.alice
        for turn, hands in enumerate(seen):
            if turn:
                message = await click(world, user, message, step_id(message, "next"))
            assert position(message)[0] == turn + 1
            button = f"sm:rph:v1:{live.id}:{turn}"
            inter = await world.fake.click(user, message, button)
            reply = await inter.message()
            assert reply.ephemeral and reply.visible_to == user.id
            shown = sorted(re.findall(r"`([^`]+)`", reply.content.split("\n")[0]))
            assert Counter(shown) == Counter(hands[user.id]), (turn, reply.content)
            assert reply.attachments and reply.attachments[0].filename == "hand.png"
            if Counter(hands[other.id]) - Counter(hands[user.id]):
                assert Counter(shown) != Counter(hands[other.id])
    # The board pictures of a replay are the same for a player and a spectator.
    carol = world.fake.add_member(world.guild, "carol")
    seen_by_carol = await replay(world, carol, live.id)
    seen_by_alice = await replay(world, world.alice, live.id)
    assert seen_by_carol.attachments[0].data == seen_by_alice.attachments[0].data
    assert not ids(seen_by_carol, "sm:rph:"), "a spectator has no hand button"
    # Even a forged click on a player's hand button gets a spectator no hand: a private
    # refusal with no picture.
    inter = await world.fake.click(carol, seen_by_alice, f"sm:rph:v1:{live.id}:0", force=True)
    reply = await inter.settled()
    assert reply.ephemeral and reply.visible_to == carol.id
    assert "Only the two players" in reply.content and not reply.attachments


async def test_a_game_going_on_is_not_replayed(world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    inter = await world.fake.slash(world.alice, world.channel, "replay", game=live.id)
    reply = await inter.message()
    assert reply.ephemeral and "still being played" in reply.content
    assert not reply.attachments and not reply.custom_ids()
    inter = await world.fake.slash(world.alice, world.channel, "replay", game=live.id + 100)
    reply = await inter.message()
    assert "There is no game" in reply.content


async def test_the_move_list_file_holds_the_moves_and_how_to_replay_them(
        world: World, no_error_logs) -> None:
    await start_challenge(world, "classic")
    live = live_game(world)
    await play_turns(world, 3)
    await resign(world, world.alice)
    message = await replay(world, world.bob, live.id)
    inter = await world.fake.click(world.bob, message, f"sm:rpm:v1:{live.id}")
    reply = await inter.message()
    assert reply.ephemeral and reply.visible_to == world.bob.id
    attachment = reply.attachments[0]
    assert attachment.filename == f"game-{live.id}.txt"
    text = attachment.data.decode()
    assert world.bot is not None
    logged = [m for _, _, _, m in await world.bot.storage.games.move_log(live.id)]
    moves = [m for line in text.splitlines() if line and not line.startswith("#")
             for m in line.split()[2:]]
    assert moves == logged and logged[-1] == "resign"
    assert f"Match seed: {live.match.seed}" in text
    assert "Match.new" in text and "Game.replay" in text
    assert "alice (seat 0) vs bob (seat 1)" in text.lower()


async def test_replay_controls_still_work_after_a_restart(world: World, no_error_logs) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    await play_turns(world, 2)
    await resign(world, world.bob)
    message = await replay(world, world.alice, live.id)
    await world.stop()
    await world.start()
    message = await click(world, world.alice, message, step_id(message, "last"))
    index, total = position(message)
    assert index == total and "end" in message.embeds[0]["description"].lower()
    inter = await world.fake.click(world.alice, message, f"sm:rph:v1:{live.id}:{total - 1}")
    reply = await inter.message()
    assert reply.ephemeral and "Your hand" in reply.content


# ---------------------------------------------------------------------- history


async def test_history_lists_finished_games_and_pages(world: World, no_error_logs) -> None:
    fake = world.fake
    carol = fake.add_member(world.guild, "carol")
    reply = await (await fake.slash(world.alice, world.channel, "history")).message()
    assert reply.ephemeral and "no finished games" in reply.content
    games = []
    for n in range(11):
        await start_challenge(world, "kings" if n % 2 else "classic")
        live = live_game(world)
        world.clock.now += 60
        await resign(world, world.alice if n % 3 else world.bob)
        games.append(live)
    await start_challenge(world, "kings")  # a game going on is not history
    going_on = live_game(world)
    reply = await (await fake.slash(world.alice, world.channel, "history")).message()
    assert reply.ephemeral and len(reply.content) <= 2000
    lines = [line for line in reply.content.splitlines() if line.startswith("`#")]
    assert len(lines) == 10
    assert "page 1 of 2" in reply.content and "11 games" in reply.content
    newest = games[-1]
    assert lines[0].startswith(f"`#{newest.id}`"), "the latest finished first"
    assert f"#{going_on.id}`" not in reply.content
    for line, live in zip(lines, reversed(games), strict=False):
        seat = live.terms.seat_of(world.alice.id)
        won = live.match.winner == seat
        assert f"`#{live.id}`" in line and "vs bob" in line
        assert live.match.rules.name in line
        assert ("**won**" if won else "**lost**") in line
        assert ("bob resigned" if won else "alice resigned") in line
        assert "<t:" in line, "a date"
    older = next(c for c in reply.custom_ids() if c.endswith(":older"))
    assert not enabled(reply, next(c for c in reply.custom_ids() if c.endswith(":newer")))
    page2 = await click(world, world.alice, reply, older)
    lines2 = [line for line in page2.content.splitlines() if line.startswith("`#")]
    assert len(lines2) == 1 and lines2[0].startswith(f"`#{games[0].id}`")
    assert "page 2 of 2" in page2.content
    newer = next(c for c in page2.custom_ids() if c.endswith(":newer"))
    page1 = await click(world, world.alice, page2, newer)
    assert "page 1 of 2" in page1.content
    # Someone else's history, from that player's side.
    reply = await (await fake.slash(carol, world.channel, "history", user=world.bob)).message()
    assert reply.visible_to == carol.id
    first = next(line for line in reply.content.splitlines() if line.startswith("`#"))
    assert "vs alice" in first and "**won**" in first  # game 11: alice resigned
    # The menu under a page opens a replay.
    inter = await fake.select(carol, reply, "sm:histr:v1", [str(newest.id)])
    opened = await inter.message()
    assert opened.ephemeral and opened.visible_to == carol.id
    assert f"Replay of game #{newest.id}" in opened.embeds[0]["title"]
