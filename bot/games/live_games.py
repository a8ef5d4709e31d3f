"""The games in memory, which the game services share: one object, handed to each of them.

It holds the storage handle, the live games (and who plays which), one lock per game and per
challenge, the clock and the deal seeds, and the listeners told of every saved change. It loads
a game once and keeps it: what is in memory is never older than the database (a failed save
drops the game, so the next access reads what was really saved).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from bot.failures import FailureLog
from bot.shards import ShardSet
from bot.storage import DatabaseUnavailable, Storage, StorageError
from bot.user_errors import DB_DOWN, SAVED_DB_AWAY, UserError
from engine import Match, RuleSet, View
from engine.players import Player

from .live_game import GameFacts, LiveGame, MoveOutcome, live_from_row, saved_here

__all__ = ["Listener", "LiveGames"]

log = logging.getLogger(__name__)

Listener = Callable[[MoveOutcome], Awaitable[None]]
"""Told of every saved change (the client redraws boards and lets the computer move)."""


class LiveGames:
    """The state the game services share, and the ways to find a game in it."""

    def __init__(self, storage: Storage, *, computer_id: int,
                 clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], int] | None = None,
                 shards: ShardSet | None = None, failures: FailureLog | None = None) -> None:
        self.storage = storage
        self.failures = failures or FailureLog(log)
        """Where a database that is not answering is said, once a minute."""
        # A shard process loads and looks after the games of its own shards' servers only
        # (``None``: every server); their interactions reach no other process.
        self.shards = shards
        # Deal seeds must stay secret (they fix every hidden card); tests may fix them.
        self.new_seed = seed_source or (lambda: secrets.randbits(62))
        self.computer_id = computer_id
        self.clock = clock
        self.listeners: list[Listener] = []
        self.players: dict[int, Player] = {}
        """The computer's player of each game it sits in (its search keeps state)."""
        self._live: dict[int, LiveGame] = {}
        # The ids of each player's games in ``_live``, so that finding a player's game does not
        # look through every game in memory (a thousand of them on a busy bot).
        self._games_of: dict[int, set[int]] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._challenge_locks: dict[int, asyncio.Lock] = {}
        self._all_active_loaded = False

    # ------------------------------------------------------------------ locks

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock that serialises every change to one game."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    def challenge_lock(self, challenge_id: int) -> asyncio.Lock:
        """The lock that serialises every answer to one challenge or table."""
        return self._challenge_locks.setdefault(challenge_id, asyncio.Lock())

    # ------------------------------------------------------------------ games in memory

    async def start(self, rules: RuleSet, seats: int,
                    save: Callable[[Match], Awaitable[int | None]]) -> LiveGame | None:
        """Deal a new match of ``seats`` and ``save`` it (which returns the new game's id, or
        ``None`` if it wasn't saved); the game, loaded, or ``None``."""
        match, _ = Match.new(rules, self.new_seed(), players=seats)
        game_id = await save(match)
        if game_id is None:
            return None
        saved_here.set(True)
        return await self.load(game_id)

    async def game(self, game_id: int) -> LiveGame:
        """The game, from memory or the database."""
        live = self._live.get(game_id)
        if live is None:
            live = await self.load(game_id)
        return live

    async def load(self, game_id: int) -> LiveGame:
        """The game as saved (the one in memory if there is one)."""
        try:
            row = await self.storage.games.get_game(game_id)
        except DatabaseUnavailable as exc:
            self.failures.failed("database", "game %s couldn't be read: %s", game_id, exc)
            # A game this interaction has just saved (a challenge accepted) is not "nothing
            # changed".
            raise UserError(SAVED_DB_AWAY if saved_here.get() else DB_DOWN) from None
        except StorageError as exc:
            log.error("game %s: damaged row: %s", game_id, exc)
            raise UserError("This game's saved record is damaged, so it can't be played. "
                            "Nothing was changed.") from None
        if row is None:
            raise UserError("That game doesn't exist.")
        if self.shards is not None and not self.shards.owns(row.guild_id):
            # Named by id from another server: the process of that server's shard keeps the
            # game in memory and looks after it; a copy here would fall behind.
            raise UserError("That game is played in another server.")
        # Loads run outside the game's lock (a hand shown while a move is being saved): a move
        # may have been made and saved on the cached game while this row was read. What is in
        # memory is never older than the database, so a load never replaces it; it is dropped
        # only when a save fails (see ``drop``).
        cached = self._live.get(game_id)
        if cached is not None:
            return cached
        live = live_from_row(row)
        self._keep(live)
        return live

    def _keep(self, live: LiveGame) -> None:
        self._live[live.id] = live
        for user_id in live.players:
            self._games_of.setdefault(user_id, set()).add(live.id)

    def drop(self, game_id: int) -> None:
        """Forget the game in memory (its next access reads the database)."""
        live = self._live.pop(game_id, None)
        if live is None:
            return
        for user_id in live.players:
            ids = self._games_of.get(user_id)
            if ids is not None:
                ids.discard(game_id)
                if not ids:
                    del self._games_of[user_id]

    def forget_finished(self, keep: Callable[[int], bool] = lambda game_id: False) -> int:
        """Drop finished games (and their locks and computer players) from memory, except those
        ``keep`` says to keep (by id); they stay in the database. Returns how many were
        dropped."""
        done = [gid for gid, live in self._live.items()
                if live.finished and not keep(gid) and not self.lock(gid).locked()]
        for gid in done:
            self.drop(gid)
            self._locks.pop(gid, None)
            self.players.pop(gid, None)
        for cid in [c for c, lock in self._challenge_locks.items() if not lock.locked()]:
            self._challenge_locks.pop(cid, None)
        return len(done)

    async def active_games(self) -> list[LiveGame]:
        """Every game still going on in this process's servers (damaged ones are skipped and
        logged)."""
        out = []
        for game_id in await self.storage.games.active_game_ids(shards=self.shards):
            try:
                out.append(await self.game(game_id))
            except UserError:
                log.error("game %s: can't be loaded; skipped", game_id)
        self._all_active_loaded = True
        return out

    # ------------------------------------------------------------------ a player's games

    async def find_game(
        self, user_id: int, channel_id: int, game_id: int | None = None, *,
        guild_id: int | None = None,
    ) -> LiveGame:
        """The user's game in this channel (the one where he is on turn, if several); or the
        game ``game_id``, his, of the server ``guild_id`` when given."""
        if game_id is not None:
            live = await self.game(game_id)
            if live.terms.seat_of(user_id) is None:
                raise UserError("You're not playing in that game.")
            if guild_id is not None and live.terms.guild_id != guild_id:
                raise UserError("That game is played in another server: play it there.")
            return live
        # Once every active game is in memory (``active_games`` loads them at start-up; a new
        # one is loaded as it begins), the usual case needs no database: autocomplete and the
        # commands answer without waiting on it.
        mine = (self._live[gid] for gid in self._games_of.get(user_id, ()))
        games = sorted((g for g in mine
                        if not g.finished and channel_id in (g.terms.channel_id, g.thread_id)),
                       key=lambda g: g.id, reverse=True) if self._all_active_loaded else []
        if not games:
            rows = await self.storage.games.user_games(user_id, channel_id=channel_id)
            if not rows:
                raise UserError("You have no game going in this channel. Start one with "
                                "`/challenge`.")
            games = [await self.game(r.id) for r in rows]
        on_turn = [g for g in games if g.on_turn == user_id and not g.finished]
        return (on_turn or games)[0]

    async def user_games(self, user_id: int, guild_id: int) -> list[LiveGame]:
        """The user's open games in this server, newest first."""
        rows = await self.storage.games.user_games(user_id, guild_id=guild_id)
        out = []
        for row in rows:
            try:
                out.append(await self.game(row.id))
            except UserError:
                continue
        return out

    # ------------------------------------------------------------------ what may be shown

    def facts(self, live: LiveGame, user_id: int | None = None) -> GameFacts:
        """What the presentation layer may know of ``live``: ``user_id``'s view (the public
        one for anyone not playing) with the match's public facts."""
        match = live.match
        return GameFacts(
            id=live.id, version=live.version, board_key=live.board_key, names=live.names,
            players=live.players, vs_computer=live.terms.vs_computer, finished=live.finished,
            rules=match.rules, game_number=match.games_dealt,
            scores=tuple(match.scores), target=match.target,
            winner=match.winner if match.is_over else None,
            last_result=match.results[-1] if match.results else None,
            view=self.view(live, user_id), last_moves=tuple(live.last_moves),
            seated=match.seated,
        )

    def view(self, live: LiveGame, user_id: int | None) -> View:
        """What ``user_id`` may see (a spectator's view if he isn't playing)."""
        seat = live.terms.seat_of(user_id) if user_id is not None else None
        return live.match.game.view(seat)

    def seat(self, live: LiveGame, user_id: int) -> int:
        """The user's seat, or a ``UserError`` if he isn't playing."""
        seat = live.terms.seat_of(user_id)
        if seat is None:
            raise UserError("You're not playing in this game.")
        return seat

    async def notify(self, outcome: MoveOutcome) -> None:
        """Tell every listener of a saved change (a listener's failure is logged, no more)."""
        for listener in self.listeners:
            try:
                await listener(outcome)
            except Exception:
                log.exception("game %s: a listener failed", outcome.game.id)
