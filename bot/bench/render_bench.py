"""``python -m bot.bench render``: boards and hands drawn, timed.

Draws boards and hands from seeded games of both rule sets at many stages, from
the deal to the finished game, including long side stacks; then the same at tables of three
and of four (a player leaving in every other game), as rows of their own
(``render_board_3``, ``render_hand_3``, ``render_board_4``, ``render_hand_4``, drawn in this
process only). Per picture kind it reports the
cold time (the first picture in a fresh interpreter: fonts opened, caches empty), then over
``--boards`` pictures drawn one after another in this process (caches warm, as in a bot that
has run a while) the median, p99 and worst time, and the median and largest PNG size:

    {"name": "render_board", "boards": 200, "cold_ms": 61.3, "median_ms": 15.5,
     "p99_ms": 35.4, "worst_ms": 43.1, "png_kb_median": 52.4, "png_kb": 66.4,
     "cpu_ms_median": 4.1, "cpu_ms_mean": 4.6, "again_cpu_ms_median": 2.2,
     "encode_cpu_ms_median": 0.6}

(measured on 2 AMD EPYC cores; BENCHMARKS.md has the figures, the machine and the command).
The ``cpu_`` figures are the CPU time of the drawing thread (``time.thread_time``), which other
work on a shared machine moves far less than the wall time: ``cpu_ms_*`` of the pictures drawn
in turn, ``again_cpu_ms_median`` of the same pictures drawn a second time (the caches of cards,
text and blends as the first pass left them: what is kept pays off there), ``encode_cpu_ms_median``
the PNG encoding alone.

``render_board_pool`` and ``render_hand_pool``: the same pictures drawn as the bot
has them drawn, by a drawing process (``bot.pictures.drawing``), timed from the asking to the
PNG bytes back (the pickling and the hop between processes included); cold is the first picture, the
drawing process started for it (as after a restart).

What it leaves out: sending the picture (Discord's upload) and any other work competing for
the CPU; pictures are drawn one at a time, never two at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from PIL import Image

from bot.pictures.board_info import BoardInfo, _public
from bot.pictures.board_picture import _draw_board, render_board
from bot.pictures.hand_picture import _draw_hand, render_hand
from bot.pictures.picture_palette import _png
from engine import CLASSIC, KINGS, Game, Move, RuleSet, Source, View
from engine.bench import POLICIES

__all__ = ["cold_render", "positions", "run_render"]

_NAMES = ("Ann", "Bartholomew", "Carol", "Dmitri")


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


def positions(count: int, seed: int = 1, per_game: int = 8,
              players: int = 2) -> list[tuple[View, View, BoardInfo]]:
    """``count`` positions as (public view, on-turn player's view, info), from seeded games of
    ``players`` seats.

    Games alternate between the rule sets and between two random policies (one of them builds
    long side stacks); from each game ``per_game`` positions are taken, spread from the deal to
    the end, the finished position always among them. At a table of three or four, every other
    game has a player leave (rule 26) after 40 moves.
    """
    out: list[tuple[View, View, BoardInfo]] = []
    rng = random.Random(seed)
    n = 0
    while len(out) < count:
        rules: RuleSet = (CLASSIC, KINGS)[n % 2]
        policy = _POLICIES[(n // 2) % len(_POLICIES)]
        if players == 2:
            game, _ = Game.new(rules, seed * 10_007 + n)
            info = BoardInfo(_NAMES[:2], game_number=1 + n % 3,
                             match_scores=(n % 40, (3 * n) % 45), match_target=rules.match_target)
        else:
            game, _ = Game.new(rules, seed * 10_007 + n, players=players)
            info = BoardInfo(_NAMES[:players], game_number=1 + n % 3,
                             match_scores=tuple((n + 7 * k) % 45 for k in range(players)),
                             match_target=rules.match_target)
        leaver = (n // 2) % players if players > 2 and (n // 2) % 2 else None
        snapshots: list[tuple[View, View, BoardInfo]] = []
        while True:
            if len(game.history) % 3 == 0 or game.result is not None:
                public = game.public_view()
                moves = tuple(describe(p, m) for p, m in public.recent[-8:])
                snapshots.append((public, game.view(game.turn),
                                  dataclasses.replace(info, last_moves=moves)))
            if game.result is not None:
                break
            if leaver is not None and len(game.history) == 40:
                game.resign(leaver)
                leaver = None
                continue
            game.play(policy(game.legal_moves(), rng, game))
        last = len(snapshots) - 1
        picks = sorted({last * k // max(1, per_game - 1) for k in range(per_game)})
        out.extend(snapshots[i] for i in picks)
        n += 1
    return out[:count]


@dataclasses.dataclass
class _Measured:
    """What drawing a list of positions took: per picture, the wall and CPU seconds and the
    PNG's size; the CPU seconds of drawing the same pictures again; and of their encoding."""

    times: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)
    sizes: list[int] = dataclasses.field(default_factory=list)
    again: list[float] = dataclasses.field(default_factory=list)
    encode: list[float] = dataclasses.field(default_factory=list)


def _measure(render: Callable[[View, BoardInfo], bytes],
             cases: Sequence[tuple[View, BoardInfo]],
             draw: Callable[[View, BoardInfo], Image.Image] | None = None) -> _Measured:
    """Each case drawn in turn (wall and CPU time: the CPU time moves much less with what else
    the machine does), then every case again (the caches as that left them), then, with
    ``draw`` (the picture without its encoding), the encoding of each picture alone."""
    out = _Measured()
    for view, info in cases:
        started, cpu = time.perf_counter(), time.thread_time()
        png = render(view, info)
        out.cpu.append(time.thread_time() - cpu)
        out.times.append(time.perf_counter() - started)
        out.sizes.append(len(png))
    for view, info in cases:
        cpu = time.thread_time()
        render(view, info)
        out.again.append(time.thread_time() - cpu)
    if draw is not None:
        for view, info in cases:
            picture = draw(view, info)
            cpu = time.thread_time()
            _png(picture)
            out.encode.append(time.thread_time() - cpu)
    return out


def _draw_board_only(view: View, info: BoardInfo) -> Image.Image:
    return _draw_board(_public(view), info)


_COLD = """
import sys, time
from bot.bench.render_bench import positions
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import render_hand
public, mine, info = positions(1, int(sys.argv[2]), players=int(sys.argv[3]))[0]
started = time.perf_counter()
if sys.argv[1] == "board":
    render_board(public, info)
else:
    render_hand(mine, info)
print(time.perf_counter() - started)
"""


def cold_render(kind: str, seed: int = 1, players: int = 2) -> float:
    """Seconds of the first ``kind`` picture (board or hand) drawn in a fresh interpreter.

    The first picture after a start opens the fonts and fills the caches of drawn cards and
    text; in this process those caches are already warm, so it is measured in a new one (the
    imports and the dealing are not timed, only the drawing).
    """
    out = subprocess.run([sys.executable, "-c", _COLD, kind, str(seed), str(players)],
                         check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def _figures(name: str, cold: float, times: list[float], sizes: list[int],
             measured: _Measured | None = None) -> dict[str, object]:
    figures: dict[str, object] = {
        "name": name,
        "boards": len(times),
        "cold_ms": round(cold * 1000, 1),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p99_ms": round(_percentile(times, 99) * 1000, 1),
        "worst_ms": round(max(times) * 1000, 1),
        "png_kb_median": round(statistics.median(sizes) / 1024, 1),
        "png_kb": round(max(sizes) / 1024, 1),
    }
    if measured is not None:
        figures["cpu_ms_median"] = round(statistics.median(measured.cpu) * 1000, 2)
        figures["cpu_ms_mean"] = round(statistics.mean(measured.cpu) * 1000, 2)
        figures["again_cpu_ms_median"] = round(statistics.median(measured.again) * 1000, 2)
        if measured.encode:
            figures["encode_cpu_ms_median"] = round(statistics.median(measured.encode) * 1000,
                                                    2)
    return figures


async def _through_pool(cases: Sequence[tuple[View, View, BoardInfo]]
                        ) -> list[tuple[float, list[float], list[int]]]:
    """Boards, then hands, drawn one at a time by a drawing process as the bot has them drawn
    (``bot.pictures.drawing``): cold (the first, the process started for it), then every case."""
    from bot.pictures.drawing import Pictures

    out = []
    for kind in ("board", "hand"):
        pictures = Pictures(workers=1)
        try:
            times: list[float] = []
            sizes: list[int] = []
            for public, mine, info in [cases[0], *cases]:
                started = time.perf_counter()
                if kind == "board":
                    public_view: tuple[View, BoardInfo] = (public, info)
                    png = await pictures.board(lambda: public_view)  # noqa: B023 (awaited here)
                else:
                    png = await pictures.hand(mine, info)
                times.append(time.perf_counter() - started)
                sizes.append(len(png))
            out.append((times[0], times[1:], sizes[1:]))
        finally:
            await pictures.close()
    return out


def run_render(boards: int, seed: int = 1) -> list[dict[str, object]]:
    """Render ``boards`` boards and as many hands, in this process and then through a drawing
    process; the figures for each. Then as many boards and hands of tables of three and of
    four, in this process (rows ``render_board_3`` … ``render_hand_4``)."""
    cold_board, cold_hand = cold_render("board", seed), cold_render("hand", seed)
    cases = positions(boards, seed)
    boards_drawn = _measure(render_board, [(pub, info) for pub, _, info in cases],
                            _draw_board_only)
    hands_drawn = _measure(render_hand, [(mine, info) for _, mine, info in cases], _draw_hand)
    (board_cold, pool_boards, pool_board_sizes), (hand_cold, pool_hands, pool_hand_sizes) = \
        asyncio.run(_through_pool(cases))
    rows = [_figures("render_board", cold_board, boards_drawn.times, boards_drawn.sizes,
                     boards_drawn),
            _figures("render_hand", cold_hand, hands_drawn.times, hands_drawn.sizes,
                     hands_drawn),
            _figures("render_board_pool", board_cold, pool_boards, pool_board_sizes),
            _figures("render_hand_pool", hand_cold, pool_hands, pool_hand_sizes)]
    for players in (3, 4):
        cold_board = cold_render("board", seed, players)
        cold_hand = cold_render("hand", seed, players)
        cases = positions(boards, seed, players=players)
        boards_drawn = _measure(render_board, [(pub, info) for pub, _, info in cases],
                                _draw_board_only)
        hands_drawn = _measure(render_hand, [(mine, info) for _, mine, info in cases],
                               _draw_hand)
        rows += [_figures(f"render_board_{players}", cold_board, boards_drawn.times,
                          boards_drawn.sizes, boards_drawn),
                 _figures(f"render_hand_{players}", cold_hand, hands_drawn.times,
                          hands_drawn.sizes, hands_drawn)]
    return rows
