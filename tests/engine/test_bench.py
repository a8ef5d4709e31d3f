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


def test_bench_against_a_revision_runs_both_trees_and_checks_they_play_the_same_games() -> None:
    # HEAD's engine plays the same games as this tree's (the tree may be ahead of HEAD, but
    # never in which games it plays), and every figure is there; no figure is judged here.
    out = subprocess.run(
        [sys.executable, "-m", "engine.bench", "--against", "HEAD", "--games", "2",
         "--rounds", "2", "--rules", "kings", "--policy", "playfirst"],
        capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 1
    row = lines[0]
    assert (row["rules"], row["policy"], row["against"]) == ("kings", "playfirst", "HEAD")
    assert row["same_games"] is True
    assert len(row["this_moves_per_cpu_s"]) == len(row["base_moves_per_cpu_s"]) == 2
    assert len(row["round_ratios"]) == 2 and row["ratio"] > 0 and row["best_ratio"] > 0


def test_bench_measures_table_sizes_side_by_side() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine.bench", "--games", "2", "--rounds", "2", "--rules",
         "kings", "--policy", "playfirst", "--players", "2", "4"],
        capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["players"], r["rules"], r["policy"]) for r in rows] == [
        (2, "kings", "playfirst"), (4, "kings", "playfirst")]
    for row in rows:
        assert len(row["moves_per_cpu_s"]) == 2 and row["median_moves_per_cpu_s"] > 0
        assert row["moves"] > 0 and row["vs_2"] > 0
    assert rows[0]["vs_2"] == 1.0
