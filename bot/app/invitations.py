"""Invitations on Discord: the messages of challenges and open tables, their buttons, and the
flow from a click to the inviting service and back to the message.

The commands (``/challenge``, ``/table``) and the buttons (Accept, Decline, Cancel; Join,
Leave, Add computer, Start; Rematch under a result) both come here; this module calls the
services and edits the messages, and nothing here calls the commands back. Templates: see
``ui``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.games.live_game import ChallengeExpired, LiveGame
from bot.pictures.text import EXPIRED, plural
from bot.storage import ChallengeRow
from bot.user_errors import UserError
from engine import RuleSet

from . import custom_ids as ids
from .host import Host, Interaction
from .ui import Controls, Guarded, answer, think

__all__ = ["DYNAMIC_ITEMS", "ChallengeButton", "RematchButton", "TableButton",
           "TableLevelSelect", "challenge_controls", "post_invitation", "result_controls",
           "table_controls", "terms_text"]


# ---------------------------------------------------------------------- the controls


class ChallengeButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("ch", ids.number("id"), "(?P<action>accept|decline|cancel)"),
):
    """Accept, Decline (an invited player) or Cancel (the challenger)."""

    STYLES = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
        "cancel": ("Cancel", discord.ButtonStyle.secondary),
    }

    def __init__(self, challenge_id: int, action: str, *, disabled: bool = False) -> None:
        label, style = self.STYLES[action]
        super().__init__(discord.ui.Button(
            label=label, style=style, custom_id=ids.make("ch", challenge_id, action),
            disabled=disabled,
        ))
        self.challenge_id = challenge_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChallengeButton:
        return cls(int(match["id"]), match["action"])

    async def act(self, interaction: Interaction) -> None:
        await _challenge_click(interaction, self.challenge_id, self.action)


def challenge_controls(challenge_id: int, *, disabled: bool = False) -> Controls:
    """The Accept / Decline / Cancel row of a challenge."""
    view = Controls()
    for action in ("accept", "decline", "cancel"):
        view.add_item(ChallengeButton(challenge_id, action, disabled=disabled))
    return view


class TableButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("tbl", ids.number("id"), "(?P<action>join|leave|computer|start)",
                          instead="/table"),
):
    """Join or Leave an open table (anyone), Add computer or Start (its host)."""

    STYLES = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "computer": ("Add computer", discord.ButtonStyle.secondary),
        "start": ("Start", discord.ButtonStyle.primary),
    }

    def __init__(self, table_id: int, action: str, *, disabled: bool = False) -> None:
        label, style = self.STYLES[action]
        super().__init__(discord.ui.Button(
            label=label, style=style, custom_id=ids.make("tbl", table_id, action),
            disabled=disabled,
        ))
        self.challenge_id = table_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> TableButton:
        return cls(int(match["id"]), match["action"])

    async def act(self, interaction: Interaction) -> None:
        await _table_click(interaction, self.challenge_id, self.action)


class TableLevelSelect(
    Guarded, discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=ids.template("tlv", ids.number("id"), instead="/table"),
):
    """The host's private menu: the computer's level, and it takes a seat."""

    LEVELS = (("easy", "Easy: one sensible card at a time"),
              ("normal", "Normal: plans each whole turn"),
              ("hard", "Hard: plans and guesses hidden cards"))

    def __init__(self, table_id: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.challenge_id = table_id

    @classmethod
    def build(cls, table_id: int) -> TableLevelSelect:
        """The menu for ``table_id``."""
        return cls(table_id, discord.ui.Select(
            custom_id=ids.make("tlv", table_id), placeholder="The computer's level…",
            options=[discord.SelectOption(label=label, value=value)
                     for value, label in cls.LEVELS], min_values=1, max_values=1))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> TableLevelSelect:
        if not isinstance(item, discord.ui.Select):
            item = discord.ui.Select(custom_id=match.string)  # a forged click
        return cls(int(match["id"]), item)

    async def act(self, interaction: Interaction) -> None:
        values = self.item.values
        if not values:
            raise UserError("Choose a level from the menu.")
        await _table_level(interaction, self.challenge_id, values[0])


def table_controls(table_id: int, *, disabled: bool = False) -> Controls:
    """The Join / Leave / Add computer / Start row of an open table."""
    view = Controls()
    for action in ("join", "leave", "computer", "start"):
        view.add_item(TableButton(table_id, action, disabled=disabled))
    return view


class RematchButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("rematch", ids.number("game")),
):
    """On a result: a player offers the same terms to the same players."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(
            label="Rematch", style=discord.ButtonStyle.success,
            custom_id=ids.make("rematch", game_id),
        ))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> RematchButton:
        return cls(int(match["game"]))

    async def act(self, interaction: Interaction) -> None:
        await think(interaction, private=False)
        bot = interaction.client
        live = await bot.service.live.game(self.game_id)
        seat = bot.service.live.seat(live, interaction.user.id)
        names = (live.names[seat], live.names[1 - seat]) if len(live.names) == 2 else \
            (live.names[seat], "")
        result = await bot.service.finishing.rematch(self.game_id, interaction.user.id, names)
        settings = await bot.service.inviting.settings(live.terms.guild_id)
        await post_invitation(interaction, result, settings.points_only)


def result_controls(game_id: int) -> Controls:
    """The Rematch button under a game's result."""
    view = Controls()
    view.add_item(RematchButton(game_id))
    return view


DYNAMIC_ITEMS = (ChallengeButton, RematchButton, TableButton, TableLevelSelect)


# ---------------------------------------------------------------------- the messages


def terms_text(rules: RuleSet) -> str:
    """The rules of an invitation in a line."""
    parts = [rules.name]
    if rules.name == "classic" and not rules.refill_empty_hand:
        parts.append("no refill of an emptied hand")
    if rules.name == "kings" and not rules.king_starts_stack:
        parts.append("Kings can't start a centre stack")
    target = rules.match_target
    parts.append(f"first to {plural(target, 'point')}" if target else "one game")
    return " · ".join(parts)


def _settled_embed(message: discord.Message | None, status: str) -> discord.Embed | None:
    """The challenge's embed once answered: the terms stay, the expiry line goes."""
    if message is None or not message.embeds:
        return None
    embed = message.embeds[0].copy()
    lines = (embed.description or "").splitlines()
    embed.description = "\n".join([line for line in lines if not line.startswith("Expires")]
                                  + [status])
    return embed


def _group_embed(bot: Host, row: ChallengeRow, terms: str | None = None,
                 status: str | None = None, live: LiveGame | None = None) -> discord.Embed:
    """A challenge of three or four, or an open table: its terms and its seats."""
    if terms is None:
        terms = terms_text(RuleSet.from_dict(row.rules)) + " · " + bot.ledger.terms(
            row.stake_cents, row.per_card_cents, row.currency)
    lines = []
    for n in range(row.seats):
        if n < len(row.seated):
            seat = row.seated[n]
            who = (f"the computer ({row.computer_level})"
                   if seat.user_id == bot.computer_id else f"<@{seat.user_id}>")
            mark = "✅" if seat.accepted else "⏳ invited"
            host = " (host)" if n == 0 else ""
            lines.append(f"{n + 1}. {who}{host} {mark}")
        else:
            lines.append(f"{n + 1}. — free —")
    if row.kind == "table" and live is not None:
        title = f"A table for {len(live.players)}"
        where = f"in <#{live.thread_id}>" if live.thread_id is not None else "below"
        head = f"<@{row.challenger_id}>'s table is playing {where}."
    elif row.kind == "table":
        title = f"An open table for {row.seats}!"
        head = (f"<@{row.challenger_id}> is looking for players. Press **Join** to sit "
                "down; it starts when the table is full, or when the host presses "
                "**Start**.")
    else:
        title = f"A challenge for {row.seats}!"
        head = (f"<@{row.challenger_id}> challenges "
                + ", ".join(f"<@{s.user_id}>" for s in row.seated[1:]
                            if s.user_id != bot.computer_id)
                + " to Spite & Malice. Everyone must accept.")
    tail = status or f"Expires <t:{int(row.expires_at)}:R>."
    return discord.Embed(
        title=title, colour=0xF5C542,
        description=f"{head}\n**Terms:** {terms}\n**Seats:**\n" + "\n".join(lines)
                    + f"\n{tail}")


async def post_invitation(interaction: Interaction, result: ChallengeRow | LiveGame,
                          points_only: bool) -> None:
    """Answer a (re)challenge or a table: the invitation with its buttons, or a computer game
    begun."""
    bot = interaction.client
    me = interaction.user
    if isinstance(result, LiveGame):
        facts = bot.service.live.facts(result)
        async with bot.boards.held(result.id):  # its first board goes in its thread
            message = await answer(
                interaction, private=False,
                content=f"{me.mention} is playing against the computer "
                        f"({result.terms.computer_level}; {terms_text(facts.rules)}). Good luck!",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await bot.game_started(result, origin_message_id=message.id)
        return
    row = result
    terms = terms_text(RuleSet.from_dict(row.rules)) + " · " + bot.ledger.terms(
        row.stake_cents, row.per_card_cents, row.currency, points_only)
    if row.group:
        waiting = [s.user_id for s in row.seated if not s.accepted]
        mentions = {"content": " ".join(f"<@{u}>" for u in waiting)} if waiting else {}
        message = await answer(
            interaction, private=False, **mentions,
            embed=_group_embed(bot, row, terms),
            view=(table_controls(row.id) if row.kind == "table"
                  else challenge_controls(row.id)),
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(u) for u in waiting]))
        await bot.service.inviting.set_challenge_message(row.id, message.id)
        return
    embed = discord.Embed(
        title="A challenge!",
        description=(f"{me.mention} challenges <@{row.opponent_id}> to Spite & Malice.\n"
                     f"**Terms:** {terms}\n"
                     f"Expires <t:{int(row.expires_at)}:R>."),
        colour=0xF5C542,
    )
    message = await answer(
        interaction, private=False,
        content=f"<@{row.opponent_id}>", embed=embed, view=challenge_controls(row.id),
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(row.opponent_id)]),
    )
    await bot.service.inviting.set_challenge_message(row.id, message.id)


# ---------------------------------------------------------------------- the clicks

_message_edits: dict[int, tuple[asyncio.Lock, int]] = {}
"""Per challenge or table of three or four: its message's lock, and how many clicks hold or
wait for it."""


@contextlib.asynccontextmanager
async def _editing(challenge_id: int) -> AsyncIterator[None]:
    """One click at a time edits a group challenge's or a table's message, so that the edit
    made for an earlier click (slow to reach Discord, say) can't land after the one that
    started the game and show it open again."""
    lock, users = _message_edits.get(challenge_id, (asyncio.Lock(), 0))
    _message_edits[challenge_id] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _message_edits[challenge_id]
        if users == 1:
            del _message_edits[challenge_id]
        else:
            _message_edits[challenge_id] = (lock, users - 1)


async def _latest(bot: Host, row: ChallengeRow, live: LiveGame | None) -> ChallengeRow | None:
    """The row to show for a click that didn't start the game (called while editing): as the
    database has it now, or None once the game has begun (the click that began it shows
    that)."""
    if live is not None:
        return row
    latest = await bot.service.inviting.get_challenge(row.id)
    return None if latest.status == "accepted" else latest


async def _started_text(bot: Host, live: LiveGame, origin_message_id: int) -> str:
    thread = await bot.game_started(live, origin_message_id=origin_message_id)
    people = " ".join(f"<@{u}>" for u in live.players if u != bot.computer_id)
    where = f"in <#{thread}>" if thread is not None else "below"
    return f"✅ {people}: game on {where}!"


async def _challenge_click(interaction: Interaction, challenge_id: int, action: str) -> None:
    """Accept, decline or cancel."""
    await interaction.response.defer()
    bot = interaction.client
    inviting = bot.service.inviting
    user = interaction.user.id
    live: LiveGame | None = None
    try:
        if (await inviting.get_challenge(challenge_id)).group:
            await _group_click(interaction, challenge_id, action)
            return
        if action == "accept":
            row, live = await inviting.accept(challenge_id, user)
            text = f"✅ <@{row.opponent_id}> accepted: game on! The board is below."
            status = "**Accepted.**"
        elif action == "decline":
            row = await inviting.decline(challenge_id, user)
            text = f"<@{row.opponent_id}> declined the challenge."
            status = "**Declined.**"
        else:
            row = await inviting.cancel(challenge_id, user)
            text = f"<@{row.challenger_id}> withdrew the challenge."
            status = "**Withdrawn.**"
    except ChallengeExpired:
        await interaction.edit_original_response(
            content=EXPIRED, embed=None, view=challenge_controls(challenge_id, disabled=True))
        raise
    if live is not None:
        # The game's thread opens from this message; the message then says where to play.
        assert interaction.message is not None
        thread = await bot.game_started(live, origin_message_id=interaction.message.id)
        if thread is not None:
            text = f"✅ <@{row.opponent_id}> accepted: game on in <#{thread}>!"
    await interaction.edit_original_response(
        content=text, embed=_settled_embed(interaction.message, status),
        view=challenge_controls(challenge_id, disabled=True),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def _group_click(interaction: Interaction, challenge_id: int, action: str) -> None:
    """A click on a challenge of three or four (the message is deferred already)."""
    bot = interaction.client
    inviting = bot.service.inviting
    user = interaction.user.id
    live: LiveGame | None = None
    controls = challenge_controls(challenge_id)
    try:
        if action == "accept":
            row, live = await inviting.accept_seat(challenge_id, user)
            text = f"<@{user}> accepted." if live is None else None
        elif action == "decline":
            row = await inviting.decline(challenge_id, user)
            text = f"<@{user}> declined: the challenge is off."
        else:
            row = await inviting.cancel(challenge_id, user)
            text = f"<@{row.challenger_id}> withdrew the challenge."
    except ChallengeExpired:
        await interaction.edit_original_response(
            content=EXPIRED, embed=None, view=challenge_controls(challenge_id, disabled=True))
        raise
    async with _editing(challenge_id):
        latest = await _latest(bot, row, live)
        if latest is None:
            return
        row = latest
        status = None
        if live is not None or row.status != "open":
            controls = challenge_controls(challenge_id, disabled=True)
            status = {"accepted": "**Accepted by everyone.**", "declined": "**Declined.**",
                      "cancelled": "**Withdrawn.**"}.get(row.status, "")
        if live is not None:
            assert interaction.message is not None
            text = await _started_text(bot, live, interaction.message.id)
        await interaction.edit_original_response(
            content=text, embed=_group_embed(bot, row, status=status), view=controls,
            allowed_mentions=discord.AllowedMentions.none())


async def _table_click(interaction: Interaction, table_id: int, action: str) -> None:
    """Join, Leave, Add computer (its menu, privately) or Start."""
    bot = interaction.client
    inviting = bot.service.inviting
    user = interaction.user
    if action == "computer":
        await think(interaction, private=True)  # answer first: the table is read next
        row = await inviting.get_challenge(table_id)
        if user.id != row.challenger_id:
            raise UserError("Only the host of the table can add the computer.")
        if row.status != "open":
            raise UserError("This table is no longer open.")
        view = Controls()
        view.add_item(TableLevelSelect.build(table_id))
        await answer(interaction, private=True,
                     content="Which level should the computer play at?", view=view)
        return
    await interaction.response.defer()
    live: LiveGame | None = None
    try:
        if action == "join":
            row, live = await inviting.join_table(table_id, user.id, user.display_name)
        elif action == "leave":
            row = await inviting.leave_table(table_id, user.id)
        else:
            row, live = await inviting.start_table(table_id, user.id)
    except ChallengeExpired:
        await interaction.edit_original_response(
            content=EXPIRED, embed=None, view=table_controls(table_id, disabled=True))
        raise
    assert interaction.message is not None
    await _show_table(bot, row, live, interaction.message.id,
                      interaction.edit_original_response)


async def _table_level(interaction: Interaction, table_id: int, level: str) -> None:
    """The host chose the computer's level (on his private menu): it sits down."""
    await interaction.response.defer()
    bot = interaction.client
    row, live = await bot.service.inviting.add_computer(table_id, interaction.user.id, level)
    await interaction.edit_original_response(
        content=f"The computer ({level}) has taken a seat.", view=None)
    if row.message_id is None:
        return
    message = bot.get_partial_messageable(row.channel_id).get_partial_message(row.message_id)
    await _show_table(bot, row, live, row.message_id, message.edit)


async def _show_table(bot: Host, row: ChallengeRow, live: LiveGame | None, message_id: int,
                      edit: Any) -> None:
    """Bring the table's message up to date (``edit`` edits it); a game begun opens its thread
    from it."""
    async with _editing(row.id):
        latest = await _latest(bot, row, live)
        if latest is None:
            return
        row = latest
        text = None
        controls = table_controls(row.id)
        status = None
        if live is not None:
            text = await _started_text(bot, live, message_id)
            controls = table_controls(row.id, disabled=True)
            status = "**Started.**"
        elif row.status != "open":
            text = f"<@{row.challenger_id}> closed the table."
            controls = table_controls(row.id, disabled=True)
            status = "**Closed.**"
        await edit(content=text, embed=_group_embed(bot, row, status=status, live=live),
                   view=controls, allowed_mentions=discord.AllowedMentions.none())
