"""The arena: computer players against each other over seeded games.

``python -m engine.arena --a normal --b random --rules kings --games 1000 --seed 1`` plays the
games with the seats alternating (A sits first in even games, second in odd ones) and prints one
JSON line for A: ``wins``, ``ties`` and ``losses``; ``score``, the points per game (a win 1, a
tie ½), with ``score_ci95``, its 95% interval; and ``win_rate``, the share of the *decided*
games only, with ``ci95`` (a figure that flatters when most games are ties: read the score).

``--players N`` (3 or 4) seats A against N−1 copies of B, A's seat rotating from game to game
(seat ``n mod N`` in game ``n``). A tie of the whole table is a share, 1/N, to every player, so
a fair score is 1/N; ``b_score`` is the score of each copy of B (they share the rest), and
``fair`` is 1/N. ``losses`` are the games a copy of B won.

Per player: the median and 99th-percentile time per decision in milliseconds, over every
decision and, for the planning levels, apart for the decisions that made a plan
(``planning``) and those that only followed one (``following``).
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

__all__ = ["main", "play_game", "run", "score_interval", "wilson"]


def wilson(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``(0.0, 1.0)`` when there are no trials)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_game(rules: RuleSet, seed: int, seats: Sequence[Player],
              times: Sequence[list[float]] | None = None,
              planned: Sequence[list[bool]] | None = None) -> Game:
    """Play one game from ``seed``: ``seats[i]`` plays seat ``i`` from its views only.

    Each decision's time in ms is appended to ``times[i]`` when given, and to ``planned[i]``
    whether that decision made a plan (every decision of a level that does not plan does).
    """
    game, _ = Game.new(rules, seed, len(seats))
    clock = time.perf_counter
    while game.result is None:
        seat = game.turn
        view = game.view(seat)
        player = seats[seat]
        started = clock()
        move = player.choose(view)
        if times is not None:
            times[seat].append((clock() - started) * 1000.0)
        if planned is not None:
            planned[seat].append(bool(getattr(player, "planned", True)))
        if move not in view.legal_moves:
            raise ValueError(f"{player.name} chose {move}, which is not a legal move.")
        game.push(move)  # checked just above; no events needed
    return game


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def _timing(times: list[float]) -> dict[str, Any]:
    return {"decisions": len(times), "median_ms": round(_percentile(times, 0.5), 3),
            "p99_ms": round(_percentile(times, 0.99), 3)}


def score_interval(wins: int, ties: int, games: int, players: int = 2) -> tuple[float, float]:
    """A 95% interval of the score per game (a win 1, a tie 1/``players``: ½ at a table of
    two): the Wilson interval with each game one trial worth its score. Ties spread the score
    less than a win or a loss would, so this interval is, if anything, too wide."""
    return wilson(wins + ties / players, games)


def run(a: str, b: str, rules: RuleSet, games: int, seed: int,
        players: int = 2) -> dict[str, Any]:
    """Play ``games`` games of level ``a`` against ``players`` − 1 copies of level ``b`` and
    return the figures."""
    wins = ties = losses = 0
    times: dict[str, list[float]] = {"a": [], "b": []}
    planned: dict[str, list[bool]] = {"a": [], "b": []}
    for n in range(games):
        game_seed = seed * 1_000_003 + n
        a_seat = n % players
        seats: list[Player] = []
        for seat in range(players):
            if seat == a_seat:
                seats.append(make_player(a, game_seed * 2 + 1))
            else:
                # At a table of two the one copy of B has the seed it always had.
                copy = (seat - a_seat) % players - 1
                seats.append(make_player(b, game_seed * 2 + 2 + 1_000_000_007 * copy))
        seat_times: list[list[float]] = [[] for _ in range(players)]
        seat_planned: list[list[bool]] = [[] for _ in range(players)]
        game = play_game(rules, game_seed, seats, seat_times, seat_planned)
        for seat in range(players):
            side = "a" if seat == a_seat else "b"
            times[side].extend(seat_times[seat])
            planned[side].extend(seat_planned[seat])
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
    score_low, score_high = score_interval(wins, ties, games, players)
    figures_by_side: dict[str, Any] = {}
    for side, level in (("a", a), ("b", b)):
        figures: dict[str, Any] = {"level": level, **_timing(times[side])}
        if not all(planned[side]):
            figures["planning"] = _timing(
                [t for t, p in zip(times[side], planned[side], strict=True) if p])
            figures["following"] = _timing(
                [t for t, p in zip(times[side], planned[side], strict=True) if not p])
        figures_by_side[side] = figures
    score = (wins + ties / players) / games if games else None
    row: dict[str, Any] = {
        "a": a,
        "b": b,
        "rules": rules.name,
        "games": games,
        "seed": seed,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "score": round(score, 4) if score is not None else None,
        "score_ci95": [round(score_low, 4), round(score_high, 4)],
        "win_rate": round(wins / decided, 4) if decided else None,
        "ci95": [round(low, 4), round(high, 4)],
        "players": figures_by_side,
    }
    if players != 2:
        row["table"] = players
        row["fair"] = round(1 / players, 4)
        row["b_score"] = round((1 - score) / (players - 1), 4) if score is not None else None
    return row


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__)
    parser.add_argument("--a", choices=list(LEVELS), default="normal", help="player A's level")
    parser.add_argument("--b", choices=list(LEVELS), default="random", help="player B's level")
    parser.add_argument("--rules", choices=list(PRESETS), default="kings")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, choices=[2, 3, 4], default=2,
                        help="seats at the table: A against players - 1 copies of B")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    print(json.dumps(run(args.a, args.b, PRESETS[args.rules], args.games, args.seed,
                         args.players)), flush=True)


if __name__ == "__main__":
    main()
