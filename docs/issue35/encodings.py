"""PNG (and WebP) encoders on the same 40 boards (20 of two seats, 20 of four): CPU ms a board
(mean) and KB.

    PYTHONPATH=. python docs/issue35/encodings.py
"""

from __future__ import annotations

import io
import statistics
import time
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from isal import isal_zlib
from PIL import Image

from bot.bench.render_bench import positions
from bot.pictures.board_info import _public
from bot.pictures.board_picture import _draw_board
from bot.pictures.picture_palette import _png


def rows(image: Image.Image) -> bytes:
    """The rows of a palette picture as PNG wants them, each after its filter byte 0."""
    return b"\0" + image.tobytes("raw", ("P", image.width + 1))[:-1]


def pillow(image: Image.Image, **options: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, **options)
    return out.getvalue()


def timed(name: str, encode: Callable[[Any], bytes], items: Sequence[Any]) -> None:
    times, sizes = [], []
    for item in items:
        started = time.process_time()
        sizes.append(len(encode(item)))
        times.append(time.process_time() - started)
    print(f"{name:36s} {statistics.mean(times) * 1000:7.2f} ms  "
          f"{statistics.mean(sizes) / 1024:7.1f} KB")


def main() -> None:
    boards = [_draw_board(_public(public), info) for players in (2, 4)
              for public, _, info in positions(20, 1, players=players)]
    raw = [rows(board) for board in boards]
    timed("the rows (tobytes with a stride)", rows, boards)
    for level in (0, 1, 2, 3):
        timed(f"ISA-L level {level}", lambda b, lv=level: isal_zlib.compress(b, lv), raw)
    for level in (1, 6):
        timed(f"zlib level {level}", lambda b, lv=level: zlib.compress(b, lv), raw)
    timed("_png (rows + ISA-L level 0)", _png, boards)
    timed("Pillow PNG compress_level 1", lambda b: pillow(b, format="PNG", compress_level=1),
          boards)
    timed("Pillow PNG optimize", lambda b: pillow(b, format="PNG", optimize=True), boards[:6])
    timed("WebP lossless method 0",
          lambda b: pillow(b, format="WEBP", lossless=True, method=0, quality=0), boards[:10])
    timed("WebP lossy quality 90 method 0",
          lambda b: pillow(b.convert("RGB"), format="WEBP", quality=90, method=0), boards[:10])


if __name__ == "__main__":
    main()
