"""End to end: tournaments through the UI against the fake Discord (issue 33).

Everyone acts through interactions only: ``/tournament create``, the sign-up's Join and Start
buttons, and in each game's thread ``/resign`` with its Yes button. Games are ended by
resigning, which goes through the bot's real move path (a saved ``resign`` move, the result,
the result listener) without playing a few hundred card moves per game; one game per test is
left for the round's deadline to decide instead (the claim rule), and the round robin has a
bye every round. The tests read the bot's state to choose who resigns and to check, never to
act.
"""

from __future__ import annotations

import re
from typing import Any

from bot.sandbox.models import FakeMessage

from .conftest import World


def signup(world: World) -> FakeMessage:
    return next(m for m in world.in_channel()
                if m.embeds and str(m.embeds[0].get("title", "")).startswith("🏆"))


def button(message: FakeMessage, action: str) -> str:
    return next(c for c in message.custom_ids() if re.fullmatch(rf"sm:tn:v1:\d+:{action}", c))


async def create(world: World, organiser: Any, **options: Any) -> int:
    reply = await (await world.fake.slash(organiser, world.channel, "tournament create",
                                          **options)).message()
    assert reply.ephemeral and "open for sign-up" in reply.content, reply.content
    return int(re.search(r"\(#(\d+)\)", reply.content)[1])  # type: ignore[index]


async def click(world: World, user: Any, action: str, *, force: bool = False) -> FakeMessage:
    """A click on the sign-up's button (``force``: one shown disabled, as a client that
    hadn't seen the edit yet would send it)."""
    message = signup(world)
    reply = await (await world.fake.click(user, message, button(message, action),
                                          force=force)).settled()
    await world.settle()
    return reply


def people(world: World, count: int) -> list[Any]:
    return [world.fake.add_member(world.guild, f"p{n}") for n in range(1, count + 1)]


async def going(world: World, tid: int) -> list[Any]:
    """The tournament's games going on."""
    assert world.bot is not None
    out = []
    for link in await world.bot.storage.tournaments.table_games(tid):
        live = await world.bot.service.live.game(link.game_id)
        if not live.finished:
            out.append(live)
    return out


async def resign(world: World, user: Any, live: Any) -> None:
    thread = next(t for t in world.threads() if t.id == live.thread_id)
    confirm = await (await world.fake.slash(user, thread, "resign")).message()
    assert confirm.ephemeral, confirm.content
    yes = next(c for c in confirm.custom_ids() if c.startswith("sm:rs:"))
    await (await world.fake.click(user, confirm, yes)).settled()
    await world.settle()


async def end_games(world: World, tid: int, by_id: dict[int, Any], *, spare: int = 0) -> int:
    """Every game going on (but ``spare`` of them) ends: the player in the last seat still
    seated resigns, until the game is over. Returns how many games ended."""
    assert world.bot is not None
    ended = 0
    for live in (await going(world, tid))[spare:]:
        while not live.finished:
            seated = world.bot.service.live.facts(live).seated
            await resign(world, by_id[live.players[seated[-1]]], live)
        ended += 1
    return ended


async def play_to_the_end(world: World, tid: int, by_id: dict[int, Any]) -> int:
    games = 0
    for _ in range(50):
        if not await going(world, tid):
            break
        games += await end_games(world, tid, by_id)
    return games


def result_message(world: World) -> FakeMessage:
    results = [m for m in world.in_channel() if "is over!" in m.content]
    assert len(results) == 1, [m.content for m in results]
    return results[0]


async def test_an_eight_player_knockout_runs_from_sign_up_to_its_winner(
        world: World, no_error_logs) -> None:
    fake, alice = world.fake, world.alice
    assert world.bot is not None
    players = people(world, 8)
    by_id = {p.id: p for p in players}
    tid = await create(world, alice, name="Friday cup", format="knockout", rules="classic",
                       stake="0.50")
    for p in players:
        await click(world, p, "join")
    reply = await click(world, players[0], "join")
    assert reply.ephemeral and "joined already" in reply.content
    reply = await click(world, players[0], "start")
    assert reply.ephemeral and "Only the organiser" in reply.content
    await click(world, alice, "start")
    # Round 1: four tables, each in its own thread named for the tournament and the round,
    # its two players pinged.
    assert len(world.threads()) == 4
    assert {t.name for t in world.threads()} == {
        f"Friday cup · round 1 · table {n}" for n in range(1, 5)}
    announcements = [m for m in world.in_channel() if m.content.startswith("🏆 **Friday cup**")]
    assert len(announcements) == 4
    assert all(len(re.findall(r"<@\d+>", m.content)) == 2 for m in announcements)
    reply = await click(world, fake.add_member(world.guild, "late"), "join", force=True)
    assert reply.ephemeral and "started already" in reply.content
    games = await play_to_the_end(world, tid, by_id)
    assert games == 7 and len(world.threads()) == 7
    result = result_message(world)
    assert "Winner: <@" in result.content and "**Places:**" in result.content
    assert "/ledger" in result.content  # each game's stake is an ordinary ledger line
    # The live standings: one message, edited, with the bracket picture.
    boards = [m for m in world.in_channel() if m.content.startswith("📊")]
    assert len(boards) == 1 and "final standings" in boards[0].content
    assert boards[0].attachments
    row = await world.bot.storage.tournaments.get(tid)
    assert row is not None and row.status == "finished"
    show = await (await fake.slash(players[3], world.channel, "tournament show")).message()
    assert show.ephemeral and "final standings" in show.content and show.attachments
