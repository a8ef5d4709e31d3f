"""Waiting on the fake Discord's state: every change wakes whoever waits, so nobody sleeps.

The base of the fake's state (``discord_state.py``), and what an
:class:`~.interactions.InteractionRecord` waits through: it knows the fake only as this, so the
records and the state import one way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from .fake_errors import FakeDiscordTimeout

T = TypeVar("T")


def release(waiter: asyncio.Future[None]) -> None:
    """Wake ``waiter`` unless it is already done (a timer's or a change's wake-up)."""
    if not waiter.done():
        waiter.set_result(None)


class Waiting:
    """The waiters of :meth:`wait_for` and the listeners woken on every change."""

    def __init__(self) -> None:
        self._waiters: set[asyncio.Future[None]] = set()
        #: Called (synchronously, no arguments) on every state change, like the waiters of
        #: :meth:`wait_for`: the sandbox's web page pushes its updates from here.
        self.listeners: list[Callable[[], None]] = []

    def notify(self) -> None:
        """Wake every :meth:`wait_for` so it re-checks its predicate."""
        for waiter in self._waiters:
            release(waiter)
        for listener in self.listeners:
            listener()

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        description: str = "condition",
        poll: float = 0.02,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated immediately on every state change of the fake, and at least every
        ``poll`` seconds so predicates may also look at bot-side state (caches, log
        records...). Raises :class:`FakeDiscordTimeout` naming ``description``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(f"timed out after {timeout}s waiting for {description}")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.add(waiter)
            # A timer that wakes the waiter, rather than ``asyncio.wait_for``: the same wake-up,
            # without the wrapping future and the TimeoutError (with its traceback) of each poll.
            timer = loop.call_later(min(remaining, poll), release, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiters.discard(waiter)

    def cancel_waiters(self) -> None:
        """Cancel whoever still waits (the fake is stopping)."""
        for waiter in self._waiters:
            if not waiter.done():
                waiter.cancel()
