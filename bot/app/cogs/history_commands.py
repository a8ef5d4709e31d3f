"""``/history`` and ``/replay``: finished games, listed and stepped through turn by turn.

Thin: the ``HistoryService`` reads the games and decides who may see what; this module turns
its answers into messages and controls. Both commands answer privately, each viewer stepping
through his own copy of a replay: a shared message that anyone could step would jump under
everyone's eyes, and a channel is no place for a hundred turns.

Every control is a ``DynamicItem`` whose ``custom_id`` carries only ids (so a replay opened
before a restart still steps after it), at most 100 characters, with its version (``v1``;
the ids posted before they had one still work, see ``custom_ids``):

- ``sm:rp:v1:<game>:<position>:<first|prev|next|last>`` ⏮ ◀ ▶ ⏭ (the position to show; the
  tag keeps two buttons that lead to the same position from sharing an id);
- ``sm:rpj:v1:<game>`` the "jump to turn" menu (its values are positions);
- ``sm:rph:v1:<game>:<position>`` "Show my hand at this turn" (a player of the game only);
- ``sm:rpm:v1:<game>`` the move list as ``game-N.txt``;
- ``sm:hist:v1:<user>:<page>:<newer|older>`` the pages of ``/history``;
- ``sm:histr:v1`` the "Replay one of these" menu under a page (its values are game ids).

Each answers first (a deferred response: drawing takes longer than Discord waits), then works,
and draws off the event loop.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games.game_service import UserError
from bot.games.history import HistoryPage, HistoryService, ReplayedGame, check_index, position_at
from bot.pictures.board_info import BoardInfo
from bot.pictures.drawing import pictures
from bot.pictures.text import board_fields, card_text, clip, plural, result_text

from .. import custom_ids as ids
from ..host import Interaction
from ..ui import Controls, Guarded, answer, think

if TYPE_CHECKING:
    pass

__all__ = ["DYNAMIC_ITEMS", "HistoryCog", "history_payload", "replay_payload"]

_HISTORY = "/history or /replay"
"""Where an outdated history or replay button points the player."""

_MAX_ID = 2**53
"""Discord's integer options stop here; a forged larger one is simply not a game."""


def _is_number(value: str) -> bool:
    # ``str.isdigit`` takes "²" and "١٢", which ``int`` refuses: a menu's values are ours, in
    # ASCII digits, unless forged.
    return value.isascii() and value.isdigit() and len(value) <= 18


def _service(interaction: Interaction) -> HistoryService:
    return interaction.client.history


def _guild(interaction: Interaction) -> int:
    if interaction.guild_id is None:
        raise UserError("Games are kept per server: use this in a server channel.")
    return interaction.guild_id


# ---------------------------------------------------------------------- the replay


def _info(game: ReplayedGame, index: int) -> BoardInfo:
    pos = game.replay.positions[index]
    return BoardInfo(names=game.terms.names, game_number=pos.game_number, match_scores=pos.scores,
                     match_target=game.replay.rules.match_target, last_moves=pos.last_moves)


async def replay_payload(game: ReplayedGame, index: int, viewer: int) -> dict[str, Any]:
    """The replay message at position ``index``: the public board then, and the controls."""
    replay = game.replay
    index = check_index(game, index)
    pos = replay.positions[index]
    names = game.terms.names
    png = await pictures.board(lambda: (pos.public, _info(game, index)))
    last = index == len(replay.positions) - 1
    if pos.over and pos.public.result is not None:
        status = "🏁 " + result_text(pos.public.result, names)
        if last and not replay.single_game:
            a, b = replay.scores
            status += (f" {names[replay.winner]} wins the match {a}–{b}."
                       if replay.winner is not None else f" The match ends level, {a}–{b}.")
    else:
        status = f"▶ {names[pos.public.turn]} to play"
    title = f"Replay of game #{game.id} · {replay.rules.name} · {names[0]} vs {names[1]}"
    embed = discord.Embed(
        title=title[:256],
        description=(f"**{replay.label(index)}** · {status}\n"
                     f"Position {index + 1} of {len(replay.positions)}"
                     + ("" if replay.single_game else " (turns are numbered per game)")),
        colour=0x1E7B45,
    )
    for name, value in board_fields(pos.public, names):
        embed.add_field(name=name[:256], value=value[:1024] or "–", inline=False)
    if pos.previous_turn:
        embed.add_field(name="What led here", value=clip("\n".join(pos.previous_turn), 1024),
                        inline=False)
    embed.set_image(url="attachment://replay.png")
    player = game.terms.seat_of(viewer) is not None
    embed.set_footer(text="Everything shown was public at that turn."
                     + (" Your own hand then: Show my hand at this turn." if player else ""))
    return {"content": "", "embed": embed,
            "file": discord.File(io.BytesIO(png), filename="replay.png"),
            "view": _replay_controls(game, index, player)}


def _replay_controls(game: ReplayedGame, index: int, player: bool) -> Controls:
    replay = game.replay
    end = len(replay.positions) - 1
    view = Controls()
    for tag, label, target, disabled in (("first", "⏮", 0, index == 0),
                                         ("prev", "◀", max(0, index - 1), index == 0),
                                         ("next", "▶", min(end, index + 1), index == end),
                                         ("last", "⏭", end, index == end)):
        view.add_item(ReplayStep(game.id, target, tag, label=label, disabled=disabled))
    options = [discord.SelectOption(label=replay.label(i)[:100], value=str(i),
                                    description=f"position {i + 1} of {end + 1}",
                                    default=i == index)
               for i in replay.jump_points(25)]
    view.add_item(ReplayJump.build(game.id, options))
    if player:
        view.add_item(ReplayHand(game.id, index))
    view.add_item(ReplayMoves(game.id))
    return view


async def open_replay(interaction: Interaction, game_id: int, turn: int | None = None,
                      deal: int = 1) -> None:
    """Answer with a new private replay of ``game_id`` at its first position, or at the start
    of ``turn`` of the match's ``deal``."""
    await think(interaction, private=True)
    if not 1 <= game_id <= _MAX_ID:
        raise UserError(f"There is no game #{game_id} in this server. `/history` lists the "
                        "finished ones.")
    game = await _service(interaction).replay(game_id, _guild(interaction))
    index = 0 if turn is None else position_at(game, turn, deal)
    await answer(interaction, private=True,
                 **await replay_payload(game, index, interaction.user.id))


async def _show(interaction: Interaction, game_id: int, index: int) -> None:
    # A deferred update first (nothing changes on screen yet), then the replay message is
    # edited in place once the position is drawn.
    await interaction.response.defer()
    game = await _service(interaction).replay(game_id, _guild(interaction))
    payload = await replay_payload(game, index, interaction.user.id)
    file = payload.pop("file")
    await interaction.edit_original_response(attachments=[file], **payload)


class ReplayStep(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("rp", ids.number("game"), ids.number("pos"),
                          "(?P<tag>first|prev|next|last)", instead=_HISTORY),
):
    """⏮ ◀ ▶ ⏭: show the position the button names."""

    def __init__(self, game_id: int, index: int, tag: str, *, label: str = "▶",
                 disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary, disabled=disabled, row=0,
            custom_id=ids.make("rp", game_id, index, tag),
        ))
        self.game_id = game_id
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayStep:
        return cls(int(match["game"]), int(match["pos"]), match["tag"])

    async def act(self, interaction: Interaction) -> None:
        await _show(interaction, self.game_id, self.index)


class ReplayJump(
    Guarded, discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=ids.template("rpj", ids.number("game"), instead=_HISTORY),
):
    """The "jump to turn" menu: up to 25 positions spread over the match."""

    def __init__(self, game_id: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id = game_id

    @classmethod
    def build(cls, game_id: int, options: list[discord.SelectOption]) -> ReplayJump:
        """A fresh menu with ``options`` (their values are positions)."""
        return cls(game_id, discord.ui.Select(
            custom_id=ids.make("rpj", game_id), placeholder="Jump to turn…", options=options,
            min_values=1, max_values=1, row=1,
        ))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayJump:
        if not isinstance(item, discord.ui.Select):
            # A forged click: a button under a menu's id. An empty menu is refused politely.
            item = discord.ui.Select(custom_id=match.string)
        return cls(int(match["game"]), item)

    async def act(self, interaction: Interaction) -> None:
        values = self.item.values
        if not values or not _is_number(values[0]):
            raise UserError("Choose a turn from the menu.")
        await _show(interaction, self.game_id, int(values[0]))


class ReplayHand(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("rph", ids.number("game"), ids.number("pos"), instead=_HISTORY),
):
    """Show the presser his own hand at this position, privately (players of the game only)."""

    def __init__(self, game_id: int, index: int) -> None:
        super().__init__(discord.ui.Button(
            label="Show my hand at this turn", style=discord.ButtonStyle.primary, row=2,
            custom_id=ids.make("rph", game_id, index),
        ))
        self.game_id = game_id
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayHand:
        return cls(int(match["game"]), int(match["pos"]))

    async def act(self, interaction: Interaction) -> None:
        await think(interaction, private=True)
        service = _service(interaction)
        game = await service.replay(self.game_id, _guild(interaction))
        seat = service.hand_at(game, self.index, interaction.user.id)
        view = game.replay.positions[self.index].hand(seat)
        png = await pictures.hand(view, _info(game, self.index))
        assert view.hand is not None
        cards = " ".join(f"`{c.display}`" for c in sorted(view.hand)) or "(empty)"
        when = game.replay.label(self.index)
        turn = ("It was your turn." if view.turn == seat and view.result is None else "")
        await answer(
            interaction, private=True,
            content=(f"**Your hand in game #{game.id}, {when.lower()}:** {cards}\n"
                     f"**Your pay-off card:** {card_text(view.payoff_tops[seat])} "
                     f"({view.payoff_counts[seat]} left) {turn}").rstrip(),
            file=discord.File(io.BytesIO(png), filename="hand.png"),
        )


class ReplayMoves(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("rpm", ids.number("game"), instead=_HISTORY),
):
    """The match's moves in the notation, as ``game-N.txt``."""

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(
            label=f"Move list (game-{game_id}.txt)"[:80], style=discord.ButtonStyle.secondary,
            row=2, custom_id=ids.make("rpm", game_id),
        ))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ReplayMoves:
        return cls(int(match["game"]))

    async def act(self, interaction: Interaction) -> None:
        await think(interaction, private=True)
        service = _service(interaction)
        game = await service.replay(self.game_id, _guild(interaction))
        text = service.move_list(game)
        await answer(interaction, private=True,
                     content=f"The moves of game #{game.id}, with how to replay them with the "
                             "engine.",
                     file=discord.File(io.BytesIO(text.encode()),
                                       filename=f"game-{game.id}.txt"))


# ---------------------------------------------------------------------- the history


def history_payload(page: HistoryPage, reader: int) -> dict[str, Any]:
    """One page of a player's finished games, as ``reader`` sees it, with ◀ ▶ and a menu to
    replay one of them."""
    mine = page.user_id == reader
    if not page.entries:
        who = "You have" if mine else f"<@{page.user_id}> has"
        return {"content": f"{who} no finished games in this server yet.",
                "allowed_mentions": discord.AllowedMentions.none()}
    whose = "Your" if mine else f"<@{page.user_id}>'s"
    lines = [f"**{whose} finished games** · page {page.page + 1} of {page.pages} · "
             f"{plural(page.total, 'game')}, latest first"]
    for e in page.entries:
        kind = e.rules + (f" to {e.target}" if e.target is not None else "")
        result = {"won": "**won**", "lost": "**lost**", "tie": "**tie**"}[e.outcome]
        games = f" in {plural(e.games, 'game')}" if e.target is not None else ""
        table = f" · {e.players} players" if e.players > 2 else ""
        lines.append(f"`#{e.game_id}` <t:{int(e.finished_at)}:d> · {kind}{table} vs "
                     f"{e.opponent[:48]}: {result} {e.scores[0]}–{e.scores[1]}{games} "
                     f"({e.how})" + (" · voided, it counts for nothing" if e.voided else ""))
    lines.append("Replay one with `/replay game:N`, or from the menu below.")
    view = Controls()
    view.add_item(HistoryPageButton(page.user_id, page.page - 1, "newer",
                                    disabled=page.page <= 0))
    view.add_item(HistoryPageButton(page.user_id, page.page + 1, "older",
                                    disabled=page.page >= page.pages - 1))
    view.add_item(HistoryReplaySelect.build([
        discord.SelectOption(label=f"#{e.game_id} · {e.rules} vs {e.opponent}"[:100],
                             value=str(e.game_id)) for e in page.entries]))
    return {"content": clip("\n".join(lines)), "view": view,
            "allowed_mentions": discord.AllowedMentions.none()}


class HistoryPageButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("hist", ids.number("user"), ids.PAGE, "(?P<tag>newer|older)",
                          instead=_HISTORY),
):
    """◀ Newer / Older ▶ through a player's finished games."""

    def __init__(self, user_id: int, page: int, tag: str, *, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label="◀ Newer" if tag == "newer" else "Older ▶", disabled=disabled,
            style=discord.ButtonStyle.secondary, custom_id=ids.make("hist", user_id, page, tag),
        ))
        self.user_id = user_id
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> HistoryPageButton:
        return cls(int(match["user"]), int(match["page"]), match["tag"])

    async def act(self, interaction: Interaction) -> None:
        await interaction.response.defer()
        page = await _service(interaction).history(_guild(interaction), self.user_id,
                                                   max(0, self.page))
        payload = history_payload(page, interaction.user.id)
        await interaction.edit_original_response(**{"view": None, **payload})


class HistoryReplaySelect(
    Guarded, discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=ids.template("histr", instead=_HISTORY),
):
    """Under a page of the history: open the replay of one of its games."""

    def __init__(self, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)

    @classmethod
    def build(cls, options: list[discord.SelectOption]) -> HistoryReplaySelect:
        """A fresh menu with ``options`` (their values are game ids)."""
        return cls(discord.ui.Select(custom_id=ids.make("histr"),
                                     placeholder="Replay one of these…",
                                     options=options[:25], min_values=1, max_values=1))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> HistoryReplaySelect:
        if not isinstance(item, discord.ui.Select):
            item = discord.ui.Select(custom_id=match.string)
        return cls(item)

    async def act(self, interaction: Interaction) -> None:
        values = self.item.values
        if not values or not _is_number(values[0]):
            raise UserError("Choose a game from the menu.")
        await open_replay(interaction, int(values[0]))


DYNAMIC_ITEMS = (ReplayStep, ReplayJump, ReplayHand, ReplayMoves, HistoryPageButton,
                 HistoryReplaySelect)


# ---------------------------------------------------------------------- the commands


class HistoryCog(commands.Cog):
    """``/history`` and ``/replay``."""

    @app_commands.command(name="history", description="A player's finished games in this "
                                                       "server, with their results.")
    @app_commands.describe(user="Whose games (default: yours)")
    @app_commands.guild_only()
    async def history_(self, interaction: Interaction,
                       user: discord.Member | None = None) -> None:
        await think(interaction, private=True)
        who = (user or interaction.user).id
        page = await _service(interaction).history(_guild(interaction), who, 0)
        await answer(interaction, private=True, **history_payload(page, interaction.user.id))

    @app_commands.command(name="replay", description="Step through a finished game, turn by "
                                                     "turn, and get its moves.")
    @app_commands.describe(game="The game's number (see /history)",
                           turn="Start at this turn (default: the first)",
                           deal="In a match, which deal the turn is in (default: the first)")
    @app_commands.guild_only()
    async def replay(self, interaction: Interaction, game: int,
                     turn: app_commands.Range[int, 1, 100_000] | None = None,
                     deal: app_commands.Range[int, 1, 1_000] = 1) -> None:
        await open_replay(interaction, game, turn, deal)
