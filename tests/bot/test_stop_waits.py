"""A clean stop waits for the interactions still running: it finds them by the names
discord.py gives their tasks (``client.INTERACTION_TASKS``), ``on_interaction`` included (the
answer to a click no button of the bot claimed)."""

from __future__ import annotations

import asyncio

import discord

from bot.app.client import INTERACTION_TASKS


async def test_on_interaction_runs_in_a_task_the_stop_waits_for() -> None:
    seen: list[str] = []

    class Client(discord.Client):
        async def on_interaction(self, interaction: object) -> None:
            task = asyncio.current_task()
            assert task is not None
            seen.append(task.get_name())

    client = Client(intents=discord.Intents.none())
    await client._async_setup_hook()  # the event loop discord.py schedules its events on
    client.dispatch("interaction", None)
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.01)
    assert seen and all(name.startswith(INTERACTION_TASKS) for name in seen), seen
