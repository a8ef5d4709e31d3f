"""A clean stop waits for the interactions still running: it finds them by the names
discord.py gives their tasks (``client.INTERACTION_TASKS``), ``on_interaction`` included (the
answer to a click no button of the bot claimed)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import discord
import pytest

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


async def test_a_stop_stuck_past_dockers_limit_says_where(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.app import client as client_module
    from bot.app.client import SpiteBot
    from bot.ops.config import Config

    monkeypatch.setattr(client_module, "STOP_SECONDS", 0.05)
    release = asyncio.Event()

    class StuckStorage:
        async def close(self) -> None:
            await release.wait()

    bot = SpiteBot(Config(token="t"))
    bot.storage = StuckStorage()  # type: ignore[assignment]
    with caplog.at_level(logging.INFO, logger="bot.app.client"):
        stop = asyncio.create_task(bot.close())

        async def warned() -> None:
            while "stopping takes longer" not in caplog.text:
                assert not stop.done(), caplog.text
                await asyncio.sleep(0.01)

        await asyncio.wait_for(warned(), timeout=30)  # a guard against a hang, not a wait
        assert "still closing the database" in caplog.text
        assert "test_stop_waits.py" in caplog.text  # where each task waits (the stuck close)
        release.set()
        await stop
    assert caplog.text.rstrip().endswith("stopped")


async def test_a_task_that_loses_its_cancel_is_cancelled_again() -> None:
    from bot.app.stopping_tasks import cancel_until_done

    lost = asyncio.Event()

    async def loses_the_first_cancel() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            lost.set()  # as a wait_for whose result came with the cancel: it goes on
        await asyncio.sleep(3600)

    task = asyncio.create_task(loses_the_first_cancel())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_until_done([task], timeout=60), timeout=60)
    assert lost.is_set() and task.cancelled()


async def test_a_task_that_never_stops_is_left_after_the_timeout(
        caplog: pytest.LogCaptureFixture) -> None:
    from bot.app.stopping_tasks import cancel_until_done

    release = asyncio.Event()

    async def never_stops() -> None:
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(3600)

    task = asyncio.create_task(never_stops(), name="stubborn")
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING, logger="bot.app.stopping_tasks"):
        await asyncio.wait_for(cancel_until_done([task], timeout=0.2), timeout=60)
    assert not task.done() and "did not stop when cancelled: stubborn" in caplog.text
    release.set()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_task_that_failed_before_the_stop_is_not_logged_again(
        caplog: pytest.LogCaptureFixture) -> None:
    import gc

    from bot.app.stopping_tasks import cancel_until_done

    async def fails() -> None:
        raise RuntimeError("a bug, logged by its owner")

    task = asyncio.create_task(fails())
    await asyncio.wait({task})
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        await cancel_until_done([task], timeout=1)
        del task
        gc.collect()
    assert "never retrieved" not in caplog.text
