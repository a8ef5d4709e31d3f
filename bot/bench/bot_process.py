"""The bot as a process under measurement: ``python -m bot`` started against the fake Discord,
its log read from a pipe, and what ``/proc`` says of it and of its helpers (the drawing
process): CPU time, resident memory (RSS, PSS, the peak), bytes written to disk; and of the
machine around it. The load and chaos benchmarks use it (``load_bench``, ``chaos_bench``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import resource
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid``: the bot's drawing workers (``bot.pictures.drawing``) and what
    ``multiprocessing`` starts beside them. Read from each thread's ``children`` file (a few
    small reads, where scanning all of ``/proc`` every second cost the benchmark's own process
    several percent of a core), or from all of ``/proc`` where the kernel has no such file."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
            kids = [int(child) for task in tasks
                    for child in _read(f"/proc/{parent}/task/{task}/children").split()]
        except FileNotFoundError:
            if parent != pid:
                continue  # gone meanwhile
            return _descendants_by_scan(pid)
        found.extend(kids)
        todo.extend(kids)
    return sorted(set(found))


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except FileNotFoundError:  # a thread gone meanwhile
        return ""


def _descendants_by_scan(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return sorted(found)


def cpu_of(pids: Sequence[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            out[pid] = _cpu_seconds(pid)
    return out


def cpu_all(pids: Sequence[int]) -> float:
    return sum(_cpu_seconds(pid) for pid in pids)


def written_all(pids: Sequence[int]) -> int:
    return sum(_write_bytes(pid) for pid in pids)


def helpers_of(pids: Sequence[int]) -> list[int]:
    return [helper for pid in pids for helper in _descendants(pid)]


def peak_kb_of(pids: Sequence[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += status_kb(pid, "VmHWM")
    return total


def _rollup_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


async def memory_monitor(pids: Sequence[int], peaks: dict[str, int],
                          period: float = 1.0) -> None:
    """Keep in ``peaks`` the largest sums of RSS and of PSS (KB) over ``pids`` and their
    helpers, sampled every ``period`` seconds."""
    while True:
        rss = pss = 0
        for pid in [*pids, *helpers_of(pids)]:
            with contextlib.suppress(OSError):  # a helper gone meanwhile
                rss += status_kb(pid, "VmRSS")
                pss += _rollup_kb(pid, "Pss")
        peaks["rss"] = max(peaks.get("rss", 0), rss)
        peaks["pss"] = max(peaks.get("pss", 0), pss)
        await asyncio.sleep(period)


def _write_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) CPU time of the whole machine, all cores, from ``/proc/stat``."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])
    return total - idle, total


def busy_pct(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The whole machine's CPU use between two readings, 100 per busy core (as the others)."""
    busy, total = after[0] - before[0], after[1] - before[1]
    return round(busy / total * 100 * (os.cpu_count() or 1), 1) if total else 0.0


def self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _child_env(fake: Any, db: str, board_delay: float,
               shard: tuple[int, int] | None = None, root: Path = ROOT,
               drawing_workers: int | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "SHARD_")) and k != "LOG_LEVEL"}
    env.update(PYTHONPATH=str(root), DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
               DISCORD_GATEWAY_URL=fake.gateway_url, DATABASE=db, LOG_LEVEL="INFO",
               BOARD_DELAY_SECONDS=str(board_delay))
    if drawing_workers is not None:
        env["DRAWING_WORKERS"] = str(drawing_workers)
    if shard is not None:  # one process per shard, as docker-compose.yml runs them
        env.update(SHARD_IDS=str(shard[0]), SHARD_COUNT=str(shard[1]))
    # As the Dockerfile sets it (unless the caller's environment says otherwise): without it
    # glibc gives each thread that allocates an arena of its own, which the RSS shows.
    env.setdefault("MALLOC_ARENA_MAX", "2")
    return env


class BotProcess:
    """``python -m bot`` (optionally under cProfile) with its log read from a pipe."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.log = io.StringIO()
        assert proc.stderr is not None
        self._reader = asyncio.create_task(self._read(proc.stderr))

    @classmethod
    async def start(cls, fake: Any, workdir: Path, db: str, board_delay: float,
                    profile: Path | None, shard: tuple[int, int] | None = None,
                    root: Path | None = None, drawing_workers: int | None = None,
                    python: str | None = None) -> BotProcess:
        """``python -m bot`` of this checkout, or of the one at ``root`` (another version of
        the bot against the same fake and players); ``drawing_workers`` sets its
        ``DRAWING_WORKERS``; ``python``: the interpreter to run it with (another version's own
        dependencies), this one's by default."""
        command = [python or sys.executable]
        if profile is not None:
            command += ["-m", "cProfile", "-o", str(profile)]
        command += ["-m", "bot"]
        proc = await asyncio.create_subprocess_exec(
            *command, cwd=workdir, env=_child_env(fake, db, board_delay, shard, root or ROOT,
                                              drawing_workers),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        print(f"bot process {proc.pid} started", file=sys.stderr, flush=True)
        return cls(proc)

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for line in stream:
            self.log.write(line.decode(errors="replace"))

    @property
    def pid(self) -> int:
        return self.proc.pid

    async def stop(self) -> int:
        """SIGTERM, as ``docker stop``; the exit status (killed after 30 s)."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)
        return self.proc.returncode or 0

    def log_errors(self) -> list[str]:
        """One entry per ERROR line (with the exception its traceback ends with), and one per
        traceback logged without one."""
        out: list[str] = []
        lines = self.log.getvalue().splitlines()
        after_error = False
        for i, line in enumerate(lines):
            if " ERROR " in line:
                out.append(line)
                after_error = True
            elif line.startswith("Traceback"):
                end = next((lines[j] for j in range(i + 1, len(lines))
                            if lines[j].strip() and not lines[j].startswith(
                                (" ", "Traceback", "During", "The above"))), "")
                if after_error and out:
                    out[-1] += " | " + end
                else:
                    out.append(end)
                after_error = True  # a chained traceback ("During handling…") joins it
            elif re.match(r"\d{4}-\d\d-\d\d ", line):  # the next log record
                after_error = False
        return out
