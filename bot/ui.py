"""Buttons and menus. Each carries only ids in its ``custom_id`` (a ``DynamicItem``), so a button
posted before a restart still works after it: the bot rebuilds the item from the id alone.

Callbacks stay thin: they parse the id, call the ``GameService``, and turn its ``UserError`` into
a private reply. Templates (each ``custom_id`` is at most 100 characters):

- ``sm:ch:<challenge>:<accept|decline|cancel>`` on a challenge;
- ``sm:hand:<game>`` "Show my hand" on a board;
- ``sm:src:<game>:<version>`` the card menu in a private hand;
- ``sm:mv:<game>:<version>:<move>`` a target button or Pass in a private hand;
- ``sm:back:<game>`` back to the hand; ``sm:rs:<game>`` confirm resignation;
  ``sm:claim:<game>`` claim a game whose opponent let the clock run out.

The ``version`` is the number of moves saved when the hand was shown: a click on an older hand
is refused (and the hand refreshed), so a double click never makes a move twice by accident.
"""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from engine import Move

from .render import BoardInfo, render_hand
from .service import LiveGame, UserError, moves_by_source
from .text import hand_text, source_label, target_label

if TYPE_CHECKING:
    from .client import SpiteBot

__all__ = [
    "BackButton",
    "ChallengeButton",
    "ClaimButton",
    "DYNAMIC_ITEMS",
    "MoveButton",
    "ResignButton",
    "ShowHandButton",
    "SourceSelect",
    "board_controls",
    "challenge_controls",
    "hand_payload",
    "reply_error",
]

log = logging.getLogger(__name__)


def _bot(interaction: discord.Interaction[Any]) -> SpiteBot:
    return interaction.client  # type: ignore[return-value]


async def reply_error(interaction: discord.Interaction[Any], message: str) -> None:
    """Tell the user privately why nothing happened."""
    if interaction.response.is_done():
        await interaction.followup.send(message, ephemeral=True)
    else:
        await interaction.response.send_message(message, ephemeral=True)


# ---------------------------------------------------------------------- challenges


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:ch:(?P<id>\d+):(?P<action>accept|decline|cancel)",
):
    """Accept (the challenged player), Decline (the same) or Cancel (the challenger)."""

    STYLES = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
        "cancel": ("Cancel", discord.ButtonStyle.secondary),
    }

    def __init__(self, challenge_id: int, action: str, *, disabled: bool = False) -> None:
        label, style = self.STYLES[action]
        super().__init__(discord.ui.Button(
            label=label, style=style, custom_id=f"sm:ch:{challenge_id}:{action}",
            disabled=disabled,
        ))
        self.challenge_id = challenge_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChallengeButton:
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).games_cog.on_challenge_button(
            interaction, self.challenge_id, self.action
        )


def challenge_controls(challenge_id: int, *, disabled: bool = False) -> discord.ui.View:
    """The Accept / Decline / Cancel row of a challenge."""
    view = discord.ui.View(timeout=None)
    for action in ("accept", "decline", "cancel"):
        view.add_item(ChallengeButton(challenge_id, action, disabled=disabled))
    return view


# ---------------------------------------------------------------------- the board


class _GameButton:
    """Shared by the buttons whose ``custom_id`` is ``sm:<prefix>:<game id>``."""

    PREFIX = ""
    LABEL = ""
    STYLE = discord.ButtonStyle.secondary
    game_id: int

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(  # type: ignore[call-arg]
            label=self.LABEL, style=self.STYLE, custom_id=f"sm:{self.PREFIX}:{game_id}",
        ))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> Any:
        return cls(int(match["game"]))


class ShowHandButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:hand:(?P<game>\d+)",
):
    """On the public board: opens the presser's own hand, privately."""

    PREFIX, LABEL, STYLE = "hand", "Show my hand", discord.ButtonStyle.primary

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        try:
            live = await bot.service.game(self.game_id)
            bot.service.seat(live, interaction.user.id)
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        await interaction.response.send_message(
            **await hand_payload(bot, live, interaction.user.id), ephemeral=True
        )


class ClaimButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:claim:(?P<game>\d+)",
):
    """Posted when a player has let the claim time pass: his opponent may take the game."""

    PREFIX, LABEL, STYLE = "claim", "Claim the game", discord.ButtonStyle.danger

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        try:
            await bot.service.claim(self.game_id, interaction.user.id)
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        await interaction.response.send_message("You claimed the game.", ephemeral=True)


def board_controls(game_id: int, finished: bool) -> discord.ui.View | None:
    """The buttons under a board: Show my hand while the game goes on."""
    if finished:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(ShowHandButton(game_id))
    return view


# ---------------------------------------------------------------------- the private hand


class SourceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sm:src:(?P<game>\d+):(?P<ver>\d+)",
):
    """The menu of cards the player may move now."""

    def __init__(self, game_id: int, version: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id = game_id
        self.version = version

    @classmethod
    def build(cls, game_id: int, version: int, options: list[discord.SelectOption]) -> SourceSelect:
        """A fresh menu with ``options``."""
        return cls(game_id, version, discord.ui.Select(
            custom_id=f"sm:src:{game_id}:{version}", placeholder="Choose a card to move…",
            options=options, min_values=1, max_values=1,
        ))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> SourceSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["game"]), int(match["ver"]), item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        values = self.item.values
        try:
            live = await bot.service.game(self.game_id)
            bot.service.seat(live, interaction.user.id)
            if not values:
                raise UserError("Choose a card from the menu.")
            stale = self.version != live.version
            payload = await hand_payload(
                bot, live, interaction.user.id, selected=None if stale else values[0],
                note="The game has moved on; here is your hand as it is now." if stale else None,
            )
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        await interaction.response.edit_message(**_as_edit(payload))


class MoveButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:mv:(?P<game>\d+):(?P<ver>\d+):(?P<move>[^:]{1,12})",
):
    """A target for the chosen card, or Pass: makes the move."""

    def __init__(self, game_id: int, version: int, move: str, label: str = "Move",
                 style: discord.ButtonStyle = discord.ButtonStyle.success) -> None:
        super().__init__(discord.ui.Button(
            label=label[:80], style=style, custom_id=f"sm:mv:{game_id}:{version}:{move}",
        ))
        self.game_id = game_id
        self.version = version
        self.move = move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> MoveButton:
        return cls(int(match["game"]), int(match["ver"]), match["move"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        user = interaction.user.id
        try:
            outcome = await bot.service.play(
                self.game_id, user, self.move, expected_version=self.version
            )
        except UserError as exc:
            # Refresh the hand so the player sees the position that made the move illegal.
            try:
                live = await bot.service.game(self.game_id)
                if live.seat_of(user) is None:
                    raise
                payload = await hand_payload(bot, live, user, note=f"⚠️ {exc}")
            except UserError:
                await reply_error(interaction, str(exc))
                return
            await interaction.response.edit_message(**_as_edit(payload))
            return
        payload = await hand_payload(bot, outcome.game, user, note=_done_note(outcome))
        await interaction.response.edit_message(**_as_edit(payload))


class BackButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:back:(?P<game>\d+)",
):
    """Back from the targets of a card to the whole hand."""

    PREFIX, LABEL = "back", "Back"

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        try:
            live = await bot.service.game(self.game_id)
            bot.service.seat(live, interaction.user.id)
            payload = await hand_payload(bot, live, interaction.user.id)
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        await interaction.response.edit_message(**_as_edit(payload))


class ResignButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sm:rs:(?P<game>\d+)",
):
    """The confirmation of ``/resign``."""

    PREFIX, LABEL, STYLE = "rs", "Yes, resign", discord.ButtonStyle.danger

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = _bot(interaction)
        try:
            await bot.service.resign(self.game_id, interaction.user.id)
        except UserError as exc:
            await reply_error(interaction, str(exc))
            return
        await interaction.response.edit_message(content="You resigned the game.", view=None)


DYNAMIC_ITEMS = (ChallengeButton, ShowHandButton, ClaimButton, SourceSelect, MoveButton,
                 BackButton, ResignButton)


def _done_note(outcome: Any) -> str:
    last = outcome.game.last_moves[-1] if outcome.game.last_moves else "Done."
    return f"✅ {last}"


def _as_edit(payload: dict[str, Any]) -> dict[str, Any]:
    # A message edit takes ``attachments`` (the new file replaces the old image).
    out = dict(payload)
    file = out.pop("file", None)
    out["attachments"] = [file] if file is not None else []
    return out


def board_info(live: LiveGame) -> BoardInfo:
    """What the renderer needs besides the view: names, match score, last moves."""
    match = live.match
    return BoardInfo(
        names=live.names,
        game_number=match.games_dealt,
        match_scores=(match.scores[0], match.scores[1]),
        match_target=match.target,
        last_moves=tuple(live.last_moves[-6:]),
    )


async def hand_payload(
    bot: SpiteBot, live: LiveGame, user_id: int, *, selected: str | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The private hand message: image, text and the controls to move."""
    import asyncio

    view = bot.service.view(live, user_id)
    png = await asyncio.to_thread(render_hand, view, board_info(live))
    lines = [note] if note else []
    lines.append(hand_text(view))
    controls = discord.ui.View(timeout=None)
    if view.my_turn:
        groups = moves_by_source(view)
        compulsory = {m.source_token for m in view.compulsory}
        targets: list[Move] = []
        if selected:
            targets = groups.get(selected.strip().upper(), [])
            if not targets:
                lines.append("That card can't move now; choose another.")
        if targets:
            lines.append(f"**Move {source_label(targets[0], view)} to…**")
            for move in targets:
                style = (discord.ButtonStyle.primary if move.is_play
                         else discord.ButtonStyle.secondary)
                controls.add_item(MoveButton(
                    live.id, live.version, move.text, target_label(move, view), style))
            controls.add_item(BackButton(live.id))
        else:
            options = []
            for token, outs in groups.items():
                where = ", ".join(m.target_token for m in outs)
                options.append(discord.SelectOption(
                    label=("❗ " if token in compulsory else "") + source_label(outs[0], view),
                    value=token,
                    description=(("must be played first · " if token in compulsory else "")
                                 + f"to {where}")[:100],
                ))
            if options:
                controls.add_item(SourceSelect.build(live.id, live.version, options[:25]))
            pass_move = next((m for m in view.legal_moves if m.is_pass), None)
            if pass_move is not None:
                controls.add_item(MoveButton(live.id, live.version, "pass", "Pass (end turn)",
                                             discord.ButtonStyle.secondary))
    file = discord.File(io.BytesIO(png), filename="hand.png")
    return {"content": "\n".join(lines)[:2000], "file": file, "view": controls}
