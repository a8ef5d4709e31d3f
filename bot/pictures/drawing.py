"""Pictures drawn in a worker process, so that the bot's own process keeps its interpreter lock
for answering interactions.

Drawing a board or a hand is mostly Python (Pillow's pasting and text, the PNG encoder) and
holds the interpreter lock for most of its 5–15 ms: drawn in a thread of the bot's process, it
delays the event loop that must send every first response (a profile of the load benchmark
found drawing at about two thirds of the bot's busy time). ``Pictures`` has the same pure
functions of ``bot.pictures.board_picture`` and ``hand_picture`` run by a small number of worker
processes instead (``bot.pictures.drawing_worker``): the arguments (a ``View`` and a
``BoardInfo``, a few KB pickled) go there, PNG bytes come back.

What reaches a worker: the public view for a board, and one player's own view for that
player's hand picture, the same as the renderer got in a thread before. Nothing of it is
logged, and the worker sends back nothing but the picture.

Hands come first: a player is waiting for the hand picture (it is the follow-up of a click),
while a board may come a moment later and covers the moves made meanwhile (see
``BoardPublisher``). So only ``IN_FLIGHT`` drawings per worker are handed over at a time, and a
waiting hand is handed over before any waiting board.

The bot starts each worker itself, ``python -m bot.pictures.drawing_worker`` with pipes for its
stdin and stdout, on the first drawing that needs it, and talks to it on the event loop: no helper
thread, and none of the semaphores (and the resource tracker process that watches them) of a
``multiprocessing`` pool. A worker is a fresh interpreter that imports the renderer and the
engine only, not a fork of the bot's process with its event loop, sockets and database
connection. ``close`` stops the workers (the bot calls it as it stops; a drawing after that
starts them again); a worker also stops when the bot's process ends, however it ends, as its
stdin closes. Should a worker die, its drawings are drawn again, once, by a new one. One set of
workers serves the whole process (``pictures``), as the pictures are the same whoever asks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import sys
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from engine import View

from .board_info import BoardInfo
from .board_picture import render_board
from .drawing_worker import DRAWINGS, frame
from .hand_picture import render_hand
from .render_tables import render_leaderboard, render_money_chart

__all__ = ["DEFAULT_WORKERS", "DrawingProcessDied", "Pictures", "pictures"]

log = logging.getLogger(__name__)

def _default_workers() -> int:
    try:
        chosen = int(os.environ.get("DRAWING_WORKERS", "0"))
    except ValueError:
        chosen = 0
    return chosen if chosen > 0 else max(1, (os.cpu_count() or 2) // 2)


DEFAULT_WORKERS = _default_workers()
"""Worker processes by default: ``DRAWING_WORKERS`` if set (a whole number above 0), else half
the cores (one on a 2-core machine), so that drawing, however much of it is asked for, leaves
the other half to the bot's event loop. Measured on 2 cores for issue 35 (BENCHMARKS.md): see
there what two workers gave against one."""

BOARD_WAIT_MAX = 1.0
"""Seconds a board waits behind hands before boards get a share of the turns. A board is what
tells the next player it is his turn (and everyone else what was played), so it must not wait
long: with 10 s (measured, eager 10 games) boards were posted 0.5 a second instead of 4.3, and
at eager 100 a third of the plays never showed on any board. Under more drawing than the
workers can do, a board that waited shows every move made meanwhile."""

HANDS_PER_LATE_BOARD = 2
"""While boards are late, one turn in this many plus one is a board's."""

IN_FLIGHT = 4
"""Drawings handed to each worker at a time: the next ones wait in the worker's queue, so the
worker never sits idle while the bot's event loop (busy with interactions) gets round to
handing it the next. Measured at paced 1,000 games (quiet machine): with 1, the worker was
busy 66% of the time; with 2, 81% (94 moves/s handled of the 100 offered); with 4, 86% (99
moves/s). A hand may wait behind three boards already handed over, some 20 ms."""

STOP_WAIT = 10.0
"""Seconds ``close`` waits for a worker to finish the drawings it was handed and stop, before
it is killed."""

END_WAIT = 2.0
"""Seconds a worker is given to stop when the event loop ends without ``close``."""

_Draw = Callable[..., bytes]

_ROOT = str(Path(__file__).resolve().parents[2])
"""Where the ``bot`` package is: the worker imports the very same code as the bot."""


class DrawingProcessDied(RuntimeError):
    """A drawing process ended before it sent the picture back."""


class RemoteTraceback(Exception):
    """The traceback of an error raised in a drawing process, as text (the cause of the error
    raised again in the bot's process)."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}" if self.args else ""


class _Worker:
    """One drawing process and the drawings handed to it, answered in the order they were sent
    (the process draws one after another)."""

    def __init__(self) -> None:
        self.load = 0
        """Drawings handed to this worker whose callers are still waiting."""
        self.dead = False
        """The process stopped (or could not start): it takes no more drawings."""
        self._process: asyncio.subprocess.Process | None = None
        self._starting = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        # The answers to come, in the order the drawings were sent. A drawing given up stays
        # here until its answer has come and gone, so the answers keep their places.
        self._answers: deque[asyncio.Future[bytes]] = deque()
        self._stopping = False

    @property
    def pid(self) -> int | None:
        """The process's id, while it runs."""
        return None if self._process is None or self.dead else self._process.pid

    async def draw(self, draw: _Draw, *args: object) -> bytes:
        """``draw(*args)`` drawn by this process (started if it was not yet)."""
        request = frame(pickle.dumps((draw.__name__, args), pickle.HIGHEST_PROTOCOL))
        self.load += 1
        try:
            process = await self._started()
            if self.dead or self._stopping:
                raise DrawingProcessDied("the drawing process has stopped")
            assert process.stdin is not None
            answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
            self._answers.append(answer)
            process.stdin.write(request)
            # A pipe broken meanwhile fails the answer too, as the process's stdout ends.
            with contextlib.suppress(ConnectionError):
                await process.stdin.drain()
            return await answer
        finally:
            self.load -= 1

    async def _started(self) -> asyncio.subprocess.Process:
        async with self._starting:
            if self._process is None and not (self.dead or self._stopping):
                try:
                    self._process = await _start()
                except BaseException:
                    self.dead = True
                    raise
                self._reader = asyncio.create_task(
                    self._read(self._process), name=f"drawing process {self._process.pid}")
            if self._process is None:
                raise DrawingProcessDied("the drawing process did not start")
            return self._process

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        try:
            while True:
                size = int.from_bytes(await process.stdout.readexactly(4), "big")
                reply = pickle.loads(await process.stdout.readexactly(size))
                answer = self._answers.popleft()
                if answer.done():  # given up
                    continue
                if reply[0]:
                    answer.set_result(reply[1])
                else:
                    error: BaseException = reply[1]
                    error.__cause__ = RemoteTraceback(reply[2])
                    answer.set_exception(error)
        except asyncio.IncompleteReadError:
            pass  # the process stopped
        except asyncio.CancelledError:
            # The event loop is ending without ``close`` (a test's, say): stop the process
            # while the loop can still see it go.
            self.dead = True
            self._fail("the event loop ended")
            process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), END_WAIT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
            raise
        except Exception as exc:
            # Not the answers it should send (nothing of them is logged): stop it.
            log.error("drawing process %d sent what is not an answer (%s); stopping it",
                      process.pid, type(exc).__name__)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        self.dead = True
        returncode = await process.wait()
        if self._answers or not self._stopping:
            log.warning("drawing process %d stopped unexpectedly (exit status %d); the %d "
                        "drawings it had are tried again by a new one",
                        process.pid, returncode, len(self._answers))
        self._fail(f"the drawing process stopped (exit status {returncode})")

    def _fail(self, reason: str) -> None:
        while self._answers:
            answer = self._answers.popleft()
            if not answer.done():
                answer.set_exception(DrawingProcessDied(reason))

    async def stop(self) -> None:
        """Close the process's stdin, so that it stops once it has answered what it was
        handed; wait for that (killing it after ``STOP_WAIT``)."""
        self._stopping = True
        async with self._starting:
            process = self._process
        if process is None:
            return
        assert process.stdin is not None and self._reader is not None
        process.stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(self._reader), STOP_WAIT)
        except TimeoutError:
            log.warning("drawing process %d did not stop within %g s; killing it",
                        process.pid, STOP_WAIT)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await self._reader

    def abandon(self) -> None:
        """Kill the process without waiting: its event loop is gone (its pipes went with
        it)."""
        self._stopping = True
        if self._process is not None and not self.dead:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._process.pid, signal.SIGKILL)


async def _start() -> asyncio.subprocess.Process:
    # -P: the worker imports bot from _ROOT (PYTHONPATH), never from whatever the working
    # directory holds. The stderr is the bot's: a worker's crash shows in the bot's log.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_ROOT, env.get("PYTHONPATH")]))
    return await asyncio.create_subprocess_exec(
        sys.executable, "-P", "-m", "bot.pictures.drawing_worker", env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 20)


class Pictures:
    """Boards and hands drawn in worker processes, hands before boards."""

    def __init__(self, workers: int = DEFAULT_WORKERS, in_flight: int = IN_FLIGHT) -> None:
        self.workers = workers
        self.capacity = workers * in_flight
        """Drawings handed to the workers at a time (the rest wait here, hands first)."""
        self._workers: list[_Worker] = []
        # The workers' pipes belong to the event loop that started them.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drawing = 0
        # Drawings waiting for a worker, with when they began to wait: hands (True), boards.
        self._waiting: dict[bool, deque[tuple[float, asyncio.Future[None]]]] = {
            True: deque(), False: deque()}
        self._hands_in_a_row = 0
        self.handed: Counter[str] = Counter()
        """Drawings handed to the workers, by picture (``render_board``, ``render_hand``…):
        each one a worker draws, whether or not its caller still waits for it."""

    async def board(self, read: Callable[[], tuple[View, BoardInfo]]) -> bytes:
        """The public board as PNG bytes (see ``board_picture.render_board``), of the view and
        words that ``read`` gives. ``read`` is called once a worker is free, so a board that had to
        wait shows the moves made while it waited."""
        async with self._turn(urgent=False):
            view, info = read()
            if not view.is_public:
                raise ValueError("A board is drawn from the public view only.")
            return await self._run(render_board, view, info)

    async def hand(self, view: View, info: BoardInfo) -> bytes:
        """The viewer's hand as PNG bytes (see ``hand_picture.render_hand``), drawn before
        boards."""
        async with self._turn(urgent=True):
            return await self._run(render_hand, view, info)

    async def table(self, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                    highlight: int | None = None, note: str = "") -> bytes:
        """A leaderboard's table as PNG bytes (see ``render_tables.render_leaderboard``); a
        player waits for it, so it goes before boards, as a hand does."""
        async with self._turn(urgent=True):
            return await self._run(render_leaderboard, title, tuple(headers),
                                   tuple(tuple(row) for row in rows), highlight, note)

    async def chart(self, points: Sequence[tuple[float, int]], label: str,
                    currency: str = "$") -> bytes:
        """A player's money over time as PNG bytes (see ``render_tables.render_money_chart``);
        before boards, as a hand is."""
        async with self._turn(urgent=True):
            return await self._run(render_money_chart, tuple(points), label, currency)

    async def drawn(self, draw: _Draw, *args: object) -> bytes:
        """Any other picture as PNG bytes: ``draw`` is a pure function of plain, picklable
        arguments registered in ``drawing_worker.DRAWINGS`` (the worker looks it up by name).
        Someone waits for it, so it goes before boards, as a hand does."""
        if DRAWINGS.get(draw.__name__) is not draw:
            raise ValueError(f"{draw.__name__} is not one of the drawing process's pictures.")
        async with self._turn(urgent=True):
            return await self._run(draw, *args)

    @property
    def queued(self) -> int:
        """Drawings waiting for a worker (not counting those being drawn)."""
        return len(self._waiting[True]) + len(self._waiting[False])

    def pids(self) -> list[int]:
        """The worker processes' ids (none before the first drawing)."""
        return sorted(pid for worker in self._workers if (pid := worker.pid) is not None)

    async def close(self) -> None:
        """Stop the workers, once they have drawn what they were handed (a later drawing starts
        them again)."""
        workers, self._workers = self._workers, []
        if self._loop is not asyncio.get_running_loop():
            for worker in workers:
                worker.abandon()
            return
        await asyncio.gather(*(worker.stop() for worker in workers))

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

    # -- the workers

    def _worker(self) -> _Worker:
        """The worker with the fewest drawings, or a new one while there are fewer than
        ``workers`` and each has some."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            for worker in self._workers:
                worker.abandon()
            self._workers, self._loop = [], loop
        self._workers = [worker for worker in self._workers if not worker.dead]
        least = min(self._workers, key=lambda worker: worker.load, default=None)
        if least is None or (least.load and len(self._workers) < self.workers):
            least = _Worker()
            self._workers.append(least)
        return least

    async def _run(self, draw: _Draw, *args: object) -> bytes:
        self.handed[draw.__name__] += 1
        try:
            return await self._worker().draw(draw, *args)
        except DrawingProcessDied:
            # Logged (the process, never the picture) as the death was noticed.
            return await self._worker().draw(draw, *args)


pictures = Pictures()
"""The process's drawing workers (they start with the first drawing)."""
