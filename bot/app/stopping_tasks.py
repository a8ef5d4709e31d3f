"""Stopping the bot's own background tasks, and saying where they are when a stop hangs.

A cancel can be lost. Seen in ``tests/e2e/test_shards.py`` at load 11: 9 s after the stop
cancelled it, a shard's housekeeping loop was still running (asleep between rounds), and the
stop waited for it for ever. The likely reason: in Python 3.11 ``asyncio.wait_for`` returns the
inner result when it arrives together with the cancel (fixed in 3.12), and asyncpg and
discord.py await through it, a race a busy machine meets. So a task still running after a
cancel is cancelled again, and the wait is bounded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any, cast

__all__ = ["cancel_until_done", "where_tasks_are"]

log = logging.getLogger(__name__)

AGAIN_EVERY = 0.5
"""Seconds between cancels of a task that is still running."""


async def cancel_until_done(tasks: Iterable[asyncio.Task[Any]], timeout: float) -> None:
    """Cancel ``tasks`` and wait for them to end, cancelling again every ``AGAIN_EVERY`` s
    the ones still running, for ``timeout`` seconds at most (a task that still runs then is
    named in a warning, and left)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    tasks = list(tasks)
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        left = end - loop.time()
        if left <= 0:
            break
        _, pending = await asyncio.wait(pending, timeout=min(AGAIN_EVERY, left))
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # each failure was logged by its owner; don't log it again
    if pending:
        log.warning("%d background tasks did not stop when cancelled: %s", len(pending),
                    ", ".join(sorted(task.get_name() for task in pending)))


def where_tasks_are() -> str:
    """Each unfinished task of the loop and where it waits: the innermost frame outside
    asyncio (then asyncio's own, if deeper)."""

    def at(frame: Any) -> str:
        return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno}"

    places: list[str] = []
    for task in asyncio.all_tasks():
        if task.done():
            continue
        frames, awaited = [], cast(Any, task.get_coro())
        while awaited is not None:  # down the chain of awaits
            if getattr(awaited, "cr_frame", None) is not None:
                frames.append(awaited.cr_frame)
            awaited = getattr(awaited, "cr_await", None)
        ours = [f for f in frames if "/asyncio/" not in f.f_code.co_filename]
        where = at(ours[-1]) if ours else "?"
        if frames and (not ours or frames[-1] is not ours[-1]):
            where += f" > {at(frames[-1])}"
        places.append(f"{task.get_name()} at {where}")
    return "; ".join(sorted(places))
