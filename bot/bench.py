"""Benchmarks of the bot's CPU work, away from Discord.

``python -m bot.bench [render|ledger|load] [--boards N] [--seed S]`` prints one JSON line per
measurement; with no benchmark named it runs render and ledger (``ledger``: see
``bench_ledger``; ``load``, the real bot as a process under many games at once, run from the
repository root: see ``bench_load``).
``render`` draws boards and hands from seeded games of both rule sets at many stages, from
the deal to the finished game, including long side stacks, and reports the median and worst
time per picture and the size of the largest PNG:

    {"name": "render_board", "boards": 200, "median_ms": 19.7, "worst_ms": 41.6, "png_kb": 66.4}
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence

from engine import CLASSIC, KINGS, Game, Move, RuleSet, Source, View
from engine.bench import POLICIES

from .render import BoardInfo, render_board, render_hand

__all__ = ["BENCHMARKS", "main", "positions", "run_render"]

_NAMES = ("Ann", "Bartholomew")


def _hoard(moves: Sequence[Move], rng: random.Random, game: Game) -> Move:
    """Plays to the centre only now and then, and piles discards on the longest side stack.

    Random players rarely build long side stacks; this one does, so the fans get tested.
    """
    plays = [m for m in moves if m.is_play]
    if plays and rng.random() < 0.6:
        return plays[int(rng.random() * len(plays))]
    discards = [m for m in moves if m.is_discard]
    if discards:
        sides = game.sides[game.turn]
        return max(discards, key=lambda m: (len(sides[m.target_index]), -m.target_index))
    return moves[int(rng.random() * len(moves))]


def _playfirst(moves: Sequence[Move], rng: random.Random, game: Game) -> Move:
    return POLICIES["playfirst"](moves, rng)


_Policy = Callable[[Sequence[Move], random.Random, Game], Move]
_POLICIES: tuple[_Policy, ...] = (_playfirst, _hoard)


def describe(seat: int, move: Move) -> str:
    """A short public description of a move, like the bot's: ``Ann: 7♥ → C2``."""
    name = _NAMES[seat]
    if move.is_pass:
        return f"{name} passed"
    if move.source is Source.HAND and move.card is not None:
        what = f"{move.card.display} from hand"
    elif move.source is Source.PAYOFF:
        what = "pay-off card"
    else:
        what = f"top of S{move.source_index + 1}"
    return f"{name}: {what} → {move.target_token}"


def positions(count: int, seed: int = 1, per_game: int = 8) -> list[tuple[View, View, BoardInfo]]:
    """``count`` positions as (public view, on-turn player's view, info), from seeded games.

    Games alternate between the rule sets and between two random policies (one of them builds
    long side stacks); from each game ``per_game`` positions are taken, spread from the deal to
    the end, the finished position always among them.
    """
    out: list[tuple[View, View, BoardInfo]] = []
    rng = random.Random(seed)
    n = 0
    while len(out) < count:
        rules: RuleSet = (CLASSIC, KINGS)[n % 2]
        policy = _POLICIES[(n // 2) % len(_POLICIES)]
        game, _ = Game.new(rules, seed * 10_007 + n)
        info = BoardInfo(_NAMES, game_number=1 + n % 3, match_scores=(n % 40, (3 * n) % 45),
                         match_target=rules.match_target)
        snapshots: list[tuple[View, View, BoardInfo]] = []
        while True:
            if len(game.history) % 3 == 0 or game.result is not None:
                public = game.public_view()
                moves = tuple(describe(p, m) for p, m in public.recent[-8:])
                snapshots.append((public, game.view(game.turn),
                                  dataclasses.replace(info, last_moves=moves)))
            if game.result is not None:
                break
            game.play(policy(game.legal_moves(), rng, game))
        last = len(snapshots) - 1
        picks = sorted({last * k // max(1, per_game - 1) for k in range(per_game)})
        out.extend(snapshots[i] for i in picks)
        n += 1
    return out[:count]


def _measure(render: Callable[[View, BoardInfo], bytes],
             cases: Sequence[tuple[View, BoardInfo]]) -> tuple[list[float], int]:
    render(*cases[0])  # load the fonts once, as a running bot has
    times: list[float] = []
    largest = 0
    for view, info in cases:
        started = time.perf_counter()
        png = render(view, info)
        times.append(time.perf_counter() - started)
        largest = max(largest, len(png))
    return times, largest


def _figures(name: str, times: list[float], largest: int) -> dict[str, object]:
    return {
        "name": name,
        "boards": len(times),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "worst_ms": round(max(times) * 1000, 1),
        "png_kb": round(largest / 1024, 1),
    }


def run_render(boards: int, seed: int = 1) -> list[dict[str, object]]:
    """Render ``boards`` boards and as many hands; the figures for each."""
    cases = positions(boards, seed)
    board_times, board_max = _measure(render_board, [(pub, info) for pub, _, info in cases])
    hand_times, hand_max = _measure(render_hand, [(mine, info) for _, mine, info in cases])
    return [_figures("render_board", board_times, board_max),
            _figures("render_hand", hand_times, hand_max)]


def _ledger(args: argparse.Namespace) -> list[dict[str, object]]:
    from .bench_ledger import run_ledger

    return run_ledger(args.entries, args.players, args.seed)


def _load(args: argparse.Namespace) -> list[dict[str, object]]:
    from pathlib import Path

    from .bench_load import run_load

    return run_load(args.games, mode=args.mode, interval=args.interval, duration=args.duration,
                    rules=args.rules, board_delay=args.board_delay, seed=args.seed,
                    open_concurrency=args.open_concurrency,
                    profile=Path(args.profile) if args.profile else None,
                    plot=Path(args.plot) if args.plot else None)


BENCHMARKS: dict[str, Callable[[argparse.Namespace], list[dict[str, object]]]] = {
    "render": lambda args: run_render(args.boards, args.seed),
    "ledger": _ledger,
    "load": _load,
}
"""The benchmarks by name."""


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("a list of numbers, like 10,50,100") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("each size must be at least 1")
    return sizes


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m bot.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmark", nargs="?", choices=[*BENCHMARKS, "all"], default="all",
                        help="which benchmark to run (default: all)")
    parser.add_argument("--boards", type=int, default=200, help="positions to draw (render)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--entries", type=int, default=100_000, help="ledger lines (ledger)")
    parser.add_argument("--players", type=int, default=200, help="players (ledger)")
    load = parser.add_argument_group("load", "the real bot as a process against the local fake "
                                     "Discord (see bench_load)")
    load.add_argument("--games", type=_sizes, default=[10],
                      help="games open at once, one run per size: 10,50,100")
    load.add_argument("--mode", choices=["eager", "paced"], default="eager",
                      help="eager: act as soon as answered; paced: a move per game every "
                           "--interval seconds on average")
    load.add_argument("--interval", type=float, default=10.0,
                      help="paced: seconds between moves of a game, on average")
    load.add_argument("--duration", type=float, default=30.0, help="seconds of play per run")
    load.add_argument("--rules", choices=["both", "kings", "classic"], default="both")
    load.add_argument("--board-delay", type=float, default=1.0,
                      help="the bot's BOARD_DELAY_SECONDS (its default: 1)")
    load.add_argument("--open-concurrency", type=int, default=8,
                      help="games opened at once before the play starts")
    load.add_argument("--profile", help="run the bot under cProfile, writing this file")
    load.add_argument("--plot", help="write a PNG of p99 against games here")
    args = parser.parse_args(argv)
    if args.boards < 1:
        parser.error("--boards must be at least 1")
    names = [n for n in BENCHMARKS if n != "load"] if args.benchmark == "all" \
        else [args.benchmark]
    for name in names:
        for line in BENCHMARKS[name](args):
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
