"""The housekeeping loop cannot die quietly: a round that fails (its start-up steps included) is
logged and the next round runs; a loop that stops says so to the health check at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import health
from bot.app.client import SpiteBot
from bot.games.live_games import LiveGames
from bot.ops.backup import DailyBackups
from bot.ops.config import Config
from bot.sandbox import FakeDiscord, start_bot
from bot.storage import StorageError


def _config(fake: FakeDiscord, tmp_path: Path) -> Config:
    return Config(token=fake.token, database=str(tmp_path / "bot.sqlite3"), board_delay=0.01,
                  computer_delay=0.0, tick=0.1)


async def test_a_database_error_in_the_first_round_is_logged_and_the_next_round_runs(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    real = LiveGames.active_games
    calls = {"active": 0, "ticks": 0}

    async def failing_once(self: LiveGames) -> Any:
        calls["active"] += 1
        if calls["active"] == 1:  # the very first thing the first round asks the database
            raise StorageError("database is locked")
        return await real(self)

    monkeypatch.setattr(LiveGames, "active_games", failing_once)
    config = _config(fake_discord, tmp_path)
    bot = SpiteBot(config)
    real_tick = bot.tick

    async def counted_tick() -> None:
        calls["ticks"] += 1
        await real_tick()

    bot.tick = counted_tick  # type: ignore[method-assign]
    handle = await start_bot(fake_discord, bot)
    try:
        # The start-up steps run again in the next round, then the rounds go on.
        await fake_discord.wait_for(lambda: calls["ticks"] >= 2, timeout=10,
                                    description="two housekeeping rounds after the failure")
        assert calls["active"] >= 2
        assert bot.housekeeping.is_running()
        assert "housekeeping failed" in caplog.text and "database is locked" in caplog.text
        assert caplog.text.count("housekeeping failed") == 1, "said once, not every round"
        assert health(config) == 0
        assert "healthy" in capsys.readouterr().out
    finally:
        await handle.stop()


async def test_a_housekeeping_loop_that_stopped_is_reported_by_the_health_check(
        fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    async def broken(self: DailyBackups) -> None:
        raise RuntimeError("a bug in the backups")  # it should have logged its own failure

    monkeypatch.setattr(DailyBackups, "run_due", broken)
    config = _config(fake_discord, tmp_path)
    bot = SpiteBot(config)
    handle = await start_bot(fake_discord, bot)
    try:
        await fake_discord.wait_for(lambda: bot.housekeeping.failed(), timeout=10,
                                    description="the loop stopped")
        capsys.readouterr()
        assert health(config) == 1
        out = capsys.readouterr().out
        assert "housekeeping loop stopped" in out and "a bug in the backups" in out
        assert "housekeeping loop stopped" in caplog.text
    finally:
        await handle.stop()


def test_health_reports_rounds_failing_for_too_long(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import time

    config = Config(token="", database=str(tmp_path / "bot.sqlite3"), tick=60)
    now = time.time()
    config.heartbeat_path.write_text(json.dumps(
        {"loop": "running", "last_ok": now - 600, "failing_since": now - 600,
         "last_error": "DatabaseUnavailable: the database is not answering"}))
    assert health(config, now=now) == 1
    assert "failed for 600 s" in capsys.readouterr().out
    config.heartbeat_path.write_text(json.dumps(
        {"loop": "running", "last_ok": now - 60, "failing_since": now - 60,
         "last_error": "DatabaseUnavailable: the database is not answering"}))
    assert health(config, now=now) == 0
