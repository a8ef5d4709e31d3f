"""The arena plays seeded games with the seats alternating and prints one JSON line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import KINGS
from engine.arena import run, wilson


def test_arena_prints_one_json_line_with_the_figures() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine.arena", "--a", "normal", "--b", "random", "--rules",
         "classic", "--games", "4", "--seed", "3"],
        capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    row = json.loads(lines[0])
    assert row["wins"] + row["ties"] + row["losses"] == 4
    low, high = row["ci95"]
    assert 0.0 <= low <= high <= 1.0
    if row["win_rate"] is not None:
        assert low <= row["win_rate"] <= high
    for side in ("a", "b"):
        figures = row["players"][side]
        assert figures["decisions"] > 0
        assert 0.0 <= figures["median_ms"] <= figures["p99_ms"]


def test_arena_runs_are_reproducible_and_alternate_seats() -> None:
    first = run("easy", "random", KINGS, 4, 9)
    second = run("easy", "random", KINGS, 4, 9)
    for row in (first, second):
        for side in ("a", "b"):
            row["players"][side].pop("median_ms")
            row["players"][side].pop("p99_ms")
    assert first == second


def test_wilson_interval() -> None:
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.83 and 0.94 < high < 0.95
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == pytest.approx(1.0)



def test_same_seed_same_games_in_any_process() -> None:
    """Sets and dicts of cards and moves iterate alike whatever the string-hash seed, so the
    same seed gives the same moves in every process (not only within one)."""
    import json
    import os
    import subprocess
    import sys

    outcomes = set()
    for hash_seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-m", "engine.arena", "--a", "hard", "--b", "normal", "--rules",
             "classic", "--games", "6", "--seed", "3"],
            capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed})
        line = json.loads(out.stdout)
        outcomes.add((line["wins"], line["ties"], line["losses"],
                      line["players"]["a"]["decisions"], line["players"]["b"]["decisions"]))
    assert len(outcomes) == 1


def test_the_score_counts_a_tie_as_half_and_its_interval_holds_it() -> None:
    row = run("normal", "easy", KINGS, 6, 2)
    games = row["wins"] + row["ties"] + row["losses"]
    assert games == 6
    assert row["score"] == round((row["wins"] + row["ties"] / 2) / 6, 4)
    low, high = row["score_ci95"]
    assert 0.0 <= low <= row["score"] <= high <= 1.0


def test_score_interval_of_all_ties_is_centred_on_a_half() -> None:
    # Against a random kings player most games are stock-out ties: they must not read as wins.
    from engine.arena import score_interval

    low, high = score_interval(0, 100, 100)
    assert low < 0.5 < high and abs((low + high) / 2 - 0.5) < 1e-9
    assert score_interval(100, 0, 100)[0] > 0.96
    assert score_interval(0, 0, 0) == (0.0, 1.0)


def test_planning_decisions_are_timed_apart_from_following_a_plan() -> None:
    row = run("normal", "random", KINGS, 2, 5)
    normal = row["players"]["a"]
    assert normal["planning"]["decisions"] + normal["following"]["decisions"] == \
        normal["decisions"]
    assert normal["planning"]["decisions"] > 0 and normal["following"]["decisions"] > 0
    assert "planning" not in row["players"]["b"]  # a random player never plans


def test_arena_seats_one_level_against_copies_of_another_at_bigger_tables() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine.arena", "--a", "normal", "--b", "easy", "--rules",
         "kings", "--games", "6", "--seed", "3", "--players", "3"],
        capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)
    assert row["table"] == 3 and row["fair"] == 0.3333
    assert row["wins"] + row["ties"] + row["losses"] == 6
    assert row["score"] == round((row["wins"] + row["ties"] / 3) / 6, 4)
    assert row["b_score"] == round((1 - (row["wins"] + row["ties"] / 3) / 6) / 2, 4)
    low, high = row["score_ci95"]
    assert low <= row["score"] <= high
    # Every seat of the table was A's once in a while, and each copy of B played too.
    assert row["players"]["b"]["decisions"] > row["players"]["a"]["decisions"] > 0


def test_a_two_player_arena_row_is_as_it_was() -> None:
    row = run("easy", "random", KINGS, 2, 4)
    assert "table" not in row and "b_score" not in row
    assert run("easy", "random", KINGS, 2, 4, players=2)["wins"] == row["wins"]
