"""``/ledger-plan``: settle a whole group in the fewest payments (issue 34). Thin: it calls the
``PlanService`` and formats its answers.

``/ledger`` stays what it was (your balances; with a member, your notebook with him): Discord
can't run a command that also has subcommands, so ``/ledger plan`` would have broken every
``/ledger`` people type. ``/ledger-plan`` sits right beside it in Discord's command list (it
starts the same) and reads the same.

The plan is posted publicly, with its picture, under four buttons (``sm:plan:v1:<plan>:
<mine|accept|refuse|withdraw>``). Every answer to a button is private; the public message is
edited as the plan is accepted, and says when it is netted, refused, withdrawn, expired or
void (the housekeeping round edits it for the last two when nobody clicks).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.money.amounts import format_amount
from bot.money.plans import (
    PlanService,
    Proposal,
    check_members,
    closed_words,
    describe_change,
    parse_members,
)
from bot.money.settle_plan import EXACT_LIMIT, net_positions
from bot.pictures.drawing import pictures
from bot.pictures.plan_picture import render_plan
from bot.storage.plan_records import PlanRow
from bot.user_errors import UserError

from .. import custom_ids as ids
from ..host import Host, Interaction
from ..ui import Controls, Guarded, reply_error, think
from .money_commands import known_names

__all__ = ["DYNAMIC_ITEMS", "PlanButton", "PlanCog", "close_due_plans", "plan_controls",
           "plan_text"]

_INSTEAD = "/ledger-plan"
MESSAGE_LIMIT = 2000
"""Discord's most characters a message."""


def _plans(interaction: Interaction) -> PlanService:
    return interaction.client.plans


def _money(cents: int, currency: str) -> str:
    return format_amount(abs(cents), currency)


def _some(users: list[int] | tuple[int, ...], most: int = 20) -> str:
    shown = ", ".join(f"<@{u}>" for u in users[:most])
    return shown + (f" and {len(users) - most} more" if len(users) > most else "")


def _fit(items: list[str], sep: str, room: int, more: str) -> str:
    """As many of ``items`` (joined by ``sep``) as fit in ``room`` characters, then ``more``
    (formatted with the count left out) when some are left out."""
    out = sep.join(items)
    if len(out) <= room:
        return out
    shown: list[str] = []
    for n, item in enumerate(items):
        tail = more.format(len(items) - n - 1)
        if len(sep.join([*shown, item, tail])) > room:
            break
        shown.append(item)
    return sep.join([*shown, more.format(len(items) - len(shown))])


def plan_text(row: PlanRow | None, proposal: Proposal | None, currency: str,
              note: str = "") -> str:
    """The message of a plan: the payments, who must accept, and where it stands (with
    ``note`` after it), under 2,000 characters however many people it has: its head and its
    state are always whole, the net positions and the payments listed as far as they fit,
    with how many more (the picture shows them all)."""
    if row is not None:
        payments = row.payments
        exact, open_pairs = row.exact, len(row.balances)
        head = (f"**Plan #{row.id}** to settle up, proposed by <@{row.proposer_id}>: "
                f"{len(payments)} payment{'s' if len(payments) != 1 else ''} instead of "
                f"{open_pairs}.")
    else:
        assert proposal is not None
        payments = tuple((p.payer, p.payee, p.cents) for p in proposal.plan.payments)
        exact, open_pairs = proposal.plan.exact, proposal.plan.open_pairs
        head = ("This one payment settles everyone, and it already is the balance: "
                "nothing to agree. Settle it with `/settle`." if len(payments) == 1 else
                f"These {len(payments)} payments settle everyone, and they already are "
                "the balances: nothing to agree. Settle each with `/settle`.")
    positions = (net_positions((low, high, cents) for (low, high), cents in row.balances.items())
                 if row is not None else dict(proposal.plan.positions) if proposal else {})
    nets = [f"<@{user}> {'is owed' if cents > 0 else 'owes'} {_money(cents, currency)}"
            for user, cents in sorted(positions.items(), key=lambda kv: (-kv[1], kv[0]))
            if cents]
    square = sum(1 for cents in positions.values() if not cents)
    tail = ["The fewest payments possible." if exact else
            f"More than {EXACT_LIMIT} people: a quick plan of at most one payment fewer "
            "than the people in it, maybe not the fewest."]
    if row is not None:
        tail.append("Nobody's total changes: only who pays whom. Each person whose balances "
                    "change must accept; press **What changes for me?** to see yours.")
        accepted = [u for u, when in row.accepted.items() if when is not None]
        if row.status == "open":
            if accepted:
                tail.append(f"Accepted by {_some(accepted)}.")
            tail.append(f"Waiting for {_some(row.waiting)} · expires "
                        f"<t:{int(row.expires_at)}:R>.")
        elif row.status == "done":
            tail.append("✅ Accepted by everyone and netted in the notebook. Now settle each "
                        "payment with `/settle`.")
        else:
            tail.append(f"❌ {closed_words(row)} Nothing was changed.")
    if note:
        tail.append(note)
    # What the lists may take: the limit less the head, the tail and the line breaks; the
    # net positions at least a third when both don't fit, the payments the rest.
    room = MESSAGE_LIMIT - len(head) - sum(len(t) + 1 for t in tail) - 2
    squares = f" · {square} square" if square else ""
    pays = [f"• <@{payer}> pays <@{payee}> **{_money(cents, currency)}**"
            for payer, payee, cents in payments]
    net_room = max(room // 3, room - len("\n".join(pays)) - 1) - len("Net positions: ") \
        - len(squares)
    net_line = "Net positions: " + _fit(nets, " · ", max(0, net_room), "{} more") + squares
    pay_lines = _fit(pays, "\n", max(0, room - len(net_line) - 1),
                     "… and {} more (see the picture).")
    return "\n".join([head, net_line, *([pay_lines] if pay_lines else []), *tail]
                     )[:MESSAGE_LIMIT]


class PlanButton(Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.template("plan", ids.number("id"),
                                       "(?P<action>mine|accept|refuse|withdraw)",
                                       instead=_INSTEAD)):
    """What a plan changes for me, accept, refuse, withdraw (the proposer)."""

    LABELS = {"mine": ("What changes for me?", discord.ButtonStyle.secondary),
              "accept": ("Accept", discord.ButtonStyle.success),
              "refuse": ("Refuse", discord.ButtonStyle.danger),
              "withdraw": ("Withdraw", discord.ButtonStyle.secondary)}

    def __init__(self, plan_id: int, action: str, disabled: bool = False) -> None:
        label, style = self.LABELS[action]
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=ids.make("plan", plan_id, action)))
        self.plan_id, self.action = plan_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[discord.Client],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> PlanButton:
        return cls(int(match["id"]), match["action"])

    async def act(self, interaction: Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        plans = _plans(interaction)
        user = interaction.user.id
        try:
            if self.action == "mine":
                await self._mine(interaction, plans, user)
                return
            if self.action == "accept":
                done = await plans.accept(self.plan_id, user)
                row = done.plan
                currency = await _currency(interaction, row.guild_id)
                change = plans.changes(row).get(user)
                mine = describe_change(change, currency) if change is not None else ""
                if done.outcome in ("expired", "void"):
                    text = f"{closed_words(row)} Nothing was changed."
                elif done.outcome == "done":
                    text = (f"You accepted plan #{row.id}, the last to: it is netted in the "
                            f"notebook. {mine} Settle your payments with `/settle`.")
                else:
                    text = f"You accepted plan #{row.id}. {mine}"
            elif self.action == "refuse":
                row = await plans.refuse(self.plan_id, user)
                text = f"You refused plan #{row.id}: it ends, and nothing was changed."
            else:
                row = await plans.withdraw(self.plan_id, user)
                text = f"You withdrew plan #{row.id}: nothing was changed."
        except UserError as exc:
            await reply_error(interaction, str(exc))
            await _refresh_after_refusal(interaction, self.plan_id)
            return
        await interaction.followup.send(text[:2000], ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())
        await _show(interaction, row)

    async def _mine(self, interaction: Interaction, plans: PlanService, user: int) -> None:
        row = await plans.get(self.plan_id)
        currency = await _currency(interaction, row.guild_id)
        change = plans.changes(row).get(user)
        if change is None:
            text = f"Plan #{row.id} is for others: none of your balances is in it."
        else:
            text = f"Plan #{row.id}: {describe_change(change, currency)}"
            if user in row.accepted:
                text += (" You accepted it." if row.accepted[user] is not None
                         else " Accept or refuse it with the buttons.")
        if row.status != "open":
            text += f"\n{closed_words(row)}"
        await interaction.followup.send(text[:2000], ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())


async def _currency(interaction: Interaction, guild_id: int) -> str:
    return (await interaction.client.ledger.settings(guild_id)).currency


async def _refresh_after_refusal(interaction: Interaction, plan_id: int) -> None:
    # A click on a plan that turned out closed (expired, void, refused meanwhile): the public
    # message says so from now on, whoever clicked.
    row = await _plans(interaction).find(plan_id)
    if row is not None and row.status != "open":
        await _show(interaction, row)


async def _show(interaction: Interaction, row: PlanRow) -> None:
    """Edit the plan's public message to where it stands now."""
    if interaction.message is None:
        return
    currency = await _currency(interaction, row.guild_id)
    # The message gone or not editable: the private answers still say it all.
    with contextlib.suppress(discord.HTTPException):
        await interaction.message.edit(
            content=plan_text(row, None, currency),
            view=plan_controls(row.id, disabled=row.status != "open"),
            allowed_mentions=discord.AllowedMentions.none())


async def close_due_plans(bot: Host, guild_ids: list[int]) -> None:
    """Close the plans of these servers that expired or whose balances changed (a game ended,
    a payment), and edit their messages to say so (the housekeeping round, and right after a
    payment or a void)."""
    for row in await bot.plans.close_due(guild_ids):
        if row.message_id is None:
            continue
        currency = (await bot.ledger.settings(row.guild_id)).currency
        with contextlib.suppress(discord.HTTPException):
            await bot.get_partial_messageable(row.channel_id).get_partial_message(
                row.message_id).edit(content=plan_text(row, None, currency),
                                     view=plan_controls(row.id, disabled=True),
                                     allowed_mentions=discord.AllowedMentions.none())


def plan_controls(plan_id: int, disabled: bool = False) -> Controls:
    """The buttons under a plan."""
    view = Controls()
    for action in ("mine", "accept", "refuse", "withdraw"):
        view.add_item(PlanButton(plan_id, action, disabled and action != "mine"))
    return view


DYNAMIC_ITEMS = (PlanButton,)


class PlanCog(commands.Cog):
    """Plans that settle a group."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def _names(self, interaction: Interaction, text: str) -> Callable[[str], int | None]:
        """How a member typed as a name (``@alice`` or ``alice``, as a client without the @
        list sends it) is found: among the people with an open balance (the only ones a plan
        can take), by the names the bot knows, ignoring case; a name two of them share finds
        nobody."""
        if all(piece.startswith("<@") or piece.isdigit()
               for piece in re.split(r"[\s,]+", text.strip()) if piece):
            return lambda name: None
        assert interaction.guild_id is not None
        people = await self.bot.plans.people_with_balances(interaction.guild_id)
        found: dict[str, int | None] = {}
        for user, name in (await known_names(self.bot, interaction, people)).items():
            key = name.casefold()
            found[key] = None if key in found and found[key] != user else user
        return lambda name: found.get(name.casefold())

    @app_commands.command(name="ledger-plan",
                          description="The fewest payments that settle everyone (or the "
                                      "members named); propose netting to them.")
    @app_commands.describe(members="Only these people: @mention each (default: everyone with "
                                   "an open balance)")
    @app_commands.guild_only()
    async def ledger_plan(self, interaction: Interaction,
                          members: app_commands.Range[str, 1, 4000] | None = None) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        if members is not None:
            check_members(members)  # a role or nothing: refused at once
        # Private first: a refusal (nobody with a balance) is for the caller alone; the plan is
        # then posted publicly.
        await think(interaction, private=True)
        chosen = None
        if members is not None:
            chosen = parse_members(members, await self._names(interaction, members))
        proposal = await self.bot.plans.propose(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            proposer=interaction.user.id, members=chosen)
        plan = proposal.plan
        settings = await self.bot.ledger.settings(interaction.guild_id)
        cur = settings.currency
        names = await known_names(self.bot, interaction, plan.members)
        row = proposal.row
        title = (f"Plan #{row.id}" if row is not None else "Settling up") + \
            f" · {len(plan.members)} people · {len(plan.payments)} payments"
        png = await pictures.drawn(
            render_plan, title,
            [(u, names.get(u, f"Player {str(u)[-4:]}"), plan.positions[u]) for u in plan.members],
            [(p.payer, p.payee, p.cents) for p in plan.payments], cur,
            "The fewest payments possible." if plan.exact else "A quick plan (greedy).")
        picture = discord.File(io.BytesIO(png), "plan.png")
        skipped = (" Left out, with no balance between them: "
                   + ", ".join(f"<@{u}>" for u in plan.without_balance[:20]) + "."
                   if plan.without_balance else "")
        if row is None:
            await interaction.followup.send(
                plan_text(None, proposal, cur, skipped.strip()), file=picture, ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none())
            return
        await interaction.edit_original_response(
            content=f"Plan #{row.id} is posted below; each person whose balances change "
                    f"must accept it.{skipped}"[:2000],
            allowed_mentions=discord.AllowedMentions.none())
        message = await interaction.followup.send(
            plan_text(row, proposal, cur), file=picture, view=plan_controls(row.id), wait=True,
            # Those who must accept are pinged (Discord takes at most 100 users here).
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(u)
                                                            for u in row.waiting[:100]]))
        await self.bot.plans.set_message(row.id, message.id)
