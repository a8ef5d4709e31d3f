"""The bot's process collects its youngest objects every 10,000 allocations (issue 35)."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

from bot.app import running
from bot.ops.config import Config


def test_running_the_bot_sets_the_young_threshold_and_keeps_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = gc.get_threshold()

    def stop_here(config: Config) -> None:
        raise RuntimeError("stopped before connecting")

    monkeypatch.setattr(running, "hold_database", lambda path: None)
    monkeypatch.setattr(running, "apply_endpoints", stop_here)
    try:
        gc.set_threshold(700, 11, 12)
        with pytest.raises(RuntimeError, match="before connecting"):
            asyncio.run(running.run(Config(token="", database=str(tmp_path / "b.sqlite3"),
                                           tick=60)))
        assert gc.get_threshold() == (running.YOUNG_COLLECTION_THRESHOLD, 11, 12) == \
            (10_000, 11, 12)
    finally:
        gc.set_threshold(*before)


def test_young_cycles_wait_for_the_threshold_and_are_then_freed() -> None:
    before = gc.get_threshold()
    gc.collect()
    try:
        running.tune_garbage_collector()
        collections, collected = gc.get_stats()[0]["collections"], gc.get_stats()[0]["collected"]
        for _ in range(2_000):  # 4,000 new container objects: no collection at 700 any more
            a: list[object] = []
            a.append([a])
        assert gc.get_stats()[0]["collections"] == collections
        for _ in range(6_000):  # past 10,000: the young ones are collected, the cycles freed
            a = []
            a.append([a])
        assert gc.get_stats()[0]["collections"] > collections
        assert gc.get_stats()[0]["collected"] > collected
    finally:
        gc.set_threshold(*before)
