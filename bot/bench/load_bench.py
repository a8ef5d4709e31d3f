"""``python -m bot.bench load``: many games at once, played against the real bot as a process.

For each number of games in ``--games`` (a fresh bot and database each time) the benchmark
starts a local fake Discord in this process (the one the end-to-end tests use,
``bot.sandbox``), starts the bot with
``python -m bot`` pointed at it, adds two members per game to the fake server, and opens the
games: one challenges, the other presses Accept. Then the simulated players play for
``--duration`` seconds, only through interactions, as people do: ``/hand`` or the board's
**Show my hand** to see their hand, then either the card menu and a target button of that
private hand or ``/play card to`` (with autocomplete now and then), and ``/pass`` or the Pass
button in classic; the legal choices are read from the hand's menu, never from the bot. A
game that ends is challenged again. Two kinds of player:

- ``--mode eager``: each game's next action is sent the moment the previous one is answered
  (a burst: every game at once, as fast as the bot answers);
- ``--mode paced``: one move per game every ``--interval`` seconds on average (uniformly
  jittered between half and one and a half times it; the games start spread over one
  interval), as people play.

The figures are of the ``--duration`` window, which starts with the play unless
``--warm-up`` seconds of play come first (``warm_up_s``): the players' first round, in which
everyone asks for his hand before his first move, costs the bot more than the rounds after
it. A move counts in the window if its ✅ came within it (``moves`` ends at the window's end;
those under way then are let finish and are not counted).

One JSON line per size, e.g. (abridged; 2 cores shared with other work, load average 3.3)::

    {"name": "load", "mode": "eager", "games": 10, "duration_s": 60.0, "interactions": 6534,
     "interactions_per_s": 108.9, "moves": 3161, "p50_ms": 6.7, "p95_ms": 52.4, "p99_ms": 92.1,
     "max_ms": 327.3, "over_1s": 0, "over_3s": 0, "bot_cpu_pct": 110.6, "errors": 0, ...}

What it measures:

- ``p50_ms`` … ``max_ms``, ``over_1s``, ``over_3s``: first-response latency, from the moment
  the fake sends the interaction on the gateway to the moment it receives the bot's initial
  callback (a "thinking…" defer counts: it is what stops Discord's 3-second clock), over every
  interaction sent during the playing time. An interaction whose first response never came
  or came after Discord's 3 s (the fake refuses it, as Discord does) counts at 10 s.
- ``reply_p50_ms`` … ``reply_max_ms``: from the same moment to the reply the player sees
  (the follow-up or edit after a defer: the ✅ with the new hand picture, the hand itself),
  over the replies that came (a reply that never came is an error, below). This is where
  work behind a fast first response shows: a hand picture waiting for the drawing process.
- ``interactions``, ``interactions_per_s``, ``moves``, ``moves_per_s`` (cards played or
  passes, each acknowledged with ✅), ``games_finished``; ``turn_ends_per_move``, the moves
  after which the turn had passed (a discard or a pass: their reply needs no hand picture);
  for paced players ``offered_moves_per_s`` (games / interval), what they would make if
  every answer came at once: ``moves_per_s`` well below it means the bot did not keep up
  (its first responses may still be fast: the work behind them fell behind).
- ``board_posts_per_s`` / ``board_edits_per_s`` / ``board_redraws_per_s``: public board
  messages posted, edited (redrawn, or closed when the turn passed), and edits carrying a
  new picture; ``board_pictures_per_move`` (posts and redraws) and ``hand_pictures_per_move``
  (``hand.png`` files the bot sent, a picture kept from an earlier reply of the same hand
  sent again included): the pictures delivered, per move; ``hand_replies_without_picture``,
  the replies whose hand came in words only because its picture wasn't drawn within the
  bot's wait for it (such a reply is quick for having given its picture up: read
  ``reply_p99_ms`` with it). ``rest_calls_per_move``: the requests the bot's processes made
  to the fake's REST API in the playing time (interaction responses, follow-ups, edits, board
  posts), per move.
  ``board_lag_p50_ms`` … ``board_lag_max_ms``: for each card played in the
  playing time, from its ✅ to the first new picture of its game's board, made after the move
  began, that shows it (its "Last moves" lists it, or a play of the same game made after it:
  "Last moves" lists five lines, and a board drawn once for several plays shows the position
  after all of them; 0 when the board came before the ✅, which waits for the hand picture);
  ``plays_not_on_a_board``, the plays no picture showed before the bot stopped (it draws the
  pending boards for up to 8 s as it stops). Passes are left out.
  ``board_pictures_several_plays_pct``: of the board pictures that first showed some play,
  the share that showed several at once (drawn once for the newest position while several
  plays waited).
- ``boards_drawn``, ``board_updates_up_to_date``: boards the bot drew since it started (setup
  included), and board updates that found, once a drawing process was free, the board
  already showing the game's version, so drew nothing; ``drawings_handed``: the drawings its
  drawing processes were given since it started, by picture (``render_hand``…), drawn
  whether or not their reply still waited (as the bot's log says when it stops).
- ``bot_cpu_pct``: the bot process's user+system CPU time over the playing time, from
  ``/proc/<pid>/stat`` (100 = one core busy; it can use more with its threads: SQLite runs
  off the event loop; the pictures are drawn in another process, see ``helpers`` below);
  ``bot_cpu_ms_per_move``, the same divided by the moves (the interactions a move brings
  with it included). ``bench_cpu_pct``: the same for this
  process (the fake Discord and the players), which shares the machine. ``machine_cpu_pct``
  (all processes, ``/proc/stat``), ``cores`` and ``loadavg_1m`` say how busy the machine was
  meanwhile: other work on it slows the bot down too. ``yardstick_ms``: how fast the machine
  ran a fixed piece of Python just before the run (``yardstick.py``), ``yardstick_after_ms``
  the same once the bot had stopped: CPU figures of rows with yardsticks apart came from
  machines of other speeds, and a row whose two differ ran while the machine changed speed
  (a shared host's neighbours).
- ``helpers``, ``helpers_cpu_pct``: the processes under the bot (its drawing process,
  ``bot.pictures.drawing_worker``) and their CPU over the playing time; ``all_cpu_pct`` and
  ``all_cpu_ms_per_move``: the bot and them together, the figures to compare with a bot that
  drew in its own threads.
- ``peak_rss_mb``: the bot's ``VmHWM`` (peak resident memory since it started, setup included);
  ``helpers_peak_rss_mb``: the sum of the helpers' ``VmHWM``; ``all_peak_rss_mb``: the sum of
  both (an upper bound of the peak of the sum: the peaks need not coincide, and pages of
  shared libraries are counted in each process). ``sum_rss_peak_mb``: the largest sum of the
  bot's and its helpers' ``VmRSS``, sampled every second from start to end (the peak of the
  sum, as far as a sample a second sees it); ``sum_pss_peak_mb``: the same for their PSS
  (``/proc/<pid>/smaps_rollup``: a page shared by the bot and its worker, such as the
  interpreter's own code, counts half in each), what they take from the machine together.
- ``db_write_bytes_per_move``: ``/proc/<pid>/io`` ``write_bytes`` of the bot during the playing
  time divided by the moves: bytes the bot caused to be written to disk (counted in whole
  pages when dirtied). Its logs go to a pipe, so that is the SQLite database and its ``-wal``
  (checkpoints included). ``db_mb``: the size of both files at the end.
- ``errors``: interactions with no first response or a late one, replies that never came,
  refusals of a legal move or apologies, ``ERROR`` lines and tracebacks in the bot's log, and
  faults of the fake; ``error_detail`` names them.
- ``setup_s``: the time taken to open the games and draw their first boards (not in the
  figures above: the play starts once every open game's first board is up).
- ``by_kind``: count, p50 and p99 of the first response per kind of interaction.
- ``fake_lag_p99_ms``: how late this process's event loop woke up (p99): when the fake is
  itself overloaded, the latencies above include its delay.

What it leaves out: the network (the fake is on 127.0.0.1; Discord adds tens of ms each way
and its own rate limits); the fake's CPU shares the machine with the bot (see
``bench_cpu_pct``); the bot's start and the opening of the games; ledger, history and
settings commands.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.sandbox import FakeDiscordTimeout
from bot.sandbox.load import LoadFakeDiscord

from .bot_process import (
    BotProcess,
    busy_pct,
    cpu_all,
    cpu_of,
    helpers_of,
    machine_jiffies,
    memory_monitor,
    peak_kb_of,
    self_cpu,
    status_kb,
    written_all,
)
from .load_players import ANSWER_TIMEOUT, REPLY_TIMEOUT, Load, Table
from .yardstick import yardstick_ms

__all__ = ["board_lag", "plays_per_picture", "plot_p99", "run_load", "shown_by", "summary",
           "table_sizes", "unshown_plays"]

UNANSWERED_S = 10.0
"""What an interaction without a first response (in time) counts as, in seconds."""

GAME_OVER = "Game over: "
"""How a board's "Last moves" begins the line of its game's end (``engine.describe``)."""


async def _lag_monitor(samples: list[float], period: float = 0.05) -> None:
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(period)
        samples.append(loop.time() - before - period)


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(round(q * (len(sorted_values) - 1))))]


def _latency(record: Any) -> float:
    if record.latency is not None:
        return float(record.latency)
    return UNANSWERED_S


_KINDS = {"sm:src": "card menu", "sm:mv": "move button", "sm:hand": "show my hand",
          "sm:ch": "accept"}


def _kind(record: Any) -> str:
    """What the player did: the command, autocomplete, or which button or menu."""
    if record.type == 4:
        return "autocomplete"
    name = str(record.name)
    if name.startswith("sm:"):
        return _KINDS.get(":".join(name.split(":")[:2]), "other button")
    return "/" + name


def _by_kind(records: Sequence[Any], replies: dict[int, float]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[float]] = {}
    replied: dict[str, list[float]] = {}
    for record in records:
        groups.setdefault(_kind(record), []).append(_latency(record))
        if record.id in replies:
            replied.setdefault(_kind(record), []).append(replies[record.id])
    out = {}
    for kind, values in sorted(groups.items()):
        values.sort()
        out[kind] = {"n": len(values), "p50_ms": round(_percentile(values, 0.5) * 1000, 1),
                     "p99_ms": round(_percentile(values, 0.99) * 1000, 1)}
        took = sorted(replied.get(kind, ()))
        if took:
            out[kind].update(reply_p50_ms=round(_percentile(took, 0.5) * 1000, 1),
                             reply_p99_ms=round(_percentile(took, 0.99) * 1000, 1))
    return out


_Play = tuple[int, float, str, float]
"""A card played: its game's channel, when its ✅ came, the move in words, when the move began."""


def board_lag(played: Sequence[_Play],
              pictures: dict[int, list[tuple[float, frozenset[str]]]]) -> tuple[list[float], int]:
    """For each card played, the time from its ✅ to the first picture of its game's board that
    shows it (0 if that came first); and how many no board picture showed by the end of the
    run (see ``shown_by``)."""
    shown = shown_by(played, pictures)
    lags = sorted(max(0.0, at - play[1]) for play, at in zip(played, shown, strict=True)
                  if at is not None)
    return lags, sum(at is None for at in shown)


def shown_by(played: Sequence[_Play],
             pictures: dict[int, list[tuple[float, frozenset[str]]]]) -> list[float | None]:
    """When each card played first showed on its game's board (None: never): the first
    picture, made after the move began, whose "Last moves" lists it or a later play of the
    same game, or the game's end (a board drawn once for several plays lists only the last five
    lines, and shows the position after all of them: a discard, a round of passes and the
    result leave the discard unnamed). The picture may come before the play's ✅: the board
    is drawn from the saved game while the reply waits for the hand's picture."""
    at: list[float | None] = [None] * len(played)
    by_channel: dict[int, list[int]] = {}
    for i, play in enumerate(played):
        by_channel.setdefault(play[0], []).append(i)
    for channel, plays in by_channel.items():
        plays.sort(key=lambda i: played[i][3])
        first_unshown = 0
        for t, lines in sorted(pictures.get(channel, ()), key=lambda p: p[0]):
            latest = -1
            over = any(line.startswith(GAME_OVER) for line in lines)
            for k in range(first_unshown, len(plays)):
                _, _, line, began = played[plays[k]]
                if began > t:
                    break
                if over or line in lines:
                    latest = k
            for k in range(first_unshown, latest + 1):
                at[plays[k]] = t
            first_unshown = max(first_unshown, latest + 1)
    return at


def unshown_plays(played: Sequence[_Play],
                  pictures: dict[int, list[tuple[float, frozenset[str]]]],
                  end: float) -> list[str]:
    """Each play no board picture showed, in words, with what its game's board showed after
    it (what to look at when ``plays_not_on_a_board`` isn't 0; the lines are public)."""
    out = []
    for play, at in zip(played, shown_by(played, pictures), strict=True):
        if at is not None:
            continue
        channel, acked, line, began = play
        later = [lines for t, lines in pictures.get(channel, ()) if t >= began]
        last = " | ".join(sorted(later[-1])) if later else "none"
        out.append(f"{line!r} (✅ {end - acked:.1f} s before the window's end); board "
                   f"pictures of its game since it began: {len(later)}, the last listing: {last}")
    return out


def plays_per_picture(played: Sequence[_Play],
                      pictures: dict[int, list[tuple[float, frozenset[str]]]]
                      ) -> tuple[int, int]:
    """How many board pictures first showed some card played, and how many of them showed
    several at once (a board drawn once for several waiting plays)."""
    counts = Counter((play[0], t) for play, t in
                     zip(played, shown_by(played, pictures), strict=True) if t is not None)
    return len(counts), sum(1 for n in counts.values() if n > 1)


_BOARD_COUNTS = re.compile(r"boards drawn since the start: (\d+); updates that found the board "
                           r"up to date \(not drawn\): (\d+)(?:; drawings handed to the "
                           r"drawing processes: (\{[^}]*\}))?")


def _board_counts(logs: Sequence[str]) -> tuple[int | None, int | None, dict[str, int]]:
    """Boards the bots drew since they started, updates that found the board up to date, and
    the drawings handed to their drawing processes by picture (what each says as it stops;
    None and {} from a bot that doesn't say it, an older version)."""
    found = [m for log in logs if (m := _BOARD_COUNTS.search(log))]
    if not found:
        return None, None, {}
    handed: Counter[str] = Counter()
    for m in found:
        if m[3]:
            handed.update({str(k): int(v) for k, v in ast.literal_eval(m[3]).items()})
    return sum(int(m[1]) for m in found), sum(int(m[2]) for m in found), dict(handed)


def table_sizes(games: int, tables: float) -> list[int]:
    """Seats of each game: 2, or at a share ``tables`` of them spread evenly, 3 and 4 in
    turn."""
    sizes, at_tables = [], 0
    for i in range(games):
        if int((i + 1) * tables) > int(i * tables):
            sizes.append(3 + at_tables % 2)
            at_tables += 1
        else:
            sizes.append(2)
    return sizes


def _db_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())


@contextlib.asynccontextmanager
async def _database(database: str | None, workdir: Path) -> Any:
    """The run's database: a new SQLite file, or a scratch schema of a PostgreSQL server."""
    if database is None:
        yield str(workdir / "bot.sqlite3")
        return
    from bot.storage.postgres_driver import scratch_schema

    async with scratch_schema(database, "bench_load") as url:
        yield url


async def run_one(games: int, *, mode: str = "eager", interval: float = 10.0,
                  duration: float = 30.0, rules: str = "both", board_delay: float = 1.0,
                  seed: int = 1, open_concurrency: int = 8,
                  profile: Path | None = None, shards: int = 1,
                  database: str | None = None, tables: float = 0.0,
                  bot_root: Path | None = None, drawing_workers: int | None = None,
                  bot_python: str | None = None, warm_up: float = 0.0) -> dict[str, Any]:
    """One run of ``games`` games; its figures (see the module's docstring). ``tables``: the
    share of the games played at tables of three or four (alternately); ``bot_root``: run the
    bot of that checkout (the same players, fake and counting against another version), with
    the interpreter ``bot_python`` if given (that version's own dependencies); ``warm_up``:
    seconds of play before the measured window."""
    from bot.storage.db import is_postgres_url

    if shards > 1 and not (database and is_postgres_url(database)):
        raise SystemExit("--shards runs one bot process per shard, and processes share "
                         "PostgreSQL only: give --database postgresql://…")
    yardstick = yardstick_ms()  # before anything of the run starts: what the machine is
    fake = LoadFakeDiscord()
    await fake.start()
    # One server per shard (Discord routes a server to one shard), the games spread over them.
    servers = [fake.add_guild("Load Guild", channels=("general",))] if shards == 1 else [
        fake.add_guild(f"Load Guild {s}", channels=("general",), shard=(s, shards))
        for s in range(shards)]
    channel = servers[0].channel("general")
    rule_names = ["kings", "classic"] if rules == "both" else [rules]
    seats = table_sizes(games, tables)
    tables_ = []
    for i in range(games):
        guild = servers[i % len(servers)]
        seated = tuple(fake.add_member(guild, f"p{i}{'abcd'[n]}") for n in range(seats[i]))
        tables_.append(Table(i, seated, rule_names[i % len(rule_names)],
                             random.Random(seed * 100_003 + i), channel=guild.channel("general")))
    lag: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-load-")))
        db = await stack.enter_async_context(_database(database, workdir))
        bots = [await BotProcess.start(fake, workdir, db, board_delay,
                                       profile if n == 0 else None,
                                       (n, shards) if shards > 1 else None, root=bot_root,
                                       drawing_workers=drawing_workers, python=bot_python)
                for n in range(shards)]
        pids = [b.pid for b in bots]
        monitor = asyncio.create_task(_lag_monitor(lag))
        memory: dict[str, int] = {}
        memory_task = asyncio.create_task(memory_monitor(pids, memory))
        load = Load(fake, channel, mode, interval)
        try:
            try:
                await fake.wait_for(lambda: "challenge" in fake.state.commands(), timeout=60,
                                    description="commands synced")
                await fake.wait_for(lambda: fake.state.connected_count() >= shards, timeout=30,
                                    description="gateway connected")
            except FakeDiscordTimeout as exc:
                # Say why: the bots' own words (a process that stopped, a refusal to start).
                tails = "\n".join(
                    f"bot process {b.pid} (exit status {b.proc.returncode}):\n"
                    + "\n".join(b.log.getvalue().splitlines()[-15:]) for b in bots)
                raise FakeDiscordTimeout(f"{exc}\n{tails}") from None
            await asyncio.sleep(0.5)  # the guild reaches the bot's cache
            setup_started = time.monotonic()
            gate = asyncio.Semaphore(open_concurrency)

            async def open_one(table: Table) -> None:
                async with gate:
                    await load.open(table)
            await asyncio.gather(*(open_one(t) for t in tables_))
            opened = sum(t.live for t in tables_)
            # Each new game's first board is drawn after the bot's board delay: let that
            # backlog clear, so the play starts from a steady state (the wait is in setup_s).
            with contextlib.suppress(Exception):
                await fake.wait_for(lambda: fake.store.board_posts >= opened, timeout=max(
                    60.0, opened * 0.5), description="every new game's first board", poll=0.2)
            setup_s = time.monotonic() - setup_started
            # The measured window. The fake keeps every message and revision: out of the
            # garbage collector's way, so its pauses don't add to the latencies measured.
            # Nor does it collect during the window: it found nothing to free there (no
            # cycles are made: 0 objects collected in 300 collections of a 30-second run),
            # and its passes over the young objects cost the harness 5% of its CPU.
            gc.collect()
            gc.freeze()
            gc.disable()
            load.problems.clear()
            players = [asyncio.create_task(load.play(t, t.rng.uniform(0, interval)))
                       for t in tables_]
            # The players' first round (everyone asks for his hand before his first move) is
            # heavier than what follows: --warm-up leaves it out of the window. (Without one,
            # the players' tasks first run once the window has begun, as they always did.)
            if warm_up:
                await asyncio.sleep(warm_up)
            load.hands_in_words = 0
            lag.clear()
            moves0, finished0, turn_ends0 = load.moves, load.games_finished, load.turn_ends
            first = len(fake.interactions)
            store = fake.store
            posts, edits, redraws = store.board_posts, store.board_edits, store.board_redraws
            hands0 = store.uploads["hand.png"]
            requests0 = len(fake.requests)
            cpu0, bench0, written0 = cpu_all(pids), self_cpu(), written_all(pids)
            helpers0 = cpu_of(helpers_of(pids))
            machine0 = machine_jiffies()
            t0 = time.monotonic()
            await asyncio.sleep(duration)
            load.stopping = True
            t1 = time.monotonic()
            # Moves that end after t1 (those under way, let finish below) are not the window's.
            moves, finished, turn_ends = (load.moves - moves0, load.games_finished - finished0,
                                          load.turn_ends - turn_ends0)
            cpu1, bench1, written1 = cpu_all(pids), self_cpu(), written_all(pids)
            helpers1 = cpu_of(helpers_of(pids))
            machine1 = machine_jiffies()
            loadavg = os.getloadavg()[0]
            posts, edits, redraws = (fake.store.board_posts - posts, fake.store.board_edits - edits,
                                     fake.store.board_redraws - redraws)
            hands = fake.store.uploads["hand.png"] - hands0
            rest_calls = len(fake.requests) - requests0
            last = len(fake.interactions)
            # Let the actions under way finish (their answers count), then stop the rest.
            _, late = await asyncio.wait(players, timeout=ANSWER_TIMEOUT + REPLY_TIMEOUT)
            for task in late:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            peak_kb = sum(status_kb(pid, "VmHWM") for pid in pids)
            rss_kb = sum(status_kb(pid, "VmRSS") for pid in pids)
            helpers = helpers_of(pids)
            helpers_peak_kb = peak_kb_of(helpers)
            sqlite = not is_postgres_url(db)
            db_size = _db_bytes(Path(db)) if sqlite else None
        finally:
            gc.enable()
            gc.unfreeze()
            monitor.cancel()
            memory_task.cancel()
            status = max([await b.stop() for b in bots])
            await fake.stop()
    # The bot stopped: had the machine changed speed meanwhile? (Once its drawing processes
    # have gone too: their exit would count.)
    await _gone([*pids, *helpers], timeout=10.0)
    yardstick_after = yardstick_ms()
    window = t1 - t0
    records = fake.interactions[first:last]
    latencies = sorted(_latency(r) for r in records)
    unanswered = sum(1 for r in records if r.callback is None and not r.rejected_callbacks)
    late_answers = sum(1 for r in records if r.callback is None and r.rejected_callbacks)
    detail: Counter[str] = Counter(load.problems)
    logged = [line for b in bots for line in b.log_errors()]
    for line in sorted(set(logged))[:12]:  # what went wrong, once each, beside the figures
        print("bot log:", line[:300], file=sys.stderr)
    detail.update(unanswered=unanswered, late=late_answers, bot_log_errors=len(logged),
                  fake_faults=len(fake.errors) + len(fake.unhandled),
                  bot_exit_status=int(status != 0), games_not_opened=games - opened)
    errors = {k: v for k, v in detail.items() if v}
    replies = sorted(took for sent, took in load.replies.values() if t0 <= sent <= t1)
    window_plays = [p for p in load.played if t0 <= p[1] <= t1]
    lags, not_shown = board_lag(window_plays, fake.store.board_pictures)
    showing, several = plays_per_picture(window_plays, fake.store.board_pictures)
    for line in unshown_plays(window_plays, fake.store.board_pictures, t1)[:3]:
        print("play never on a board:", line, file=sys.stderr)
    helpers_cpu = sum(cpu - helpers0.get(pid, 0.0) for pid, cpu in helpers1.items())
    drawn, up_to_date, handed = _board_counts([b.log.getvalue() for b in bots])
    all_cpu = cpu1 - cpu0 + helpers_cpu
    lag.sort()
    return {
        "name": "load",
        "mode": mode,
        "backend": "sqlite" if sqlite else "postgresql",
        "processes": shards,
        **({"interval_s": interval} if mode == "paced" else {}),
        "games": games,
        "tables_of_3": seats.count(3), "tables_of_4": seats.count(4),
        "bot_root": str(bot_root) if bot_root else None, "bot_python": bot_python,
        "drawing_workers": drawing_workers,
        "duration_s": round(window, 1), "warm_up_s": warm_up,
        "interactions": len(records),
        "interactions_per_s": round(len(records) / window, 1),
        "moves": moves,
        "moves_per_s": round(moves / window, 1),
        **({"offered_moves_per_s": round(games / interval, 1)} if mode == "paced" else {}),
        "games_finished": finished,
        "turn_ends_per_move": round(turn_ends / moves, 2) if moves else None,
        "p50_ms": round(_percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
        "max_ms": round((latencies[-1] if latencies else 0.0) * 1000, 1),
        "over_1s": sum(1 for v in latencies if v > 1.0),
        "over_3s": sum(1 for v in latencies if v > 3.0),
        "reply_p50_ms": round(_percentile(replies, 0.50) * 1000, 1),
        "reply_p95_ms": round(_percentile(replies, 0.95) * 1000, 1),
        "reply_p99_ms": round(_percentile(replies, 0.99) * 1000, 1),
        "reply_max_ms": round((replies[-1] if replies else 0.0) * 1000, 1),
        "board_posts_per_s": round(posts / window, 2),
        "board_edits_per_s": round(edits / window, 2),
        "board_redraws_per_s": round(redraws / window, 2),
        "hand_pictures_per_move": round(hands / moves, 2) if moves else None,
        "hand_replies_without_picture": load.hands_in_words,
        "board_pictures_per_move": round((posts + redraws) / moves, 2) if moves else None,
        "rest_calls_per_move": round(rest_calls / moves, 2) if moves else None,
        "board_lag_p50_ms": round(_percentile(lags, 0.50) * 1000, 1),
        "board_lag_p99_ms": round(_percentile(lags, 0.99) * 1000, 1),
        "board_lag_max_ms": round((lags[-1] if lags else 0.0) * 1000, 1),
        "plays_not_on_a_board": not_shown,
        "boards_drawn": drawn, "board_updates_up_to_date": up_to_date,
        "drawings_handed": handed,
        "board_pictures_several_plays_pct": round(several * 100 / showing, 1) if showing
        else None,
        "bot_cpu_pct": round((cpu1 - cpu0) / window * 100, 1),
        "bot_cpu_ms_per_move": round((cpu1 - cpu0) * 1000 / moves, 1) if moves else None,
        "helpers": len(helpers),
        "helpers_cpu_pct": round(helpers_cpu / window * 100, 1),
        "drawing_cpu_ms_per_move": round(helpers_cpu * 1000 / moves, 1) if moves else None,
        "all_cpu_pct": round(all_cpu / window * 100, 1),
        "all_cpu_ms_per_move": round(all_cpu * 1000 / moves, 1) if moves else None,
        "bench_cpu_pct": round((bench1 - bench0) / window * 100, 1),
        "bench_cpu_ms_per_move": round((bench1 - bench0) * 1000 / moves, 1) if moves else None,
        "machine_cpu_pct": busy_pct(machine0, machine1),
        "cores": os.cpu_count(),
        "yardstick_ms": yardstick, "yardstick_after_ms": yardstick_after,
        "loadavg_1m": round(loadavg, 2),
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "rss_mb": round(rss_kb / 1024, 1),
        "helpers_peak_rss_mb": round(helpers_peak_kb / 1024, 1),
        "all_peak_rss_mb": round((peak_kb + helpers_peak_kb) / 1024, 1),
        "sum_rss_peak_mb": round(memory.get("rss", 0) / 1024, 1),
        "sum_pss_peak_mb": round(memory.get("pss", 0) / 1024, 1),
        # PostgreSQL writes in its own server processes: not the bot's to count.
        "db_write_bytes_per_move": round((written1 - written0) / moves)
        if moves and sqlite else None,
        "db_mb": round(db_size / 1_048_576, 2) if db_size is not None else None,
        "errors": sum(errors.values()),
        "error_detail": errors,
        "setup_s": round(setup_s, 1),
        "fake_lag_p99_ms": round(_percentile(lag, 0.99) * 1000, 1),
        "board_delay_s": board_delay,
        "by_kind": _by_kind(records, {i: took for i, (_, took) in load.replies.items()}),
    }


async def _gone(pids: Sequence[int], timeout: float) -> None:
    """Wait until none of ``pids`` runs any more (at most ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def run_load(sizes: Sequence[int], *, plot: Path | None = None, **options: Any
             ) -> list[dict[str, Any]]:
    """A run per number of games in ``sizes`` (each also written to stderr as it ends, so a
    long series shows its progress); ``plot`` draws p99 against games."""
    rows = []
    for games in sizes:
        row = asyncio.run(run_one(games, **options))
        print("done:", json.dumps(row), file=sys.stderr, flush=True)
        print(summary(row), file=sys.stderr, flush=True)
        rows.append(row)
    if plot is not None:
        plot_p99(rows, plot)
    return rows


def summary(row: dict[str, Any]) -> str:
    """The issue-35 figures of a run in one line (the JSON row has them all)."""
    warm_up = f"after a warm-up of {row['warm_up_s']:g} s; " if row.get("warm_up_s") else ""
    return (f"{row['mode']} {row['games']} games ({row['tables_of_3']} tables of 3, "
            f"{row['tables_of_4']} of 4): {row['moves_per_s']} moves/s; board lag p50 "
            f"{row['board_lag_p50_ms'] / 1000:.2f} s p99 {row['board_lag_p99_ms'] / 1000:.2f} s;"
            f" reply p99 {row['reply_p99_ms']:.0f} ms ({row['hand_replies_without_picture']} "
            f"without their picture); first response p99 {row['p99_ms']:.0f} "
            f"ms; summed RSS {row['sum_rss_peak_mb']} MB; CPU ms per move: drawing "
            f"{row['drawing_cpu_ms_per_move']}, bot and drawing {row['all_cpu_ms_per_move']}, "
            f"harness {row['bench_cpu_ms_per_move']}; plays never on a board "
            f"{row['plays_not_on_a_board']}; errors {row['errors']}; load {row['loadavg_1m']}; "
            f"{warm_up}"
            f"yardstick {row['yardstick_ms']} ms, after {row['yardstick_after_ms']} ms")


def plot_p99(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """A PNG of first-response p99 (and p50) against the number of games, with the 250 ms
    target and Discord's 3 s limit as lines."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(Path(__file__).parent / "assets" / "DejaVuSans.ttf"), 12)
    width, height, left, right, top, bottom = 720, 420, 70, 20, 40, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    xs = [int(r["games"]) for r in rows]
    top_ms = max([3300.0] + [float(r["p99_ms"]) * 1.1 for r in rows])
    x_max = max(xs) if xs else 1

    def at(games: float, ms: float) -> tuple[float, float]:
        x = left + (width - left - right) * (games / x_max if x_max else 0)
        y = height - bottom - (height - top - bottom) * (ms / top_ms)
        return x, y

    draw.rectangle([left, top, width - right, height - bottom], outline="black")
    for ms, colour, label in ((250.0, "green", "250 ms target"), (3000.0, "red", "3 s limit")):
        y = at(0, ms)[1]
        draw.line([left, y, width - right, y], fill=colour)
        draw.text((left + 5, y - 12), label, fill=colour, font=font)
    for step in range(5):
        ms = top_ms * step / 4
        draw.text((5, at(0, ms)[1] - 6), f"{ms:.0f} ms", fill="black", font=font)
    for games in xs:
        x = at(games, 0)[0]
        draw.text((x - 8, height - bottom + 8), str(games), fill="black", font=font)
    for key, colour in (("p99_ms", "blue"), ("p50_ms", "gray")):
        points = [at(int(r["games"]), float(r[key])) for r in rows]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        for x, y in points:
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=colour)
    mode = rows[0]["mode"] if rows else ""
    draw.text((left, 12), f"First-response latency against open games ({mode}): "
                          "p99 blue, p50 grey", fill="black", font=font)
    draw.text((width // 2 - 20, height - 20), "games", fill="black", font=font)
    image.save(path, format="PNG")
