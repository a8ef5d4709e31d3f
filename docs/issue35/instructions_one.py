"""Draws 60 positions (warming the caches), then COUNTED more inside ``functools.reduce``."""

from __future__ import annotations

import functools
import sys

from bot.bench.render_bench import positions
from bot.pictures.board_info import BoardInfo
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import render_hand
from engine import View

WARM = 60
players, kind, counted = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
cases = positions(WARM + counted, 1, players=players)


def draw(total: int, case: tuple[View, View, BoardInfo]) -> int:
    public, mine, info = case
    return total + len(render_board(public, info) if kind == "board"
                       else render_hand(mine, info))


for case in cases[:WARM]:
    draw(0, case)
print(functools.reduce(draw, cases[WARM:], 0))
