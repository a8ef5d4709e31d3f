"""Pictures drawn in worker processes: the same bytes as drawn in the bot's process, hands
before boards (but no board kept waiting for ever), and a pool that survives a dead worker."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot import drawing
from bot.bench import positions
from bot.drawing import Pictures
from bot.render import BoardInfo, render_board, render_hand
from engine import View


@pytest.fixture
async def pool() -> AsyncIterator[Pictures]:
    # One drawing handed out at a time, so that one drawing under way holds the queue (the
    # order of the queue is the same whatever the capacity).
    pictures = Pictures(workers=1, in_flight=1)
    yield pictures
    await asyncio.to_thread(pictures.close)


def _position() -> tuple[View, View, BoardInfo]:
    return positions(3, seed=4)[2]


async def test_the_workers_draw_the_very_same_pictures(pool: Pictures) -> None:
    public, mine, info = _position()
    board = await pool.board(lambda: (public, info))
    hand = await pool.hand(mine, info)
    assert board == render_board(public, info)
    assert hand == render_hand(mine, info)
    assert len(pool.pids()) == 1


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
    await asyncio.to_thread(pool.close)
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
    pictures = Pictures(workers=1)
    assert pictures.capacity == drawing.IN_FLIGHT == 2
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
