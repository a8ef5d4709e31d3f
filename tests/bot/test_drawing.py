"""Pictures drawn in worker processes: the same bytes as drawn in the bot's process, hands
before boards (but no board kept waiting for ever), workers that survive a dead one, and no
process left behind: none after ``close``, none after the bot's own end, and no helper process
beside the workers (``multiprocessing``'s resource tracker)."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.bench.render_bench import positions
from bot.pictures import drawing
from bot.pictures.board_info import BoardInfo
from bot.pictures.board_picture import render_board
from bot.pictures.drawing import Pictures
from bot.pictures.drawing_worker import frame, read_message
from bot.pictures.hand_picture import render_hand
from bot.pictures.render_tables import render_leaderboard
from engine import View


@pytest.fixture
async def pool() -> AsyncIterator[Pictures]:
    # One drawing handed out at a time, so that one drawing under way holds the queue (the
    # order of the queue is the same whatever the capacity).
    pictures = Pictures(workers=1, in_flight=1)
    yield pictures
    await pictures.close()


def _position() -> tuple[View, View, BoardInfo]:
    return positions(3, seed=4)[2]


async def test_the_workers_draw_the_very_same_pictures(pool: Pictures) -> None:
    # Byte for byte, over boards and hands of every table size: with ISA-L's level 1 the PNGs
    # of the same pixels differed now and then, between the processes or within one
    # (``picture_palette._png``); about one run in four of this many pictures.
    for seats in (2, 3, 4):
        for public, mine, info in positions(40, seed=seats, players=seats):
            board = await pool.board(lambda public=public, info=info: (public, info))
            hand = await pool.hand(mine, info)
            assert board == render_board(public, info)
            assert hand == render_hand(mine, info)
    assert len(pool.pids()) == 1


async def test_any_registered_picture_is_drawn_by_name(pool: Pictures) -> None:
    args = ("Top", ("Player", "Wins"), (("Ann", "3"),), None, "")
    assert await pool.drawn(render_leaderboard, *args) == render_leaderboard(*args)
    with pytest.raises(ValueError, match="not one of"):
        await pool.drawn(sorted, [2, 1])


async def test_a_board_is_drawn_from_the_public_view_only(pool: Pictures) -> None:
    _, mine, info = _position()
    with pytest.raises(ValueError, match="public"):
        await pool.board(lambda: (mine, info))


async def _order(pool: Pictures, monkeypatch: pytest.MonkeyPatch, *, boards: int = 1,
                 hands: int = 1) -> list[str]:
    """Queue boards, then hands, behind a drawing under way; the order they are drawn in."""
    drawn: list[str] = []

    async def run(draw: Any, view: View, info: BoardInfo) -> bytes:
        drawn.append(draw.__name__)
        return b""

    monkeypatch.setattr(pool, "_run", run)
    public, mine, info = _position()
    release = asyncio.Event()

    async def busy() -> None:
        async with pool._turn(urgent=False):
            await release.wait()

    holder = asyncio.create_task(busy())
    await asyncio.sleep(0)
    queued = [asyncio.create_task(pool.board(lambda: (public, info))) for _ in range(boards)]
    await asyncio.sleep(0)
    queued += [asyncio.create_task(pool.hand(mine, info)) for _ in range(hands)]
    await asyncio.sleep(0)
    assert pool.queued == boards + hands and drawn == []
    release.set()
    await asyncio.gather(holder, *queued)
    return [name.removeprefix("render_") for name in drawn]


async def test_a_waiting_hand_is_drawn_before_a_waiting_board(
        pool: Pictures, monkeypatch: pytest.MonkeyPatch) -> None:
    assert await _order(pool, monkeypatch) == ["hand", "board"]


async def test_late_boards_and_hands_take_turns(
        pool: Pictures, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing, "BOARD_WAIT_MAX", 0.0)
    # Late boards get one turn in three: neither kind waits for ever behind the other.
    assert drawing.HANDS_PER_LATE_BOARD == 2
    assert await _order(pool, monkeypatch, boards=3, hands=7) == [
        "hand", "hand", "board", "hand", "hand", "board", "hand", "hand", "board", "hand"]


async def test_a_drawing_given_up_leaves_the_queue(pool: Pictures) -> None:
    public, mine, info = _position()
    release = asyncio.Event()

    async def busy() -> None:
        async with pool._turn(urgent=False):
            await release.wait()

    holder = asyncio.create_task(busy())
    await asyncio.sleep(0)
    hand = asyncio.create_task(pool.hand(mine, info))
    await asyncio.sleep(0)
    hand.cancel()
    await asyncio.gather(hand, return_exceptions=True)
    assert pool.queued == 0
    release.set()
    await holder
    # The worker is free again for the next drawing.
    assert await pool.hand(mine, info) == render_hand(mine, info)


async def test_a_dead_worker_is_replaced(pool: Pictures) -> None:
    public, mine, info = _position()
    first = await pool.hand(mine, info)
    (pid,) = pool.pids()
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(0.2)
    assert await pool.hand(mine, info) == first
    assert pool.pids() and pool.pids() != [pid]


async def test_closed_workers_start_again_when_needed(pool: Pictures) -> None:
    public, _, info = _position()
    await pool.board(lambda: (public, info))
    (pid,) = pool.pids()
    await pool.close()
    assert pool.pids() == []
    assert await pool.board(lambda: (public, info)) == render_board(public, info)
    assert pool.pids() != [pid]


async def test_a_drawing_given_up_as_its_turn_comes_leaves_no_trace(pool: Pictures) -> None:
    # The drawing under way ends (and hands the turn on) in the same moment as the waiting
    # one is cancelled: the turn goes to nobody, and the queue stays sound.
    public, mine, info = _position()
    release = asyncio.Event()

    async def busy() -> None:
        async with pool._turn(urgent=False):
            await release.wait()

    holder = asyncio.create_task(busy())
    await asyncio.sleep(0)
    hand = asyncio.create_task(pool.hand(mine, info))
    await asyncio.sleep(0)
    release.set()
    hand.cancel()
    await asyncio.gather(holder, hand, return_exceptions=True)
    assert hand.cancelled() and pool.queued == 0 and pool._drawing == 0
    assert await pool.hand(mine, info) == render_hand(mine, info)


async def test_each_worker_is_handed_the_next_drawing_before_it_is_free(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert Pictures(workers=1).capacity == drawing.IN_FLIGHT > 1
    pictures = Pictures(workers=1, in_flight=2)
    assert pictures.capacity == 2
    started: list[str] = []
    release = asyncio.Event()

    async def run(draw: Any, view: View, info: BoardInfo) -> bytes:
        started.append(draw.__name__)
        await release.wait()
        return b""

    monkeypatch.setattr(pictures, "_run", run)
    public, mine, info = _position()
    tasks = [asyncio.create_task(pictures.board(lambda: (public, info))),
             asyncio.create_task(pictures.board(lambda: (public, info))),
             asyncio.create_task(pictures.hand(mine, info))]
    for _ in range(3):
        await asyncio.sleep(0)
    # Two boards handed out (one drawn, one waiting in the worker's queue), the hand waits
    # here and goes next.
    assert started == ["render_board", "render_board"] and pictures.queued == 1
    release.set()
    await asyncio.gather(*tasks)
    assert started == ["render_board", "render_board", "render_hand"]


def _children() -> dict[int, str]:
    """This process's child processes (zombies included) and their command lines."""
    me = str(os.getpid())
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone meanwhile
            continue
        if stat[stat.rindex(")") + 2:].split()[1] == me:
            out[int(entry.name)] = cmdline
    return out


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


async def test_a_worker_killed_mid_drawing_is_replaced_and_the_drawings_come_back(
        caplog: pytest.LogCaptureFixture) -> None:
    pictures = Pictures(workers=1)
    cases = positions(12, seed=9)
    try:
        tasks = [asyncio.create_task(pictures.hand(mine, info)) for _, mine, info in cases]
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        (pid,) = pictures.pids()
        assert len(done) < len(tasks)  # the rest are under way or waiting
        with caplog.at_level(logging.WARNING, logger="bot.pictures.drawing"):
            os.kill(pid, signal.SIGKILL)
            drawn = await asyncio.gather(*tasks)
        assert drawn == [render_hand(mine, info) for _, mine, info in cases]
        assert pictures.pids() and pid not in pictures.pids()
        assert f"drawing process {pid} stopped unexpectedly" in caplog.text
        # Nothing of what was drawn is logged: not even the players' names.
        assert not any(name in caplog.text for name in cases[0][2].names)
    finally:
        await pictures.close()


async def test_close_leaves_no_process_and_none_but_the_workers_start(pool: Pictures) -> None:
    public, mine, info = _position()
    before = _children()  # whatever other tests left running is not the pool's
    await pool.board(lambda: (public, info))
    await pool.hand(mine, info)
    (pid,) = pool.pids()
    # The workers are the only processes started: no resource tracker, no other helper.
    started = {child: cmdline for child, cmdline in _children().items() if child not in before}
    assert list(started) == [pid] and "bot.pictures.drawing_worker" in started[pid]
    # (Only the children started here: a multiprocessing pool of another test in this process,
    # the migrate command's replay check say, leaves its resource tracker running.)
    assert not any("resource_tracker" in cmdline for child, cmdline in _children().items()
                   if child not in before)
    await pool.close()
    assert pool.pids() == [] and _children().keys() <= before.keys()
    assert not _running(pid)


async def test_close_lets_the_drawings_handed_over_finish(pool: Pictures) -> None:
    _, mine, info = _position()
    drawing = asyncio.create_task(pool.hand(mine, info))
    while not pool.pids():
        await asyncio.sleep(0.01)
    (pid,) = pool.pids()
    await pool.close()
    assert await drawing == render_hand(mine, info) and not _running(pid)


async def test_the_worker_stops_when_its_stdin_closes() -> None:
    _, mine, info = _position()
    worker = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.pictures.drawing_worker",
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(frame(pickle.dumps(("render_hand", (mine, info)))))
    await worker.stdin.drain()
    size = int.from_bytes(await worker.stdout.readexactly(4), "big")
    assert pickle.loads(await worker.stdout.readexactly(size)) == \
        (True, render_hand(mine, info))
    worker.stdin.close()
    assert await asyncio.wait_for(worker.wait(), 10) == 0
    assert await worker.stdout.read() == b""


def test_read_message_stops_at_the_end_of_the_stream() -> None:
    assert read_message(io.BytesIO(frame(b"abc") + frame(b""))) == b"abc"
    assert read_message(io.BytesIO(b"")) is None
    assert read_message(io.BytesIO(frame(b"abc")[:-1])) is None


_BOT_KILLED = """
import asyncio, os, signal
from bot.bench.render_bench import positions
from bot.pictures.drawing import pictures

async def main():
    _, mine, info = positions(1, seed=3)[0]
    await pictures.hand(mine, info)
    print(*pictures.pids(), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def test_no_worker_outlives_a_killed_bot() -> None:
    done = subprocess.run([sys.executable, "-c", _BOT_KILLED], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    (pid,) = map(int, done.stdout.split())
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid)


def test_the_worker_imports_the_renderer_and_the_engine_only() -> None:
    code = "import sys, bot.pictures.drawing_worker; print(*sorted(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    modules = {name.split(".")[0] for name in done.stdout.split()}
    assert {"bot", "engine", "PIL"} <= modules
    assert not modules & {"discord", "aiohttp", "asyncio", "aiosqlite", "asyncpg",
                          "multiprocessing", "concurrent"}


def test_the_worker_imports_the_same_bot_package() -> None:
    # The worker runs with -P and PYTHONPATH set to this root: it must hold this very package.
    from bot.pictures import drawing as drawing_module

    root = Path(drawing_module._ROOT)
    assert (root / "bot" / "pictures" / "drawing.py").resolve() == \
        Path(drawing_module.__file__).resolve()


async def test_tables_and_charts_are_drawn_by_the_workers_too() -> None:
    # /leaderboard and /stats pictures: the same bytes as drawn in this process, drawn by a
    # worker process (never a thread of the bot's).
    from bot.pictures.render_tables import render_leaderboard, render_money_chart

    pool = Pictures(workers=1)
    try:
        rows = [["1", "Ann", "12", "3"], ["2", "Bob", "9", "5"]]
        table = await pool.table("Leaderboard", ["#", "Player", "Wins", "Losses"], rows, 1, "n")
        assert table == render_leaderboard("Leaderboard", ["#", "Player", "Wins", "Losses"],
                                           rows, 1, "n")
        points = [(1_700_000_000.0 + 86_400 * i, 50 * i - 75) for i in range(6)]
        chart = await pool.chart(points, "Ann: net money", "€")
        assert chart == render_money_chart(points, "Ann: net money", "€")
        assert len(pool.pids()) == 1
    finally:
        await pool.close()


def test_drawing_workers_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.pictures.drawing import _default_workers

    monkeypatch.setenv("DRAWING_WORKERS", "2")
    assert _default_workers() == 2
    half = max(1, (os.cpu_count() or 2) // 2)
    for wrong in ("0", "-1", "two", ""):
        monkeypatch.setenv("DRAWING_WORKERS", wrong)
        assert _default_workers() == half
    monkeypatch.delenv("DRAWING_WORKERS")
    assert _default_workers() == half
