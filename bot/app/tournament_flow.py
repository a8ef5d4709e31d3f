"""Tournaments on Discord: the sign-up message and its buttons, each table's game announced in
a thread of its own, the live bracket or standings, and the final result.

What is shown is derived from what is saved (``Tournaments.state``), so the same call brings
everything up to date after a click, a game's last move or a restart (``bring_up_to_date``):
a game not announced yet is announced, a board behind its events is drawn again, a result not
posted is posted (once: its message id is saved, and a try again carries the same nonce).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
import weakref
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.games.tournament_service import TournamentState
from bot.money.amounts import format_amount
from bot.pictures.bracket_picture import BracketView, draw_bracket
from bot.pictures.drawing import pictures
from bot.storage.tournament_records import TableGameRow, TournamentRow
from bot.tournaments import Standing, Tournament
from engine import RuleSet

from . import custom_ids as ids
from .host import Host, Interaction
from .retry import describe
from .ui import Controls, Guarded

__all__ = ["DYNAMIC_ITEMS", "TournamentButton", "board_text", "bracket_view",
           "bring_up_to_date", "draw_bracket", "game_finished", "look_after", "signup_controls",
           "signup_embed", "standings_lines"]

log = logging.getLogger(__name__)

FORMAT_WORDS = {"knockout": "Knockout", "swiss": "Swiss", "round robin": "Round robin"}


# ---------------------------------------------------------------------- the buttons


class TournamentButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("tn", ids.number("id"),
                          "(?P<action>join|leave|start|cancel|computer)",
                          instead="/tournament show"),
):
    """Join or Leave (anyone), Add computer, Start or Cancel (the organiser)."""

    STYLES = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "computer": ("Add computer", discord.ButtonStyle.secondary),
        "start": ("Start", discord.ButtonStyle.primary),
        "cancel": ("Cancel", discord.ButtonStyle.danger),
    }

    def __init__(self, tournament_id: int, action: str, *, disabled: bool = False) -> None:
        label, style = self.STYLES[action]
        super().__init__(discord.ui.Button(
            label=label, style=style, custom_id=ids.make("tn", tournament_id, action),
            disabled=disabled))
        self.tournament_id = tournament_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> TournamentButton:
        return cls(int(match["id"]), match["action"])

    async def act(self, interaction: Interaction) -> None:
        await _click(interaction, self.tournament_id, self.action)


DYNAMIC_ITEMS = (TournamentButton,)


def signup_controls(row: TournamentRow) -> Controls:
    """The buttons under the sign-up: all of them while it is open; Leave (a forfeit) and
    Cancel while it runs; none usable once it is over."""
    view = Controls()
    actions = ["join", "leave", "start", "cancel"]
    if row.allow_computer:
        actions.insert(2, "computer")
    for action in actions:
        usable = row.status == "open" or (row.status == "running"
                                          and action in ("leave", "cancel"))
        view.add_item(TournamentButton(row.id, action, disabled=not usable))
    return view


# ---------------------------------------------------------------------- words


def _who(bot: Host, user_id: int) -> str:
    return "the computer" if user_id == bot.computer_id else f"<@{user_id}>"


def terms_line(bot: Host, row: TournamentRow) -> str:
    """The tournament's terms in a line."""
    rules = RuleSet.from_dict(row.rules)
    parts = [FORMAT_WORDS.get(row.format, row.format), rules.name,
             f"tables of {row.seats}"]
    if row.buy_in_cents:
        parts.append(f"buy-in {format_amount(row.buy_in_cents, row.currency)} to the pot")
    elif row.stake_cents:
        parts.append(f"{format_amount(row.stake_cents, row.currency)} a game to the winner")
    else:
        parts.append("for points only")
    hours = row.deadline_s / 3600
    parts.append(f"{hours:g} hours a round")
    return " · ".join(parts)


def signup_embed(bot: Host, row: TournamentRow) -> discord.Embed:
    """The sign-up message: terms, who joined, and what happens next."""
    status = {
        "open": ("Press **Join** to play. The organiser presses **Start**"
                 + (f" (or it starts <t:{int(row.start_at)}:R>)" if row.start_at else "")
                 + "."),
        "running": "**Started.** The games are in their threads; the standings are below.",
        "finished": "**Finished.**",
        "cancelled": "**Cancelled** by the organiser.",
    }[row.status]
    entrants = "\n".join(f"{i + 1}. {_who(bot, e.user_id)}" for i, e in enumerate(row.entrants))
    return discord.Embed(
        title=f"🏆 {row.name}", colour=0xF5C542,
        description=(f"Organised by <@{row.organiser_id}>.\n**Terms:** {terms_line(bot, row)}"
                     f"\n**Players ({len(row.entrants)}):**\n{entrants or '— nobody yet —'}"
                     f"\n{status}")[:4000])


def _still_in_first(tournament: Tournament) -> list[Standing]:
    """The standings with the players still in (no place yet) first, by seed."""
    lines = tournament.standings()
    return [s for s in lines if s.place is None] + [s for s in lines if s.place is not None]


def standings_lines(bot: Host, tournament: Tournament) -> list[str]:
    """The standings, best first: place, player, record."""
    lines = []
    for s in _still_in_first(tournament):
        place = "—" if s.place is None else str(s.place)
        record = (f"{s.points:g} pts · {s.wins}-{s.draws}-{s.losses}"
                  if tournament.format_name != "knockout" else
                  ("still in" if s.place is None else f"{s.wins} won"))
        if s.byes:
            record += f" · {s.byes} bye" + ("s" if s.byes > 1 else "")
        if s.withdrawn:
            record += " · left"
        lines.append(f"{place}. {_who(bot, s.player)} — {record}")
    return lines


def _round_lines(bot: Host, tournament: Tournament) -> list[str]:
    lines = []
    for r in tournament.rounds:
        lines.append(f"**Round {r.number}**")
        for t in r.tables:
            if t.places is None:
                lines.append(" vs ".join(_who(bot, p) for p in t.seats) + " — playing")
            else:
                order = sorted(zip(t.places, t.seats, strict=True))
                lines.append(" · ".join(f"{place}. {_who(bot, p)}" for place, p in order)
                             + (" (forfeit)" if t.forfeit else ""))
        for p in r.byes:
            lines.append(f"{_who(bot, p)} — bye")
    return lines


def board_text(bot: Host, state: TournamentState) -> str:
    """The bracket or standings in words (beside the picture)."""
    t = state.tournament
    if t is None:
        return ""
    head = f"📊 **{state.row.name}** — " + (
        "final standings" if t.finished else
        f"round {t.current.number if t.current else len(t.rounds)}")
    return "\n".join([head, *_round_lines(bot, t)[-30:], "", *standings_lines(bot, t)])[:1900]


# ---------------------------------------------------------------------- keeping it up to date

_locks: weakref.WeakKeyDictionary[Host, dict[int, asyncio.Lock]] = \
    weakref.WeakKeyDictionary()
"""Per bot, per tournament: one update of its messages at a time (an edit made for an earlier
event must not land after a later one)."""


_signups_shown: weakref.WeakKeyDictionary[Host, dict[int, tuple[str, tuple[int, ...]]]] = \
    weakref.WeakKeyDictionary()
"""Per bot, per tournament: what its sign-up message was last edited to show (status and
entrants), so the housekeeping doesn't edit it again every round; after a restart it is
edited once."""


@contextlib.asynccontextmanager
async def _one_at_a_time(bot: Host, tournament_id: int) -> AsyncIterator[None]:
    lock = _locks.setdefault(bot, {}).setdefault(tournament_id, asyncio.Lock())
    async with lock:
        yield


async def bring_up_to_date(bot: Host, tournament_id: int) -> None:
    """Post the sign-up if it never was (a crash right after the tournament was saved),
    announce the games not announced, edit the sign-up, draw the board if it is behind, post
    the final result if it is due (each part once: read again here, one call at a time)."""
    async with _one_at_a_time(bot, tournament_id):
        tours = bot.service.tournaments
        state = await tours.state(tournament_id)
        row = state.row
        if row.message_id is None and row.status == "open":
            message = await bot.get_partial_messageable(row.channel_id).send(
                embed=signup_embed(bot, row), view=signup_controls(row),
                nonce=f"ts{row.id}"[:25], allowed_mentions=discord.AllowedMentions.none())
            await tours.set_message(row.id, "message_id", message.id)
            return
        for link in await tours.unposted(tournament_id):
            await _announce_game(bot, row, link)
        shown = _signups_shown.setdefault(bot, {})
        key = (row.status, tuple(e.user_id for e in row.entrants))
        if row.message_id is not None and shown.get(row.id) != key:
            with contextlib.suppress(discord.HTTPException):
                await bot.get_partial_messageable(row.channel_id).get_partial_message(
                    row.message_id).edit(embed=signup_embed(bot, row),
                                         view=signup_controls(row))
                shown[row.id] = key
        if state.tournament is not None and row.board_events != state.events:
            await _show_board(bot, state)
        if row.status == "finished" and row.result_message_id is None \
                and state.tournament is not None:
            await _post_result(bot, state)


async def _announce_game(bot: Host, row: TournamentRow, link: TableGameRow) -> None:
    live = await bot.service.live.game(link.game_id)
    if live.thread_id is not None:  # its thread opened before a crash: only the note is left
        await bot.service.tournaments.set_posted(link.game_id)
        return
    people = " vs ".join(_who(bot, u) for u in live.players)
    replay = " (again, after a drawn game)" if link.attempt else ""
    deadline = int(link.created_at + row.deadline_s)
    channel = bot.get_partial_messageable(row.channel_id)
    # The game's first board waits for its thread (a repair round would post it in the
    # channel meanwhile).
    async with bot.boards.held(live.id):
        message = await channel.send(
            f"🏆 **{row.name}** · round {link.round}, table {link.table_no + 1}{replay}: "
            f"{people}. Your game is in the thread below; play by <t:{deadline}:f> (after "
            "that, whoever is on turn loses).",
            nonce=f"tg{link.game_id}"[:25],
            allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False))
        name = f"{row.name} · round {link.round} · table {link.table_no + 1}"
        await bot.game_started(live, origin_message_id=message.id, thread_name=name[:100])
    await bot.service.tournaments.set_posted(link.game_id)


async def _show_board(bot: Host, state: TournamentState) -> None:
    row = state.row
    assert state.tournament is not None
    text = board_text(bot, state)
    picture = await pictures.drawn(draw_bracket, bracket_view(bot, state))
    file = discord.File(io.BytesIO(picture), filename="bracket.png")
    channel = bot.get_partial_messageable(row.channel_id)
    if row.board_message_id is None:
        message = await channel.send(text, file=file,
                                     allowed_mentions=discord.AllowedMentions.none())
        await bot.service.tournaments.set_message(row.id, "board_message_id", message.id)
    else:
        await channel.get_partial_message(row.board_message_id).edit(
            content=text, attachments=[file], allowed_mentions=discord.AllowedMentions.none())
    await bot.service.tournaments.set_board_events(row.id, state.events)


def bracket_view(bot: Host, state: TournamentState) -> BracketView:
    """What the picture shows, from the tournament's state."""
    t = state.tournament
    assert t is not None
    names = {e.user_id: e.name for e in state.row.entrants}
    names[bot.computer_id] = "Computer"
    rounds = tuple(
        tuple((tuple(names.get(p, "?") for p in table.seats), table.places, table.forfeit)
              for table in r.tables) + tuple(((names.get(p, "?"),), (1,), False)
                                             for p in r.byes)
        for r in t.rounds)
    standings = tuple((s.place, names.get(s.player, "?"), s.points, s.wins, s.losses,
                       s.withdrawn) for s in _still_in_first(t))
    return BracketView(title=state.row.name, format_name=t.format_name, rounds=rounds,
                       standings=standings, finished=t.finished, planned=_planned(t),
                       seats=t.seats)


def _planned(tournament: Tournament) -> int:
    total = getattr(tournament, "total_rounds", len(tournament.rounds))
    return int(total) if isinstance(total, int) else len(tournament.rounds)


async def _post_result(bot: Host, state: TournamentState) -> None:
    row = state.row
    t = state.tournament
    assert t is not None
    standings = t.standings()
    winners = [s.player for s in standings if s.place == 1]
    lines = [f"🏆 **{row.name}** is over! "
             + ("Winner: " if len(winners) == 1 else "Shared first place: ")
             + ", ".join(_who(bot, p) for p in winners) + "."]
    lines += ["**Places:**", *standings_lines(bot, t)[:20]]
    money = await bot.service.tournaments.money_lines(row.id)
    if money:
        lines += ["**Money:**", *(f"{_who(bot, d)} owes {_who(bot, c)} "
                                  f"{format_amount(cents, row.currency)}"
                                  for d, c, cents in money)]
    elif row.stake_cents:
        lines.append("**Money:** each game's stake is in the notebook (`/ledger`).")
    message = await bot.get_partial_messageable(row.channel_id).send(
        "\n".join(lines)[:2000], nonce=f"tr{row.id}"[:25],
        allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False))
    await bot.service.tournaments.set_message(row.id, "result_message_id", message.id)


async def game_finished(bot: Host, game_id: int) -> None:
    """A game's match is over: if it was a tournament's, the tournament moves on (what fails
    here, the next housekeeping round does: everything is derived from what is saved)."""
    tours = bot.service.tournaments
    try:
        tournament_id = await tours.tournament_of_game(game_id)
        if tournament_id is None:
            return
        await tours.sync(tournament_id)
        await bring_up_to_date(bot, tournament_id)
    except Exception as exc:
        bot.failures.failed("tournament", "game %s: its tournament couldn't move on (%s); "
                            "the next housekeeping round tries again", game_id, describe(exc))


async def look_after(bot: Host) -> None:
    """The housekeeping's part: tournaments whose start time came start, results missed by a
    crash are recorded, games past their deadline are decided, and what is shown is brought
    up to date."""
    for tournament_id in await bot.service.tournaments.due():
        try:
            await bot.service.tournaments.sync(tournament_id)
            await bring_up_to_date(bot, tournament_id)
        except Exception as exc:
            bot.failures.failed("tournament", "tournament %s: couldn't be brought up to date "
                                "(%s); tried again at the next round", tournament_id,
                                describe(exc))


# ---------------------------------------------------------------------- the clicks


async def _click(interaction: Interaction, tournament_id: int, action: str) -> None:
    await interaction.response.defer()
    bot = interaction.client
    tours = bot.service.tournaments
    user = interaction.user
    if action == "join":
        await tours.join(tournament_id, user.id, user.display_name)
        said = "You're in. Good luck!"
    elif action == "leave":
        row = await tours.get(tournament_id)
        await tours.leave(tournament_id, user.id)
        said = ("You left the tournament." if row.status == "open" else
                "You left the tournament: your remaining games are forfeited.")
    elif action == "computer":
        await tours.add_computer(tournament_id, user.id)
        said = "The computer has joined."
    elif action == "start":
        await tours.start(tournament_id, user.id)
        said = "The tournament has started: round 1's games are in their threads."
    else:
        await tours.cancel(tournament_id, user.id)
        said = "The tournament is cancelled. Games already finished stand; no pot is paid."
    await bring_up_to_date(bot, tournament_id)
    with contextlib.suppress(discord.HTTPException):
        await interaction.followup.send(said, ephemeral=True)


