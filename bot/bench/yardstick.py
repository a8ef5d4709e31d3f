"""How fast this machine runs Python: one fixed piece of work, timed, printed with each load run.

The load benchmark's CPU figures are milliseconds a move, and the machines these runs get are
not all alike: the same drawing stream took 1.05-1.15 ms a picture on one "AMD EPYC" of 2 cores
and 2.5 ms on another a day later (BENCHMARKS.md, issue 35). A row's ``yardstick_ms`` says
which kind of machine it ran on: rows whose yardsticks differ by more than their noise came
from machines of other speeds and their CPU figures do not compare; the old and new rows of
one run do. (On the machine of 2026-12-06, idle: 56.8-62.3 ms over ten runs; during that
session's benchmarks 55-77 ms, twice 111-115: a shared host's speed moves too.)

The work is what the bot's process mostly does, in the interpreter and in small C calls:
dictionaries and lists of small objects, string formatting, JSON, a little deflate. **It must
never change**: its figure means something only beside the figures it gave before. Best of
five, CPU time of this process only, so another process on the other core counts less than it
would in a wall-clock time (but a busy machine still shows: caches and memory are shared).
"""

from __future__ import annotations

import json
import time
import zlib

ROUNDS = 5


def _work() -> int:
    """The fixed work: some 60 ms on the 2.45 GHz Zen 3 core of 2026-12-06."""
    total = 0
    payloads = []
    for i in range(3_000):
        card = {"rank": i % 13 + 1, "suit": "♠♥♦♣"[i % 4], "seat": i % 4, "id": str(10**17 + i)}
        line = f"{card['seat']}: {card['rank']}{card['suit']} → centre {i % 4 + 1}"
        payloads.append({"content": line, "cards": [card] * 5, "flags": 64})
        total += len(line)
    text = json.dumps(payloads)
    total += len(json.loads(text))
    total += len(zlib.compress(text.encode(), 1))
    words = sorted(set(text.split()), key=lambda w: (len(w), w))
    return total + len(words)


def yardstick_ms() -> float:
    """The fixed work's CPU time in ms, the best of ``ROUNDS`` runs."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        _work()
        best = min(best, time.process_time() - started)
    return round(best * 1000, 2)


if __name__ == "__main__":
    print(yardstick_ms())
