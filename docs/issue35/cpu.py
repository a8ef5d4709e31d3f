"""CPU time per picture, trees alternated round by round.

    python docs/issue35/cpu.py ROUNDS N /work/main /work/wt/draw
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ONE = str(Path(__file__).with_name("cpu_one.py"))


def main() -> None:
    rounds, n, trees = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    results: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    for r in range(rounds):
        for players in (2, 3, 4):
            for tree in trees if r % 2 == 0 else trees[::-1]:
                out = subprocess.run([sys.executable, ONE, str(players), str(n)],
                                     env=dict(os.environ, PYTHONPATH=tree), cwd=tree,
                                     capture_output=True, text=True, check=True)
                for kind, figures in json.loads(out.stdout.strip().splitlines()[-1]).items():
                    results.setdefault((tree, players, kind), []).append(tuple(figures))
    for (tree, players, kind), runs in sorted(results.items()):
        print(f"{tree} players {players} {kind}: CPU ms median of runs "
              f"{statistics.median(ms for ms, _ in runs):.2f} (runs "
              f"{' '.join(f'{ms:.2f}' for ms, _ in runs)}), {runs[0][1]:.1f} KB")
    with open("/proc/loadavg") as load:
        print("load average", load.read().strip())


if __name__ == "__main__":
    main()
