"""``python -m bot.bench <benchmark>``: a sub-command per benchmark, each with its own flags, and
a clear word for the flat form of before (flags first, or flags of another benchmark)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.bench.commands import BENCHMARKS, main

ROOT = Path(__file__).resolve().parents[2]

# Each benchmark's flags, and only these, in its --help.
FLAGS = {
    "render": {"--seed", "--boards"},
    "ledger": {"--seed", "--lines", "--players", "--runs"},
    "storage": {"--seed", "--games", "--moves", "--database"},
    "hand": {"--seed", "--games", "--repeats"},
    "load": {"--seed", "--games", "--mode", "--interval", "--duration", "--board-delay",
             "--rules", "--open-concurrency", "--profile", "--plot", "--shards", "--database",
             "--tables", "--bot-root", "--drawing-workers", "--bot-python", "--warm-up"},
    "chaos": {"--seed", "--games", "--duration", "--board-delay", "--database", "--fault-rate",
              "--gateway-every", "--db-outage", "--settle"},
    "migrate": {"--seed", "--games", "--database", "--pool", "--budget", "--replay-workers"},
    "plan": {"--seed", "--people", "--runs"},
    "all": {"--seed"},
}
EVERY_FLAG = set().union(*FLAGS.values())


def _exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


@pytest.mark.parametrize("name", [*BENCHMARKS, "all"])
def test_each_benchmark_has_a_help_of_its_own_flags(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _exit([name, "--help"], capsys)
    assert code == 0
    assert out.startswith(f"usage: python -m bot.bench {name}")
    shown = {flag for flag in EVERY_FLAG if f"{flag} " in out or f"{flag}\n" in out}
    assert shown == FLAGS[name]


def test_the_help_lists_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _exit(["--help"], capsys)
    assert code == 0
    assert all(f"    {name} " in out for name in [*BENCHMARKS, "all"])
    assert "--boards" not in out  # the flags are the benchmarks' own


@pytest.mark.parametrize("argv", [["--boards", "50"], ["--seed", "2", "render"], []])
def test_the_flat_form_of_before_is_answered_with_the_new_one(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _exit(argv, capsys)
    assert code == 2 and out == ""
    assert "python -m bot.bench <benchmark>" in err
    assert all(name in err for name in BENCHMARKS)


def test_a_flag_of_another_benchmark_says_whose_it_is(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _exit(["render", "--games", "10"], capsys)
    assert code == 2 and out == ""
    assert "--games is not a flag of render (a flag of storage, hand, load, chaos, migrate)" in err
    assert "python -m bot.bench render --help" in err


def test_the_module_runs_as_a_command() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "bot.bench", "chaos", "--help"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "--fault-rate" in done.stdout and "--boards" not in done.stdout
