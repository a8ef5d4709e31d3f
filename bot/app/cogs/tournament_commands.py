"""``/tournament create``, ``/tournament show`` and ``/tournament remove``. Thin: they read
what the user sent, call the ``Tournaments`` service and post what it says; the sign-up's
buttons, the games' threads and the live standings are ``tournament_flow``'s."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.games.tournament_service import LONGEST_DEADLINE_H, MAX_NAME
from bot.pictures.drawing import pictures
from bot.pictures.text import quote
from bot.user_errors import UserError

from .. import tournament_flow as flow
from ..host import Interaction
from ..ui import answer, think
from .game_commands import RULE_CHOICES, RULE_NAMES

__all__ = ["TournamentCog"]

FORMAT_CHOICES = [Choice(name="knockout (single elimination; tables of 2 to 4)",
                         value="knockout"),
                  Choice(name="Swiss (two-player games; ⌈log2 players⌉ rounds)", value="swiss"),
                  Choice(name="round robin (two-player games; up to 8 players)",
                         value="round robin")]


def _choice(value: str | None, allowed: tuple[str, ...], what: str) -> str | None:
    # A modified client can send anything: refused in words rather than by discord.py.
    if value is None or value in allowed:
        return value
    raise UserError(f"Unknown {what} {quote(value)}: choose {', '.join(allowed)}.")


class TournamentCog(commands.Cog):
    """Tournaments: create, show, remove a player."""

    tournament = app_commands.Group(name="tournament", description="Tournaments: knockout, "
                                    "Swiss or round robin.", guild_only=True)

    @tournament.command(name="create", description="Post a tournament's sign-up.")
    @app_commands.describe(
        name=f"The tournament's name (at most {MAX_NAME} characters)",
        format="Knockout, Swiss or round robin",
        rules="Rule set (default: this server's)",
        seats="Players per table (knockout: 2 to 4; the others: 2)",
        stake="Each game's stake, paid by the loser to the winner, e.g. 0.50",
        buy_in="Each player's buy-in to the pot, paid out to the places, e.g. 5",
        deadline_hours="Hours each round's games have (default 48); then whoever is on turn "
                       "loses",
        start_at="Start by itself at this time: 2026-12-24 20:00 (UTC), or in 2h",
        computer="Allow me, the computer, a place (the organiser adds it)")
    @app_commands.choices(format=FORMAT_CHOICES, rules=RULE_CHOICES)
    async def create(
        self, interaction: Interaction, name: str, format: str = "knockout",
        rules: str | None = None, seats: app_commands.Range[int, 2, 4] = 2,
        stake: str | None = None, buy_in: str | None = None,
        deadline_hours: app_commands.Range[float, 0.01, LONGEST_DEADLINE_H] = 48.0,
        start_at: str | None = None, computer: bool = False,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        _choice(format, tuple(c.value for c in FORMAT_CHOICES), "format")
        _choice(rules, RULE_NAMES, "rule set")
        # Refusals before anything is posted are private; the sign-up itself is public.
        await think(interaction, private=True)
        bot = interaction.client
        settings = await bot.service.inviting.settings(interaction.guild_id)
        rule_set = bot.service.inviting.rules_for(settings, rules)
        row = await bot.service.tournaments.create(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            organiser=interaction.user.id, name=name, rules=rule_set, format_name=format,
            seats=seats, stake=stake, buy_in=buy_in, deadline_hours=float(deadline_hours),
            start_at=start_at, allow_computer=computer)
        await flow.bring_up_to_date(bot, row.id)  # posts the sign-up
        await answer(interaction, private=True,
                     content=f"Your tournament **{row.name}** (#{row.id}) is open for sign-up "
                             "below. Press **Start** when everyone has joined.")

    @tournament.command(name="show", description="A tournament's bracket or standings.")
    @app_commands.describe(number="The tournament's number (default: this server's latest)")
    async def show(self, interaction: Interaction,
                   number: app_commands.Range[int, 1, 2**53] | None = None) -> None:
        assert interaction.guild_id is not None
        await think(interaction, private=True)
        bot = interaction.client
        tours = bot.service.tournaments
        if number is None:
            latest = [r for r in await tours.listed(interaction.guild_id)
                      if r.status != "cancelled"]
            if not latest:
                raise UserError("This server has no tournament yet: start one with "
                                "`/tournament create`.")
            number = latest[0].id
        state = await tours.state(number)
        if state.row.guild_id != interaction.guild_id:
            raise UserError("That tournament doesn't exist.")
        if state.tournament is None:
            await answer(interaction, private=True, embed=flow.signup_embed(bot, state.row))
            return
        picture = await pictures.drawn(flow.draw_bracket, flow.bracket_view(bot, state))
        await answer(interaction, private=True, content=flow.board_text(bot, state),
                     file=discord.File(io.BytesIO(picture), filename="bracket.png"),
                     allowed_mentions=discord.AllowedMentions.none())

    @show.autocomplete("number")
    async def _show_numbers(self, interaction: Interaction, current: str
                            ) -> list[Choice[int]]:
        return await _numbers(interaction, current)

    @tournament.command(name="remove", description="Remove a player from your tournament "
                                                   "(he forfeits his remaining games).")
    @app_commands.describe(number="The tournament's number", player="Who to remove")
    async def remove(self, interaction: Interaction, number: app_commands.Range[int, 1, 2**53],
                     player: discord.Member) -> None:
        await think(interaction, private=True)
        bot = interaction.client
        row = await bot.service.tournaments.remove(number, interaction.user.id, player.id)
        await flow.bring_up_to_date(bot, row.id)
        await answer(interaction, private=True,
                     content=f"{player.mention} is out of **{row.name}**.",
                     allowed_mentions=discord.AllowedMentions.none())

    @remove.autocomplete("number")
    async def _remove_numbers(self, interaction: Interaction, current: str
                              ) -> list[Choice[int]]:
        return await _numbers(interaction, current)


async def _numbers(interaction: Interaction, current: str) -> list[Choice[int]]:
    """The server's tournaments, newest first, matching what is typed (number or name);
    none if the database is slow (suggestions can't wait past Discord's 3 s)."""
    if interaction.guild_id is None:
        return []
    try:
        rows = await asyncio.wait_for(
            interaction.client.service.tournaments.listed(interaction.guild_id), 2.0)
    except (TimeoutError, UserError):
        return []
    typed = current.strip().lower().lstrip("#")
    return [Choice(name=f"#{r.id} {r.name} ({r.status})"[:100], value=r.id) for r in rows
            if not typed or typed in str(r.id) or typed in r.name.lower()][:25]
