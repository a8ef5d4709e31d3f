"""``bot/bench/compare.sh``: which runs it makes, in which order, with which arguments.

The Python it is given is a script that writes down its arguments instead of running a
benchmark, so the test sees the commands and nothing is measured."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bot" / "bench" / "compare.sh"


def _compare(tmp_path: Path, **env: str) -> tuple[list[str], dict[str, str]]:
    """The runs' names in the order made, and each run's arguments."""
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\necho "$@"\n')
    python.chmod(0o755)
    out = tmp_path / "out"
    subprocess.run(["sh", str(SCRIPT), str(ROOT), str(out)], check=True, capture_output=True,
                   env={**os.environ, "PYTHON": str(python), "OLD_PYTHON": "/old/python",
                        "SKIP": "migrate", **env}, timeout=60)
    order = [line.split()[1].rstrip(":") for line in (out / "summary.txt").read_text().splitlines()
             if ": load average before" in line]
    return order, {name: (out / f"{name}.json").read_text().strip() for name in order}


def test_the_paced_pairs_alternate_their_order_and_take_the_interval(tmp_path: Path) -> None:
    order, args = _compare(tmp_path, ROUNDS="2", INTERVAL="40", WARM_UP="5", SKIP="migrate workers")
    assert order == ["paced1000-old-1", "paced1000-new-1", "eager100-old-1", "eager100-new-1",
                     "paced1000-new-2", "paced1000-old-2", "eager100-old-2", "eager100-new-2"]
    for name in ("paced1000-old-1", "paced1000-new-2"):
        assert "--mode paced --interval 40 --games 1000" in args[name]
        assert "--warm-up 5" in args[name]
    # Only the old bot's runs name the old checkout and its Python.
    old = f"--bot-root {ROOT} --bot-python /old/python"
    assert all(args[name].endswith(old) for name in order if "-old-" in name)
    assert not any("--bot-root" in args[name] for name in order if "-new-" in name)


def test_the_interval_is_10_unless_given(tmp_path: Path) -> None:
    order, args = _compare(tmp_path, SKIP="migrate eager")
    assert order == ["paced1000-old-1", "paced1000-new-1", "paced1000-new-workers1-1",
                     "paced1000-new-workers2-1"]
    assert all("--interval 10 " in args[name] for name in order)
    assert args["paced1000-new-workers2-1"].endswith("--drawing-workers 2")
