"""``python -m bot`` as a user runs it: settings from the environment, a clear message without a
token, and a real start against the local fake Discord with the token kept out of the logs."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.sandbox import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env.update(extra)
    return env


async def test_without_a_token_it_says_how_to_get_one(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=_env(PYTHONPATH=str(ROOT)),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 2
    text = err.decode()
    assert "DISCORD_TOKEN" in text and ".env" in text and "developers" in text


async def test_runs_against_the_fake_and_never_logs_the_token(tmp_path: Path) -> None:
    secret = "sekrit-token-" + "x" * 40
    fake = FakeDiscord(token=secret)
    await fake.start()
    fake.add_guild("Test Guild", channels=("general",))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path,
        env=_env(PYTHONPATH=str(ROOT), DISCORD_TOKEN=secret, DISCORD_API_BASE=fake.api_base,
                 DISCORD_GATEWAY_URL=fake.gateway_url, LOG_LEVEL="DEBUG",
                 DATABASE=str(tmp_path / "db" / "bot.sqlite3")),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        await fake.wait_for(lambda: "challenge" in fake.commands(), timeout=60,
                            description="commands synced by python -m bot")
        await fake.wait_for(lambda: fake.connected_count() > 0, timeout=30,
                            description="gateway connected")
        assert (tmp_path / "db" / "bot.sqlite3").exists()
    finally:
        proc.terminate()
        out, err = await asyncio.wait_for(proc.communicate(), timeout=30)
        await fake.stop()
    logs = (out + err).decode()
    assert "INFO" in logs or "DEBUG" in logs
    assert secret not in logs
    # The bot has no voice: discord.py's warnings about voice libraries are only noise.
    assert "voice will NOT be supported" not in logs
    assert "PyNaCl" not in logs and "davey" not in logs


async def test_a_second_process_on_the_same_sqlite_file_is_refused(tmp_path: Path) -> None:
    from bot.ops.dblock import hold_database

    db = tmp_path / "db" / "bot.sqlite3"
    held = await asyncio.create_subprocess_exec(
        sys.executable, "-c",
        "import sys, time; from bot.ops.dblock import hold_database; "
        f"h = hold_database({str(db)!r}); print('held', flush=True); time.sleep(60)",
        cwd=tmp_path, env=_env(PYTHONPATH=str(ROOT)), stdout=asyncio.subprocess.PIPE)
    try:
        assert held.stdout is not None
        assert (await asyncio.wait_for(held.stdout.readline(), timeout=30)).strip() == b"held"
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path,
            env=_env(PYTHONPATH=str(ROOT), DISCORD_TOKEN="x" * 50, DATABASE=str(db),
                     DISCORD_API_BASE="http://127.0.0.1:9/api/v10"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        assert proc.returncode == 2, err.decode()[-2000:]
        assert "Another bot process" in err.decode() and "PostgreSQL" in err.decode()
    finally:
        held.kill()
        await held.wait()
    # Once the other process is gone (even killed), the database is free again.
    handle = hold_database(db)
    assert handle is not None
    handle.close()
