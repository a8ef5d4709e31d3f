"""Plans that settle a group in the fewest payments (``/ledger-plan``, issue 34).

A plan is proposed with the pair balances it was made from (``balances``) and the payments it
leaves; everyone whose balances it changes has a row in ``settle_plan_people`` and must
accept. The plan leaves ``open`` exactly once (a compare-and-set on its ``status``): refused,
withdrawn, expired, void (a balance between its members changed), or done.

Accepting is one transaction that holds the server's ledger lock (as every ledger write): the
plan is still open and unexpired, its members' balances are still the ones it was made from,
the acceptance is stored, and when it is the last one the netting lines are written and the
plan is done, in that same transaction. So an acceptance acknowledged is stored, a crash never
leaves a plan accepted by all but not netted, and two processes (shards on PostgreSQL) never
net one plan twice: the second finds it no longer open.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from .base import Records
from .interface import Conn, Row
from .ledger_records import balances_among, insert_netting_lines
from .rows import StorageError

__all__ = ["PlanRecords", "PlanRow", "Accepted"]

CLOSED = ("done", "refused", "withdrawn", "expired", "void")
"""What an open plan may become."""


@dataclass(frozen=True, slots=True)
class PlanRow:
    """A proposed plan and where its acceptances stand."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    proposer_id: int
    status: str
    created_at: float
    expires_at: float
    closed_at: float | None
    closed_by: int | None
    members: tuple[int, ...]
    balances: dict[tuple[int, int], int]
    """The pair balances between the members when the plan was made: ``(lower, higher)`` →
    cents the lower owes the higher."""
    payments: tuple[tuple[int, int, int], ...]
    """``(payer, payee, cents)``: the balances the plan leaves."""
    exact: bool
    accepted: dict[int, float | None] = field(default_factory=dict)
    """Everyone who must accept → when he did (``None``: not yet)."""

    @property
    def waiting(self) -> tuple[int, ...]:
        """Who has still to accept."""
        return tuple(user for user, when in self.accepted.items() if when is None)


@dataclass(frozen=True, slots=True)
class Accepted:
    """What an acceptance did: ``outcome`` is ``accepted`` (others still to accept),
    ``done`` (the last one: netted, ``ledger_ids``), ``again`` (he had already accepted),
    ``outsider`` (not someone who must accept), ``closed`` (the plan is no longer open: see
    ``plan.status``), ``expired`` or ``void`` (it has just become so: nothing netted)."""

    outcome: str
    plan: PlanRow
    ledger_ids: tuple[int, ...] = ()


def _loads(text: str, what: str) -> list[list[int]]:
    try:
        value = json.loads(text)
    except ValueError:
        raise StorageError(f"The saved plan's {what} are damaged.") from None
    if not isinstance(value, list):
        raise StorageError(f"The saved plan's {what} are damaged.")
    return value


def _plan(row: Row, people: Sequence[Row]) -> PlanRow:
    balances = {(int(low), int(high)): int(cents)
                for low, high, cents in _loads(row["balances"], "balances")}
    payments = tuple((int(a), int(b), int(c)) for a, b, c in _loads(row["payments"], "payments"))
    members = tuple(int(m) for m in json.loads(row["members"]))
    return PlanRow(
        id=int(row["id"]), guild_id=int(row["guild_id"]), channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        proposer_id=int(row["proposer_id"]), status=str(row["status"]),
        created_at=float(row["created_at"]), expires_at=float(row["expires_at"]),
        closed_at=None if row["closed_at"] is None else float(row["closed_at"]),
        closed_by=None if row["closed_by"] is None else int(row["closed_by"]),
        members=members, balances=balances, payments=payments, exact=bool(row["exact"]),
        accepted={int(p["user_id"]): (None if p["accepted_at"] is None
                                      else float(p["accepted_at"])) for p in people})


async def _read(conn: Conn, plan_id: int) -> PlanRow | None:
    row = await conn.fetchone("SELECT * FROM settle_plans WHERE id = ?", (plan_id,))
    if row is None:
        return None
    people = await conn.fetchall(
        "SELECT user_id, accepted_at FROM settle_plan_people WHERE plan_id = ? ORDER BY user_id",
        (plan_id,))
    return _plan(row, people)


class PlanRecords(Records):
    """``settle_plans`` and ``settle_plan_people``."""

    async def create_plan(self, *, guild_id: int, channel_id: int, proposer_id: int,
                          members: Sequence[int], balances: dict[tuple[int, int], int],
                          payments: Sequence[tuple[int, int, int]], exact: bool,
                          must_accept: Sequence[int], expires_at: float) -> PlanRow:
        """A new open plan; ``must_accept`` are those whose balances it changes."""
        async with self._db.transaction() as conn:
            plan_id = int(await conn.fetchval(
                "INSERT INTO settle_plans (guild_id, channel_id, proposer_id, created_at, "
                "expires_at, members, balances, payments, exact) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (guild_id, channel_id, proposer_id, self.clock(), expires_at,
                 json.dumps(sorted(members)),
                 json.dumps([[low, high, cents] for (low, high), cents in
                             sorted(balances.items())]),
                 json.dumps([list(p) for p in payments]), int(exact))))
            await conn.executemany(
                "INSERT INTO settle_plan_people (plan_id, user_id) VALUES (?, ?)",
                [(plan_id, user) for user in sorted(set(must_accept))])
            plan = await _read(conn, plan_id)
        assert plan is not None
        return plan

    async def get_plan(self, plan_id: int) -> PlanRow | None:
        """One plan, or ``None``."""
        async with self._db.connection() as conn:
            return await _read(conn, plan_id)

    async def set_message(self, plan_id: int, message_id: int) -> None:
        """The public message that shows the plan (edited as it is accepted or closed)."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE settle_plans SET message_id = ? WHERE id = ?",
                               (message_id, plan_id))

    async def _guild_of(self, plan_id: int) -> int | None:
        # The server whose ledger lock a change of the plan takes (read before the lock).
        async with self._db.connection() as peek:
            guild = await peek.fetchval("SELECT guild_id FROM settle_plans WHERE id = ?",
                                        (plan_id,))
        return None if guild is None else int(guild)

    async def close_plan(self, plan_id: int, status: str, by: int | None) -> PlanRow | None:
        """Refuse, withdraw, expire or void an open plan; the plan as it is now, or ``None``
        if it was no longer open (someone else closed or completed it first)."""
        if status not in CLOSED or status == "done":
            raise ValueError(status)
        guild = await self._guild_of(plan_id)
        if guild is None:
            return None
        async with self._db.transaction() as conn:
            # The ledger lock, as an acceptance takes it: a refusal and the last acceptance
            # (from another process) come one after the other, never interleaved.
            await conn.lock_ledger(guild)
            changed = await conn.execute(
                "UPDATE settle_plans SET status = ?, closed_at = ?, closed_by = ? "
                "WHERE id = ? AND status = 'open'", (status, self.clock(), by, plan_id))
            return await _read(conn, plan_id) if changed == 1 else None

    async def accept(self, plan_id: int, user_id: int,
                     netting: Sequence[tuple[int, int, int]]) -> Accepted | None:
        """``user_id`` accepts the plan; when he is the last, its ``netting`` lines
        (``(debtor, creditor, cents)``, computed from the plan's balances and payments) are
        written, all in one transaction (see the module's docstring). ``None``: no such plan."""
        now = self.clock()
        guild = await self._guild_of(plan_id)
        if guild is None:
            return None
        async with self._db.transaction() as conn:
            await conn.lock_ledger(guild)
            plan = await _read(conn, plan_id)
            assert plan is not None
            if plan.status != "open":
                return Accepted("closed", plan)
            if user_id not in plan.accepted:
                return Accepted("outsider", plan)
            if plan.accepted[user_id] is not None:
                return Accepted("again", plan)
            closing = None
            if plan.expires_at <= now:
                closing = "expired"
            elif await balances_among(conn, plan.guild_id, plan.members) != plan.balances:
                closing = "void"
            if closing is not None:
                await conn.execute(
                    "UPDATE settle_plans SET status = ?, closed_at = ? WHERE id = ? AND "
                    "status = 'open'", (closing, now, plan_id))
                closed = await _read(conn, plan_id)
                assert closed is not None
                return Accepted(closing, closed)
            await conn.execute(
                "UPDATE settle_plan_people SET accepted_at = ? WHERE plan_id = ? AND "
                "user_id = ? AND accepted_at IS NULL", (now, plan_id, user_id))
            ledger_ids: list[int] = []
            if len(plan.waiting) == 1:  # he was the last
                if await conn.execute(
                        "UPDATE settle_plans SET status = 'done', closed_at = ? WHERE id = ? "
                        "AND status = 'open'", (now, plan_id)) != 1:
                    raise StorageError("The plan was closed while it was being netted.")
                ledger_ids = await insert_netting_lines(conn, plan.guild_id, netting,
                                                        f"plan #{plan_id}", user_id, now)
            after = await _read(conn, plan_id)
        assert after is not None
        return Accepted("done" if ledger_ids or after.status == "done" else "accepted", after,
                        tuple(ledger_ids))

    async def still_open(self, guild_ids: Sequence[int] | None = None) -> list[PlanRow]:
        """The open plans (of these servers), oldest first."""
        if guild_ids is not None and not guild_ids:
            return []
        # The servers are filtered here, not in SQL: a process's servers (every housekeeping
        # round asks for all of them) may be more than a query takes parameters (32,766 on
        # SQLite, 32,767 on PostgreSQL), and open plans are few.
        wanted = None if guild_ids is None else set(guild_ids)
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT id, guild_id FROM settle_plans WHERE status = 'open' ORDER BY id")
            plans = [await _read(conn, int(r["id"])) for r in rows
                     if wanted is None or int(r["guild_id"]) in wanted]
        return [p for p in plans if p is not None]

    async def balances_now(self, plan: PlanRow) -> dict[tuple[int, int], int]:
        """The pair balances between the plan's members now."""
        async with self._db.connection() as conn:
            return await balances_among(conn, plan.guild_id, plan.members)
