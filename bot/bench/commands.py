"""Benchmarks of the bot: its pictures, ledger and storage, and the whole bot under load.

``python -m bot.bench <benchmark> [flags]`` prints one JSON line per measurement; each
benchmark is a sub-command with flags of its own (``python -m bot.bench <benchmark> --help``),
and a module that says what it measures and what it leaves out: ``render`` (``render_bench``),
``ledger`` (``ledger_bench``), ``storage`` (``storage_bench``), ``hand`` (``hand_bench``),
``load`` (the real bot as a process under many games at once: ``load_bench``), ``chaos`` (the
same under injected faults: ``chaos_bench``), ``migrate`` (``python -m bot migrate`` on a big
database: ``migrate_bench``), ``plan`` (the fewest payments that settle a group:
``plan_bench``); ``all`` runs the quick ones, render and ledger.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Sequence

__all__ = ["BENCHMARKS", "QUICK", "main"]


def _render(args: argparse.Namespace) -> list[dict[str, object]]:
    from .render_bench import run_render

    return run_render(args.boards, args.seed)


def _ledger(args: argparse.Namespace) -> list[dict[str, object]]:
    from .ledger_bench import run_ledger

    return [run_ledger(lines, args.players, args.seed, args.runs) for lines in args.lines]


def _load(args: argparse.Namespace) -> list[dict[str, object]]:
    from pathlib import Path

    from .load_bench import run_load

    return run_load(args.games, mode=args.mode, interval=args.interval,
                    duration=args.duration,
                    rules=args.rules, board_delay=args.board_delay, seed=args.seed,
                    open_concurrency=args.open_concurrency,
                    profile=Path(args.profile) if args.profile else None,
                    plot=Path(args.plot) if args.plot else None,
                    shards=args.shards, database=args.database, tables=args.tables,
                    bot_root=Path(args.bot_root) if args.bot_root else None,
                    drawing_workers=args.drawing_workers, bot_python=args.bot_python,
                    warm_up=args.warm_up)


def _storage(args: argparse.Namespace) -> list[dict[str, object]]:
    from .storage_bench import run_store

    return list(run_store(args.games, args.moves, args.seed, args.database))


def _hand(args: argparse.Namespace) -> list[dict[str, object]]:
    from .hand_bench import run_hand

    return [run_hand(args.games, args.repeats, args.seed)]


def _migrate(args: argparse.Namespace) -> list[dict[str, object]]:
    from .migrate_bench import DEFAULT_DATABASE, run_migrate

    return list(run_migrate(args.games, args.database or DEFAULT_DATABASE,
                            args.seed, args.pool, args.budget, args.replay_workers))


def _chaos(args: argparse.Namespace) -> list[dict[str, object]]:
    from .chaos_bench import run_chaos

    return [asyncio.run(run_chaos(args.games, duration=args.duration,
                                  fault_rate=args.fault_rate, gateway_every=args.gateway_every,
                                  database=args.database, db_outage=args.db_outage,
                                  settle=args.settle, seed=args.seed,
                                  board_delay=args.board_delay))]


def _plan(args: argparse.Namespace) -> list[dict[str, object]]:
    from .plan_bench import STAKES, run_plan

    return [run_plan(people, stakes, args.runs, args.seed)
            for people in args.people for stakes in (*STAKES, "dollars")]


BENCHMARKS: dict[str, Callable[[argparse.Namespace], list[dict[str, object]]]] = {
    "render": _render,
    "ledger": _ledger,
    "storage": _storage,
    "hand": _hand,
    "load": _load,
    "chaos": _chaos,
    "migrate": _migrate,
    "plan": _plan,
}
"""The benchmarks by name (each a sub-command of ``python -m bot.bench``)."""

QUICK = ("render", "ledger")
"""What ``python -m bot.bench all`` runs; the others take minutes and are asked for by name."""


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("a list of numbers, like 10,50,100") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("each size must be at least 1")
    return sizes


def _share(text: str) -> float:
    try:
        top, _, bottom = text.partition("/")
        share = float(top) / float(bottom or 1)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"a share like 1/3 or 0.33: {text!r}") from None
    if not 0 <= share <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1: {text!r}")
    return share


def _counts(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of whole numbers: {text!r}") from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"give numbers of 0 or more: {text!r}")
    return values


def _positive(text: str) -> int:
    try:
        number = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError("a whole number, like 10") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _played_by_the_bot(parser: argparse.ArgumentParser) -> None:
    """The flags of the benchmarks that run the real bot against the fake Discord."""
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of play per run")
    parser.add_argument("--board-delay", type=float, default=1.0,
                        help="the bot's BOARD_DELAY_SECONDS (its default: 1)")


def _see(module: str) -> str:
    return (f"What it measures and what it leaves out: the docstring of bot/bench/{module}.py "
            f"(python -m pydoc bot.bench.{module}).")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """One sub-command per benchmark, each with only its own flags."""
    subs = parser.add_subparsers(dest="benchmark", metavar="<benchmark>", title="benchmarks")
    made: dict[str, argparse.ArgumentParser] = {}

    def sub(name: str, summary: str, where: str) -> argparse.ArgumentParser:
        made[name] = subs.add_parser(
            name, help=summary, description=where,
            formatter_class=argparse.RawDescriptionHelpFormatter)
        made[name].add_argument("--seed", type=int, default=1, help="seeds the games played")
        return made[name]

    render = sub("render", "boards and hands drawn, in this process and by a drawing process",
                 _see("render_bench"))
    render.add_argument("--boards", type=_positive, default=200, help="positions to draw")

    ledger = sub("ledger", "the notebook's queries on a ledger of many lines",
                 _see("ledger_bench"))
    ledger.add_argument("--lines", type=_sizes, default=[100_000],
                        help="ledger lines, a row per size: 10000,100000,1000000")
    ledger.add_argument("--players", type=int, default=200, help="players the lines are among")
    ledger.add_argument("--runs", type=int, default=50, help="timed runs of each query")

    storage = sub("storage", "what saving one move costs the database, as games grow",
                  _see("storage_bench"))
    storage.add_argument("--games", type=_positive, default=20, help="matches played")
    storage.add_argument("--moves", type=int, default=510, help="moves per match")
    storage.add_argument("--database", default=None,
                         help="a postgresql:// server to measure instead of a SQLite file")

    hand = sub("hand", "the private hand message shown again and again",
               _see("hand_bench"))
    hand.add_argument("--games", type=_positive, default=20, help="hands shown")
    hand.add_argument("--repeats", type=int, default=10, help="times each hand is shown")

    load = sub("load", "the real bot as a process against the local fake Discord, many games "
               "at once", _see("load_bench"))
    load.add_argument("--games", type=_sizes, default=[10],
                      help="games open at once, one run per size: 10,50,100 (default 10)")
    load.add_argument("--mode", choices=["eager", "paced"], default="eager",
                      help="eager: act as soon as answered; paced: a move per game every "
                           "--interval seconds on average")
    load.add_argument("--interval", type=float, default=10.0,
                      help="paced: seconds between moves of a game, on average")
    _played_by_the_bot(load)
    load.add_argument("--rules", choices=["both", "kings", "classic"], default="both")
    load.add_argument("--open-concurrency", type=int, default=8,
                      help="games opened at once before the play starts")
    load.add_argument("--profile", help="run the bot under cProfile, writing this file")
    load.add_argument("--plot", help="write a PNG of p99 against games here")
    load.add_argument("--shards", type=int, default=1,
                      help="bot processes, one shard each (needs --database postgresql://…)")
    load.add_argument("--database", default=None,
                      help="a postgresql:// server (a scratch schema of it) instead of SQLite")
    load.add_argument("--tables", type=_share, default=1 / 3,
                      help="share of the games at tables of three or four, the rest two "
                           "players (default 1/3, a realistic mix; 0: two players only)")
    load.add_argument("--bot-root", default=None,
                      help="run the bot of another checkout (a directory holding its bot/ "
                           "package) against these players, e.g. the old main")
    load.add_argument("--warm-up", type=float, default=0.0,
                      help="seconds of play before the measured --duration (leaves the "
                           "players' first round out; default 0: the window starts with it)")
    load.add_argument("--bot-python", default=None,
                      help="the Python to run the bot with (e.g. a virtual environment of "
                           "the old main's own lock file); default: this one")
    load.add_argument("--drawing-workers", type=_positive, default=None,
                      help="the bot's drawing processes (its DRAWING_WORKERS; default: its "
                           "own default, half the cores)")

    chaos = sub("chaos", "the load's players under injected faults (REST errors, gateway "
                "drops, a database outage)", _see("chaos_bench"))
    chaos.add_argument("--games", type=_positive, default=10, help="games open at once")
    _played_by_the_bot(chaos)
    chaos.add_argument("--database", default="sqlite",
                       help="sqlite, a postgresql:// server, or 'private' (a server of its "
                            "own, stopped mid-run)")
    chaos.add_argument("--fault-rate", type=float, default=0.05,
                       help="share of the REST calls answered 500/502/503/429")
    chaos.add_argument("--gateway-every", type=float, default=30.0,
                       help="seconds between gateway drops, on average")
    chaos.add_argument("--db-outage", type=float, default=30.0,
                       help="with --database private: seconds PostgreSQL is stopped mid-run")
    chaos.add_argument("--settle", type=float, default=90.0,
                       help="seconds the bot gets to catch up after the faults stop")

    migrate = sub("migrate", "python -m bot migrate on a big database",
                  _see("migrate_bench"))
    migrate.add_argument("--games", type=_sizes, default=[1_000, 10_000],
                         help="finished matches in the source, a run per size "
                              "(default 1000,10000)")
    migrate.add_argument("--database", default=None,
                         help="the postgresql:// server to migrate to (default: a local one)")
    migrate.add_argument("--pool", type=int, default=20, help="distinct matches played")
    migrate.add_argument("--budget", type=float, default=900.0,
                         help="seconds a size may be projected to take: over it, the replay "
                              "check is left out, and if still over, the size")
    migrate.add_argument("--replay-workers", type=_counts, default=[0],
                         help="processes replaying the games, a migration of the same source "
                              "per number (0: one per core, the command's own; 1: one by one "
                              "in the command's process, as before issue 35), e.g. 1,0")

    plan = sub("plan", "the fewest payments that settle a group's debts (exact up to 16 "
               "people, greedy beyond)", _see("plan_bench"))
    plan.add_argument("--people", type=_sizes, default=[16, 200],
                      help="group sizes, a row per size and kind of stakes (default 16,200)")
    plan.add_argument("--runs", type=_positive, default=15, help="plans per size and kind")

    sub("all", f"the quick ones, {' and '.join(QUICK)}, with their defaults",
        f"Runs {' and '.join(QUICK)} with their defaults (and the --seed given).")
    return made


def _misplaced(flag: str, name: str, subs: dict[str, argparse.ArgumentParser]) -> str:
    """Why ``flag`` is refused after ``name``: whose flag it is, if anyone's."""
    option = flag.split("=", 1)[0]
    owners = [n for n, sub in subs.items() if option in sub._option_string_actions]
    whose = f" (a flag of {', '.join(owners)})" if owners else ""
    return (f"{option} is not a flag of {name}{whose}; "
            f"python -m bot.bench {name} --help lists its flags")


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point: ``python -m bot.bench <benchmark> [its flags]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="python -m bot.bench", description=__doc__,
        epilog="python -m bot.bench <benchmark> --help lists the flags of that benchmark.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    subs = _subcommands(parser)
    names = ", ".join(subs)
    if not argv:
        parser.error(f"name a benchmark: python -m bot.bench <benchmark>, one of {names} "
                     f"('all' runs {' and '.join(QUICK)})")
    if argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        # The flat form of before (flags first, or no benchmark named): say the new one.
        parser.error(f"the benchmark comes first, then its flags: python -m bot.bench "
                     f"<benchmark> [flags], one of {names}; e.g. python -m bot.bench render "
                     f"--boards 50. Each benchmark has flags of its own: python -m bot.bench "
                     f"<benchmark> --help")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        subs[args.benchmark].error(_misplaced(unknown[0], args.benchmark, subs))
    if args.benchmark == "all":
        runs = [parser.parse_args([name, "--seed", str(args.seed)]) for name in QUICK]
    else:
        runs = [args]
    for run in runs:
        for line in BENCHMARKS[run.benchmark](run):
            print(json.dumps(line), flush=True)
