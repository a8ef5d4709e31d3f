"""Seasons with two shard processes on one PostgreSQL: each server's season ends on time and
is posted once, by the process of its server, while both run their housekeeping every 0.2 s."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from bot.sandbox import FakeDiscord
from bot.storage import Storage

from .test_shards import _reply, _resign, _shard_processes, _start_game, _tables


async def test_two_shard_processes_post_each_season_once(postgres_url: str,
                                                         tmp_path: Path) -> None:
    fake = FakeDiscord(token="shard-token-" + "s" * 40)
    await fake.start()
    tables = _tables(fake, 2)
    storage = None
    try:
        async with _shard_processes(fake, tmp_path, postgres_url, 2) as shards:
            await asyncio.gather(*(shard.start() for shard in shards))
            storage = await Storage.open(postgres_url)
            # A season of each server, a game in each (Bob resigns), then the season's end
            # comes (the processes' clocks are real: its end is set to now).
            for table in tables:
                started = await storage.seasons.start(table.guild.id, "Sprint", "monthly",
                                                      time.time() - 60, time.time() + 3600)
                assert started is not None
                await storage.settings.update_settings(
                    table.guild.id, season_mode="monthly", season_channel_id=table.channel.id)
            games = await asyncio.gather(*(_start_game(fake, t, rules="classic")
                                           for t in tables))
            await asyncio.gather(*(_resign(fake, t, t.bob, g)
                                   for t, g in zip(tables, games, strict=True)))
            async with storage._db.connection() as conn:
                await conn.execute("UPDATE seasons SET ends_at = ? WHERE name = 'Sprint'",
                                   (time.time(),))

            def finals(table: Any) -> list[Any]:
                return [m for m in fake.messages(table.channel)
                        if not m.ephemeral and "**Sprint** is over" in m.content]
            for table in tables:
                await fake.wait_for(lambda t=table: finals(t), timeout=30,
                                    description=f"the final standings in {table.guild.name}")
            await asyncio.sleep(2.0)  # ten more rounds of each process's housekeeping
            for table in tables:
                [post] = finals(table)
                assert "No champion" in post.content  # one game: nobody has the three needed
            seasons = [s for t in tables for s in await storage.seasons.recent(t.guild.id)]
            sprints = [s for s in seasons if s.name == "Sprint"]
            assert [s.state for s in sprints] == ["posted", "posted"]
            # Each server's next season started by itself (the calendar month of now).
            assert len([s for s in seasons if s.state == "open"]) == 2
            board = await _reply(fake, tables[0].alice, tables[0].channel, "leaderboard",
                                 season="Sprint")
            assert "Season Sprint · final" in board.content
            codes = await asyncio.gather(*(shard.stop() for shard in shards))
            assert codes == [0, 0]
            for shard in shards:
                errors = [line for line in shard.logs().splitlines() if " ERROR " in line]
                assert not errors, errors
    finally:
        if storage is not None:
            await storage.close()
        await fake.stop()
