"""Peak RSS and CPU of a drawing process fed the pictures of many live games, trees side by side.

    python docs/issue35/memory.py PICTURES GAMES TREE [TREE ...]

Plays ``GAMES`` games at once (two thirds at tables of two, the rest of three or four seats, as
the load benchmark's ``--tables 1/3``), each with names of its own (some 2,000 distinct names
at 1,000 games, a few with emoji) and its last moves in the engine's words, a move at a time in
a random order of the games, a finished game replaced by a new one. After each move it asks for
the board and the hand of the seat on turn, as the bot does, until ``PICTURES`` pictures. The
same requests, made once here, go to a drawing process (``python -m bot.pictures.drawing_worker``)
started from each tree in turn, through its pipes; the trees are alternated in a second round.

Per tree: the drawing process's ``VmHWM`` (peak RSS) and ``VmRSS`` at the end, its CPU (user and
system, from ``/proc``) per picture over the pictures after the first 10% (the warm-up is not
counted), and ``VmHWM`` of a process that has only imported the worker (the baseline).
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
import time

from bot.pictures.board_info import BoardInfo
from bot.pictures.drawing_worker import frame, read_message
from engine import CLASSIC, KINGS, Game
from engine.describe import public_lines

_SYLLABLES = ("an", "bo", "ca", "dri", "el", "fu", "gor", "hi", "ja", "ko", "li", "mar", "no",
              "pe", "qui", "ro", "sa", "tu", "vi", "wen", "xa", "yo", "zed")


def _name(rng: random.Random) -> str:
    name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 6))).title()
    if rng.random() < 0.3:
        name += str(rng.randint(1, 9999))
    if rng.random() < 0.05:
        name += " 🎉"
    return name


class _Live:
    """One game being played, with the names and last moves the bot would give its pictures."""

    def __init__(self, rng: random.Random, serial: int) -> None:
        roll = rng.random()
        players = 2 if roll < 2 / 3 else (3 if roll < 5 / 6 else 4)
        self.rules = (CLASSIC, KINGS)[serial % 2]
        self.game, _ = Game.new(self.rules, 1000 + serial, players=players)
        self.names = tuple(_name(rng) for _ in range(players))
        self.lines: list[str] = []
        self.rng = rng

    def step(self) -> bool:
        """Make a move; whether the game goes on."""
        moves = self.game.legal_moves()
        plays = [m for m in moves if m.is_play]
        move = rng_choice(self.rng, plays if plays and self.rng.random() < 0.7 else moves)
        events = self.game.play(move)
        self.lines = (self.lines + public_lines(events, self.names))[-12:]
        return self.game.result is None

    def requests(self) -> list[bytes]:
        info = BoardInfo(self.names, match_target=self.rules.match_target,
                         last_moves=tuple(self.lines[-6:]))
        board = pickle.dumps(("render_board", (self.game.public_view(), info)))
        hand = pickle.dumps(("render_hand", (self.game.view(self.game.turn), info)))
        return [board, hand]


def rng_choice(rng: random.Random, items: list) -> object:  # type: ignore[type-arg]
    return items[int(rng.random() * len(items))]


def requests(pictures: int, games: int) -> list[bytes]:
    rng = random.Random(35)
    serial = games
    live = [_Live(rng, i) for i in range(games)]
    out: list[bytes] = []
    while len(out) < pictures:
        k = int(rng.random() * games)
        if not live[k].step():
            out.extend(live[k].requests()[:1])
            live[k] = _Live(rng, serial)
            serial += 1
            continue
        out.extend(live[k].requests())
    return out[:pictures]


def _status(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(tree: str, reqs: list[bytes]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=tree)
    base = subprocess.run(
        [sys.executable, "-P", "-c", "import bot.pictures.drawing_worker as w; "
         "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"],
        env=env, cwd=tree, capture_output=True, text=True, check=True)
    worker = subprocess.Popen([sys.executable, "-P", "-m", "bot.pictures.drawing_worker"],
                              env=env, cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert worker.stdin is not None and worker.stdout is not None
    warm = len(reqs) // 10
    started = 0.0
    for i, req in enumerate(reqs):
        if i == warm:
            started = _cpu(worker.pid)
        worker.stdin.write(frame(req))
        worker.stdin.flush()
        answer = read_message(worker.stdout)  # type: ignore[arg-type]
        assert answer is not None and pickle.loads(answer)[0], answer
    cpu = _cpu(worker.pid) - started
    out = {"base_hwm_mb": int(base.stdout) / 1024, "hwm_mb": _status(worker.pid, "VmHWM") / 1024,
           "rss_mb": _status(worker.pid, "VmRSS") / 1024,
           "cpu_ms": cpu / (len(reqs) - warm) * 1000}
    worker.stdin.close()
    worker.wait()
    return out


def main() -> None:
    pictures, games, trees = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    started = time.time()
    reqs = requests(pictures, games)
    print(f"{len(reqs)} requests made in {time.time() - started:.0f} s", flush=True)
    for r in range(2):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            got = run(tree, reqs)
            print(f"{tree} round {r}: " + ", ".join(f"{k} {v:.2f}" for k, v in got.items()),
                  flush=True)
    with open("/proc/loadavg") as load:
        print("load average", load.read().strip())


if __name__ == "__main__":
    main()
