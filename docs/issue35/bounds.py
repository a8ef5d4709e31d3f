"""What laying text out faster, or writing the PNG for nothing, could at most save a picture.

    python docs/issue35/bounds.py [ROUNDS]

Draws ``memory.py``'s stream (6,000 pictures of 1,000 live games: their boards and hands) in
this process (``drawing_worker._answer``, the request's unpickling and the answer's pickling
included), one fresh process per case and round, the cases alternated:

- ``as is``: the drawing as it is;
- ``layout remembered``: every line's layout (``fonts._laid_out``) remembered without bound
  and filled by a first pass over the stream, so no line is laid out while counted (what any
  faster layout, in C or not, could at most save);
- ``no PNG``: the picture drawn, its PNG not written.

CPU ms a picture (``time.process_time``) over the pictures after the first 600."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time

WARM = 600


def _one(case: str) -> float:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import memory

    from bot.pictures import board_picture, fonts, hand_picture
    from bot.pictures.drawing_worker import _answer

    reqs = memory.requests(6000, 1000)
    if case == "layout remembered":
        fonts._laid_out = functools.lru_cache(maxsize=None)(fonts._laid_out)  # type: ignore[assignment]
        for req in reqs:
            _answer(req)
    elif case == "no PNG":
        board_picture._png = hand_picture._png = lambda image: b""  # type: ignore[assignment]
    for req in reqs[:WARM]:
        _answer(req)
    started = time.process_time()
    for req in reqs[WARM:]:
        _answer(req)
    return (time.process_time() - started) / (len(reqs) - WARM) * 1000


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(_one(sys.argv[2]))
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for r in range(rounds):
        for case in ("as is", "layout remembered", "no PNG"):
            out = subprocess.run([sys.executable, __file__, "--case", case], check=True,
                                 capture_output=True, text=True).stdout
            print(f"round {r + 1}: {case}: {float(out):.3f} ms a picture", flush=True)
    with open("/proc/loadavg") as load:
        print("load average", load.read().strip())


if __name__ == "__main__":
    main()
