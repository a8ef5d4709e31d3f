"""``python -m bot sandbox``: the fake Discord, its web page, and a bot run against them.

The sandbox knows nothing of the bot: the command line hands it ``run_bot``, which runs the
real bot (the production code path, with the fake's addresses in its settings) until it is
stopped, and returns. Order of things::

    fake Discord (its saved state loaded) -> web page -> the bot ... Ctrl-C ...
    the bot stops (its own graceful stop) -> the fake's state saved -> page and fake closed
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

from .server import FakeDiscord
from .web import SandboxPage
from .world import (
    BOT_NAME,
    SandboxWorld,
    load_world,
    new_world,
    rebase_attachments,
    save_world,
    tidy,
)

__all__ = ["SAVE_EVERY", "Sandbox", "run_sandbox"]

log = logging.getLogger("bot.sandbox")

SAVE_EVERY = 30.0
"""Seconds between tidyings and saves of the fake's state while it changes (and once more at
the stop)."""

RunBot = Callable[[FakeDiscord], Awaitable[None]]


class Sandbox:
    """The fake Discord and its page, started and stopped together (the bot is separate)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.fake = FakeDiscord(token=secrets.token_urlsafe(32), bot_name=BOT_NAME)
        loaded = load_world(self.fake, folder) if folder is not None else None
        self.world: SandboxWorld = loaded or new_world(self.fake)
        self.page = SandboxPage(self.world)
        self._dirty = asyncio.Event()
        self._saver: asyncio.Task[None] | None = None

    async def start(self, port: int) -> None:
        """Serve the fake on a free port and the page on ``port`` (both on 127.0.0.1)."""
        await self.fake.start()
        rebase_attachments(self.world)
        try:
            await self.page.start(port)
        except OSError:
            await self.fake.stop()
            raise
        self.fake.state.listeners.append(self._dirty.set)
        self._saver = asyncio.create_task(self._save_now_and_then(), name="sandbox-saver")

    async def stop(self) -> None:
        """Save the fake's state (with the folder), close the page, then the fake."""
        if self._saver is not None:
            self._saver.cancel()
            await asyncio.gather(self._saver, return_exceptions=True)
        self.save()
        await self.page.stop()
        await self.fake.stop()

    def save(self) -> None:
        """Write the fake's state beside the database (nothing with ``--fresh``)."""
        if self.folder is not None:
            save_world(self.world, self.folder)

    async def _save_now_and_then(self) -> None:
        while True:
            await self._dirty.wait()
            await asyncio.sleep(SAVE_EVERY)
            self._dirty.clear()
            tidy(self.fake)
            try:
                self.save()
            except OSError as exc:
                log.warning("couldn't save the sandbox's state: %s", exc)

    async def wait_ready(self, timeout: float = 120.0) -> None:
        """Until the bot is connected and has its commands registered."""
        fake = self.fake
        await fake.wait_for(lambda: fake.state.connected_count() > 0 and "challenge" in {
            c.name for c in fake.state.registered.values()}, timeout=timeout, poll=0.1,
            description="the bot to connect and register its commands")


async def run_sandbox(port: int, folder: Path | None, run_bot: RunBot,
                      say: Callable[[str], None]) -> None:
    """Start the sandbox, run the bot against it until the bot stops, then stop the sandbox.
    ``folder`` keeps the fake's state between runs (``None``: nothing is kept)."""
    sandbox = Sandbox(folder)
    await sandbox.start(port)
    say(f"Starting the bot against the sandbox's Discord at {sandbox.page.url} …")

    async def announce() -> None:
        await sandbox.wait_ready()
        people = ", ".join(m.user.global_name or "" for m in sandbox.world.people)
        say(f"Sandbox ready: open {sandbox.page.url} in your browser (you play {people}; "
            "challenge the bot to play the computer). Ctrl-C stops it.")

    ready = asyncio.create_task(announce(), name="sandbox-ready")
    try:
        await run_bot(sandbox.fake)
    finally:
        ready.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await ready
        await sandbox.stop()
