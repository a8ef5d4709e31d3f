"""End to end: tables of three or four (issue 18) through the UI of the fake Discord: an open
table joined with buttons, a challenge of three or four with a computer seat, whole games
played by interactions, the result message, the ledger and the ratings for every seat.

Players act only through interactions; the tests read the bot's state only to check it (and
to know whose turn it is, as the players would from the board)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bot.sandbox.faults import Fault
from bot.sandbox.models import FakeMessage

from .conftest import World, quick, select_options, slowed
from .test_bot_play import choose, live_game


async def hand(world: World, user: Any) -> FakeMessage:
    message = await (await world.fake.slash(user, world.channel, "hand")).message()
    assert message.ephemeral and message.visible_to == user.id, "a hand is never public"
    return message


def assert_hands_private(world: World) -> None:
    """No public message (board, result, notes) names a hand card that is nowhere public:
    checked against the latest board of the current position, for every seat."""
    live = live_game(world)
    game = live.match.game
    view = game.public_view()
    public: set[str] = set()
    for seat in range(len(live.players)):
        for pile in view.sides[seat]:
            public.update(c.display for c in pile)
        top = view.payoff_tops[seat]
        if top is not None:
            public.add(top.display)
    for stack in view.centre:
        public.update(c.display for c in stack.cards)
    said = " ".join(live.last_moves)
    hidden = {c.display for h in game.hands for c in h} - public
    boards = world.boards()
    assert boards
    text = boards[-1].text()
    for card in hidden:
        if card in said:
            continue  # named in a public line about a move made (another copy of it)
        assert not re.search(rf"(?<![0-9]){re.escape(card)}", text), (card, text[:300])


async def play_whole(world: World, users: dict[int, Any], *, max_moves: int = 4000) -> int:
    """Everyone plays by interactions (the card menu and target buttons, or /play and /pass)
    until the match is over; the computer plays its own seat. Returns the moves made."""
    live = live_game(world)
    for step in range(max_moves):
        await world.settle()
        if live.finished:
            return step
        user = users[live.on_turn]
        message = await hand(world, user)
        options = select_options(message)
        has_pass = any(c.endswith(":pass") for c in message.custom_ids())
        choice = choose(options, has_pass, step)
        if step % 2 == 0 and choice is not None:
            token, target = choice
            src = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
            await (await world.fake.select(user, message, src, [token])).settled()
            move = next(c for c in message.custom_ids() if c.endswith(f":{token}>{target}"))
            await (await world.fake.click(user, message, move)).settled()
        elif choice is None:
            reply = await (await world.fake.slash(user, world.channel, "pass")).message()
            assert reply.ephemeral and "✅" in reply.content, reply.content
        else:
            token, target = choice
            reply = await (await world.fake.slash(user, world.channel, "play", card=token,
                                                  to=target)).message()
            assert reply.ephemeral and "✅" in reply.content, reply.content
        if step % 15 == 0:
            await world.settle()
            if not live.finished:
                assert_hands_private(world)
    raise AssertionError(f"the match did not end within {max_moves} moves")


async def check_result(world: World, rules: str, stake: int, per_card: int) -> None:
    """The result message names everyone, the winner and each loser's margin; the ledger
    has one line per human loser with what he owes; every person's rating moved once."""
    assert world.bot is not None
    await world.settle()
    live = live_game(world)
    match = live.match
    computer = world.bot.computer_id
    # Turn pings go to the player on turn only: a board mentions one person at most (the
    # last one, at the end, names who owes whom).
    for board in world.boards()[:-1]:
        assert len(set(re.findall(r"<@(\d+)>", board.content or ""))) <= 1, board.content
    results = [m for m in world.in_channel() if "🏁" in m.text()]
    assert len(results) == 1, "the result is announced once, in the channel"
    text = results[0].content
    for user in live.players:
        if user != computer:
            assert f"<@{user}>" in text, (user, text)
    winner = match.winner
    storage = world.bot.storage
    lines = await storage.ledger.game_entries(live.terms.guild_id, live.id)
    if winner is None:
        assert "Drawn game" in text or "level" in text, text
        assert all(line.amount_cents == 0 for line in lines)
        return
    assert f"{live.names[winner]} wins" in text, text
    result = match.results[-1]
    for seat, margin in result.losers:
        assert f"{live.names[seat]} {'loses ' if seat == result.losers[0][0] else ''}by " \
            f"{margin}" in text, (live.names[seat], margin, text)
    if live.players[winner] == computer:
        assert lines == []
        return
    humans = [s for s, u in enumerate(live.players) if u != computer and s != winner]
    assert sorted(line.debtor_id for line in lines) == sorted(live.players[s] for s in humans)
    for line in lines:
        seat = live.players.index(line.debtor_id)
        assert line.creditor_id == live.players[winner]
        assert line.amount_cents == stake + per_card * (match.margins[seat] or 0)
        assert line.margin == match.margins[seat]
        if line.amount_cents:
            debtor = live.names[seat]
            assert f"{debtor} owes {live.names[winner]} ${line.amount_cents // 100}." \
                f"{line.amount_cents % 100:02d} for this game" in text, text
    await world.bot.ledger.update_ratings(live.terms.guild_id)
    ratings = await storage.standings.ratings(live.terms.guild_id, rules)
    people = {u for u in live.players if u != computer}
    assert {u for u, _ in ratings} == people
    assert all(games == 1 for _, _, games in ratings.values())
    # /stats counts the game once for the winner, however many lines name him.
    champion = next(m for m in world.guild.members.values() if m.id == live.players[winner])
    stats = await (await world.fake.slash(champion, world.channel, "stats")).message()
    assert "Games 1" in stats.content, stats.content
    # /history shows the table's size.
    reply = await (await world.fake.slash(champion, world.channel, "history")).message()
    line = next(x for x in reply.content.splitlines() if f"#{live.id}" in x)
    assert f"{len(live.players)} players" in line, line
    await check_replay(world, live)


async def check_replay(world: World, live: Any) -> None:
    """/replay of the table: every seat's player sees his own hand at a turn, privately; a
    stranger is told why not."""
    assert world.bot is not None
    people = [m for m in world.guild.members.values()
              if m.id in live.players and m.id != world.bot.computer_id]
    for person in people:  # a replay is private: each opens his own
        replay = await (await world.fake.slash(person, world.channel, "replay", game=live.id,
                                               turn=2)).message()
        hand_id = next(c for c in replay.custom_ids() if c.startswith("sm:rph:"))
        index = int(hand_id.rsplit(":", 1)[1])
        position = (await world.bot.history.replay(live.id, live.terms.guild_id)
                    ).replay.positions[index]
        reply = await (await world.fake.click(person, replay, hand_id)).settled()
        assert reply.ephemeral and reply.visible_to == person.id
        view = position.hand(live.players.index(person.id))
        assert view.hand is not None
        for card in view.hand:
            assert f"`{card.display}`" in reply.content, (card, reply.content)
    stranger = world.fake.add_member(world.guild, f"stranger{live.id}")
    replay = await (await world.fake.slash(stranger, world.channel, "replay", game=live.id,
                                           turn=2)).message()
    assert not replay.ephemeral or replay.visible_to == stranger.id
    # He is offered no hand button; one forged from a player's id is refused.
    assert not [c for c in replay.custom_ids() if c.startswith("sm:rph:")]
    forged = f"sm:rph:v1:{live.id}:1"
    reply = await (await world.fake.click(stranger, replay, forged, force=True)).settled()
    assert reply.ephemeral and "Only the players of this game" in reply.content, reply.content


@pytest.mark.parametrize("rules,seats", [("kings", 3), ("classic", 4)])
async def test_an_open_table_joined_with_buttons_plays_a_whole_game(
        world: World, no_error_logs, rules: str, seats: int) -> None:
    fake = world.fake
    alice, bob = world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    dave = fake.add_member(world.guild, "dave")
    erin = fake.add_member(world.guild, "erin")
    target = {"target": 1} if rules == "kings" else {}
    inter = await fake.slash(alice, world.channel, "table", rules=rules, seats=seats,
                             stake="0.50", per_card="0.05", **target)
    table = await inter.message()
    assert not table.ephemeral and f"An open table for {seats}" in table.text()
    ids = {c.rsplit(":", 1)[1]: c for c in table.custom_ids()}
    assert set(ids) == {"join", "leave", "computer", "start"}
    # Starting alone, joining twice, a stranger adding the computer: polite, private, nothing.
    reply = await (await fake.click(alice, table, ids["start"])).settled()
    assert reply.ephemeral and "at least two" in reply.content
    reply = await (await fake.click(alice, table, ids["join"])).settled()
    assert reply.ephemeral and "already have a seat" in reply.content
    await (await fake.click(bob, table, ids["join"])).settled()
    assert f"<@{bob.id}>" in table.text()
    reply = await (await fake.click(bob, table, ids["join"])).settled()
    assert reply.ephemeral and "already have a seat" in reply.content
    reply = await (await fake.click(bob, table, ids["computer"])).settled()
    assert reply.ephemeral and "Only the host" in reply.content
    reply = await (await fake.click(bob, table, ids["start"])).settled()
    assert reply.ephemeral and "Only the host" in reply.content
    # Bob gets up and sits down again (now after Carol).
    await (await fake.click(bob, table, ids["leave"])).settled()
    assert f"<@{bob.id}>" not in table.text()
    await (await fake.click(carol, table, ids["join"])).settled()
    await (await fake.click(bob, table, ids["join"])).settled()
    players = [alice, carol, bob, dave][:seats]
    if seats == 4:
        await (await fake.click(dave, table, ids["join"])).settled()
    # Full: it started by itself; one more can't join.
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    assert "game on" in table.content and all(b.get("disabled") for b in table.buttons())
    # It reads as a started table: no call for players, who plays, and where the game is.
    live = live_game(world)
    assert "looking for players" not in table.text() and "Press **Join**" not in table.text()
    assert "open table" not in table.text()
    description = table.embeds[0]["description"]
    assert all(f"<@{p.id}>" in description for p in players)
    where = f"in <#{live.thread_id}>" if live.thread_id else "below"
    assert f"playing {where}" in description, description
    # Her client still showed the button (she pressed it as the last seat went).
    reply = await (await fake.click(erin, table, ids["join"], force=True)).settled()
    assert reply.ephemeral and ("already started" in reply.content
                                or "no longer" in reply.content), reply.content
    live = live_game(world)
    assert live.players == tuple(p.id for p in players)
    await play_whole(world, {p.id: p for p in players})
    await check_result(world, rules, 50, 5)


@pytest.mark.parametrize("rules,seats", [("classic", 3), ("kings", 4)])
async def test_a_challenge_with_a_computer_seat_plays_a_whole_game(
        world: World, no_error_logs, rules: str, seats: int) -> None:
    fake = world.fake
    assert world.bot is not None
    alice, bob = world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    me = world.guild.members[world.bot.computer_id]
    others: dict[str, Any] = {"opponent": bob, "opponent2": me}
    if seats == 4:
        others = {"opponent": bob, "opponent2": carol, "opponent3": me}
    if rules == "kings":
        others["target"] = 1
    inter = await fake.slash(alice, world.channel, "challenge", rules=rules, level="easy",
                             stake="1", per_card="0.10", **others)
    challenge = await inter.message()
    assert f"A challenge for {seats}" in challenge.text() and "computer (easy)" in \
        challenge.text()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    decline = next(c for c in challenge.custom_ids() if c.endswith(":decline"))
    reply = await (await fake.click(alice, challenge, accept)).settled()
    assert reply.ephemeral and "already accepted" in reply.content
    await (await fake.click(bob, challenge, accept)).settled()
    humans = [alice, bob] + ([carol] if seats == 4 else [])
    if seats == 4:
        assert "game on" not in (challenge.content or "")
        assert "✅" in challenge.text()
        await (await fake.click(carol, challenge, accept)).settled()
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    assert "game on" in challenge.content
    reply = await (await fake.click(bob, challenge, decline, force=True)).settled()
    assert reply.ephemeral
    live = live_game(world)
    assert live.players[-1] == world.bot.computer_id and len(live.players) == seats
    await play_whole(world, {p.id: p for p in humans})
    await check_result(world, rules, 100, 10)
    # Rematch: the same table to the same people, the computer seated at once.
    result = next(m for m in world.in_channel() if "🏁" in m.text())
    rematch = next(c for c in result.custom_ids() if c.startswith("sm:rematch:"))
    inter = await fake.click(bob, result, rematch)
    offer = await inter.message()
    assert f"A challenge for {seats}" in offer.text(), offer.text()
    for person in [alice, bob] + ([carol] if seats == 4 else []):
        assert f"<@{person.id}>" in offer.text()
    assert "computer (easy)" in offer.text()


async def test_a_decline_cancels_a_challenge_of_three_and_says_who(world: World,
                                                                     no_error_logs) -> None:
    fake = world.fake
    carol = fake.add_member(world.guild, "carol")
    challenge = await (await fake.slash(world.alice, world.channel, "challenge",
                                        opponent=world.bob, opponent2=carol)).message()
    ids = {c.rsplit(":", 1)[1]: c for c in challenge.custom_ids()}
    await (await fake.click(world.bob, challenge, ids["accept"])).settled()
    await (await fake.click(carol, challenge, ids["decline"])).settled()
    assert f"<@{carol.id}> declined" in challenge.content
    assert all(b.get("disabled") for b in challenge.buttons())
    assert world.boards() == []


async def test_resigning_at_a_table_leaves_and_the_rest_play_on(world: World,
                                                                 no_error_logs) -> None:
    fake = world.fake
    alice, bob = world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    challenge = await (await fake.slash(alice, world.channel, "challenge", opponent=bob,
                                        opponent2=carol, rules="classic", stake="0.20",
                                        per_card="0.01")).message()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    await (await fake.click(bob, challenge, accept)).settled()
    await (await fake.click(carol, challenge, accept)).settled()
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    live = live_game(world)
    confirm = await (await fake.slash(bob, world.channel, "resign")).message()
    assert confirm.ephemeral and "the others play on" in confirm.content
    await (await fake.click(bob, confirm, f"sm:rs:v1:{live.id}")).settled()
    await world.settle()
    assert not live.finished and live.match.left == [1] and bob.id != live.on_turn
    # He can't leave twice; the game goes on among Alice and Carol.
    reply = await (await fake.slash(bob, world.channel, "resign")).message()
    confirm = reply
    if any(c.startswith("sm:rs:") for c in confirm.custom_ids()):
        reply = await (await fake.click(bob, confirm, f"sm:rs:v1:{live.id}")).settled()
    assert reply.ephemeral and "already left" in reply.content
    games = await (await fake.slash(alice, world.channel, "games")).message()
    assert "bob, carol" in games.content
    confirm = await (await fake.slash(carol, world.channel, "resign")).message()
    await (await fake.click(carol, confirm, f"sm:rs:v1:{live.id}")).settled()
    await world.settle()
    assert live.finished and live.match.winner == 0
    assert world.bot is not None
    lines = await world.bot.storage.ledger.game_entries(live.terms.guild_id, live.id)
    margins = live.match.margins
    assert [(x.debtor_id, x.amount_cents) for x in lines] == [
        (bob.id, 20 + (margins[1] or 0)), (carol.id, 20 + (margins[2] or 0))]
    result = next(m for m in world.in_channel() if "🏁" in m.text())
    for person in (alice, bob, carol):
        assert f"<@{person.id}>" in result.content
    assert "(left the game)" in result.content


async def test_reminders_and_claims_at_a_table(world: World, no_error_logs) -> None:
    """The reminder pings the player on turn only; after the claim time any other player
    still in the game may claim: the idle one leaves and the game goes on."""
    fake = world.fake
    assert world.bot is not None
    alice, bob = world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    challenge = await (await fake.slash(alice, world.channel, "challenge", opponent=bob,
                                        opponent2=carol, rules="kings")).message()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    await (await fake.click(bob, challenge, accept)).settled()
    await (await fake.click(carol, challenge, accept)).settled()
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    await world.settle()
    live = live_game(world)
    idle = live.on_turn
    people = {p.id: p for p in (alice, bob, carol)}
    others = [u for u in people if u != idle]
    world.clock.now += 13 * 3600
    await world.bot.tick()
    reminders = [m for m in world.public() if "⏰" in m.text()]
    assert len(reminders) == 1 and f"<@{idle}>" in reminders[0].content
    assert not any(f"<@{u}>" in reminders[0].content for u in others)
    world.clock.now += 60 * 3600
    await world.bot.tick()
    notices = [m for m in world.public() if any(c.startswith("sm:claim:")
                                                for c in m.custom_ids())]
    assert len(notices) == 1 and all(f"<@{u}>" in notices[0].content for u in others)
    claim = next(c for c in notices[0].custom_ids() if c.startswith("sm:claim:"))
    reply = await (await fake.click(people[idle], notices[0], claim)).settled()
    assert reply.ephemeral and "your own turn" in reply.content
    reply = await (await fake.click(people[others[0]], notices[0], claim)).settled()
    assert reply.ephemeral and "has left the game" in reply.content, reply.content
    await world.settle()
    assert not live.finished and live.match.left == [live.players.index(idle)]
    assert live.on_turn in others


async def test_an_open_table_expires_like_a_challenge(world: World, no_error_logs) -> None:
    fake = world.fake
    assert world.bot is not None
    table = await (await fake.slash(world.alice, world.channel, "table", seats=3)).message()
    join = next(c for c in table.custom_ids() if c.endswith(":join"))
    await (await fake.click(world.bob, table, join)).settled()
    world.clock.now += 901
    await world.bot.tick()
    assert all(b.get("disabled") for b in table.buttons())
    assert "expired" in table.text().lower()
    carol = fake.add_member(world.guild, "carol")
    reply = await (await fake.click(carol, table, join, force=True)).settled()
    assert reply.ephemeral and "no longer open" in reply.content, reply.content
    assert world.boards() == []


async def test_five_joins_at_once_for_the_last_seat_seat_one_and_the_table_shows_started(
        world: World, no_error_logs) -> None:
    """Five people press Join on the last free seat at the same moment: exactly one sits, the
    four others are told privately, and the table's message ends showing the game started
    (an edit made for an earlier click must not land last and show it open again)."""
    fake = world.fake
    others = [fake.add_member(world.guild, name)
              for name in ("carol", "dave", "erin", "frank", "gina")]
    for _ in range(3):
        table = await (await fake.slash(world.alice, world.channel, "table", seats=3)).message()
        join = next(c for c in table.custom_ids() if c.endswith(":join"))
        await (await fake.click(world.bob, table, join)).settled()
        clicks = await asyncio.gather(*(fake.click(u, table, join) for u in others))
        await asyncio.gather(*(c.settled() for c in clicks))
        await world.settle()
        # (A click's own answer is its private follow-up; the table's edits are shared.)
        refused = [c.followups[0] for c in clicks if c.followups]
        assert len(refused) == 4, [r.content for r in refused]
        assert all(r.ephemeral and ("already started" in r.content or "no longer" in r.content
                                    or "full" in r.content) for r in refused), \
            [r.content for r in refused]
        live = live_game(world)
        seated = [u for u in others if u.id in live.players]
        assert len(seated) == 1 and live.players[:2] == (world.alice.id, world.bob.id)
        assert "game on" in table.content, table.content
        assert "Started" in table.text() and all(b.get("disabled") for b in table.buttons())
        assert f"<@{seated[0].id}>" in table.text()


async def test_a_late_edit_for_an_earlier_join_does_not_show_a_started_table_open(
        world: World, no_error_logs) -> None:
    """Carol takes the third seat of four and Dave the last at once; the edit of the table made
    for Carol's click is slow to reach Discord and lands after the one that started the game.
    The table must end showing the game started, its buttons off."""
    fake = world.fake
    carol = fake.add_member(world.guild, "carol")
    dave = fake.add_member(world.guild, "dave")
    table = await (await fake.slash(world.alice, world.channel, "table", seats=4)).message()
    join = next(c for c in table.custom_ids() if c.endswith(":join"))
    await (await fake.click(world.bob, table, join)).settled()
    fake.faults.script("followup_edit", Fault.slow(1.0))
    first = await fake.click(carol, table, join)
    await asyncio.sleep(0.2)  # Carol's click is handled and its edit is on its (slow) way
    second = await fake.click(dave, table, join)
    await asyncio.gather(first.settled(timeout=10), second.settled(timeout=10))
    await fake.wait_for(lambda: not fake.faults._rules, timeout=10, description="slow edit")
    await asyncio.sleep(1.2)
    await world.settle()
    assert len(live_game(world).players) == 4
    assert "game on" in table.content, table.content
    assert "Started" in table.text() and all(b.get("disabled") for b in table.buttons()), \
        table.text()


async def test_the_host_adds_the_computer_from_a_private_level_menu(
        world: World, no_error_logs) -> None:
    fake = world.fake
    assert world.bot is not None
    table = await (await fake.slash(world.alice, world.channel, "table", seats=3)).message()
    ids = {c.rsplit(":", 1)[1]: c for c in table.custom_ids()}
    menu = await (await fake.click(world.alice, table, ids["computer"])).settled()
    assert menu.ephemeral and menu.visible_to == world.alice.id
    assert "Which level" in menu.content, menu.content
    level = next(c for c in menu.custom_ids())
    values = [o["value"] for comp in menu.iter_components() if comp.get("type") == 3
              for o in comp.get("options", [])]
    assert values == ["easy", "normal", "hard"], values
    reply = await (await fake.select(world.alice, menu, level, ["hard"])).settled()
    assert "The computer (hard) has taken a seat" in reply.content, reply.content
    await fake.wait_for(lambda: "the computer (hard)" in table.text(), timeout=5,
                        description="the computer seated on the table")
    await (await fake.click(world.bob, table, ids["join"])).settled()
    await world.settle()
    live = live_game(world)
    assert live.players == (world.alice.id, world.bot.computer_id, world.bob.id)
    assert "Started" in table.text()


async def test_table_buttons_answer_first_when_the_database_is_slow(
        world: World, no_error_logs, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every button of a table answers Discord before it reads or writes the database (a
    busy database must not cost the player an 'interaction failed')."""
    fake = world.fake
    assert world.bot is not None
    table = await (await fake.slash(world.alice, world.channel, "table", seats=3)).message()
    ids = {c.rsplit(":", 1)[1]: c for c in table.custom_ids()}
    service = world.bot.service.inviting

    slowed(monkeypatch, service, ("get_challenge", "join_table", "leave_table", "start_table",
                                  "add_computer"))
    await (await quick(await fake.click(world.bob, table, ids["join"]))).settled()
    await (await quick(await fake.click(world.bob, table, ids["leave"]))).settled()
    refused = await (await quick(await fake.click(world.alice, table, ids["start"]))).settled()
    assert refused.ephemeral and "at least two" in refused.content, refused.content
    menu = await (await quick(await fake.click(world.alice, table, ids["computer"]))).settled()
    level = next(c for c in menu.custom_ids())
    await (await quick(await fake.select(world.alice, menu, level, ["easy"]))).settled()
    await (await quick(await fake.click(world.alice, table, ids["start"]))).settled()
    await world.settle()
    assert "Started" in table.text()
    assert fake.state.latency_report().unanswered == 0
