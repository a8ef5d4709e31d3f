"""Slash commands for the notebook: ``/ledger``, ``/settle``, ``/void``, ``/leaderboard``,
``/stats``. Thin: they call the ``LedgerService`` and format its answers.

Answer first, then work: Discord fails an interaction whose first response takes more than
3 seconds, so every handler that reads the database, draws or calls Discord acknowledges at once
(``defer``) and replies with a follow-up. A command's defer fixes whether its reply is private:
the first follow-up replaces the "thinking…" placeholder and keeps its privacy. ``/settle`` and
``/void`` refuse privately, so they defer privately; when they succeed, a second follow-up posts
the public message.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.games.game_service import UserError
from bot.money.amounts import format_amount
from bot.money.ledger_service import LedgerService, describe_line
from bot.pictures.drawing import pictures

from .. import custom_ids as ids
from ..host import Host, Interaction
from ..ui import Controls, Guarded, reply_error, think
from .season_commands import season_autocomplete, season_board, season_lines

__all__ = ["MoneyCog", "DYNAMIC_ITEMS", "csv_filename", "head_to_head_payload", "known_names"]

PAGE = 10

_LEDGER = "/ledger"
"""Where an outdated notebook button points the player."""


def _money(interaction: Interaction) -> LedgerService:
    return interaction.client.ledger


async def known_names(bot: Host, interaction: Interaction,
                      user_ids: Iterable[int]) -> dict[int, str]:
    """Names for pictures and files from what the bot already knows: the member who asked, the
    server's member cache, the user cache, then the names saved with the players' games. Never
    a request to Discord per member (a leaderboard of ten would wait on ten of them)."""
    ids = list(dict.fromkeys(user_ids))
    names = {interaction.user.id: interaction.user.display_name}
    for user_id in ids:
        if user_id in names:
            continue
        guild = interaction.guild
        user = (guild.get_member(user_id) if guild is not None else None) or \
            bot.get_user(user_id)
        if user is not None:
            names[user_id] = user.display_name
    missing = [user_id for user_id in ids if user_id not in names]
    if missing and interaction.guild_id is not None:
        saved = await bot.ledger.player_names(interaction.guild_id, missing)
        names.update((user_id, saved[user_id]) for user_id in missing if user_id in saved)
    return {user_id: names[user_id] for user_id in ids if user_id in names}


def _file_word(name: str | None) -> str:
    # Letters, digits, '-' and '_' only: safe in a file name on every system, and Discord
    # keeps it as sent (accents become their plain letter; anything else goes).
    plain = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode()
    word = "".join(c if c.isalnum() or c in "-_" else "-" for c in plain.strip().lower())
    return "-".join(part for part in word.split("-") if part)[:32].strip("-")


def csv_filename(names: dict[int, str], a: int, b: int) -> str:
    """The export's file name: ``ledger-<a's name>-<b's name>.csv``. A name with nothing
    safe in it is replaced by the id, and two names that read the same get their ids."""
    words = [_file_word(names.get(a)), _file_word(names.get(b))]
    if words[0] == words[1]:
        words = [f"{w}-{i}" if w else str(i) for w, i in zip(words, (a, b), strict=True)]
    words = [w or str(i) for w, i in zip(words, (a, b), strict=True)]
    return f"ledger-{words[0]}-{words[1]}.csv"


def _when(ts: float) -> str:
    return f"<t:{int(ts)}:d>"


async def head_to_head_payload(bot: Host, guild_id: int, a: int, b: int, page: int
                               ) -> dict[str, Any]:
    """One page of the notebook between ``a`` (the reader) and ``b``."""
    ledger = bot.ledger
    settings = await ledger.settings(guild_id)
    cur = settings.currency
    rows, total, balance = await ledger.head_to_head(guild_id, a, b, page, PAGE)
    pages = max(1, -(-total // PAGE))
    page = min(page, pages - 1)
    if balance > 0:
        head = f"You owe <@{b}> **{format_amount(balance, cur)}**."
    elif balance < 0:
        head = f"<@{b}> owes you **{format_amount(-balance, cur)}**."
    else:
        head = f"You and <@{b}> are square."
    lines = [head, f"Page {page + 1} of {pages} · {total} {'entry' if total == 1 else 'entries'}"
                   ", newest first:"]
    for row, running in rows:
        mine = -running  # running is what ``a`` owes; show it from the reader's side
        state = (f"you're up {format_amount(mine, cur)}" if mine > 0
                 else f"you're down {format_amount(-mine, cur)}" if mine < 0 else "square")
        lines.append(f"{_when(row.created_at)} {describe_line(row, a, cur)} → {state}")
    if not rows:
        lines.append("No games or payments between you yet.")
    view = Controls()
    view.add_item(PageButton(a, b, page - 1, "◀ Newer", disabled=page <= 0))
    view.add_item(PageButton(a, b, page + 1, "Older ▶", disabled=page >= pages - 1))
    view.add_item(CsvButton(a, b))
    return {"content": "\n".join(lines)[:2000], "view": view,
            "allowed_mentions": discord.AllowedMentions.none()}


class PageButton(Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=ids.template("h2h", ids.number("a"), ids.number("b"), ids.PAGE,
                                       instead=_LEDGER)):
    """Pages through the notebook between two players."""

    def __init__(self, a: int, b: int, page: int, label: str = "Page",
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id=ids.make("h2h", a, b, page),
                                           disabled=disabled))
        self.a, self.b, self.page = a, b, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[discord.Client],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> PageButton:
        return cls(int(match["a"]), int(match["b"]), int(match["page"]))

    async def act(self, interaction: Interaction) -> None:
        if interaction.user.id != self.a or interaction.guild_id is None:
            await reply_error(interaction, "This notebook page isn't yours; use /ledger.")
            return
        await interaction.response.defer()  # the page is edited in place once it is read
        payload = await head_to_head_payload(interaction.client, interaction.guild_id,
                                             self.a, self.b, max(0, self.page))
        await interaction.edit_original_response(**payload)


class CsvButton(Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
                template=ids.template("csv", ids.number("a"), ids.number("b"),
                                      instead=_LEDGER)):
    """Attaches the whole history between two players as CSV."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__(discord.ui.Button(label="Export CSV", style=discord.ButtonStyle.primary,
                                           custom_id=ids.make("csv", a, b)))
        self.a, self.b = a, b

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[discord.Client],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> CsvButton:
        return cls(int(match["a"]), int(match["b"]))

    async def act(self, interaction: Interaction) -> None:
        if interaction.user.id != self.a or interaction.guild_id is None:
            await reply_error(interaction, "This notebook isn't yours; use /ledger.")
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        ledger = _money(interaction)
        settings = await ledger.settings(interaction.guild_id)
        names = await known_names(interaction.client, interaction,
                                  (self.a, self.b))
        data = await ledger.csv_export(interaction.guild_id, self.a, self.b, settings.currency,
                                       names)
        await interaction.followup.send(
            "The whole history, oldest first:", ephemeral=True,
            file=discord.File(io.BytesIO(data), filename=csv_filename(names, self.a, self.b)))


class SettleButton(Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=ids.template("pay", ids.number("id"), "(?P<answer>yes|no)",
                                         instead=_LEDGER)):
    """Confirm or refuse a payment (only the person paid may press)."""

    def __init__(self, settlement_id: int, answer: str, disabled: bool = False) -> None:
        label, style = (("Confirm", discord.ButtonStyle.success) if answer == "yes"
                        else ("Refuse", discord.ButtonStyle.danger))
        super().__init__(discord.ui.Button(label=label, style=style, disabled=disabled,
                                           custom_id=ids.make("pay", settlement_id, answer)))
        self.settlement_id, self.answer = settlement_id, answer

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[discord.Client],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> SettleButton:
        return cls(int(match["id"]), match["answer"])

    async def act(self, interaction: Interaction) -> None:
        await interaction.response.defer()  # the prompt is edited in place once answered
        ledger = _money(interaction)
        try:
            row, entry = await ledger.answer_settlement(self.settlement_id, interaction.user.id,
                                                        self.answer == "yes")
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        settings = await ledger.settings(row.guild_id)
        money = format_amount(row.amount_cents, settings.currency)
        text = (f"✅ <@{row.payee_id}> confirmed receiving {money} from <@{row.payer_id}>."
                if entry is not None else
                f"❌ <@{row.payee_id}> refused the payment of {money} from <@{row.payer_id}>.")
        await interaction.edit_original_response(
            content=text, view=_settle_controls(row.id, disabled=True),
            allowed_mentions=discord.AllowedMentions.none())
        if entry is not None:
            await interaction.client.balances_moved(row.guild_id)


def _settle_controls(settlement_id: int, disabled: bool = False) -> Controls:
    view = Controls()
    view.add_item(SettleButton(settlement_id, "yes", disabled))
    view.add_item(SettleButton(settlement_id, "no", disabled))
    return view


DYNAMIC_ITEMS = (PageButton, CsvButton, SettleButton)

BY_CHOICES = [Choice(name="net money", value="net"), Choice(name="wins", value="wins"),
              Choice(name="win rate", value="win_rate"), Choice(name="rating", value="rating")]
RULES_CHOICES = [Choice(name="all", value="all"), Choice(name="kings", value="kings"),
                 Choice(name="classic", value="classic")]


class MoneyCog(commands.Cog):
    """The ledger and the standings."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name="ledger", description="Who owes whom; with a member: your "
                                                     "notebook with them.")
    @app_commands.describe(user="Show your whole history with this member")
    @app_commands.guild_only()
    async def ledger(self, interaction: Interaction,
                     user: discord.Member | None = None) -> None:
        assert interaction.guild_id is not None
        me = interaction.user.id
        if user is not None and user.id == me:
            raise UserError("That's you! Pick someone you have played.")
        await think(interaction, private=True)
        if user is not None:
            payload = await head_to_head_payload(self.bot, interaction.guild_id, me, user.id, 0)
            await interaction.followup.send(ephemeral=True, **payload)
            return
        settings = await self.bot.ledger.settings(interaction.guild_id)
        rows = await self.bot.ledger.balances(interaction.guild_id, me)
        if not rows:
            await interaction.followup.send(
                "Your notebook is empty: no finished games or payments yet.", ephemeral=True)
            return
        lines = ["**Your balances** (largest first):"]
        for other, owed, games in rows[:25]:
            money = format_amount(abs(owed), settings.currency)
            state = (f"you owe {money}" if owed > 0 else f"owes you {money}" if owed < 0
                     else "square")
            lines.append(f"<@{other}>: {state} · {games} game{'s' if games != 1 else ''}")
        if sum(1 for _, owed, _ in rows if owed) >= 2:
            lines.append("Fewer payments for the whole group: `/ledger-plan`.")
        await interaction.followup.send("\n".join(lines)[:2000], ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="settle", description="Record a payment between you and a "
                                                     "member (or forgive what they owe you).")
    @app_commands.describe(user="Who you settled with", amount="How much, e.g. 5 or 2.50",
                           forgive="Forgive this much of what they owe you (no money moved)")
    @app_commands.guild_only()
    async def settle(self, interaction: Interaction, user: discord.Member,
                     amount: str, forgive: bool = False) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        if user.bot:
            raise UserError("Bots have no money in this notebook.")
        # Private: a refusal says what is owed. A recorded settlement is then posted publicly.
        await think(interaction, private=True)
        me = interaction.user.id
        kind, row, owed = await self.bot.ledger.settle(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            caller=me, other=user.id, amount_text=amount, forgive=forgive)
        settings = await self.bot.ledger.settings(interaction.guild_id)
        cur = settings.currency
        money = format_amount(row.amount_cents, cur)
        change = f"{format_amount(owed, cur)} → {format_amount(owed - row.amount_cents, cur)}"
        if kind == "pending":
            await interaction.edit_original_response(
                content=f"Asked <@{user.id}> to confirm your payment of {money}. What you owe "
                        f"them, once they confirm: {change}.",
                allowed_mentions=discord.AllowedMentions.none())
            await interaction.followup.send(
                f"<@{user.id}>: <@{me}> says they paid you **{money}**. Confirm it if you "
                f"received it (what they owe you goes down by {money}), or refuse it. This "
                "expires in 24 h.",
                view=_settle_controls(row.id),
                allowed_mentions=discord.AllowedMentions(users=[user]))
            return
        verb = "forgave" if kind == "forgive" else "recorded receiving"
        await interaction.edit_original_response(
            content=f"Done. What <@{user.id}> owes you: {change}.",
            allowed_mentions=discord.AllowedMentions.none())
        await interaction.followup.send(f"<@{me}> {verb} **{money}** from <@{user.id}>.",
                                        allowed_mentions=discord.AllowedMentions.none())
        await self.bot.balances_moved(interaction.guild_id)

    @app_commands.command(name="void", description="Admins: reverse a game's ledger entry.")
    @app_commands.describe(game="The game number (#)", reason="Why (shown in the history)")
    @app_commands.guild_only()
    async def void(self, interaction: Interaction, game: int, reason: str) -> None:
        assert interaction.guild_id is not None
        if not interaction.permissions.manage_guild:
            raise UserError("Only members with the Manage Server permission can void a game.")
        await think(interaction, private=True)  # refusals are private
        row = await self.bot.ledger.void(interaction.guild_id, game, interaction.user.id, reason)
        settings = await self.bot.ledger.settings(interaction.guild_id)
        money = format_amount(row.amount_cents, settings.currency)
        await interaction.edit_original_response(
            content=f"Done: game #{game} is voided ({money} reversed) and the ratings are "
                    "recomputed without it.")
        await interaction.followup.send(
            f"Game #{game} voided by <@{interaction.user.id}>: {row.note} ({money} reversed).",
            allowed_mentions=discord.AllowedMentions.none())
        await self.bot.balances_moved(interaction.guild_id)

    @app_commands.command(name="leaderboard", description="Who leads the server.")
    @app_commands.describe(by="Rank by (all time)", rules="Which rule set (all time)",
                           season="A season, or all time (default: the running season)")
    @app_commands.choices(by=BY_CHOICES, rules=RULES_CHOICES)
    @app_commands.autocomplete(season=season_autocomplete)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: Interaction,
                          by: Choice[str] | None = None, rules: Choice[str] | None = None,
                          season: app_commands.Range[str, 1, 100] | None = None) -> None:
        assert interaction.guild_id is not None
        await think(interaction, private=False)
        if await season_board(self.bot, interaction, season, by is not None or rules is not None):
            return
        order = by.value if by else "net"
        rule_name = None if rules is None or rules.value == "all" else rules.value
        standings, note = await self.bot.ledger.leaderboard(interaction.guild_id, order,
                                                            rule_name)
        settings = await self.bot.ledger.settings(interaction.guild_id)
        me = interaction.user.id
        top = standings[:10]
        mine = next((s for s in standings if s.user_id == me), None)
        shown = list(top) + ([mine] if mine is not None and mine not in top else [])
        names = await known_names(self.bot, interaction, (s.user_id for s in shown))
        title = f"Leaderboard · {dict((c.value, c.name) for c in BY_CHOICES)[order]} · " \
                f"{rule_name or 'all rules'}"
        headers = ["#", "Player", "Games", "W-L-T", "Win %",
                   "Rating" if order == "rating" else "Net"]
        table = []
        for s in shown:
            mark = "?" if s.provisional else ""
            win_rate = f"{s.win_rate * 100:.0f}%" + (mark if order == "win_rate" else "")
            last = (f"{s.rating}{mark}" if s.rating is not None
                    else format_amount(s.net_cents, settings.currency))
            table.append([str(s.place), names.get(s.user_id, f"Player {s.user_id}"),
                          str(s.games), f"{s.wins}-{s.losses}-{s.ties}", win_rate, last])
        text_lines = [f"**{title}**"] + [" · ".join(row) for row in table]
        if not table:
            text_lines.append("Nobody yet: finish some games!")
        elif mine is None:
            text_lines.append("You are not on this board yet.")
        if note:
            text_lines.append(note)
        highlight = next((i for i, s in enumerate(shown) if s.user_id == me), None)
        png = await pictures.table(title, headers, table, highlight, note)
        await interaction.followup.send(
            "\n".join(text_lines)[:2000], file=discord.File(io.BytesIO(png), "leaderboard.png"),
            allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="stats", description="A player's record, rating and money.")
    @app_commands.describe(user="Whose stats (default: yours)")
    @app_commands.guild_only()
    async def stats(self, interaction: Interaction,
                    user: discord.Member | None = None) -> None:
        assert interaction.guild_id is not None
        await think(interaction, private=False)
        target = user.id if user else interaction.user.id
        stats = await self.bot.ledger.stats(interaction.guild_id, target)
        settings = await self.bot.ledger.settings(interaction.guild_id)
        cur = settings.currency
        ratings = ", ".join(f"{rules} {value}{' (provisional)' if prov else ''}"
                            for rules, (value, prov) in sorted(stats.ratings.items())) or "none yet"
        wins = (f"Average winning margin {stats.average_margin:.1f} · best win "
                f"{stats.best_margin}" if stats.wins else "No wins yet")
        lines = [f"**Stats for <@{target}>**",
                 f"Games {stats.games} · wins {stats.wins} · losses {stats.losses} · "
                 f"ties {stats.ties}",
                 f"{wins} · current streak {stats.streak or '–'}",
                 f"Rating: {ratings}",
                 f"Net money: {format_amount(stats.net_cents, cur)}",
                 *await season_lines(self.bot, interaction.guild_id, target, cur)]
        name = (user or interaction.user).display_name
        png = await pictures.chart(stats.series, f"{name}: net money over time ({cur})", cur)
        await interaction.followup.send(
            "\n".join(lines)[:2000], file=discord.File(io.BytesIO(png), "stats.png"),
            allowed_mentions=discord.AllowedMentions.none())
