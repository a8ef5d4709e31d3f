"""PlanService: settle a whole group in the fewest payments, once everyone concerned agrees
(``/ledger-plan``, issue 34).

A plan is computed from the notebook's pair balances (``settle_plan.plan_settlement``: exact
up to 16 people, greedy beyond, in a thread: a second of CPU for 16 people would stall the
bot) and proposed; each person whose pairwise balances it changes accepts or refuses it. When
the last one accepts, the plan's netting lines are written (one per changed pair, each
person's net position unchanged to the cent) in the same transaction as his acceptance
(``PlanRecords.accept``). Nothing is netted if anyone refuses, if the proposer withdraws it,
if it expires, or if any balance between its members changes before everyone has accepted
(void). Then each planned payment is settled as any other, with ``/settle``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.storage import Storage
from bot.storage.plan_records import Accepted, PlanRow
from bot.user_errors import UserError

from .amounts import format_amount
from .settle_plan import (
    Owed,
    PersonChange,
    SettlePlan,
    netting_entries,
    pair_balances,
    person_changes,
    plan_settlement,
)

__all__ = ["MAX_MEMBERS", "PlanService", "Proposal", "check_members", "describe_change",
           "parse_members"]

MAX_MEMBERS = 200
"""The most people one plan takes (its message and picture stay readable; the plan is greedy
beyond 16 anyway)."""

_MENTION = re.compile(r"<@!?([0-9]{1,20})>|([0-9]{15,20})")
_ROLE = re.compile(r"<@&[0-9]+>|@everyone|@here")


def check_members(text: str) -> str:
    """``members:`` stripped; ``UserError`` if it is empty or names a role (checked before
    anything is read: names are looked up later)."""
    text = text.strip()
    if not text:
        raise UserError("Name the members with @mentions (e.g. `@Alice @Bob @Carol`), or leave "
                        "`members` out for everyone with an open balance.")
    if _ROLE.search(text):
        raise UserError("Roles and @everyone can't be planned for: mention the members "
                        "themselves, or leave `members` out for everyone with a balance.")
    return text


def parse_members(text: str, named: Callable[[str], int | None] | None = None) -> list[int]:
    """The people named in ``members:``: mentions (``<@123>``) or ids, separated by spaces or
    commas; a word that is neither is looked up with ``named`` (a member's name, with or
    without its @: the bot's cache of the server's members), if given. Raises ``UserError``
    for anything else (a name nobody has, a role)."""
    text = check_members(text)
    found: list[int] = []
    for token in re.split(r"[\s,]+", text):
        if not token:
            continue
        pieces = list(_MENTION.finditer(token))
        if not pieces and named is not None and (user := named(token.lstrip("@"))):
            if user not in found:
                found.append(user)
            continue
        if not pieces or "".join(m.group(0) for m in pieces) != token:
            shown = token if len(token) <= 40 else token[:37] + "…"
            raise UserError(f"`{shown.replace('`', '')}` isn't a member: pick each one from "
                            "the @ list so that it becomes a mention (e.g. `@Alice @Bob`).")
        for match in pieces:
            user = int(match.group(1) or match.group(2))
            if user not in found:
                found.append(user)
    if len(found) > MAX_MEMBERS:
        raise UserError(f"A plan takes at most {MAX_MEMBERS} members.")
    return found


@dataclass(frozen=True, slots=True)
class Proposal:
    """A plan as ``/ledger-plan`` shows it: the computed plan, and its stored proposal (``None``
    when the balances already are the plan: nothing to agree)."""

    plan: SettlePlan
    row: PlanRow | None


def _money(cents: int, currency: str) -> str:
    return format_amount(abs(cents), currency)


OWED_LISTED = 15
"""The most balances one side of "what changes for me" lists (the largest first): a person
with a balance with 199 others would read 6,000 characters, past a message's 2,000."""


def _owed_words(owed: Sequence[Owed], currency: str) -> list[str]:
    words = [f"{_money(o.cents, currency)} {'to' if o.cents > 0 else 'from'} <@{o.other}>"
             for o in owed[:OWED_LISTED]]
    if len(owed) > OWED_LISTED:
        rest = sum(o.cents for o in owed[OWED_LISTED:])
        side = "you owe" if rest > 0 else "owed to you"
        words.append(f"{len(owed) - OWED_LISTED} smaller balances "
                     + (f"({_money(rest, currency)} {side} in all)" if rest else
                        "(square in all)"))
    return words


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def describe_change(change: PersonChange, currency: str) -> str:
    """What a plan changes for one person, in his words: "your $4.00 to <@Bob> becomes
    $1.00 to <@Carol>"."""
    before, after = _owed_words(change.before, currency), _owed_words(change.after, currency)
    if not change.changed:
        return "Nothing changes for you: your balances already are the plan's."
    if not before:
        head = "You have no balance with them now"
        return f"{head}; after the plan: {_and(after)}."
    verb = "becomes" if len(before) == 1 else "become"
    tail = _and(after) if after else "nothing: you are square with all of them"
    net = ("you are owed " if change.net_cents > 0 else "you owe ") + \
        _money(change.net_cents, currency) if change.net_cents else "you are square"
    return f"Your {_and(before)} {verb} {tail} (in all {net}, as before)."


class PlanService:
    """Plans: propose, accept, refuse, withdraw, and close those expired or void. Every
    method may raise ``UserError``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def propose(self, *, guild_id: int, channel_id: int, proposer: int,
                      members: Sequence[int] | None) -> Proposal:
        """The plan for ``members`` (everyone with an open balance when ``None``), stored as
        an open proposal when it changes anyone's balances."""
        settings = await self.storage.settings.get_settings(guild_id)
        if settings.points_only:
            raise UserError("This server plays for points only: there is nothing to settle.")
        if members is not None and len(members) < 2:
            raise UserError("A plan needs at least two members: name two or more, or leave "
                            "`members` out for everyone with an open balance.")
        # Only the balances among the members named (the SQL leaves the others out).
        lines = await self.storage.ledger.open_balances(
            guild_id, None if members is None else sorted(set(members)))
        chosen = None if members is None else set(members)
        # Pure CPU (up to a second for 16 people): in a thread, so the bot keeps answering.
        plan = await asyncio.to_thread(plan_settlement, lines, chosen)
        if not plan.members:
            if members is None:
                raise UserError("Nobody in this server owes anyone anything: there is nothing "
                                "to plan.")
            raise UserError("None of these members owes another of them anything: there is "
                            "nothing to plan. (Only balances between the members named count.)")
        if len(plan.members) > MAX_MEMBERS:
            raise UserError(f"{len(plan.members)} people have an open balance: more than a "
                            f"plan takes ({MAX_MEMBERS}). Name some with `members`.")
        if not plan.netting:
            return Proposal(plan, None)
        before = pair_balances(lines)
        for waiting in await self.storage.plans.still_open([guild_id]):
            if waiting.members == plan.members and waiting.balances == before \
                    and waiting.expires_at > self.storage.clock():
                where = (f" (https://discord.com/channels/{guild_id}/{waiting.channel_id}/"
                         f"{waiting.message_id})" if waiting.message_id is not None else "")
                raise UserError(f"Plan #{waiting.id} for these people is still waiting to be "
                                f"accepted{where}: accept or refuse it there, or its proposer "
                                "may withdraw it.")
        row = await self.storage.plans.create_plan(
            guild_id=guild_id, channel_id=channel_id, proposer_id=proposer,
            members=plan.members, balances=before,
            payments=[(p.payer, p.payee, p.cents) for p in plan.payments], exact=plan.exact,
            must_accept=plan.must_agree,
            expires_at=self.storage.clock() + settings.plan_expiry_s)
        return Proposal(plan, row)

    async def people_with_balances(self, guild_id: int) -> list[int]:
        """Everyone with an open balance in the server."""
        return await self.storage.ledger.people_with_balances(guild_id)

    async def set_message(self, plan_id: int, message_id: int) -> None:
        """Remember the proposal's public message."""
        await self.storage.plans.set_message(plan_id, message_id)

    async def find(self, plan_id: int) -> PlanRow | None:
        """A plan, or ``None``."""
        return await self.storage.plans.get_plan(plan_id)

    async def get(self, plan_id: int) -> PlanRow:
        """A plan; ``UserError`` if there is none."""
        row = await self.storage.plans.get_plan(plan_id)
        if row is None:
            raise UserError("That plan no longer exists.")
        return row

    @staticmethod
    def changes(row: PlanRow) -> dict[int, PersonChange]:
        """What the plan changes for each of its members."""
        return {c.user: c for c in person_changes(row.balances, row.payments)}

    async def accept(self, plan_id: int, user: int) -> Accepted:
        """``user`` accepts; the last acceptance nets the plan. Refusals (a user who is not
        asked, a second acceptance, a closed, expired or void plan) raise ``UserError`` and
        change nothing, but a plan found expired or void is closed first."""
        row = await self.get(plan_id)
        netting = netting_entries(row.balances, pair_balances(row.payments))
        done = await self.storage.plans.accept(
            plan_id, user, [(e.debtor, e.creditor, e.cents) for e in netting])
        if done is None:
            raise UserError("That plan no longer exists.")
        if done.outcome == "outsider":
            raise UserError(f"Plan #{plan_id} doesn't change your balances: only the people "
                            "whose balances it changes accept it. Nothing was changed.")
        if done.outcome == "again":
            waiting = [f"<@{u}>" for u in done.plan.waiting[:20]]
            if len(done.plan.waiting) > 20:
                waiting.append(f"{len(done.plan.waiting) - 20} more")
            raise UserError(f"You already accepted plan #{plan_id}; it waits for "
                            f"{_and(waiting)}.")
        if done.outcome == "closed":
            raise UserError(closed_words(done.plan) + " Nothing was changed.")
        return done

    async def refuse(self, plan_id: int, user: int) -> PlanRow:
        """``user``, who is asked to accept, refuses: the plan ends, nothing netted."""
        row = await self.get(plan_id)
        if user not in row.accepted:
            raise UserError(f"Plan #{plan_id} doesn't change your balances: only the people "
                            "whose balances it changes may refuse it.")
        return await self._close(row, "refused", user)

    async def withdraw(self, plan_id: int, user: int) -> PlanRow:
        """The proposer withdraws his plan: it ends, nothing netted."""
        row = await self.get(plan_id)
        if user != row.proposer_id:
            raise UserError(f"Only <@{row.proposer_id}>, who proposed plan #{plan_id}, can "
                            "withdraw it.")
        return await self._close(row, "withdrawn", user)

    async def _close(self, row: PlanRow, status: str, user: int) -> PlanRow:
        if row.status != "open":
            raise UserError(closed_words(row) + " Nothing was changed.")
        due = await self._due(row)
        closed = await self.storage.plans.close_plan(row.id, due or status,
                                                     None if due else user)
        if closed is None:  # closed meanwhile by someone else
            raise UserError(closed_words(await self.get(row.id)) + " Nothing was changed.")
        if due:
            raise UserError(closed_words(closed) + " Nothing was changed.")
        return closed

    async def _due(self, row: PlanRow) -> str | None:
        if row.expires_at <= self.storage.clock():
            return "expired"
        if await self.storage.plans.balances_now(row) != row.balances:
            return "void"
        return None

    async def close_due(self, guild_ids: Sequence[int] | None = None) -> list[PlanRow]:
        """Close the open plans (of these servers) that have expired or whose balances changed
        (void); the plans closed now, for their messages to say so."""
        out = []
        for row in await self.storage.plans.still_open(guild_ids):
            due = await self._due(row)
            if due is not None:
                closed = await self.storage.plans.close_plan(row.id, due, None)
                if closed is not None:
                    out.append(closed)
        return out


def closed_words(row: PlanRow) -> str:
    """Why a plan is no longer open, in a sentence."""
    by = f" by <@{row.closed_by}>" if row.closed_by is not None else ""
    return {
        "done": f"Plan #{row.id} was accepted by everyone and is netted.",
        "refused": f"Plan #{row.id} was refused{by}.",
        "withdrawn": f"Plan #{row.id} was withdrawn{by}.",
        "expired": f"Plan #{row.id} expired before everyone accepted it.",
        "void": f"Plan #{row.id} is void: a balance between its members changed (a game "
                "ended or a payment was recorded) before everyone accepted it.",
    }.get(row.status, f"Plan #{row.id} is {row.status}.")
