"""Deployment: the health check the Docker image runs, and the lock files CI and the image
install from."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from bot.__main__ import health, main
from bot.ops.config import Config

ROOT = Path(__file__).resolve().parents[2]


def test_health_follows_the_heartbeat(tmp_path: Path, capsys) -> None:
    config = Config(token="", database=str(tmp_path / "bot.sqlite3"), tick=60)
    assert health(config) == 1 and "no heartbeat" in capsys.readouterr().out
    config.heartbeat_path.touch()
    assert health(config) == 0
    old = config.heartbeat_path.stat().st_mtime - 1000
    os.utime(config.heartbeat_path, (old, old))
    assert health(config) == 1 and "old" in capsys.readouterr().out


def test_health_needs_no_token_and_unknown_arguments_are_refused(tmp_path: Path,
                                                                 monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setenv("DATABASE", str(tmp_path / "db.sqlite3"))
    assert main(["health"]) == 1  # no token needed; no bot running
    assert main(["banana"]) == 2


def _names(lock: Path) -> set[str]:
    return {re.sub(r"[_.]", "-", m.group(1).lower())
            for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==", lock.read_text(), re.M)}


def _requirement_name(spec: str) -> str:
    return re.sub(r"[_.]", "-", re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].lower())


def test_the_lock_files_pin_every_dependency_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = {_requirement_name(d) for d in project["dependencies"]}
    test = {_requirement_name(d) for d in project["optional-dependencies"]["test"]}
    lock, test_lock = ROOT / "requirements.lock", ROOT / "requirements-test.lock"
    assert runtime <= _names(lock), "run `uv pip compile` again (see the README)"
    assert runtime | test <= _names(test_lock)
    for path in (lock, test_lock):
        pins = re.findall(r"^[A-Za-z0-9_.\-]+==\S+ \\$", path.read_text(), re.M)
        assert pins and path.read_text().count("--hash=sha256:") >= len(pins)


def test_the_heartbeat_is_never_a_path_made_of_a_database_url() -> None:
    secret = Config(token="t", database="postgresql://bot:s3cret@db/spite")
    assert "s3cret" not in str(secret.heartbeat_path)
    assert secret.heartbeat_path == Path("data/spite-malice.heartbeat")
    assert Config(token="t", database="sqlite:///data/x.sqlite3").heartbeat_path \
        == Path("data/x.sqlite3.heartbeat")
    assert Config(token="t", database="sqlite:///data/x.sqlite3",
                  heartbeat_file="/tmp/h").heartbeat_path == Path("/tmp/h")


def test_discord_py_reads_and_writes_its_json_with_orjson() -> None:
    """orjson is a dependency so that discord.py parses every gateway event and REST answer
    with it (its "speed" extra): were it missing from an install, discord.py would quietly fall
    back to the standard library's json, some 2.5-8 times slower on the bot's payloads."""
    import discord.utils

    assert discord.utils.HAS_ORJSON
    payload = {"content": "Ünïcode ♠ and \"quotes\"", "embeds": [{"title": "Spite & Malice ·"}],
               "id": "1234567890123456789", "flags": 64}
    text = discord.utils._to_json(payload)
    assert isinstance(text, str) and discord.utils._from_json(text) == payload


def test_the_fake_discord_writes_the_json_the_standard_library_reads() -> None:
    import json

    from bot.sandbox.gateway import _encode

    frame = {"op": 0, "t": "INTERACTION_CREATE", "s": 7,
             "d": {"data": {"values": ["h3"], 5: "five"}, "member": {"nick": "Zoë ♥"}}}
    assert json.loads(_encode(frame)) == {**frame, "d": {**frame["d"], "data": {
        "values": ["h3"], "5": "five"}}}
