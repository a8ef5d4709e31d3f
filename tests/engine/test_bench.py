"""The benchmark runs and prints one JSON line per rule set and policy."""

from __future__ import annotations

import json
import subprocess
import sys


def test_bench_prints_one_json_line_per_rule_set_and_policy() -> None:
    out = subprocess.run([sys.executable, "-m", "engine.bench", "--games", "3", "--seed", "2"],
                         capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert {(r["rules"], r["policy"]) for r in lines} == {
        ("classic", "uniform"), ("classic", "playfirst"), ("kings", "uniform"),
        ("kings", "playfirst")}
    for row in lines:
        for key in ("games", "moves", "seconds", "moves_per_s", "games_per_s", "wins", "ties",
                    "stalemates"):
            assert key in row
        assert row["games"] == 3 and row["wins"] + row["ties"] == 3 and row["moves"] > 0
