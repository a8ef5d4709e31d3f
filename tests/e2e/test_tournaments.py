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

from bot.app import custom_ids as ids
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
    inter = await world.fake.click(user, message, button(message, action), force=force)
    first = await inter.settled()
    await world.settle()
    return inter.followups[0] if inter.followups else first


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
    first_board = [m for m in world.in_channel() if m.content.startswith("📊")]
    assert len(first_board) == 1 and "round 1" in first_board[0].content
    first_picture = first_board[0].attachments[0].id
    reply = await click(world, fake.add_member(world.guild, "late"), "join", force=True)
    assert reply.ephemeral and "started already" in reply.content
    games = await play_to_the_end(world, tid, by_id)
    assert games == 7 and len(world.threads()) == 7
    result = result_message(world)
    assert "Winner: <@" in result.content and "**Places:**" in result.content
    assert "/ledger" in result.content  # each game's stake is an ordinary ledger line
    # Each game's own result has no Rematch: the bracket decides who plays whom next; a
    # Rematch click on one (an old client's, say) is refused privately and changes nothing.
    game_results = [m for m in world.in_channel() if f"tournament #{tid}" in m.content]
    assert len(game_results) == 7
    assert not any(c.startswith("sm:rematch:") for m in game_results for c in m.custom_ids())
    final = next(link.game_id for link in await world.bot.storage.tournaments.table_games(tid)
                 if link.round == 3)
    finalist = by_id[(await world.bot.service.live.game(final)).players[0]]
    before = len(world.in_channel())
    rematch = await fake.click(finalist, game_results[-1], ids.make("rematch", final),
                               force=True)
    refused = await rematch.message()
    assert refused.ephemeral and "has no rematch" in refused.content, refused.content
    await world.settle()
    assert len(world.in_channel()) == before
    # The live standings: one message, edited, with the bracket picture.
    boards = [m for m in world.in_channel() if m.content.startswith("📊")]
    assert len(boards) == 1 and "final standings" in boards[0].content
    assert boards[0].id == first_board[0].id and boards[0].edited_at is not None
    assert boards[0].attachments and boards[0].attachments[0].id != first_picture
    row = await world.bot.storage.tournaments.get(tid)
    assert row is not None and row.status == "finished"
    show = await (await fake.slash(players[3], world.channel, "tournament show")).message()
    assert show.ephemeral and "final standings" in show.content and show.attachments
    choices = await fake.autocomplete(players[3], world.channel, "tournament show", "number",
                                      "fri")
    assert choices == [{"name": f"#{tid} Friday cup (finished)", "value": tid}]


async def test_a_nine_player_knockout_of_tables_of_three_with_a_computer_seat(
        world: World, no_error_logs) -> None:
    """Three tables of three, then a final of three; the computer (allowed by the organiser)
    has a place and plays its own games."""
    alice = world.alice
    assert world.bot is not None
    players = people(world, 8)
    by_id = {p.id: p for p in players}
    tid = await create(world, alice, name="Triples", format="knockout", seats=3,
                       computer=True)
    reply = await click(world, players[0], "computer")
    assert reply.ephemeral and "Only the organiser" in reply.content
    for p in players:
        await click(world, p, "join")
    await click(world, alice, "computer")
    row = await world.bot.storage.tournaments.get(tid)
    assert row is not None and len(row.entrants) == 9
    await click(world, alice, "start")
    assert len(world.threads()) == 3
    assert all(t.name.startswith("Triples · round 1 · table") for t in world.threads())
    for live in await going(world, tid):
        assert len(live.players) == 3
    computer = world.bot.computer_id
    for _ in range(20):
        lives = await going(world, tid)
        if not lives:
            break
        for live in lives:
            while not live.finished:
                seated = [live.players[s] for s in world.bot.service.live.facts(live).seated]
                humans = [u for u in seated if u != computer]
                await resign(world, by_id[humans[-1]], live)
    result = result_message(world)
    assert "Winner:" in result.content
    links = await world.bot.storage.tournaments.table_games(tid)
    assert len(links) == 4 and [link.round for link in links] == [1, 1, 1, 2]
    assert "Triples · round 2 · table 1" in {t.name for t in world.threads()}
    # The computer never resigned: it won its table of round 1 and played the final.
    final = await world.bot.service.live.game(links[-1].game_id)
    assert computer in final.players


async def test_a_six_player_swiss_with_a_game_decided_by_the_deadline(
        world: World, no_error_logs) -> None:
    alice = world.alice
    assert world.bot is not None
    players = people(world, 6)
    by_id = {p.id: p for p in players}
    tid = await create(world, alice, name="Swiss night", format="swiss", deadline_hours=2)
    for p in players:
        await click(world, p, "join")
    await click(world, alice, "start")
    assert len(await going(world, tid)) == 3
    # Two games of round 1 end; the third is left and its round's deadline passes.
    await end_games(world, tid, by_id, spare=1)
    (late,) = await going(world, tid)
    idle = late.on_turn
    world.clock.now += 3 * 3600
    await world.bot.tick()
    await world.settle()
    assert late.finished
    assert await world.bot.storage.games.last_move(late.id) == "claim"
    state = await world.bot.service.tournaments.state(tid)
    assert state.tournament is not None
    first = state.tournament.rounds[0].tables
    table = next(t for t in first if idle in t.seats)
    assert table.places is not None and table.places[table.seats.index(idle)] == 2
    assert len(state.tournament.rounds) == 2  # round 2 started by itself
    games = 3 + await play_to_the_end(world, tid, by_id)
    assert games == 9  # ⌈log2 6⌉ = 3 rounds of 3 games
    state = await world.bot.service.tournaments.state(tid)
    assert state.tournament is not None
    met = [frozenset(t.seats) for r in state.tournament.rounds for t in r.tables]
    assert len(met) == len(set(met)), "no rematch in a Swiss"
    result = result_message(world)
    assert "pts" in result.content


async def test_a_five_player_round_robin_with_byes_and_a_player_who_leaves(
        world: World, no_error_logs) -> None:
    alice = world.alice
    assert world.bot is not None
    players = people(world, 5)
    by_id = {p.id: p for p in players}
    tid = await create(world, alice, name="Everyone", format="round robin", buy_in="2")
    for p in players:
        await click(world, p, "join")
    await click(world, alice, "start")
    state = await world.bot.service.tournaments.state(tid)
    assert state.tournament is not None and len(state.tournament.rounds[0].byes) == 1
    await end_games(world, tid, by_id)
    # A player leaves with the Leave button: his remaining games are forfeited.
    leaver = players[4]
    reply = await click(world, leaver, "leave")
    assert reply.ephemeral and "forfeited" in reply.content
    games = 2 + await play_to_the_end(world, tid, by_id)
    state = await world.bot.service.tournaments.state(tid)
    t = state.tournament
    assert t is not None and t.finished and len(t.rounds) == 5
    assert all(len(r.byes) <= 1 for r in t.rounds)
    forfeits = [tb for r in t.rounds for tb in r.tables if tb.forfeit]
    assert forfeits and all(leaver.id in tb.seats for tb in forfeits)
    assert games == 10 - len(forfeits)
    last = next(s for s in t.standings() if s.player == leaver.id)
    assert last.withdrawn and last.place == 5
    result = result_message(world)
    assert "**Money:**" in result.content and "owes" in result.content
    # The pot: 5 × $2 = $10, 70 % and 30 % to the first two places (fewer than 8 players),
    # shared by those sharing a place; lines sum to each net.
    lines = await world.bot.service.tournaments.money_lines(tid)
    places = [(s.player, s.place) for s in t.standings()]
    assert sum(c for _, _, c in lines) > 0, places
    net = {p: 0 for p, _ in places}
    for debtor, creditor, cents in lines:
        net[debtor] -= cents
        net[creditor] += cents
    assert sum(net.values()) == 0
    assert net[leaver.id] == -200, (places, lines)  # 5th: his buy-in, nothing back


async def test_bad_input_gets_a_private_answer_and_changes_nothing(
        world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    assert world.bot is not None

    async def refused(**options: Any) -> str:
        reply = await (await fake.slash(alice, world.channel, "tournament create",
                                        **options)).message()
        assert reply.ephemeral
        return str(reply.content)

    assert "at most 60 characters" in await refused(name="x" * 61)
    assert "in the past" in await refused(name="Cup", start_at="2000-01-01 20:00")
    assert "too large" in await refused(name="Cup", stake="99999999")
    assert "games of two" in await refused(name="Cup", format="swiss", seats=3)
    assert not world.in_channel(), "nothing was posted"
    tid = await create(world, alice, name="Cup")
    reply = await click(world, alice, "start")
    assert reply.ephemeral and "at least two players" in reply.content
    await click(world, bob, "join")
    reply = await click(world, bob, "cancel")
    assert reply.ephemeral and "Only the organiser" in reply.content
    reply = await click(world, bob, "leave")
    assert reply.ephemeral and "You left" in reply.content
    row = await world.bot.storage.tournaments.get(tid)
    assert row is not None and row.status == "open" and row.entrants == ()
    reply = await click(world, alice, "cancel")
    assert reply.ephemeral and "cancelled" in reply.content
    assert "Cancelled" in str(signup(world).embeds[0].get("description"))
    reply = await click(world, bob, "join", force=True)
    assert reply.ephemeral and "was cancelled" in reply.content


async def test_a_sign_up_lost_to_a_crash_is_posted_by_the_housekeeping(
        world: World, no_error_logs) -> None:
    """The tournament was saved and the bot died before its sign-up was posted: the next
    housekeeping round posts it, once."""
    assert world.bot is not None
    settings = await world.bot.service.inviting.settings(world.guild.id)
    row = await world.bot.service.tournaments.create(
        guild_id=world.guild.id, channel_id=world.channel.id, organiser=world.alice.id,
        name="Lost", rules=world.bot.service.inviting.rules_for(settings, None),
        format_name="knockout", seats=2, stake=None, buy_in=None, deadline_hours=24,
        start_at=None, allow_computer=False)
    await world.bot.tick()
    assert not world.in_channel(), "not while the command may still be posting it"
    world.clock.now += 120
    await world.bot.tick()
    await world.bot.tick()
    posted = [m for m in world.in_channel() if m.embeds]
    assert len(posted) == 1 and "Lost" in str(posted[0].embeds[0].get("title"))
    await click(world, world.bob, "join")
    assert (await world.bot.service.tournaments.get(row.id)).entrant(world.bob.id) is not None
