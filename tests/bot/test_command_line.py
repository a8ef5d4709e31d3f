"""``python -m bot``: a command line people know (argparse): each command's ``--help`` exits 0
with that command's help, ``--version`` prints the version, a wrong one exits 2 with usage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command, says", [
    ("backup", "--overwrite"), ("restore", "PATH"), ("migrate", "--to postgresql://"),
    ("health", "heartbeat"), ("run", "until it is stopped")])
def test_each_command_has_its_own_help(command: str, says: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m bot {command}") and says in out


def test_the_general_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("run", "health", "backup", "restore", "migrate"))


def test_version_and_wrong_command_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("spite-malice-bot ")
    assert main(["banana"]) == 2
    assert "invalid choice: 'banana'" in capsys.readouterr().err
    assert main(["migrate"]) == 2  # --to is required
    assert "--to" in capsys.readouterr().err


def test_python_m_bot_help_as_a_process_needs_no_token(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "bot", "migrate", "--help"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "usage: python -m bot migrate" in done.stdout
