"""A bot process killed (SIGKILL) in the middle of a tournament: no round started twice, no
game lost, no result counted twice, and the tournament plays on to one result after the
restart (issue 33).

The real ``python -m bot`` runs an 8-player knockout against the fake Discord; the players end
their games with ``/resign`` in each game's thread. The process is killed just after the click
that ends a round's last game (plus a random instant: while the result is recorded, the next
round's games are made, their threads opened or the bracket drawn), the database is checked
with the process dead, and the bot is started again on the same file.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from pathlib import Path
from typing import Any

import pytest

from bot.sandbox import FakeDiscord, FakeDiscordError
from tests.dbtools import run_sql

from .test_crash import Bot


async def _reply(fake: FakeDiscord, inter: Any) -> Any:
    try:
        return await inter.message(timeout=6)
    except FakeDiscordError:
        return None


async def _check(db: str, tid: int) -> tuple[int, int]:
    """With the bot dead: every game made is a table's (one per round, table and attempt),
    every result an event once. Returns (games, results)."""
    games = await run_sql(db, "SELECT id FROM games")
    links = await run_sql(db, "SELECT round, table_no, attempt, game_id FROM tournament_games "
                              "WHERE tournament_id = ?", tid)
    assert sorted(g for (g,) in games) == sorted(link[3] for link in links)
    assert len({link[:3] for link in links}) == len(links)
    played = await run_sql(db, "SELECT game_id FROM tournament_events WHERE tournament_id = ? "
                               "AND kind = 'played'", tid)
    assert len({g for (g,) in played}) == len(played)
    finished = await run_sql(db, "SELECT id FROM games WHERE status = 'finished'")
    assert {g for (g,) in played} <= {g for (g,) in finished}
    return len(links), len(played)


async def _games_going(db: str, tid: int) -> list[tuple[int, int | None, list[int]]]:
    rows = await run_sql(
        db, "SELECT g.id, g.thread_id, g.player0_id, g.player1_id FROM games g JOIN "
            "tournament_games t ON t.game_id = g.id WHERE t.tournament_id = ? AND "
            "g.status = 'active' ORDER BY g.id", tid)
    return [(int(r[0]), None if r[1] is None else int(r[1]), [int(r[2]), int(r[3])])
            for r in rows]


async def test_a_killed_bot_mid_tournament_starts_no_round_twice(
        tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(33)
    monkeypatch.setenv("TICK_SECONDS", "0.3")  # the restarted bot catches up at once
    fake = FakeDiscord(token="crash-token-" + "t" * 40)
    await fake.start()
    guild = fake.add_guild("Test Guild", channels=("general",))
    channel = guild.channel("general")
    organiser = fake.add_member(guild, "alice")
    players = [fake.add_member(guild, f"p{n}") for n in range(1, 9)]
    by_id = {p.id: p for p in players}
    bot = Bot(fake, tmp_path, database)
    try:
        await bot.start()
        reply = await _reply(fake, await fake.slash(organiser, channel, "tournament create",
                                                    name="Crash cup", format="knockout"))
        assert reply is not None and "open for sign-up" in reply.content, reply
        tid = int(re.search(r"\(#(\d+)\)", reply.content)[1])  # type: ignore[index]

        def signup() -> Any:
            return next(m for m in fake.messages(channel)
                        if m.embeds and str(m.embeds[0].get("title", "")).startswith("🏆"))

        for p in players:
            await (await fake.click(p, signup(), f"sm:tn:v1:{tid}:join")).settled()
        await (await fake.click(organiser, signup(), f"sm:tn:v1:{tid}:start")).settled()
        kills = 0
        for _ in range(30):
            going: list[Any] = []
            for _ in range(600):
                going = await _games_going(bot.db, tid)
                if going and all(thread is not None for _, thread, _ in going):
                    break
                finished = await run_sql(bot.db, "SELECT status FROM tournaments WHERE id = ?",
                                         tid)
                if finished[0][0] == "finished":
                    break
                await asyncio.sleep(0.05)
            if not going:
                break
            # A thread opened just before a kill is found again (it has its message's id).
            assert all(thread is not None for _, thread, _ in going), going
            for n, (_, thread_id, seats) in enumerate(going):
                thread = next(c for c in guild.channels.values() if c.id == thread_id)
                user = by_id[seats[1]]
                confirm = await _reply(fake, await fake.slash(user, thread, "resign"))
                assert confirm is not None, "no answer to /resign"
                assert any(c.startswith("sm:rs:") for c in confirm.custom_ids()), \
                    confirm.content
                yes = next(c for c in confirm.custom_ids() if c.startswith("sm:rs:"))
                clicked = await fake.click(user, confirm, yes)
                if n < len(going) - 1 or kills >= 2:
                    await clicked.settled(timeout=10)
                    continue
                # The round's last game: the bot now saves the resignation, records the result,
                # starts the next round (its games, threads, pings) and draws the bracket.
                await clicked.response()
                await asyncio.sleep(rng.uniform(0, 0.3))
                await bot.kill()
                kills += 1
                await _check(bot.db, tid)
                await bot.start()
        assert kills == 2
        for _ in range(600):
            row = await run_sql(bot.db, "SELECT status, result_message_id FROM tournaments "
                                        "WHERE id = ?", tid)
            if row[0][0] == "finished" and row[0][1] is not None:
                break
            await asyncio.sleep(0.05)
        await bot.kill()
        games, results = await _check(bot.db, tid)
        assert games == results == 7
        results_posted = [m for m in fake.messages(channel) if "is over!" in m.content]
        assert len(results_posted) == 1
        logs = bot.logs()
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        if bot.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                bot.proc.kill()
            await bot.proc.wait()
        await fake.stop()
