"""Benchmark: seeded random games for each rule set and policy.

``python -m engine.bench [--games N] [--policy uniform|playfirst|all] [--rules classic|kings|all]
[--seed S] [--players N ...]`` prints one JSON line per rule set and policy (and table size).
A *move* is a play or a discard (passes are counted apart); legal-move generation is part of
the loop, since it is the inner loop of the computer opponent and of every check the bot makes.

``--players 2 3 4`` measures tables of those sizes side by side in one process: ``--rounds``
rounds (3), each playing every workload at every table size in turn (the order alternating
from round to round), timed in CPU seconds; one JSON line per workload and table size gives the
moves per CPU second of each round, their median, and ``vs_2``, the ratio of that median to the
two-player one (when 2 is among the sizes). ``--players 3`` alone prints the plain line for
three players.

``--against REV`` compares this tree with a git revision side by side: the revision's
``engine/`` is exported (``git archive``) to a temporary folder, and each workload runs in a
fresh process for this tree and for the revision, interleaved (the order alternating from round
to round), ``--rounds`` times (3). Both sides are timed in CPU seconds by the same code around
their own ``run``. One JSON line per workload gives each side's moves per CPU second per round,
the ratio of each round's pair, the ratio of the medians (``ratio``), the ratio of the fastest
runs (``best_ratio``: other work only ever slows a run down), and ``same_games``: whether
both sides played exactly the same games (same moves, passes, wins and ties), which they must
for the ratio to mean anything.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .events import EndReason
from .game import Game
from .moves import PASS, Move
from .rules import PRESETS, RuleSet

__all__ = ["POLICIES", "against", "main", "run", "sizes"]

Policy = Callable[[Sequence[Move], random.Random], Move]


def _uniform(moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[int(rng.random() * len(moves))]


def _playfirst(moves: Sequence[Move], rng: random.Random) -> Move:
    plays = [m for m in moves if m.is_play]
    pool = plays or moves
    return pool[int(rng.random() * len(pool))]


POLICIES: dict[str, Policy] = {"uniform": _uniform, "playfirst": _playfirst}
"""The random policies: any legal move equally likely, or a play to the centre when one exists."""


def run(rules: RuleSet, policy: str, games: int, seed: int,
        players: int = 2) -> dict[str, object]:
    """Play ``games`` seeded games at a table of ``players`` and return the figures as a dict
    (two players play the games they always played)."""
    if policy not in POLICIES:
        raise ValueError(f"Unknown policy {policy!r}: choose one of {', '.join(POLICIES)}.")
    play_first = policy == "playfirst"
    rng = random.Random(seed)
    moves = passes = wins = ties = stalemates = 0
    started = time.perf_counter()
    for n in range(games):
        game, _ = Game.new(rules, seed * 100_003 + n, players)
        legal_moves = game.legal_moves
        legal_plays = game.legal_plays
        push = game.push  # the moves come from the game's own lists: no check, no events
        random_ = rng.random
        while game.result is None:
            # The same choices as POLICIES make from legal_moves(), without filtering it.
            pool = (legal_plays() or legal_moves()) if play_first else legal_moves()
            move = pool[int(random_() * len(pool))]
            push(move)
            if move is PASS:
                passes += 1
            else:
                moves += 1
        result = game.result
        if result.reason in (EndReason.STALEMATE,):
            stalemates += 1
        if result.winner is None:
            ties += 1
        else:
            wins += 1
    seconds = time.perf_counter() - started
    row: dict[str, object] = {
        "rules": rules.name,
        "policy": policy,
        "games": games,
        "moves": moves,
        "passes": passes,
        "seconds": round(seconds, 3),
        "moves_per_s": round(moves / seconds),
        "games_per_s": round(games / seconds, 1),
        "wins": wins,
        "ties": ties,
        "stalemates": stalemates,
    }
    if players != 2:
        row["players"] = players
    return row


def sizes(rule_sets: Sequence[str], policies: Sequence[str], tables: Sequence[int], games: int,
          seed: int, rounds: int = 3) -> list[dict[str, object]]:
    """Every workload at every table size in ``tables``, side by side in this process; one row
    per workload and table size, with the moves per CPU second of each round."""
    workloads = [(r, p, n) for r in rule_sets for p in policies for n in tables]
    per: dict[tuple[str, str, int], list[float]] = {w: [] for w in workloads}
    last: dict[tuple[str, str, int], dict[str, object]] = {}
    for k in range(rounds):
        for w in (workloads if k % 2 == 0 else workloads[::-1]):
            cpu = time.process_time()
            row = run(PRESETS[w[0]], w[1], games, seed, w[2])
            spent = time.process_time() - cpu
            per[w].append(float(str(row["moves"])) / spent)
            last[w] = row
    rows: list[dict[str, object]] = []
    for (rules, policy, n), rates in per.items():
        median = statistics.median(rates)
        base = per.get((rules, policy, 2))
        out: dict[str, object] = {
            "rules": rules, "policy": policy, "players": n, "games": games,
            "moves": last[(rules, policy, n)]["moves"],
            "moves_per_cpu_s": [round(x) for x in rates],
            "median_moves_per_cpu_s": round(median),
        }
        if base:
            out["vs_2"] = round(median / statistics.median(base), 3)
        rows.append(out)
    return rows


_SAME_KEYS = ("games", "moves", "passes", "wins", "ties", "stalemates")
_ROOT = Path(__file__).resolve().parent.parent


def _export(rev: str, into: Path) -> None:
    """Write the revision's ``engine/`` package under ``into`` (read-only for the repository)."""
    tar = subprocess.run(["git", "-C", str(_ROOT), "archive", "--format=tar", rev, "engine"],
                         capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(into, filter="data")
        else:  # pragma: no cover - Python before 3.11.4
            archive.extractall(into)


_CHILD = """
import json, sys, time
from engine.bench import run
from engine.rules import PRESETS
rules, policy, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cpu = time.process_time()
row = run(PRESETS[rules], policy, games, seed)
row["cpu_seconds"] = time.process_time() - cpu
print(json.dumps(row))
"""


def _run_in(folder: Path, rules: str, policy: str, games: int, seed: int) -> dict[str, object]:
    # A fresh interpreter whose working folder comes first on sys.path, so ``engine`` is the
    # tree in ``folder`` whatever is installed. Both trees are timed by the same code around
    # their own ``run``, in CPU seconds: other work on the machine stretches the wall clock
    # far more than it does a process's CPU time.
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, rules, policy, str(games), str(seed)],
        cwd=folder, capture_output=True, text=True, check=True).stdout
    row: dict[str, object] = json.loads(out.splitlines()[-1])
    return row


def against(rev: str, rule_sets: Sequence[str], policies: Sequence[str], games: int, seed: int,
            rounds: int = 3) -> list[dict[str, object]]:
    """Run every workload for this tree and for ``rev``, interleaved; one row per workload."""
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as tmp:
        base = Path(tmp)
        _export(rev, base)
        workloads = [(r, p) for r in rule_sets for p in policies]
        runs: dict[tuple[str, str], dict[str, list[dict[str, object]]]] = {
            w: {"this": [], "base": []} for w in workloads}
        for n in range(rounds):
            for w in workloads:
                sides = [("this", _ROOT), ("base", base)]
                if n % 2:
                    sides.reverse()
                for side, folder in sides:
                    runs[w][side].append(_run_in(folder, *w, games, seed))
        for (rules, policy), sides_runs in runs.items():
            this, then = (
                [float(str(r["moves"])) / float(str(r["cpu_seconds"])) for r in sides_runs[side]]
                for side in ("this", "base"))
            same = all(
                {k: a[k] for k in _SAME_KEYS} == {k: b[k] for k in _SAME_KEYS}
                for a, b in zip(sides_runs["this"], sides_runs["base"], strict=True))
            rows.append({
                "rules": rules,
                "policy": policy,
                "games": games,
                "against": rev,
                "this_moves_per_cpu_s": [round(x) for x in this],
                "base_moves_per_cpu_s": [round(x) for x in then],
                "round_ratios": [round(a / b, 2) for a, b in zip(this, then, strict=True)],
                "ratio": round(statistics.median(this) / statistics.median(then), 2),
                "best_ratio": round(max(this) / max(then), 2),
                "same_games": same,
            })
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300, help="games per rule set and policy")
    parser.add_argument("--policy", choices=[*POLICIES, "all"], default="all")
    parser.add_argument("--rules", choices=[*PRESETS, "all"], default="all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--against", metavar="REV",
                        help="also run a git revision's engine, interleaved, and print ratios")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds with --against or several --players")
    parser.add_argument("--players", type=int, nargs="+", choices=[2, 3, 4], default=[2],
                        help="table sizes (several: measured side by side)")
    args = parser.parse_args(argv)
    rule_sets = list(PRESETS) if args.rules == "all" else [args.rules]
    policies = list(POLICIES) if args.policy == "all" else [args.policy]
    tables = list(dict.fromkeys(args.players))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if len(tables) > 1:
        if args.against:
            parser.error("--against compares two-player games only")
        for row in sizes(rule_sets, policies, tables, args.games, args.seed, args.rounds):
            print(json.dumps(row), flush=True)
        return
    if args.against:
        if tables != [2]:
            parser.error("--against compares two-player games only")
        for row in against(args.against, rule_sets, policies, args.games, args.seed,
                           args.rounds):
            print(json.dumps(row), flush=True)
        return
    for name in rule_sets:
        for policy in policies:
            print(json.dumps(run(PRESETS[name], policy, args.games, args.seed, tables[0])),
                  flush=True)


if __name__ == "__main__":
    main()
