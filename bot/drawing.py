"""Pictures drawn in a worker process, so that the bot's own process keeps its interpreter lock
for answering interactions.

Drawing a board or a hand is mostly Python (Pillow's pasting and text, the PNG encoder) and
holds the interpreter lock for most of its 5–15 ms: drawn in a thread of the bot's process, it
delays the event loop that must send every first response (a profile of the load benchmark
found drawing at about two thirds of the bot's busy time). ``Pictures`` sends the same pure
functions of ``bot.render`` to a small pool of worker processes instead: the arguments (a
``View`` and a ``BoardInfo``, a few KB pickled) go there, PNG bytes come back.

What reaches a worker: the public view for a board, and one player's own view for that
player's hand picture, the same as the renderer got in a thread before. Nothing of it is
logged, and the worker sends back nothing but the picture.

Hands come first: a player is waiting for the hand picture (it is the follow-up of a click),
while a board may come a moment later and covers the moves made meanwhile (see
``BoardPublisher``). So at most one drawing per worker is handed to the pool at a time, and a
waiting hand is handed over before any waiting board.

The workers are started with ``spawn`` (a fresh interpreter, not a fork of the bot's process
with its event loop, sockets and database connection) on the first drawing, and stopped by
``close`` (the bot calls it as it stops; a drawing after that starts them again). Should a
worker die, the pool is started again and the drawing retried once. One pool serves the
whole process (``pictures``), as the pictures are the same whoever asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import View

from .render import BoardInfo, render_board, render_hand

__all__ = ["DEFAULT_WORKERS", "Pictures", "pictures"]

log = logging.getLogger(__name__)

DEFAULT_WORKERS = max(1, (os.cpu_count() or 2) // 2)
"""Worker processes by default: half the cores (one on a 2-core machine), so that drawing,
however much of it is asked for, leaves the other half to the bot's event loop."""

BOARD_WAIT_MAX = 1.0
"""Seconds a board waits behind hands before boards get a share of the turns. A board is what
tells the next player it is his turn (and everyone else what was played), so it must not wait
long: with 10 s (measured, eager 10 games) boards were posted 0.5 a second instead of 4.3, and
at eager 100 a third of the plays never showed on any board. Under more drawing than the
workers can do, a board that waited shows every move made meanwhile."""

HANDS_PER_LATE_BOARD = 2
"""While boards are late, one turn in this many plus one is a board's."""

IN_FLIGHT = 2
"""Drawings handed to each worker at a time: the next one waits in the worker's queue, so the
worker never sits idle while the bot's event loop (busy with interactions) gets round to
handing it the next. Measured at paced 1,000 games (quiet machine): with 1, the worker was
busy 66% of the time and a move's hand pictures waited for it."""

_Draw = Callable[[View, BoardInfo], bytes]


class Pictures:
    """Boards and hands drawn in worker processes, hands before boards."""

    def __init__(self, workers: int = DEFAULT_WORKERS, in_flight: int = IN_FLIGHT) -> None:
        self.workers = workers
        self.capacity = workers * in_flight
        """Drawings handed to the workers at a time (the rest wait here, hands first)."""
        self._pool: ProcessPoolExecutor | None = None
        self._drawing = 0
        # Drawings waiting for a worker, with when they began to wait: hands (True), boards.
        self._waiting: dict[bool, deque[tuple[float, asyncio.Future[None]]]] = {
            True: deque(), False: deque()}
        self._hands_in_a_row = 0

    async def board(self, read: Callable[[], tuple[View, BoardInfo]]) -> bytes:
        """The public board as PNG bytes (see ``render.render_board``), of the view and words
        that ``read`` gives. ``read`` is called once a worker is free, so a board that had to
        wait shows the moves made while it waited."""
        async with self._turn(urgent=False):
            view, info = read()
            if not view.is_public:
                raise ValueError("A board is drawn from the public view only.")
            return await self._run(render_board, view, info)

    async def hand(self, view: View, info: BoardInfo) -> bytes:
        """The viewer's hand as PNG bytes (see ``render.render_hand``), drawn before boards."""
        async with self._turn(urgent=True):
            return await self._run(render_hand, view, info)

    @property
    def queued(self) -> int:
        """Drawings waiting for a worker (not counting those being drawn)."""
        return len(self._waiting[True]) + len(self._waiting[False])

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first drawing)."""
        pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return sorted(processes)

    def close(self) -> None:
        """Stop the workers, waiting for the drawings under way (a later drawing starts them
        again)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    # -- the queue

    @contextlib.asynccontextmanager
    async def _turn(self, *, urgent: bool) -> AsyncIterator[None]:
        await self._take_turn(urgent)
        try:
            yield
        finally:
            self._drawing -= 1
            self._next()

    async def _take_turn(self, urgent: bool) -> None:
        if self._drawing < self.capacity and not self.queued:
            self._drawing += 1
            return
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        entry = (loop.time(), turn)
        self._waiting[urgent].append(entry)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                # Given a turn just as it was cancelled: pass the turn on.
                self._drawing -= 1
                self._next()
            else:
                # Still waiting, unless a turn was handed out meanwhile and it was passed over.
                with contextlib.suppress(ValueError):
                    self._waiting[urgent].remove(entry)
            raise

    def _next(self) -> None:
        boards, hands = self._waiting[False], self._waiting[True]
        while self._drawing < self.capacity and (boards or hands):
            # Hands first. But a steady stream of hands must not keep the boards from ever
            # being drawn, nor a backlog of late boards the hands: once the oldest board has
            # waited BOARD_WAIT_MAX, every HANDS_PER_LATE_BOARD + 1st turn is a board's.
            late = bool(boards) and \
                boards[0][0] <= asyncio.get_running_loop().time() - BOARD_WAIT_MAX
            if hands and not (late and self._hands_in_a_row >= HANDS_PER_LATE_BOARD):
                queue = hands
                self._hands_in_a_row += 1
            else:
                queue = boards
                self._hands_in_a_row = 0
            _, turn = queue.popleft()
            if not turn.done():
                self._drawing += 1
                turn.set_result(None)

    # -- the pool

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def _run(self, draw: _Draw, view: View, info: BoardInfo) -> bytes:
        loop = asyncio.get_running_loop()
        pool = self._executor()
        try:
            return await loop.run_in_executor(pool, draw, view, info)
        except BrokenProcessPool:
            log.warning("a drawing process died; starting the pool again")
            if self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self._executor(), draw, view, info)


pictures = Pictures()
"""The process's drawing pool (its workers start with the first drawing)."""
