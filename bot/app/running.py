"""Running the bot as a process: until ``SIGTERM`` (``docker stop``) or ``SIGINT`` (Ctrl-C),
which stop it cleanly."""

from __future__ import annotations

import asyncio
import logging
import signal

from bot.ops.config import Config
from bot.ops.dblock import hold_database

from .client import SpiteBot, apply_endpoints, new_bot

__all__ = ["run"]

log = logging.getLogger("bot.app.client")


async def run(config: Config) -> None:
    """Run the bot until it is stopped: ``SIGTERM`` (``docker stop``) and ``SIGINT`` (Ctrl-C)
    stop it cleanly (see ``SpiteBot.close``)."""
    database = hold_database(config.database)  # before anything: one process per SQLite file
    apply_endpoints(config)
    bot = new_bot(config)
    if config.shards is not None:
        log.info("running shards %s of %d", ", ".join(map(str, sorted(config.shards.ids))),
                 config.shards.count)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, _on_signal, bot, signum)
    try:
        async with bot:
            await bot.start(config.token)
    finally:
        # ``start`` returns as soon as the gateway closes, which is midway through the stop
        # (and ``async with`` then thinks the bot closed): wait for the whole of it.
        await bot.close()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        if database is not None:
            database.close()


_closing: set[asyncio.Task[None]] = set()  # a strong reference while the stop runs


def _on_signal(bot: SpiteBot, signum: int) -> None:
    log.info("%s received: stopping", signal.Signals(signum).name)
    task = asyncio.get_running_loop().create_task(bot.close(), name="close")
    _closing.add(task)
    task.add_done_callback(_closing.discard)
