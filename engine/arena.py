"""The arena: computer players against each other over seeded games.

``python -m engine.arena --a normal --b random --rules kings --games 1000 --seed 1`` plays the
games with the seats alternating (A sits first in even games, second in odd ones) and prints one
JSON line: ``wins``, ``ties`` and ``losses`` for A, ``win_rate`` (A's share of the decided
games), ``ci95`` (its 95% Wilson interval) and, per player, the median and 99th-percentile time
per decision in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from typing import Any

from .game import Game
from .players import LEVELS, Player, make_player
from .rules import PRESETS, RuleSet

__all__ = ["main", "play_game", "run", "wilson"]


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``(0.0, 1.0)`` when there are no trials)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_game(rules: RuleSet, seed: int, seats: Sequence[Player],
              times: Sequence[list[float]] | None = None) -> Game:
    """Play one game from ``seed``: ``seats[i]`` plays seat ``i`` from its views only.

    Each decision's time in ms is appended to ``times[i]`` when given.
    """
    game, _ = Game.new(rules, seed)
    clock = time.perf_counter
    while game.result is None:
        seat = game.turn
        view = game.view(seat)
        started = clock()
        move = seats[seat].choose(view)
        if times is not None:
            times[seat].append((clock() - started) * 1000.0)
        game.play(move, player=seat)
    return game


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def run(a: str, b: str, rules: RuleSet, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` games of level ``a`` against level ``b`` and return the figures."""
    wins = ties = losses = 0
    times: dict[str, list[float]] = {"a": [], "b": []}
    for n in range(games):
        game_seed = seed * 1_000_003 + n
        pa = make_player(a, game_seed * 2 + 1)
        pb = make_player(b, game_seed * 2 + 2)
        a_seat = n % 2
        seats: list[Player] = [pa, pb] if a_seat == 0 else [pb, pa]
        seat_times: list[list[float]] = [[], []]
        game = play_game(rules, game_seed, seats, seat_times)
        times["a"].extend(seat_times[a_seat])
        times["b"].extend(seat_times[1 - a_seat])
        result = game.result
        assert result is not None
        if result.winner is None:
            ties += 1
        elif result.winner == a_seat:
            wins += 1
        else:
            losses += 1
    decided = wins + losses
    low, high = wilson(wins, decided)
    return {
        "a": a,
        "b": b,
        "rules": rules.name,
        "games": games,
        "seed": seed,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": round(wins / decided, 4) if decided else None,
        "ci95": [round(low, 4), round(high, 4)],
        "players": {
            side: {
                "level": level,
                "decisions": len(times[side]),
                "median_ms": round(_percentile(times[side], 0.5), 3),
                "p99_ms": round(_percentile(times[side], 0.99), 3),
            }
            for side, level in (("a", a), ("b", b))
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__)
    parser.add_argument("--a", choices=list(LEVELS), default="normal", help="player A's level")
    parser.add_argument("--b", choices=list(LEVELS), default="random", help="player B's level")
    parser.add_argument("--rules", choices=list(PRESETS), default="kings")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    print(json.dumps(run(args.a, args.b, PRESETS[args.rules], args.games, args.seed)),
          flush=True)


if __name__ == "__main__":
    main()
