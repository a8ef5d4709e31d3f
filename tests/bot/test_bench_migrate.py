"""The migrate benchmark runs end to end at a tiny size, so it cannot rot (its copy hook
went out of step with ``Storage.copy_into`` once, unseen): figures, not timings."""

from __future__ import annotations

import pytest

import bot.ops.replay_check
from bot.bench.migrate_bench import run_migrate


def test_a_tiny_migration_is_measured_one_by_one_and_over_two_processes(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.ops.replay_check, "REPLAY_BATCH", 2)
    rows = list(run_migrate([4], postgres_url, pool=2, workers=(1, 2)))
    assert [row["replay_workers"] for row in rows] == [1, 2]
    for row in rows:
        assert row["games"] == 4 and row["rows"]["games"] == 4
        assert row["check_replay_s"] is not None and row["replay_ms_per_game"] >= 0
        assert row["copy_s"] >= 0 and row["total_s"] > 0 and row["loadavg_1m"] >= 0
