"""The end of a season in the channel: its final standings, posted once.

A season whose end has come is taken by one process (a compare-and-set that also saves its
final table, see ``SeasonRecords.finish``), posted, then marked posted. The rule for a crash
between the take and the mark: the season stays ``claimed``; after ``STALE_CLAIM_S`` a later
round (of any process) takes it again and first looks through the channel's latest messages
for the bot's post of that season (its text names the season's number), marking that one
posted instead of sending another. A post that failed in this process (Discord away) is let go
at once, and the next round tries again the same way. The message's nonce keeps Discord from
showing a second copy sent within minutes of the first.

A season with no game, or a server with no season channel, ends quietly (``quiet``): its final
table is kept all the same, for ``/leaderboard season:`` and ``/stats``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import logging
from collections.abc import Iterable
from typing import Literal, NamedTuple

import discord

from bot.money.amounts import format_amount
from bot.money.season_table import MIN_SEASON_GAMES
from bot.money.seasons import FinalStandings
from bot.pictures.drawing import pictures
from bot.pictures.season_picture import render_season_final
from bot.storage import SeasonPlace, SeasonRow

from . import retry
from .host import Host

__all__ = ["HISTORY_LOOKBACK", "POINTS_RULE", "SeasonPost", "final_picture_args", "final_text",
           "post_due_seasons", "post_season", "season_marker", "season_names", "season_span"]

log = logging.getLogger(__name__)

HISTORY_LOOKBACK = 50
"""Messages of the channel looked through for an earlier post of the season."""

class SeasonPost(NamedTuple):
    """What became of a season's final post (``post_season``)."""

    message_id: int | None
    """The post's id, if it is in the channel."""
    why_not: Literal["no channel", "no games", "refused", "later"] | None = None
    """Why not: no season channel set; no game finished in the season; Discord refused the
    post (the channel gone or closed to the bot: not tried again); Discord didn't take it
    just now (tried again at the next housekeeping round)."""


POINTS_RULE = ("Points: a win 3, a draw 1, second of four 2, third of four or second of "
               "three 1.")


def season_marker(season: SeasonRow) -> str:
    """The words of a season's final post that say which season it is (a retry finds them)."""
    return f"(season #{season.id})"


def season_span(season: SeasonRow) -> str:
    """``1 Nov – 30 Nov 2026`` (UTC); a season still running: ``since 1 Nov 2026``."""
    def day(at: float) -> str:
        return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%-d %b %Y")
    if season.ends_at is None:
        return f"since {day(season.starts_at)}"
    # The last day a game could end in (the end itself is the next day's midnight).
    return f"{day(season.starts_at)} – {day(season.ends_at - 1)}"


async def season_names(bot: Host, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
    """Names for the picture: the server's member cache, the user cache, then the names saved
    with the players' games (never a request to Discord per player)."""
    wanted = list(dict.fromkeys(user_ids))
    names: dict[int, str] = {}
    guild = bot.get_guild(guild_id)
    for user_id in wanted:
        user = (guild.get_member(user_id) if guild is not None else None) or \
            bot.get_user(user_id)
        if user is not None:
            names[user_id] = user.display_name
    missing = [u for u in wanted if u not in names]
    if missing:
        names.update({u: n for u, n in (await bot.ledger.player_names(guild_id, missing)).items()
                      if u not in names})
    return names


def _line(p: SeasonPlace, currency: str) -> str:
    return (f"{p.points} points · {p.games} games · {p.wins}-{p.losses}-{p.ties} · "
            f"{format_amount(p.net_cents, currency)}")


def final_text(final: FinalStandings, currency: str, top: int = 5) -> str:
    """The post's words (under 2,000 characters): champion, top places, most games, best
    streak, how to read it."""
    season = final.season
    lines = [f"🏆 **{season.name}** is over: the final standings {season_marker(season)}, "
             f"{season_span(season)}."]
    if len(final.champions) > 1:
        tied = [f"<@{p.user_id}>" for p in final.champions]
        lines.append(f"Champions, tied on points, money, wins and games: "
                     f"{', '.join(tied[:-1])} and {tied[-1]} with "
                     f"{final.champions[0].points} points!")
    elif final.champion is not None:
        lines.append(f"Champion: <@{final.champion.user_id}> with "
                     f"{final.champion.points} points!")
    else:
        lines.append(f"No champion: nobody played the {MIN_SEASON_GAMES} games needed to be "
                     "ranked.")
    for p in final.top[:top]:
        lines.append(f"{p.place}. <@{p.user_id}>: {_line(p, currency)}")
    facts = []
    if final.most_games is not None:
        facts.append(f"Most games: <@{final.most_games.user_id}> ({final.most_games.games})")
    if final.best_streak is not None:
        facts.append(f"Best streak: <@{final.best_streak.user_id}> "
                     f"({final.best_streak.best_streak} wins in a row)")
    if facts:
        lines.append(" · ".join(facts))
    lines.append(f"Ranked: players with at least {final.min_games} games in the season. "
                 f"{POINTS_RULE} See every place with `/leaderboard season:`.")
    return "\n".join(lines)[:2000]


def final_picture_args(final: FinalStandings, names: dict[int, str], currency: str
                       ) -> tuple[object, ...]:
    """The arguments of ``render_season_final`` for ``final`` (plain, picklable)."""
    season = final.season

    def name(p: SeasonPlace) -> str:
        return names.get(p.user_id, f"Player {p.user_id}")
    rows = tuple((str(p.place), name(p), str(p.points), str(p.games),
                  f"{p.wins}-{p.losses}-{p.ties}", format_amount(p.net_cents, currency))
                 for p in final.top)
    facts = []
    if final.most_games is not None:
        facts.append(f"Most games: {name(final.most_games)}, {final.most_games.games}")
    if final.best_streak is not None:
        facts.append(f"Best streak: {name(final.best_streak)}, "
                     f"{final.best_streak.best_streak} wins in a row")
    champion = final.champion
    return (season.name, season_span(season),
            " & ".join(name(p) for p in final.champions or [champion]) if champion else "",
            _line(champion, currency) if champion else "",
            rows, tuple(facts), f"Ranked with at least {final.min_games} games. {POINTS_RULE}")


async def final_picture(bot: Host, final: FinalStandings, currency: str) -> bytes:
    """The picture of the final standings (drawn in the drawing process)."""
    shown = [*final.top, *(p for p in (final.most_games, final.best_streak) if p is not None)]
    names = await season_names(bot, final.season.guild_id, (p.user_id for p in shown))
    return await pictures.drawn(render_season_final, *final_picture_args(final, names, currency))


async def _earlier_post(bot: Host, channel: discord.PartialMessageable, season: SeasonRow
                        ) -> int | None:
    marker = season_marker(season)
    try:
        async for message in channel.history(limit=HISTORY_LOOKBACK):
            if bot.user is not None and message.author.id == bot.user.id and \
                    marker in message.content:
                return message.id
    except discord.Forbidden:
        # No Read Message History: post (a copy sent within minutes is dropped by its nonce).
        log.warning("season %s: can't read channel %s to look for an earlier post",
                    season.id, season.channel_id)
    return None


async def post_season(bot: Host, season: SeasonRow, *, again: bool = False) -> SeasonPost:
    """Post a taken season's final standings and mark it posted (or quiet); ``again``: a
    retry, which first looks for a post already made. A failure to reach Discord lets the
    season go for the next round; nothing is raised."""
    seasons = bot.seasons
    try:
        final = await seasons.final(season)
        if season.channel_id is None or not final.table:
            await seasons.records.mark(season.id, "quiet", None)
            return SeasonPost(None, "no channel" if season.channel_id is None else "no games")
        channel = bot.get_partial_messageable(season.channel_id, guild_id=season.guild_id)
        if again:
            found = await asyncio.wait_for(_earlier_post(bot, channel, season),
                                           retry.REST_TIMEOUT)
            if found is not None:
                await seasons.records.mark(season.id, "posted", found)
                return SeasonPost(found)
        currency = (await bot.ledger.settings(season.guild_id)).currency
        png = await final_picture(bot, final, currency)
        message = await asyncio.wait_for(channel.send(
            final_text(final, currency), file=discord.File(io.BytesIO(png), "season.png"),
            nonce=f"season{season.id}"[:25], allowed_mentions=discord.AllowedMentions.none()),
            retry.REST_TIMEOUT)
    except (discord.Forbidden, discord.NotFound) as exc:
        # The channel is gone or closed to the bot: asking again would not help.
        log.warning("season %s: its final standings can't be posted in channel %s (%s); "
                    "they stay in /leaderboard", season.id, season.channel_id, exc)
        with contextlib.suppress(Exception):
            await seasons.records.mark(season.id, "quiet", None)
        return SeasonPost(None, "refused")
    except Exception as exc:
        bot.failures.failed("season", "season %s: its final standings couldn't be posted "
                            "(%s); tried again at the next round", season.id,
                            f"{type(exc).__name__}: {exc}")
        with contextlib.suppress(Exception):
            await seasons.records.release(season.id)
        return SeasonPost(None, "later")
    await seasons.records.mark(season.id, "posted", message.id)
    return SeasonPost(message.id)


async def post_due_seasons(bot: Host) -> None:
    """A housekeeping step: end the seasons whose time has come on this process's servers,
    post them, and start the calendar seasons due. One indexed query when nothing is due."""
    for season, again in await bot.seasons.housekeeping([g.id for g in bot.guilds]):
        await post_season(bot, season, again=again)
