"""CPU ms and KB per picture over N positions after 60 drawn to warm the caches."""

from __future__ import annotations

import json
import sys
import time

from bot.bench.render_bench import positions
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import render_hand

WARM = 60
players, n = int(sys.argv[1]), int(sys.argv[2])
cases = positions(n + WARM, 1, players=players)
out = {}
for kind in ("board", "hand"):
    render = render_board if kind == "board" else render_hand
    drawings = [(public if kind == "board" else mine, info) for public, mine, info in cases]
    for view, info in drawings[:WARM]:
        render(view, info)
    started, size = time.process_time(), 0
    for view, info in drawings[WARM:]:
        size += len(render(view, info))
    out[kind] = ((time.process_time() - started) / n * 1000, size / n / 1024)
print(json.dumps(out))
