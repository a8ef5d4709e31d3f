"""Tournaments: sign-up, start, the games of each round, results, deadlines, forfeits.

The pure core (``bot.tournaments``) says who plays whom; this service keeps a tournament in
storage and moves it on. Everything it does is derived again from what is saved, so a crash
at any moment loses nothing and does nothing twice (``sync``):

- the entrants and the events (results and withdrawals) in the order they happened are the
  tournament: ``replay`` rebuilds it;
- a table's game is made with its link in one transaction, keyed by (tournament, round,
  table, attempt): a round is never started twice;
- a game's result becomes an event once (a unique key on the game), whether the finish was
  heard at once (``Tournaments.sync`` after the game's last move) or at the next
  housekeeping round after a restart;
- a game not finished by the round's deadline is decided as a claim would decide it: the
  player on turn, who has not moved, loses (at a table of three or four, each in turn leaves
  until one is left), so a round always ends.
"""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass
from typing import Any

from bot.money.amounts import AmountError, parse_amount
from bot.money.ledger_service import NEW_MU, NEW_SIGMA, display_rating
from bot.storage import GameRow
from bot.storage.tournament_records import TableGameRow, TournamentRow
from bot.tournaments import (
    FORMATS,
    Entrant,
    Event,
    Played,
    Tournament,
    TournamentError,
    Withdrawal,
    replay,
)
from bot.tournaments.pot import pot_lines
from bot.tournaments.round_robin import MAX_PLAYERS as ROUND_ROBIN_MOST
from bot.user_errors import UserError
from engine import Match, RuleSet

from .live_game import LiveGame
from .live_games import LiveGames
from .playing import Playing

__all__ = ["MAX_ENTRANTS", "MAX_NAME", "TournamentState", "Tournaments", "parse_start",
           "result_places"]

MAX_NAME = 60
"""The longest tournament name (it names every game's thread, at most 100 characters)."""

MAX_ENTRANTS = {"knockout": 64, "swiss": 64, "round robin": ROUND_ROBIN_MOST}
"""How many players each format takes."""

LONGEST_DEADLINE_H = 24.0 * 14
"""The longest round deadline, in hours."""


@dataclass(frozen=True)
class TournamentState:
    """A tournament as saved and, once started, as its events make it."""

    row: TournamentRow
    tournament: Tournament | None
    """``None`` before the start (and for one cancelled before it)."""
    games: tuple[TableGameRow, ...]
    events: int
    """How many events it has (the bracket picture shows a version by this count)."""
    new_games: tuple[LiveGame, ...] = ()
    """Games this call started (to be announced)."""


def parse_start(text: str, now: float) -> float:
    """A start time typed as ``YYYY-MM-DD HH:MM`` (UTC), or ``in 30m`` / ``in 2h``: its Unix
    time; a time in the past is refused."""
    raw = text.strip().lower()
    when: float
    try:
        if raw.startswith("in "):
            amount, unit = raw[3:].strip()[:-1], raw[-1]
            when = now + float(amount) * {"m": 60, "h": 3600, "d": 86400}[unit]
        else:
            when = datetime.datetime.strptime(raw, "%Y-%m-%d %H:%M").replace(
                tzinfo=datetime.UTC).timestamp()
    except (ValueError, KeyError):
        raise UserError("I couldn't read that start time: write it as `2026-12-24 20:00` "
                        "(UTC) or as `in 30m`, `in 2h`.") from None
    if when <= now:
        raise UserError("That start time is in the past: choose a time to come.")
    return when


def result_places(game: GameRow) -> tuple[int, ...] | None:
    """A finished game's places per seat, 1 the best (a drawn game of two: 1, 1); ``None``
    while it goes on."""
    if game.status != "finished" or game.result is None:
        return None
    ranks = game.result.get("ranks")
    if ranks is not None and all(r is not None for r in ranks):
        return tuple(int(r) for r in ranks)
    winner = game.result.get("winner")
    if winner is None:
        return (1,) * len(game.players)
    return tuple(1 if seat == winner else 2 for seat in range(len(game.players)))


class Tournaments:
    """Tournaments of a bot; every method may raise ``UserError``."""

    def __init__(self, games: LiveGames, playing: Playing) -> None:
        self.games = games
        self.playing = playing
        self.storage = games.storage
        self.records = games.storage.tournaments
        self._locks: dict[int, asyncio.Lock] = {}

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    # ------------------------------------------------------------------ sign-up

    async def create(
        self, *, guild_id: int, channel_id: int, organiser: int, name: str, rules: RuleSet,
        format_name: str, seats: int, stake: str | None, buy_in: str | None,
        deadline_hours: float, start_at: str | None, allow_computer: bool,
    ) -> TournamentRow:
        """A new tournament, open for sign-up; everything is checked before it is saved."""
        name = " ".join(name.split())
        if not name:
            raise UserError("Give the tournament a name.")
        if len(name) > MAX_NAME:
            raise UserError(f"A tournament's name is at most {MAX_NAME} characters "
                            f"(that one has {len(name)}).")
        if format_name not in FORMATS:
            raise UserError(f"Unknown format {format_name!r}: choose knockout, swiss or "
                            "round robin.")
        if not 2 <= seats <= 4:
            raise UserError("A table seats two, three or four players.")
        if format_name != "knockout" and seats != 2:
            raise UserError(f"A {format_name} tournament plays games of two: tables of three "
                            "or four are for a knockout.")
        if not 0 < deadline_hours <= LONGEST_DEADLINE_H:
            raise UserError(f"A round's deadline is more than 0 and at most "
                            f"{LONGEST_DEADLINE_H} hours.")
        settings = await self.storage.settings.get_settings(guild_id)
        stake_cents = buy_in_cents = 0
        if (stake or buy_in) and settings.points_only:
            raise UserError("This server plays for points only: no stakes or buy-ins.")
        try:
            if stake:
                stake_cents = parse_amount(stake)
            if buy_in:
                buy_in_cents = parse_amount(buy_in)
        except AmountError as exc:
            raise UserError(str(exc)) from None
        if stake_cents and buy_in_cents:
            raise UserError("Choose a stake for each game or a buy-in for the pot, not both.")
        when = None if not start_at else parse_start(start_at, self.games.clock())
        return await self.records.create(
            guild_id=guild_id, channel_id=channel_id, organiser_id=organiser, name=name,
            rules=rules.to_dict(), format_name=format_name, seats=seats,
            stake_cents=stake_cents, buy_in_cents=buy_in_cents, currency=settings.currency,
            allow_computer=allow_computer, deadline_s=int(deadline_hours * 3600),
            start_at=when)

    async def get(self, tournament_id: int) -> TournamentRow:
        """A tournament, or a ``UserError`` if there is none."""
        row = await self.records.get(tournament_id)
        if row is None:
            raise UserError("That tournament doesn't exist.")
        return row

    async def listed(self, guild_id: int) -> list[TournamentRow]:
        """The server's newest tournaments, newest first (25 at most: for suggestions)."""
        return await self.records.in_status(("open", "running", "finished", "cancelled"),
                                            guild_id=guild_id, newest=25)

    async def join(self, tournament_id: int, user_id: int, name: str) -> TournamentRow:
        """Sign up; twice, full, started or over is a polite no."""
        async with self._lock(tournament_id):
            row = await self.get(tournament_id)
            if user_id == self.games.computer_id and not row.allow_computer:
                raise UserError("The organiser didn't allow the computer in this tournament.")
            if user_id == self.games.computer_id and row.buy_in_cents:
                raise UserError("The computer doesn't play for money: it can't pay a buy-in.")
            said = await self.records.join(tournament_id, user_id, name,
                                           MAX_ENTRANTS[row.format])
            if said == "joined already":
                raise UserError("The computer has joined already." if user_id ==
                                self.games.computer_id else "You have joined already.")
            if said == "full":
                raise UserError(f"Sorry, this tournament is full "
                                f"({MAX_ENTRANTS[row.format]} players).")
            if said != "joined":
                raise UserError(_closed(row))
            return await self.get(tournament_id)

    async def add_computer(self, tournament_id: int, user_id: int) -> TournamentRow:
        """The organiser gives the computer a place (where he allowed it)."""
        row = await self.get(tournament_id)
        if user_id != row.organiser_id:
            raise UserError("Only the organiser can add the computer.")
        return await self.join(tournament_id, self.games.computer_id, "Computer")

    async def leave(self, tournament_id: int, user_id: int) -> TournamentRow:
        """Leave: before the start the place is given back; after it, the player forfeits his
        remaining games (his game going on is resigned)."""
        row = await self.get(tournament_id)
        if row.entrant(user_id) is None:
            raise UserError("You aren't in this tournament.")
        if row.status == "open":
            if not await self.records.leave(tournament_id, user_id):
                raise UserError(_closed(await self.get(tournament_id)))
            return await self.get(tournament_id)
        return await self.withdraw(tournament_id, user_id)

    async def remove(self, tournament_id: int, organiser: int, player: int) -> TournamentRow:
        """The organiser removes a player: as if he had left."""
        row = await self.get(tournament_id)
        if organiser != row.organiser_id:
            raise UserError("Only the organiser can remove a player.")
        if row.entrant(player) is None:
            raise UserError("That player isn't in this tournament.")
        if row.status == "open":
            await self.records.leave(tournament_id, player)
            return await self.get(tournament_id)
        return await self.withdraw(tournament_id, player)

    async def withdraw(self, tournament_id: int, player: int) -> TournamentRow:
        """A player of a running tournament leaves: a withdrawal event first, then his game of
        the round (if any) is resigned; the table is decided by the core's forfeit rules."""
        async with self._lock(tournament_id):
            row = await self.get(tournament_id)
            if row.status != "running":
                raise UserError(_closed(row))
            events = await self.records.events(tournament_id)
            tournament = _replay(row, events)
            try:
                tournament.verify_withdraw(player)
            except TournamentError as exc:
                raise UserError(str(exc)) from None
            if not await self.records.add_event(tournament_id, kind="withdrawal",
                                                seq=len(events), player_id=player):
                raise UserError("The tournament changed meanwhile; please try again.")
            for link in await self.records.table_games(tournament_id):
                game = await self.storage.games.get_game(link.game_id)
                if game is not None and game.status == "active" and player in game.players:
                    live = await self.games.game(link.game_id)
                    if self.games.seat(live, player) in self.games.facts(live).seated:
                        await self.playing.resign(link.game_id, player)
        await self.sync(tournament_id)
        return await self.get(tournament_id)

    async def start(self, tournament_id: int, user_id: int | None) -> TournamentState:
        """Start (the organiser, or ``None``: its start time came): the sign-up closes, the
        ratings are fixed for the seeding and round 1's games begin."""
        async with self._lock(tournament_id):
            row = await self.get(tournament_id)
            if user_id is not None and user_id != row.organiser_id:
                raise UserError("Only the organiser can start the tournament.")
            if row.status != "open":
                raise UserError(_closed(row))
            if len(row.entrants) < 2:
                raise UserError(f"A tournament needs at least two players; "
                                f"{len(row.entrants)} joined.")
            rules = RuleSet.from_dict(row.rules).name
            ratings = await self.storage.standings.ratings(row.guild_id, rules)
            fixed = {}
            for e in row.entrants:
                mu, sigma, _ = ratings.get((e.user_id, rules), (NEW_MU, NEW_SIGMA, 0))
                fixed[e.user_id] = float(display_rating(mu, sigma))
            if not await self.records.start(tournament_id, fixed):
                raise UserError(_closed(await self.get(tournament_id)))
        return await self.sync(tournament_id)

    async def cancel(self, tournament_id: int, user_id: int) -> TournamentRow:
        """The organiser calls it off: games already finished stand, games going on are
        played to their end for their own stakes but count for nothing, and no pot is paid
        (so every buy-in stays with its player)."""
        async with self._lock(tournament_id):
            row = await self.get(tournament_id)
            if user_id != row.organiser_id:
                raise UserError("Only the organiser can cancel the tournament.")
            if not await self.records.settle(tournament_id, ("open", "running"), "cancelled"):
                raise UserError(_closed(await self.get(tournament_id)))
            return await self.get(tournament_id)

    # ------------------------------------------------------------------ moving on

    async def state(self, tournament_id: int) -> TournamentState:
        """The tournament as saved (nothing is changed)."""
        row = await self.get(tournament_id)
        events = await self.records.events(tournament_id)
        games = tuple(await self.records.table_games(tournament_id))
        tournament = None if not games and row.status != "running" and not events \
            else _replay(row, events)
        return TournamentState(row, tournament, games, len(events))

    async def due(self) -> list[int]:
        """The tournaments of this process's servers to look after: every running one, the
        open ones whose start time has come (started here), and open ones whose sign-up was
        never posted (a crash right after the tournament was saved)."""
        now = self.games.clock()
        out = []
        for row in await self.records.in_status(("open", "running"), shards=self.games.shards):
            if row.status == "open":
                if row.start_at is None or row.start_at > now:
                    if row.message_id is None and row.created_at < now - 60:
                        out.append(row.id)  # its sign-up was never posted (a crash)
                    continue
                if len(row.entrants) < 2:
                    await self.records.settle(row.id, ("open",), "cancelled")
                    out.append(row.id)
                    continue
                try:
                    await self.start(row.id, None)
                except UserError:
                    continue
            out.append(row.id)
        return out

    async def tournament_of_game(self, game_id: int) -> int | None:
        """The tournament a game belongs to, or ``None``."""
        return await self.records.tournament_of_game(game_id)

    async def sync(self, tournament_id: int) -> TournamentState:
        """Bring a running tournament up to date with its games: record the results not yet
        recorded, decide the games past the deadline, start the tables that have no game, and
        finish it when the core says it is over. Safe to run any number of times, at any
        moment: it does only what is missing."""
        async with self._lock(tournament_id):
            row = await self.get(tournament_id)
            events = await self.records.events(tournament_id)
            if row.status != "running":
                return await self.state(tournament_id)
            tournament = _replay(row, events)
            seq = await self._record_results(row, tournament, len(events))
            if await self._decide_late(row, tournament):
                seq = await self._record_results(row, tournament, seq)
            started = await self._start_tables(row, tournament)
            if tournament.finished:
                pot = pot_lines([(st.player, st.place) for st in tournament.standings()],
                                row.buy_in_cents) if row.buy_in_cents else []
                await self.records.finish(tournament_id, row.guild_id, pot, _pot_note(row))
            state = await self.state(tournament_id)
            return TournamentState(state.row, state.tournament, state.games, state.events,
                                   tuple(started))

    async def _record_results(self, row: TournamentRow, tournament: Tournament, seq: int
                              ) -> int:
        progress = True
        while progress:
            progress = False
            now = tournament.current
            if now is None:
                break
            for link in await self.records.table_games(row.id):
                if link.round != now.number or link.table_no >= len(now.tables):
                    continue
                table = now.tables[link.table_no]
                if table.decided or link.attempt != table.draws:
                    continue
                game = await self.storage.games.get_game(link.game_id)
                places = None if game is None else result_places(game)
                if places is None:
                    continue
                try:
                    tournament.verify_play(link.round, link.table_no, places)
                except TournamentError:
                    continue
                if await self.records.add_event(row.id, kind="played", seq=seq,
                                                round_number=link.round,
                                                table_no=link.table_no, places=places,
                                                game_id=link.game_id):
                    tournament.play(link.round, link.table_no, places)
                    seq += 1
                    progress = True
                    break  # the round may be over: look again at the new one
        return seq

    async def _decide_late(self, row: TournamentRow, tournament: Tournament) -> bool:
        """Decide by the claim rule each game of the round past its deadline; True if any."""
        now = tournament.current
        if now is None:
            return False
        clock = self.games.clock()
        decided = False
        for link in await self.records.table_games(row.id):
            if link.round != now.number or link.table_no >= len(now.tables) \
                    or now.tables[link.table_no].decided \
                    or link.attempt != now.tables[link.table_no].draws \
                    or link.created_at + row.deadline_s > clock:
                continue
            if await self.playing.decide_late(link.game_id):
                decided = True
        return decided

    async def _start_tables(self, row: TournamentRow, tournament: Tournament
                            ) -> list[LiveGame]:
        started = []
        names = {e.user_id: e.name for e in row.entrants}
        rules = RuleSet.from_dict(row.rules)
        computer = self.games.computer_id
        for number, index, seats in tournament.pending():
            now = tournament.current
            assert now is not None
            attempt = now.tables[index].draws

            async def save(match: Match, number: int = number, index: int = index,
                           seats: tuple[int, ...] = seats, attempt: int = attempt
                           ) -> int | None:
                return await self.records.start_table(
                    row.id, number, index, attempt, guild_id=row.guild_id,
                    channel_id=row.channel_id, players=seats,
                    names=tuple(names[p] for p in seats), rules=match.rules.to_dict(),
                    state=match.to_dict(), vs_computer=computer in seats,
                    stakes=(0 if computer in seats else row.stake_cents, 0, row.currency),
                    computer_level="normal")

            live = await self.games.start(rules, len(seats), save)
            if live is not None:
                started.append(live)
        return started

    async def money_lines(self, tournament_id: int) -> list[tuple[int, int, int]]:
        """The pot paid out at the finish, ``(debtor, creditor, cents)`` (none without a
        buy-in)."""
        row = await self.get(tournament_id)
        return await self.records.pot_lines(row.guild_id, _pot_note(row))

    async def unposted(self, tournament_id: int) -> list[TableGameRow]:
        """The games of the tournament not announced yet (a crash between the game's start
        and its thread leaves one)."""
        return [g for g in await self.records.table_games(tournament_id) if not g.posted]

    async def set_posted(self, game_id: int) -> None:
        """A table's game was announced."""
        await self.records.set_posted(game_id)

    async def set_message(self, tournament_id: int, column: str, message_id: int) -> None:
        """Remember a tournament's message (sign-up, board, result)."""
        await self.records.set_message(tournament_id, column, message_id)

    async def set_board_events(self, tournament_id: int, events: int) -> None:
        """The board message shows the tournament after ``events`` events."""
        await self.records.set_board_events(tournament_id, events)


def _replay(row: TournamentRow, events: Any) -> Tournament:
    history: list[Event] = []
    for e in events:
        if e.kind == "played":
            history.append(Played(e.round, e.table_no, e.places))
        else:
            history.append(Withdrawal(e.player_id))
    entrants = [Entrant(e.user_id, e.rating) for e in row.entrants]
    return replay(row.format, entrants, history, row.seats)


def _pot_note(row: TournamentRow) -> str:
    """The note of the pot's ledger lines (which also finds them again)."""
    return f"Tournament #{row.id} pot ({row.name})"


def _closed(row: TournamentRow) -> str:
    return {"running": "This tournament has started already: the sign-up is closed.",
            "finished": "This tournament is over.",
            "cancelled": "This tournament was cancelled."}.get(row.status, "This tournament "
                                                                          "is still open.")
