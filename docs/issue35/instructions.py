"""Instructions per picture (valgrind's callgrind), trees side by side.

    python docs/issue35/instructions.py /work/main,/work/wt/draw [2board,2hand,...]

Only the drawing is counted: ``instructions_one.py`` draws its counted pictures inside
``functools.reduce``, and callgrind collects inside that function alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

COUNTED = int(os.environ.get("COUNTED", "20"))
ONE = str(Path(__file__).with_name("instructions_one.py"))


def instructions(tree: str, players: int, kind: str) -> tuple[int, int]:
    """Instructions and PNG bytes of ``COUNTED`` pictures drawn by the code of ``tree``."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         "--collect-atstart=no", "--toggle-collect=functools_reduce",
         sys.executable, ONE, str(players), kind, str(COUNTED)],
        env=dict(os.environ, PYTHONPATH=tree), capture_output=True, text=True, cwd=tree,
        check=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    assert found is not None, out.stderr[-2000:]
    return int(found.group(1)), int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    trees = sys.argv[1].split(",")
    cases = [(p, k) for p in (2, 3, 4) for k in ("board", "hand")]
    if len(sys.argv) > 2:
        cases = [(int(c[0]), c[1:]) for c in sys.argv[2].split(",")]
    for players, kind in cases:
        for tree in trees:
            count, size = instructions(tree, players, kind)
            print(f"{tree} players {players} {kind}: {count / COUNTED / 1e6:.1f} M instructions"
                  f" per picture, {size / COUNTED / 1024:.1f} KB", flush=True)


if __name__ == "__main__":
    main()
