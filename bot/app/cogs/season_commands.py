"""``/season start``, ``/season end`` and the season leaderboard (``/leaderboard season:``).
Thin: they call the ``SeasonService`` and format its answers; the end of a season is posted by
``season_posts``."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.money.amounts import format_amount
from bot.money.season_table import MIN_SEASON_GAMES
from bot.pictures.drawing import pictures
from bot.storage import SeasonRow
from bot.user_errors import UserError

from ..host import Host, Interaction
from ..season_posts import POINTS_RULE, SeasonPost, post_season, season_names, season_span
from ..ui import answer, think

__all__ = ["SEASON_HELP", "SeasonCog", "ended_text", "season_autocomplete", "season_board",
           "season_lines"]

SHOWN = 10

SEASON_HELP = "\n`/season start name` · `/season end` seasons (admins) · `/leaderboard season:`"
"""/help's line on seasons."""


async def season_autocomplete(interaction: Interaction, current: str) -> list[Choice[str]]:
    """The ``season:`` choices: all time, then the server's seasons, newest first (≤ 25)."""
    if interaction.guild_id is None:
        return []
    return [Choice(name=label, value=value) for label, value in
            await interaction.client.seasons.choices(interaction.guild_id, current)]


async def season_board(bot: Host, interaction: Interaction, season_text: str | None,
                       all_time_asked: bool) -> bool:
    """Post the season leaderboard ``/leaderboard`` asked for, after ``think``: the season
    named, or by default the running one (unless ``by`` or ``rules`` asked for an all-time
    ranking). False when the all-time board is wanted instead (seasons off, none running, or
    ``season: all``)."""
    assert interaction.guild_id is not None
    seasons = bot.seasons
    if season_text:
        season = await seasons.resolve(interaction.guild_id, season_text)
    elif all_time_asked:
        return False
    else:
        season = await seasons.current(interaction.guild_id)
    if season is None:
        return False
    table = await seasons.table(season)
    currency = (await bot.ledger.settings(interaction.guild_id)).currency
    me = interaction.user.id
    top = table[:SHOWN]
    mine = next((p for p in table if p.user_id == me), None)
    shown = list(top) + ([mine] if mine is not None and mine not in top else [])
    names = await season_names(bot, interaction.guild_id, (p.user_id for p in shown))
    names[me] = interaction.user.display_name
    state = "running" if season.state == "open" else "final"
    title = f"Season {season.name} · {state}"
    rows = [[str(p.place) if p.place is not None else "–",
             names.get(p.user_id, f"Player {p.user_id}"), str(p.points), str(p.games),
             f"{p.wins}-{p.losses}-{p.ties}", format_amount(p.net_cents, currency)]
            for p in shown]
    note = f"Ranked with at least {MIN_SEASON_GAMES} games · – = fewer games, listed after"
    lines = [f"**{title}** ({season_span(season)})"] + [" · ".join(r) for r in rows]
    if not rows:
        lines.append("No game finished in this season yet.")
    elif mine is None:
        lines.append("You have no game in this season yet.")
    lines.append(f"Ranked: players with at least {MIN_SEASON_GAMES} games in the season "
                 f"(– : fewer, listed after). By points, then net money. {POINTS_RULE} "
                 "Other seasons and all time: `season:`.")
    if season_text and all_time_asked:
        lines.append("(`by` and `rules` rank the all-time board: `season:All time`.)")
    highlight = next((i for i, p in enumerate(shown) if p.user_id == me), None)
    png = await pictures.table(title, ["#", "Player", "Points", "Games", "W-L-T", "Net"], rows,
                               highlight, note)
    await interaction.followup.send(
        "\n".join(lines)[:2000], file=discord.File(io.BytesIO(png), "leaderboard.png"),
        allowed_mentions=discord.AllowedMentions.none())
    return True


async def season_lines(bot: Host, guild_id: int, user_id: int, currency: str) -> list[str]:
    """``/stats``: the player's record in the running season and his places in past ones
    (nothing when the server never had a season)."""
    record = await bot.seasons.record(guild_id, user_id)
    lines = []
    if record.current is not None:
        line = record.line
        if line is None:
            lines.append(f"Season {record.current.name}: no game yet")
        else:
            place = (f"#{line.place}" if line.place is not None
                     else f"not ranked yet ({line.games} of {MIN_SEASON_GAMES} games)")
            lines.append(f"Season {record.current.name}: {place} · {line.points} points · "
                         f"{line.wins}-{line.losses}-{line.ties} · "
                         f"{format_amount(line.net_cents, currency)} · best streak "
                         f"{line.best_streak}")
    if record.past:
        lines.append("Past seasons: " + ", ".join(
            f"{s.name} {'#' + str(p.place) if p.place is not None else 'unranked'}"
            for s, p in record.past))
    return lines


def _admin(interaction: Interaction) -> None:
    if not interaction.permissions.manage_guild:
        raise UserError("Only members with the Manage Server permission can start or end a "
                        "season.")


class SeasonCog(commands.Cog):
    """Seasons started and ended by an admin."""

    season = app_commands.Group(name="season", description="Seasons run by hand (admins).",
                                guild_only=True)

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @season.command(name="start", description="Admins: start a season now (ended with "
                                              "/season end).")
    @app_commands.describe(name="The season's name, e.g. Spring 2027")
    async def start(self, interaction: Interaction,
                    name: app_commands.Range[str, 1, 40]) -> None:
        assert interaction.guild_id is not None
        _admin(interaction)
        await think(interaction, private=True)
        started = await self.bot.seasons.start_manual(interaction.guild_id, name)
        settings = await self.bot.ledger.settings(interaction.guild_id)
        where = ("" if settings.season_channel_id is not None else
                 " Set `/settings season_channel` to have them posted in a channel.")
        await answer(interaction, private=True, content=(
            f"Season **{started.name}** has started: every game finished from now on counts "
            "for it. `/leaderboard` shows it; `/season end` ends it and posts the final "
            f"standings.{where}"))

    @season.command(name="end", description="Admins: end the running season now and post "
                                            "its final standings.")
    async def end(self, interaction: Interaction) -> None:
        assert interaction.guild_id is not None
        _admin(interaction)
        await think(interaction, private=True)
        ended = await self.bot.seasons.end_manual(interaction.guild_id)
        posted = await post_season(self.bot, ended)
        await answer(interaction, private=True, content=ended_text(ended, posted))


def ended_text(ended: SeasonRow, post: SeasonPost) -> str:
    """What an admin is told of a season he ended, by what became of its final post."""
    channel = f"<#{ended.channel_id}>"
    if post.message_id is not None:
        where = f"its final standings are posted in {channel}"
    elif post.why_not == "no channel":
        where = "no season channel is set in `/settings`, so its final standings are not posted"
    elif post.why_not == "no games":
        where = "no game was finished in it, so there are no final standings to post"
    elif post.why_not == "refused":
        where = (f"the bot can't post in {channel} (the channel is gone, or the bot may not "
                 "send messages or files there), so its final standings are not posted")
    else:
        where = (f"Discord didn't take the post of its final standings just now; the bot "
                 f"tries again in {channel} within a few minutes")
    return (f"Season **{ended.name}** has ended: {where}. `/leaderboard season:` shows them "
            "at any time.")

