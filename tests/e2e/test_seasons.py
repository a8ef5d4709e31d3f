"""End to end: seasons. A monthly season ends while the bot is down and is posted once after
the restart (and not again after another, nor when a crash left it taken with the post
already made); the season leaderboard, an earlier season through ``season:`` and all time;
``/stats``; seasons by command and their refusals."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from PIL import Image

from bot.sandbox.faults import Fault
from bot.storage import Storage
from bot.storage.season_records import SeasonRow

from .conftest import World
from .test_bot_play import resign, start_challenge


def utc(*parts: int) -> float:
    return dt.datetime(*parts, tzinfo=dt.UTC).timestamp()  # type: ignore[misc]


async def _games(world: World, losers: list[str]) -> None:
    """Alice challenges Bob once per name; that player resigns."""
    for loser in losers:
        await start_challenge(world, "classic", stake="0.50")
        await resign(world, world.alice if loser == "alice" else world.bob)


async def _leaderboard(world: World, user: object, **options: object) -> str:
    board = await (await world.fake.slash(user, world.channel, "leaderboard", **options)).message()
    assert not board.ephemeral and board.attachments[0].filename == "leaderboard.png"
    Image.open(io.BytesIO(board.attachments[0].data)).verify()
    return board.content


async def _restart(world: World) -> None:
    """Start the bot and wait for its first housekeeping round to have run."""
    bot = await world.start()
    await world.fake.wait_for(lambda: bot._last_ok is not None, timeout=30,
                              description="the first housekeeping round")
    await world.settle()


async def _seasons_of(world: World) -> list[SeasonRow]:
    storage = await Storage.open(world.db, world.clock)
    try:
        return await storage.seasons.recent(world.guild.id)
    finally:
        await storage.close()


async def test_a_season_that_ended_while_the_bot_was_down_is_posted_once(
        world: World, no_error_logs) -> None:
    fake, owner = world.fake, world.guild.members[world.guild.owner_id]
    assert world.clock.now == utc(2027, 1, 15, 8)
    room = fake.setup.add_channel(world.guild, "seasons")
    refusal = await (await fake.slash(world.alice, world.channel, "settings",
                                      seasons="monthly")).message()
    assert refusal.ephemeral and "Manage Server" in refusal.content
    reply = await (await fake.slash(owner, world.channel, "settings", seasons="monthly",
                                    season_channel=room)).message()
    assert "Seasons: **monthly**" in reply.content and f"<#{room.id}>" in reply.content
    await _games(world, ["bob", "bob", "alice"])
    # The running season is the default board: Alice 2 wins (6 points), Bob 1 win (3).
    text = await _leaderboard(world, world.alice)
    assert "Season January 2027 · running" in text
    assert "1 · alice · 6 · 3 · 2-1-0 · $0.50" in text
    assert "2 · bob · 3 · 3 · 1-2-0 · -$0.50" in text
    assert "at least 3 games" in text
    # ``by`` asks for an all-time ranking; ``season: all`` too.
    assert "Leaderboard · wins" in await _leaderboard(world, world.bob, by="wins")
    assert "Leaderboard · net money" in await _leaderboard(world, world.bob, season="all")

    # The bot is down when January ends; it comes back on 2 February.
    await world.stop()
    world.clock.now = utc(2027, 2, 2, 9)
    await _restart(world)
    posts = [m for m in fake.messages(room) if not m.ephemeral]
    assert len(posts) == 1
    post = posts[0]
    assert "**January 2027** is over" in post.content
    assert f"Champion: <@{world.alice.id}> with 6 points" in post.content
    assert "Best streak" in post.content and "Most games" in post.content
    assert post.attachments[0].filename == "season.png"
    Image.open(io.BytesIO(post.attachments[0].data)).verify()
    january = next(s for s in await _seasons_of(world) if s.name == "January 2027")
    assert january.state == "posted" and january.message_id == post.id

    # Another restart posts nothing more.
    await world.stop()
    await _restart(world)
    assert len([m for m in fake.messages(room) if not m.ephemeral]) == 1

    # A crash after the post and before it was marked: the season is left taken. The next
    # process takes it again once the claim is stale, finds its post and sends no other.
    await world.stop()
    storage = await Storage.open(world.db, world.clock)
    try:
        async with storage._db.connection() as conn:
            await conn.execute("UPDATE seasons SET state = 'claimed', message_id = NULL, "
                               "claimed_at = ? WHERE id = ?", (world.clock.now, january.id))
    finally:
        await storage.close()
    world.clock.now += 3600
    await _restart(world)
    assert len([m for m in fake.messages(room) if not m.ephemeral]) == 1
    january = next(s for s in await _seasons_of(world) if s.id == january.id)
    assert january.state == "posted" and january.message_id == post.id

    # February is the default board now; January through ``season:``, listed by autocomplete.
    text = await _leaderboard(world, world.alice)
    assert "Season February 2027 · running" in text and "No game finished" in text
    choices = await fake.autocomplete(world.alice, world.channel, "leaderboard", "season", "jan")
    assert [c["name"] for c in choices] == ["January 2027 (ended)"]
    choices = await fake.autocomplete(world.alice, world.channel, "leaderboard", "season", "")
    assert [c["name"] for c in choices] == ["All time", "February 2027 (running)",
                                            "January 2027 (ended)"]
    assert [c["value"] for c in choices][2] == f"#{january.id}"
    text = await _leaderboard(world, world.bob, season=f"#{january.id}")
    assert "Season January 2027 · final" in text and "1 · alice · 6" in text
    text = await _leaderboard(world, world.bob, season="January 2027", by="wins")
    assert "Season January 2027 · final" in text and "`by` and `rules` rank the all-time" in text
    refusal = await (await fake.slash(world.bob, world.channel, "leaderboard",
                                      season="Nope")).message()
    assert refusal.ephemeral and "no season" in refusal.content
    # /stats: the running season and the past places; ratings stay all time.
    await _games(world, ["bob"])
    stats = (await (await fake.slash(world.alice, world.channel, "stats")).message()).content
    assert "Season February 2027: not ranked yet (1 of 3 games) · 3 points" in stats
    assert "Past seasons: January 2027 #1" in stats and "Rating: classic" in stats


async def test_seasons_by_command(world: World, no_error_logs) -> None:
    fake, owner = world.fake, world.guild.members[world.guild.owner_id]
    room = fake.setup.add_channel(world.guild, "seasons")
    await (await fake.slash(owner, world.channel, "settings", season_channel=room)).message()
    refusal = await (await fake.slash(world.alice, world.channel, "season start",
                                      name="Cup")).message()
    assert refusal.ephemeral and "Manage Server" in refusal.content
    reply = await (await fake.slash(owner, world.channel, "season start",
                                    name="Winter cup")).message()
    assert reply.ephemeral and "**Winter cup** has started" in reply.content
    again = await (await fake.slash(owner, world.channel, "season start", name="B")).message()
    assert "is running" in again.content
    world.clock.now += 60  # the test's clock stands still unless moved
    await _games(world, ["bob", "bob", "bob"])
    world.clock.now += 60
    assert "Season Winter cup · running" in await _leaderboard(world, world.alice)
    reply = await (await fake.slash(owner, world.channel, "season end")).message()
    assert "**Winter cup** has ended" in reply.content
    assert f"final standings are posted in <#{room.id}>" in reply.content
    await world.settle()
    posts = [m for m in fake.messages(room) if not m.ephemeral]
    assert len(posts) == 1 and "**Winter cup** is over" in posts[0].content
    assert f"Champion: <@{world.alice.id}> with 9 points" in posts[0].content
    # No season runs: the board is all time again; the ended one stays readable.
    assert "Leaderboard · net money" in await _leaderboard(world, world.alice)
    assert "Season Winter cup · final" in await _leaderboard(world, world.alice,
                                                             season="winter cup")
    reply = await (await fake.slash(owner, world.channel, "season end")).message()
    assert reply.ephemeral and "No season is running" in reply.content
    # A season with no game ends quietly: nothing posted.
    await (await fake.slash(owner, world.channel, "season start", name="Quiet")).message()
    reply = await (await fake.slash(owner, world.channel, "season end")).message()
    assert "no game was finished in it, so there are no final standings" in reply.content
    # A change of settings ends the running season and says so.
    await (await fake.slash(owner, world.channel, "season start", name="Spring")).message()
    world.clock.now += 60
    await _games(world, ["alice"])
    world.clock.now += 60
    reply = await (await fake.slash(owner, world.channel, "settings", seasons="monthly")).message()
    assert "Season **Spring** has ended" in reply.content
    assert "Seasons: **monthly**" in reply.content
    await world.settle()
    posts = [m for m in fake.messages(room) if not m.ephemeral]
    assert len(posts) == 2 and "**Spring** is over" in posts[1].content
    assert "No champion" in posts[1].content
    # A monthly server refuses both commands.
    reply = await (await fake.slash(owner, world.channel, "season start", name="X")).message()
    assert "monthly" in reply.content and "by command" in reply.content


async def test_an_ended_season_whose_post_discord_refuses_or_loses_says_so(
        world: World, no_error_logs) -> None:
    """``/season end`` tells the admin what became of the final post: refused for good (the
    channel closed to the bot: not tried again), or not taken just now (tried again by the
    housekeeping, which then posts it once)."""
    fake, owner = world.fake, world.guild.members[world.guild.owner_id]
    room = fake.setup.add_channel(world.guild, "seasons")
    await (await fake.slash(owner, world.channel, "settings", season_channel=room)).message()

    def into_room(record: Any) -> bool:
        return record.path == f"/channels/{room.id}/messages"

    async def a_season_of_three_games(name: str) -> str:
        await (await fake.slash(owner, world.channel, "season start", name=name)).message()
        world.clock.now += 60
        await _games(world, ["bob", "bob", "bob"])
        world.clock.now += 60
        return (await (await fake.slash(owner, world.channel, "season end")).message()).content

    fake.faults.script("post", Fault.error(403), match=into_room)
    reply = await a_season_of_three_games("Closed")
    assert "**Closed** has ended" in reply and "can't post in" in reply, reply
    assert not [m for m in fake.messages(room) if not m.ephemeral]
    assert [s.state for s in await _seasons_of(world) if s.name == "Closed"] == ["quiet"]

    fake.faults.script("post", Fault.error(503), match=into_room)
    reply = await a_season_of_three_games("Lost")
    assert "**Lost** has ended" in reply and "tries again" in reply, reply
    assert world.bot is not None
    await world.bot._housekeeping_round()
    await world.settle()
    posts = [m for m in fake.messages(room) if not m.ephemeral]
    assert len(posts) == 1 and "**Lost** is over" in posts[0].content
    assert [s.state for s in await _seasons_of(world) if s.name == "Lost"] == ["posted"]
