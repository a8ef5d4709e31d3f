"""Benchmark: seeded random games for each rule set and policy.

``python -m engine.bench [--games N] [--policy uniform|playfirst|all] [--rules classic|kings|all]
[--seed S]`` prints one JSON line per rule set and policy. A *move* is a play or a discard
(passes are counted apart); legal-move generation is part of the loop, since it is the inner
loop of the computer opponent and of every check the bot makes.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence

from .events import EndReason
from .game import Game
from .moves import PASS, Move
from .rules import PRESETS, RuleSet

__all__ = ["POLICIES", "main", "run"]

Policy = Callable[[Sequence[Move], random.Random], Move]


def _uniform(moves: Sequence[Move], rng: random.Random) -> Move:
    return moves[int(rng.random() * len(moves))]


def _playfirst(moves: Sequence[Move], rng: random.Random) -> Move:
    plays = [m for m in moves if m.is_play]
    pool = plays or moves
    return pool[int(rng.random() * len(pool))]


POLICIES: dict[str, Policy] = {"uniform": _uniform, "playfirst": _playfirst}
"""The random policies: any legal move equally likely, or a play to the centre when one exists."""


def run(rules: RuleSet, policy: str, games: int, seed: int) -> dict[str, object]:
    """Play ``games`` seeded games and return the figures as a dict."""
    choose = POLICIES[policy]
    rng = random.Random(seed)
    moves = passes = wins = ties = stalemates = 0
    started = time.perf_counter()
    for n in range(games):
        game, _ = Game.new(rules, seed * 100_003 + n)
        legal_moves = game.legal_moves
        play = game.play
        while game.result is None:
            move = choose(legal_moves(), rng)
            play(move)
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
    return {
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


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__)
    parser.add_argument("--games", type=int, default=300, help="games per rule set and policy")
    parser.add_argument("--policy", choices=[*POLICIES, "all"], default="all")
    parser.add_argument("--rules", choices=[*PRESETS, "all"], default="all")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rule_sets = list(PRESETS) if args.rules == "all" else [args.rules]
    policies = list(POLICIES) if args.policy == "all" else [args.policy]
    for name in rule_sets:
        for policy in policies:
            print(json.dumps(run(PRESETS[name], policy, args.games, args.seed)), flush=True)


if __name__ == "__main__":
    main()
