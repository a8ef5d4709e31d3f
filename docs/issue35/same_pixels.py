"""Whether two trees draw the very same pixels: boards and hands of N positions at 2, 3 and 4
seats (seeded games, with the long names and last moves of ``test_render_phone`` on every
other position), drawn in one process per tree, the pixels of each picture hashed.

    python docs/issue35/same_pixels.py N /work/main /work/wt/draw
"""

from __future__ import annotations

import os
import subprocess
import sys

ONE = """
import dataclasses, hashlib, io, sys
from PIL import Image
from bot.bench.render_bench import positions
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import render_hand
NAMES = ("W" * 32, "Bartholomew-Maximilian Jones 3rd", "M" * 32, "Anastasia Wolkonskaja 🎉")
MOVES = ("Anastasia Wolkonskaja-Petr: 🃏 as Q from hand → centre 4",
         "Bartholomew-Maximilian Jones 3rd: pay-off card 10♦ → centre 2 (pay-off: 17 left)",
         "Bob passed", "Carol: 9♣ from side 3 → centre 1")
for players in (2, 3, 4):
    for k, (pub, mine, info) in enumerate(positions(int(sys.argv[1]), 7, players=players)):
        if k % 2:
            info = dataclasses.replace(info, names=NAMES[:players], last_moves=MOVES)
        for png in (render_board(pub, info), render_hand(mine, info)):
            with Image.open(io.BytesIO(png)) as im:
                rgb = im.convert("RGB")
            print(hashlib.sha256(rgb.tobytes()).hexdigest()[:16], rgb.size)
"""


def main() -> None:
    n, trees = sys.argv[1], sys.argv[2:]
    outs = [subprocess.run([sys.executable, "-c", ONE, n], env=dict(os.environ, PYTHONPATH=t),
                           cwd=t, capture_output=True, text=True, check=True).stdout.split("\n")
            for t in trees]
    differ = sum(a != b for a, b in zip(outs[0], outs[1], strict=True))
    print(f"{len(outs[0]) - 1} pictures, {differ} with any pixel different")


if __name__ == "__main__":
    main()
