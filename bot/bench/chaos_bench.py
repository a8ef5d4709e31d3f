"""``python -m bot.bench chaos``: the real bot, as a process, plays games against the fake
Discord while faults are injected, then says what survived.

The players are the load benchmark's (``load_players.Load``), each remembering every move it
tried and every move answered ✅. The faults: a share of the REST calls of every kind a game
makes (``--fault-rate``: posts, edits, follow-ups, callbacks, threads, fetches) answered
500, 502, 503 or 429 (discord.py retries some of these itself), gateway connections dropped
every ``--gateway-every`` seconds (a third of them with the resume refused, so the bot must
identify again), and with ``--database private`` a PostgreSQL server of its own
(``pgserver.py``) stopped for ``--db-outage`` seconds in the middle of the run. After
``--duration`` seconds of play the faults stop, the bot gets ``--settle`` seconds to catch up,
and the database is read with the bot stopped:

- ``moves_acknowledged``: moves the players saw ✅ for;
- ``moves_lost`` (must be 0): acknowledged moves missing from the stored games (each table's
  acknowledged moves must be a subsequence of what its games stored);
- ``moves_doubled`` (must be 0): stored moves no player made (what is stored must be a
  subsequence of the moves tried: a move tried once is stored once at most);
- ``games_finished``; ``boards_current`` of ``boards``: games whose board shows the saved
  version at the end (all);
- ``answered_within_3s``: interactions the bot answered (its deferral) within Discord's 3 s,
  of ``interactions``; ``late`` lists the others (at most ten): what they were, when the first
  answer came (``null``: never), and the faults injected on their callback (when each came);
- ``faults_injected`` and ``retries``: calls answered with a fault, and calls made again
  after one (by discord.py or by the bot).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bot.sandbox import Fault, GatewayChaos
from bot.sandbox.load import LoadFakeDiscord

from .bot_process import BotProcess
from .load_players import Load, Table

__all__ = ["late_interactions", "run_chaos"]

FAULT_KINDS = ("post", "edit", "followup", "followup_edit", "callback", "thread",
               "thread_member", "channel_edit", "fetch")
FAULT_MIX = (Fault.error(500), Fault.error(502), Fault.error(503), Fault.rate_limited(0.5))


def late_interactions(records: list[Any], injected: list[Any],
                      limit: int = 10) -> list[dict[str, Any]]:
    """The interactions not answered within 3 s (at most ``limit``): name, latency (``None``:
    never answered) and the faults injected on their callback, with when each came after the
    interaction was made (both wall-clock times)."""
    late: list[dict[str, Any]] = []
    for r in records:
        if r.latency is not None and r.latency <= 3.0:
            continue
        path = f"/interactions/{r.id}/{r.token}/callback"
        faults = [f"{f.fault.status} at {f.at - r.created_wall:.2f} s"
                  for f in injected if f.path.endswith(path)]
        late.append({"name": r.name,
                     "latency_s": None if r.latency is None else round(r.latency, 2),
                     "callback_faults": faults})
    return late[:limit]


def _is_subsequence(short: list[str], long: list[str]) -> tuple[bool, int]:
    """Whether ``short`` is a subsequence of ``long``; and how many of ``short`` matched."""
    rest = iter(long)
    matched = 0
    for item in short:
        if any(item == other for other in rest):
            matched += 1
        else:
            return False, matched
    return True, matched


def _lost(acked: list[str], stored: list[str]) -> int:
    """Acknowledged moves not found, in order, among those stored."""
    missing = 0
    rest = list(stored)
    for move in acked:
        if move in rest:
            rest = rest[rest.index(move) + 1:]
        else:
            missing += 1
    return missing


class ChaosLoad(Load):
    """The load benchmark's players, remembering each move tried and each acknowledged."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tried: defaultdict[int, list[str]] = defaultdict(list)
        self.acked: defaultdict[int, list[str]] = defaultdict(list)
        self.table_of: dict[int, Table] = {}

    @staticmethod
    def _text(choice: tuple[str, str] | None) -> str:
        from engine import Move

        return "pass" if choice is None else Move.parse(f"{choice[0]}>{choice[1]}").text

    def _note(self, table: Table, choice: tuple[str, str] | None, reply: Any) -> None:
        if reply is not None and "✅" in reply.content:
            self.acked[table.index].append(self._text(choice))

    async def _typed(self, table: Table, user: Any, choice: tuple[str, str] | None
                     ) -> Any | None:
        self.tried[table.index].append(self._text(choice))
        reply = await super()._typed(table, user, choice)
        self._note(table, choice, reply)
        return reply

    async def _by_buttons(self, user: Any, message: Any, choice: tuple[str, str] | None,
                          pass_id: str | None) -> Any | None:
        table = self.table_of[user.id]
        self.tried[table.index].append(self._text(choice))
        reply = await super()._by_buttons(user, message, choice, pass_id)
        self._note(table, choice, reply)
        return reply


async def _database(kind: str, workdir: Path, stack: contextlib.AsyncExitStack
                    ) -> tuple[str, Any]:
    """The run's database URL, and the private server to stop (if any)."""
    if kind == "sqlite":
        return str(workdir / "bot.sqlite3"), None
    from bot.storage.postgres_driver import scratch_schema

    if kind == "private":
        from .pgserver import PrivatePostgres

        server = PrivatePostgres()
        server.start()
        stack.callback(server.remove)
        return server.url, server
    url = await stack.enter_async_context(scratch_schema(kind, "bench_chaos"))
    return url, None


async def _outage(server: Any, after: float, seconds: float, log: list[str]) -> None:
    await asyncio.sleep(after)
    log.append(f"database stopped at {after:.0f} s")
    await asyncio.to_thread(server.stop)
    await asyncio.sleep(seconds)
    await asyncio.to_thread(server.start)
    log.append(f"database back after {seconds:.0f} s")


async def _verify(db: str, players: dict[int, tuple[int, int]], load: ChaosLoad
                  ) -> dict[str, int]:
    from bot.storage import Storage

    storage = await Storage.open(db)
    try:
        lost = doubled = finished = boards = current = 0
        for index, pair in players.items():
            stored: list[str] = []
            async with storage._db.connection() as conn:
                rows = await conn.fetchall(
                    "SELECT id FROM games WHERE player0_id = ? AND player1_id = ? ORDER BY id",
                    pair)
            for row in rows:
                game = await storage.games.get_game(int(row["id"]))
                assert game is not None
                boards += 1
                current += int(game.board_version == game.version)
                finished += int(game.status == "finished")
                stored += [text for _, _, user, text in await storage.games.move_log(game.id)
                           if user is not None]
            lost += _lost(load.acked[index], stored)
            ok, matched = _is_subsequence(stored, load.tried[index])
            doubled += 0 if ok else len(stored) - matched
        return {"moves_lost": lost, "moves_doubled": doubled, "games_finished": finished,
                "boards": boards, "boards_current": current}
    finally:
        await storage.close()


async def run_chaos(games: int = 10, *, duration: float = 60.0, fault_rate: float = 0.05,
                    gateway_every: float = 30.0, database: str = "sqlite",
                    db_outage: float = 30.0, settle: float = 90.0, seed: int = 1,
                    board_delay: float = 1.0) -> dict[str, Any]:
    """One chaos run; its figures (see the module's docstring)."""
    fake = LoadFakeDiscord()
    await fake.start()
    guild = fake.add_guild("Chaos Guild", channels=("general",))
    channel = guild.channel("general")
    rules = ("kings", "classic")
    tables = [Table(i, (fake.add_member(guild, f"p{i}a"), fake.add_member(guild, f"p{i}b")),
                    rules[i % 2], random.Random(seed * 100_003 + i), channel=channel)
              for i in range(games)]
    load = ChaosLoad(fake, channel, "paced", 2.0)
    for table in tables:
        for user in table.players:
            load.table_of[user.id] = table
    events: list[str] = []
    async with contextlib.AsyncExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-chaos-")))
        db, server = await _database(database, workdir, stack)
        bot = await BotProcess.start(fake, workdir, db, board_delay, None)
        chaos = GatewayChaos(fake.gateway, gateway_every, refuse_resume=1 / 3, seed=seed)
        outage: asyncio.Task[None] | None = None
        try:
            await fake.wait_for(lambda: "challenge" in fake.state.commands(), timeout=60,
                                description="commands synced")
            await fake.wait_for(lambda: fake.state.connected_count() > 0, timeout=30,
                                description="gateway connected")
            await asyncio.sleep(0.5)
            # The faults start with the play: the games are opened under them too.
            fake.faults.seed = seed
            for kind in FAULT_KINDS:
                fake.faults.rate(kind, fault_rate, *FAULT_MIX)
            chaos.start()
            if server is not None:
                outage = asyncio.create_task(_outage(server, duration / 2,
                                                     min(db_outage, duration / 3), events))
            started = time.monotonic()
            players = [asyncio.create_task(load.play(t, t.rng.uniform(0, 2.0)))
                       for t in tables]
            await asyncio.sleep(duration)
            load.stopping = True
            await asyncio.wait(players, timeout=40)
            for task in players:
                task.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            if outage is not None:
                await outage
            await chaos.stop()
            fake.faults.clear()
            played = time.monotonic() - started
            # The bot catches up: every board at its saved version (read from the database
            # by the bot's own housekeeping and retries; here, checked at the end).
            await asyncio.sleep(min(settle, 10.0))
            deadline = time.monotonic() + settle
            players_ids = {t.index: (t.players[0].id, t.players[1].id) for t in tables}
            figures = await _verify(db, players_ids, load)
            while figures["boards_current"] < figures["boards"] and time.monotonic() < deadline:
                await asyncio.sleep(2.0)
                figures = await _verify(db, players_ids, load)
        finally:
            await chaos.stop()
            status = await bot.stop()
            await fake.stop()
        figures = await _verify(db, players_ids, load)  # with the bot stopped
        errors = bot.log_errors()
    records = fake.interactions
    answered = sum(1 for r in records if r.latency is not None and r.latency <= 3.0)
    injected = fake.faults.injected
    retries = 0
    for fault in injected:
        if any(r.at > fault.at and r.method == fault.method and r.path == fault.path
               for r in fake.requests):
            retries += 1
    for line in sorted(set(errors))[:8]:
        print("bot log:", line[:300], file=sys.stderr)
    return {
        "name": "chaos",
        "backend": "sqlite" if database == "sqlite" else "postgresql",
        "games": games,
        "duration_s": round(played, 1),
        "fault_rate": fault_rate,
        "gateway_every_s": gateway_every,
        "moves_acknowledged": sum(map(len, load.acked.values())),
        "moves_tried": sum(map(len, load.tried.values())),
        **figures,
        "interactions": len(records),
        "answered_within_3s": answered,
        "late": late_interactions(records, injected),
        "faults_injected": len(injected),
        "retries": retries,
        "gateway_drops": chaos.drops,
        "resumes_refused": chaos.refused,
        "database_events": events,
        "bot_log_errors": len(errors),
        "bot_exit_status": status,
    }
