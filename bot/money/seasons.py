"""SeasonService: a server's seasons (monthly, quarterly or by command), the season table,
and the end of a season, taken once for posting.

What a server's admins can expect:

- Seasons ``off``: the leaderboard is all time, as it always was; seasons ended before stay
  readable through ``/leaderboard season:``.
- ``monthly`` or ``quarterly`` (UTC calendar): a season runs from the 1st of the month (or
  quarter) to the next, and the next starts by itself. Turned on mid-month, the season still
  counts the month's games from the 1st, unless an earlier season already holds them.
- ``manual``: ``/season start name`` starts one now and ``/season end`` ends it now.
  ``/season start`` on a server with seasons off turns them to manual. On a monthly or
  quarterly server both commands are refused (the calendar starts and ends its seasons; an
  admin who wants to run them by hand picks "by command" in ``/settings`` first).
- Changing the kind of seasons in ``/settings`` (e.g. monthly to quarterly, or to off) ends
  the running season at once, posted like any other, and the new kind starts now.

A season's table is computed from the ledger while it runs, and saved when it ends: its final
standings stay what they were when it ended (a game voided afterwards leaves them as posted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage import GuildSettings, SeasonPlace, SeasonRow, Storage
from bot.user_errors import UserError

from .season_table import MIN_SEASON_GAMES, MODES, SeasonTally, period, table_of_games

__all__ = ["ALL_TIME", "MODE_NAMES", "FinalStandings", "SeasonRecord", "SeasonService"]

ALL_TIME = "all"
"""The ``season:`` value of the all-time leaderboard."""

MODE_NAMES = {"off": "off", "monthly": "monthly", "quarterly": "quarterly",
              "manual": "by command (/season start, /season end)"}

NAME_LIMIT = 40
TABLES_KEPT = 256
"""Running seasons' tables kept in memory (one a server; the oldest goes first)."""
STALE_CLAIM_S = 600.0
"""A season taken for posting and not marked posted after this long was left by a process
that stopped: another round takes it again (and looks for the message before posting)."""


@dataclass(frozen=True, slots=True)
class FinalStandings:
    """What the end of a season says: its champion, top places, most games, best streak."""

    season: SeasonRow
    table: list[SeasonPlace]
    champion: SeasonPlace | None
    """``None`` if nobody played the games needed to be ranked."""
    top: list[SeasonPlace]
    most_games: SeasonPlace | None
    best_streak: SeasonPlace | None
    min_games: int = MIN_SEASON_GAMES
    champions: tuple[SeasonPlace, ...] = ()
    """Everyone in first place: the champion, and those tied with him on everything."""


@dataclass(frozen=True, slots=True)
class SeasonRecord:
    """A player's seasons for ``/stats``: the running season's line and past places."""

    current: SeasonRow | None
    line: SeasonPlace | None
    """His line in the running season (``None``: no game in it yet)."""
    past: list[tuple[SeasonRow, SeasonPlace]]


def final_standings(season: SeasonRow, table: list[SeasonPlace], top: int = 5
                    ) -> FinalStandings:
    """The final standings of ``season`` from its table."""
    ranked = [p for p in table if p.place is not None]
    most = max(table, key=lambda p: (p.games, -(p.place or 10**9)), default=None)
    streak = max(table, key=lambda p: (p.best_streak, -(p.place or 10**9)), default=None)
    return FinalStandings(season, table, ranked[0] if ranked else None, ranked[:top],
                          most, streak if streak is not None and streak.best_streak else None,
                          champions=tuple(p for p in ranked if p.place == 1))


class SeasonService:
    """Seasons; every method may raise ``UserError``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.records = storage.seasons
        self._calendar_checked = False
        self._tables: dict[tuple[int, float, float | None], tuple[int, SeasonTally]] = {}
        """Running seasons' tables as they were built, with the server's voids then."""

    def now(self) -> float:
        """The storage's clock (tests move it)."""
        return self.storage.clock()

    # ------------------------------------------------------------------ settings, commands

    async def set_mode(self, guild_id: int, mode: str | None = None,
                       channel_id: int | None = None) -> tuple[GuildSettings, SeasonRow | None]:
        """Change the server's seasons and/or their channel. A change of the kind of seasons
        ends the running one now: it is returned, taken, to be posted."""
        if mode is not None and mode not in MODES:
            raise UserError(f"Seasons are one of: {', '.join(MODES)}.")
        changes: dict[str, object] = {}
        if mode is not None:
            changes["season_mode"] = mode
        if channel_id is not None:
            changes["season_channel_id"] = channel_id
        before = await self.storage.settings.get_settings(guild_id)
        settings = await self.storage.settings.update_settings(guild_id, **changes)
        ended = None
        if mode is not None and mode != before.season_mode:
            running = await self.records.open_season(guild_id)
            if running is not None and running.kind != mode:
                # A season whose end has come (the round has not taken it yet) ends then,
                # not now: a game after its end is the next season's.
                at = self.now() if running.ends_at is None else min(self.now(),
                                                                     running.ends_at)
                ended = await self._end(running, settings, at)
            if mode in ("monthly", "quarterly"):
                await self.start_calendar(guild_id, mode)
        return settings, ended

    async def start_manual(self, guild_id: int, name: str) -> SeasonRow:
        """``/season start name``: a season from now until ``/season end``."""
        name = " ".join(name.split())
        if not name or len(name) > NAME_LIMIT:
            raise UserError(f"A season's name must be 1 to {NAME_LIMIT} characters.")
        if name.lower() == ALL_TIME or name.lower() == "all time":
            raise UserError("That name is kept for the all-time leaderboard: pick another.")
        if name.startswith("#") and name[1:].isdigit():
            raise UserError("A season's name can't be # and a number (that is how the "
                            "`season:` list points to a season): pick another.")
        settings = await self.storage.settings.get_settings(guild_id)
        if settings.season_mode in ("monthly", "quarterly"):
            raise UserError(f"This server's seasons are {settings.season_mode}: they start and "
                            "end by themselves. To run seasons by hand, set seasons to "
                            "'by command' in /settings first.")
        running = await self.records.open_season(guild_id)
        if running is not None:
            raise UserError(f"The season **{running.name}** is running: end it first with "
                            "/season end.")
        if any(s.name.lower() == name.lower() for s in await self.records.recent(guild_id, 500)):
            raise UserError(f"There already was a season named **{name}**: pick another name.")
        if settings.season_mode != "manual":
            await self.storage.settings.update_settings(guild_id, season_mode="manual")
        started = await self.records.start(guild_id, name, "manual", self.now(), None)
        if started is None:  # another admin started one at the same moment
            raise UserError("A season was just started: see /leaderboard.")
        return started

    async def end_manual(self, guild_id: int) -> SeasonRow:
        """``/season end``: end the running season now; returned taken, to be posted."""
        settings = await self.storage.settings.get_settings(guild_id)
        if settings.season_mode in ("monthly", "quarterly"):
            raise UserError(f"This server's seasons are {settings.season_mode}: the running one "
                            "ends by itself. To end seasons by hand, set seasons to 'by "
                            "command' in /settings (that ends the running one now).")
        running = await self.records.open_season(guild_id)
        if running is None:
            raise UserError("No season is running. Start one with /season start.")
        ended = await self._end(running, settings, self.now())
        if ended is None:
            raise UserError("That season has just ended.")
        return ended

    # ------------------------------------------------------------------ the calendar

    async def start_calendar(self, guild_id: int, mode: str) -> SeasonRow | None:
        """The calendar season of now, if the server has none open: from the period's start,
        or from the end of the server's latest season if that is later (no game in two)."""
        now = self.now()
        start, end, name = period(mode, now)
        latest = await self.records.recent(guild_id, 1)
        if latest and latest[0].ends_at is not None:
            start = max(start, min(latest[0].ends_at, now))
        return await self.records.start(guild_id, name, mode, start, end)

    async def housekeeping(self, guild_ids: Sequence[int]) -> list[tuple[SeasonRow, bool]]:
        """One round for the servers ``guild_ids``: take every season whose end has come (or
        that a stopped process left taken), then start the calendar seasons now due. Returns
        the seasons taken, to be posted, each with whether it is taken again (a post may
        already have been made). One indexed query when nothing is due."""
        wanted = set(guild_ids)
        now = self.now()
        taken = []
        for season in await self.records.due(now, now - STALE_CLAIM_S):
            if season.guild_id not in wanted:
                continue
            again = season.state != "open"
            if not again:
                assert season.ends_at is not None
                settings = await self.storage.settings.get_settings(season.guild_id)
                row = await self._end(season, settings, season.ends_at)
            else:
                row = await self.records.retake(season.id, now - STALE_CLAIM_S)
            if row is not None:
                taken.append((row, again))
        # A calendar season is missing only at start (the bot was down when one ended) or
        # after one ended (``set_mode`` starts one itself): looked for then, not every round.
        if taken or not self._calendar_checked:
            for guild_id, mode in await self.records.calendar_missing(guild_ids):
                await self.start_calendar(guild_id, mode)
            self._calendar_checked = True
        return taken

    async def _end(self, season: SeasonRow, settings: GuildSettings, at: float
                   ) -> SeasonRow | None:
        table = table_of_games(await self.records.game_lines(season.guild_id, season.starts_at,
                                                             at))
        return await self.records.finish(season.id, at, table, settings.season_channel_id)

    # ------------------------------------------------------------------ reading

    async def current(self, guild_id: int) -> SeasonRow | None:
        """The season the leaderboard shows by default: the running one (seasons on)."""
        settings = await self.storage.settings.get_settings(guild_id)
        if settings.season_mode == "off":
            return None
        return await self.records.open_season(guild_id)

    async def table(self, season: SeasonRow) -> list[SeasonPlace]:
        """A season's table: computed while it runs, as saved once it ended."""
        if season.state != "open":
            return await self.records.places(season.id)
        # Computed from the season's game lines once, then kept: asked again with no new
        # line, as it is; after a game, only the new lines are read and folded in (when the
        # lines up to the last one seen are still those it saw: on PostgreSQL a line with a
        # lower id may commit later); after a void, read again whole.
        guild, start, end = season.guild_id, season.starts_at, season.ends_at
        count, last_id, voids = await self.records.game_lines_mark(guild, start, end)
        key = (season.id, start, end)
        kept = self._tables.get(key)
        if kept is not None and kept[0] == voids:
            tally = kept[1]
            if (tally.lines, tally.last_id) == (count, last_id):
                return tally.table()
            if last_id > tally.last_id and await self.records.game_lines_until(
                    guild, start, end, tally.last_id) == tally.lines:
                tally = tally.copy()
                tally.add(await self.records.game_lines(guild, start, end, tally.last_id))
                self._tables[key] = (voids, tally)
                return tally.table()
        tally = SeasonTally()
        tally.add(await self.records.game_lines(guild, start, end))
        if len(self._tables) >= TABLES_KEPT:
            self._tables.pop(next(iter(self._tables)))
        self._tables[key] = (voids, tally)
        return tally.table()

    async def choices(self, guild_id: int, typed: str) -> list[tuple[str, str]]:
        """Autocomplete for ``season:``: (label, value), all time first, then the seasons
        newest first whose name holds ``typed``; at most 25."""
        typed = typed.strip().lower()
        out = [("All time", ALL_TIME)] if typed in "all time" else []
        for season in await self.records.recent(guild_id, 100):
            if typed in season.name.lower():
                when = "running" if season.state == "open" else "ended"
                out.append((f"{season.name} ({when})"[:100], f"#{season.id}"))
        return out[:25]

    async def resolve(self, guild_id: int, text: str) -> SeasonRow | None:
        """The season ``text`` names (``#id`` from the autocomplete, or a name typed: a
        season named "2027" is found by its name, not as the season of id 2027; bare digits
        that name none are tried as an id); ``None`` for all time. Raises ``UserError`` if
        there is no such season."""
        text = text.strip()
        if text.lower() in (ALL_TIME, "all time"):
            return None
        picked = text[1:] if text.startswith("#") and text[1:].isdigit() else None
        if picked is None:
            for season in await self.records.recent(guild_id, 500):
                if season.name.lower() == text.lower():
                    return season
        number = picked or (text if text.isdigit() else None)
        if number is not None and len(number) <= 18:
            found = await self.records.get(int(number))
            if found is not None and found.guild_id == guild_id:
                return found
        raise UserError(f"This server has no season {text[:50]!r}: pick one from the list.")

    async def final(self, season: SeasonRow) -> FinalStandings:
        """A season's final standings (of a running one: as they stand)."""
        return final_standings(season, await self.table(season))

    async def record(self, guild_id: int, user_id: int) -> SeasonRecord:
        """A player's running season line and his places in past seasons."""
        current = await self.current(guild_id)
        line = None
        if current is not None:
            line = next((p for p in await self.table(current) if p.user_id == user_id), None)
        past = await self.records.player_seasons(guild_id, user_id)
        return SeasonRecord(current, line, [(s, p) for s, p in past if s.state != "open"])
