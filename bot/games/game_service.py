"""GameService: the lifecycle of challenges and games, between the Discord adapters and the engine.

The cogs and buttons parse what a user sent and call this service; the service owns one lock
per game, the persistence, and the engine, and turns every refusal into a ``UserError`` whose
message is for that user alone (it may name cards in his hand, so it is always sent privately).

A move is saved in one transaction before anyone is told it happened; if the save fails, the
game is reloaded from the database, so nothing half-done survives. A save appends the move; the
whole match state is saved with it only now and then (``SNAPSHOT_EVERY`` moves, each new deal,
the end), and a game is loaded as its last snapshot with the later moves made again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from bot.failures import FailureLog
from bot.money.stakes import game_entries
from bot.shards import ShardSet
from bot.storage import (
    ChallengeRow,
    DatabaseUnavailable,
    GameEntry,
    GameRow,
    GameTerms,
    GuildSettings,
    Storage,
    StorageError,
)
from bot.user_errors import DB_DOWN, SAVED_DB_AWAY, UserError
from engine import (
    Event,
    GameOver,
    IllegalMoveError,
    Match,
    Move,
    MoveError,
    Result,
    RuleSet,
    SetupError,
    Source,
    TurnEnded,
    View,
)
from engine.describe import history_lines, public_lines
from engine.moves import parse_source, parse_target
from engine.players import Player, make_player

from .replay import GIVING_UP, ReplayError

__all__ = ["SNAPSHOT_EVERY", "ChallengeExpired", "GameFacts", "GameService", "LiveGame",
           "MoveOutcome", "UserError", "restore_match", "saved_here"]

log = logging.getLogger(__name__)

saved_here: ContextVar[bool] = ContextVar("saved_here", default=False)
"""True in a task (an interaction's: discord.py runs each in its own) once it has saved a move
or a new game: a failure after that point must not tell the player that nothing changed."""

COMPUTER_LEVELS = ("easy", "normal", "hard")
"""The computer opponent's levels offered on Discord."""

SNAPSHOT_EVERY = 50
"""Moves after which the whole match state is saved again with a move (it is also saved at each
new deal and at the end): loading a game makes at most this many moves again, while a save in
between writes the move alone, so what a move costs the disk doesn't grow with the game."""


class ChallengeExpired(UserError):
    """The challenge ran out of time (its message should show that now)."""


@dataclass(slots=True)
class LiveGame:
    """A game in memory: its terms, the engine match, and what the bot keeps current of it
    (saved with each change; ``GameRow`` is the saved form)."""

    id: int
    terms: GameTerms
    match: Match
    version: int
    board_message_id: int | None
    board_turn: int | None
    turn_started_at: float
    reminded_at: float | None
    finished: bool
    last_moves: list[str] = field(default_factory=list)
    """Public lines about the latest moves, oldest first (for the board)."""
    board_version: int | None = None
    """The version the public board was last drawn at."""
    claim_offered_at: float | None = None
    """When the opponent was offered a claim of this turn."""
    thread_id: int | None = None
    """The game's own thread, if it has one."""
    result_message_id: int | None = None
    """The message that announced the result in the channel."""
    state_version: int = 0
    """The version of the match's last saved snapshot (the moves after it are only in the
    move log)."""

    @property
    def players(self) -> tuple[int, ...]:
        """The players' user ids, by seat."""
        return self.terms.players

    @property
    def names(self) -> tuple[str, ...]:
        """The players' names, by seat."""
        return self.terms.names

    @property
    def on_turn(self) -> int:
        """The user id of the player on turn."""
        return self.players[self.match.game.turn]

    @property
    def board_channel_id(self) -> int:
        """Where the game is played: its thread, or the channel it was challenged in."""
        return self.thread_id or self.terms.channel_id

    @property
    def turn_seat(self) -> int:
        """The seat on turn."""
        return self.match.game.turn

    @property
    def board_key(self) -> int:
        """A number that changes exactly when a new board message is due (new turn or game)."""
        return self.match.games_dealt * 1_000_000 + self.match.game.turn_number


@dataclass(frozen=True, slots=True)
class GameFacts:
    """All the presentation layer gets of a game: one seat's view (or the public one) and the
    match's public facts, taken together at one version. Never the engine's game itself, so a
    hidden card can't reach a message, a picture or a log by accident."""

    id: int
    version: int
    board_key: int
    names: tuple[str, ...]
    players: tuple[int, ...]
    vs_computer: bool
    finished: bool
    rules: RuleSet
    game_number: int
    """Games dealt so far in the match (the current one included)."""
    scores: tuple[int, ...]
    target: int | None
    winner: int | None
    """The match winner's seat once it is over (``None``: not over, or level)."""
    last_result: Result | None
    """How the latest finished game of the match ended."""
    view: View
    last_moves: tuple[str, ...]
    seated: tuple[int, ...] = (0, 1)
    """Seats still in the match (the others left it, rule 26)."""

    @property
    def on_turn(self) -> int:
        """The user id of the player on turn."""
        return self.players[self.view.turn]


@dataclass(slots=True)
class MoveOutcome:
    """What a saved change did: the game afterwards and the events, for announcements."""

    game: LiveGame
    seat: int
    events: list[Event]
    turn_passed: bool
    game_over: bool
    match_over: bool
    new_game: bool = False
    messages: list[str] = field(default_factory=list)
    finished_result: Result | None = None
    """How the game that just ended ended (when ``game_over``)."""
    entries: tuple[GameEntry, ...] = ()
    """The ledger lines written with the move (when the match is over): one per loser."""

    @property
    def entry(self) -> GameEntry | None:
        """The first ledger line (the only one at a table of two)."""
        return self.entries[0] if self.entries else None


Listener = Callable[[MoveOutcome], Awaitable[None]]


class GameService:
    """Challenges and games; every method may raise ``UserError``."""

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
        self._live: dict[int, LiveGame] = {}
        # The ids of each player's games in ``_live``, so that finding a player's game does not
        # look through every game in memory (a thousand of them on a busy bot).
        self._games_of: dict[int, set[int]] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._challenge_locks: dict[int, asyncio.Lock] = {}
        self.listeners: list[Listener] = []
        self._players: dict[int, Player] = {}
        self._all_active_loaded = False

    # ------------------------------------------------------------------ settings

    async def settings(self, guild_id: int) -> GuildSettings:
        """The server's settings."""
        return await self.storage.settings.get_settings(guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change server settings (the caller checks the permission)."""
        if "default_rules" in changes:
            RuleSet.preset(changes["default_rules"])
        return await self.storage.settings.update_settings(guild_id, **changes)

    def rules_for(self, settings: GuildSettings, name: str | None) -> RuleSet:
        """The rule set a new game gets: the preset plus the server's house rules."""
        try:
            base = RuleSet.preset(name or settings.default_rules)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        options: dict[str, Any] = {"king_starts_stack": settings.king_starts_stack}
        if base.may_pass:  # refill can only be switched off where a turn may end with a pass
            options["refill_empty_hand"] = settings.refill_empty_hand
        if base.name == "classic":
            options.pop("king_starts_stack")
        return base.with_options(**options)

    # ------------------------------------------------------------------ challenges

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        opponent_is_bot: bool,
        rules_name: str | None,
        names: tuple[str, str] = ("Player 1", "Player 2"),
        stakes: tuple[int, int] = (0, 0),
        target: int | None = None,
        level: str = "normal",
    ) -> ChallengeRow | LiveGame:
        """Open a challenge, or start a game at once when the computer is challenged.

        ``stakes`` (flat, per card) in cents and the match ``target`` are fixed now.
        """
        if opponent_id == challenger_id:
            raise UserError("You can't challenge yourself. Challenge a friend, or me for practice.")
        if opponent_is_bot and opponent_id != self.computer_id:
            raise UserError("Other bots can't play. Challenge a person, or me for practice.")
        settings = await self.storage.settings.get_settings(guild_id)
        rules = self.rules_for(settings, rules_name)
        if target is not None:
            if not 1 <= target <= 1000:
                raise UserError("A match target must be between 1 and 1000 points.")
            rules = rules.with_options(match_target=target)
        existing = await self.storage.challenges.open_between(
            channel_id, challenger_id, opponent_id)
        if existing == "game":
            raise UserError("You already have a game going with them in this channel. "
                            "Finish it (or `/resign`) before starting another.")
        if existing == "challenge":
            raise UserError("There's already an open challenge between you two in this channel.")
        if opponent_id == self.computer_id:
            if any(stakes):
                raise UserError("The computer doesn't play for money: challenge it without "
                                "stakes.")
            if level not in COMPUTER_LEVELS:
                raise UserError(f"Unknown level {level!r}: choose easy, normal or hard.")
            return await self._start_game(
                guild_id, channel_id, (challenger_id, opponent_id), names, rules,
                vs_computer=True, level=level,
            )
        return await self.storage.challenges.create_challenge(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger_id=challenger_id,
            opponent_id=opponent_id,
            names=names,
            rules=rules.to_dict(),
            expires_at=self.clock() + settings.challenge_expiry_s,
            stake_cents=stakes[0],
            per_card_cents=stakes[1],
            currency=settings.currency,
        )

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember where the challenge was posted."""
        await self.storage.challenges.set_challenge_message(challenge_id, message_id)

    async def get_challenge(self, challenge_id: int) -> ChallengeRow:
        """A challenge, or a ``UserError`` if it doesn't exist."""
        row = await self.storage.challenges.get_challenge(challenge_id)
        if row is None:
            raise UserError("That challenge no longer exists.")
        return row

    def _challenge_lock(self, challenge_id: int) -> asyncio.Lock:
        return self._challenge_locks.setdefault(challenge_id, asyncio.Lock())

    async def accept(self, challenge_id: int, user_id: int) -> tuple[ChallengeRow, LiveGame]:
        """The challenged player accepts: the game starts. (Of a challenge of three or four,
        see ``accept_seat``: this raises unless his yes was the last one missing.)"""
        async with self._challenge_lock(challenge_id):
            row = await self._open_challenge(challenge_id)
            if row.group:
                row, live = await self._accept_seat(row, user_id)
                if live is None:
                    raise UserError("You accepted: the game starts when everyone has.")
                return row, live
            if user_id != row.opponent_id:
                raise UserError("Only the challenged player can accept this challenge.")
            try:
                rules = RuleSet.from_dict(row.rules)
            except ValueError:
                raise UserError("This challenge's terms are damaged; please challenge again.") \
                    from None
            match, _ = Match.new(rules, self.new_seed())
            game_id = await self.storage.challenges.accept_challenge(
                challenge_id,
                players=(row.challenger_id, row.opponent_id),
                names=row.names,
                rules=rules.to_dict(),
                state=match.to_dict(),
            )
            if game_id is None:
                raise UserError("This challenge is no longer open.")
            saved_here.set(True)
            live = await self._load(game_id)
            return row, live

    async def decline(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """The challenged player declines."""
        return await self._settle(challenge_id, user_id, "declined")

    async def cancel(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """The challenger withdraws."""
        return await self._settle(challenge_id, user_id, "cancelled")

    async def _settle(self, challenge_id: int, user_id: int, status: str) -> ChallengeRow:
        async with self._challenge_lock(challenge_id):
            row = await self._open_challenge(challenge_id)
            allowed = row.opponent_id if status == "declined" else row.challenger_id
            if row.group and status == "declined":
                # Anyone invited may decline (even after accepting): the challenge is off.
                seat = row.seat_of(user_id)
                allowed = user_id if seat is not None and user_id != row.challenger_id \
                    and row.kind == "challenge" else -1
                if allowed == -1:
                    raise UserError("Only a player invited to this challenge can decline it.")
            if user_id != allowed:
                who = "challenged player" if status == "declined" else "challenger"
                verb = "decline" if status == "declined" else "cancel"
                raise UserError(f"Only the {who} can {verb} this challenge.")
            if not await self.storage.challenges.settle_challenge(challenge_id, status):
                raise UserError("This challenge is no longer open.")
            return await self.get_challenge(challenge_id)

    async def _open_challenge(self, challenge_id: int) -> ChallengeRow:
        row = await self.get_challenge(challenge_id)
        if row.status != "open":
            raise UserError(f"This challenge is no longer open (it was {row.status}).")
        if row.expires_at <= self.clock():
            await self.storage.challenges.settle_challenge(challenge_id, "expired")
            raise ChallengeExpired("This challenge has expired. Challenge again if you like.")
        return row

    # ------------------------------------------------------------------ tables of three or four

    async def challenge_group(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host: tuple[int, str],
        invited: list[tuple[int, str, bool]],
        rules_name: str | None,
        stakes: tuple[int, int] = (0, 0),
        target: int | None = None,
        level: str = "normal",
        rules: RuleSet | None = None,
    ) -> ChallengeRow | LiveGame:
        """Challenge two or three people at once (``invited``: (user, name, is a bot)); each
        must accept. The computer among them takes its seat at once (at ``level``). With one
        person invited this is ``challenge``."""
        if len(invited) == 1:
            user, name, is_bot = invited[0]
            return await self.challenge(
                guild_id=guild_id, channel_id=channel_id, challenger_id=host[0],
                opponent_id=user, opponent_is_bot=is_bot, rules_name=rules_name,
                names=(host[1], name), stakes=stakes, target=target, level=level)
        users = [host[0]] + [user for user, _, _ in invited]
        if len(set(users)) != len(users):
            raise UserError("Name each player once (and not yourself): a table seats each "
                            "person once.")
        for user, _, is_bot in invited:
            if is_bot and user != self.computer_id:
                raise UserError("Other bots can't play. Challenge people, or me for a "
                                "computer seat.")
        if not 2 <= len(invited) <= 3:
            raise UserError("A table seats two to four players.")
        if level not in COMPUTER_LEVELS:
            raise UserError(f"Unknown level {level!r}: choose easy, normal or hard.")
        settings = await self.storage.settings.get_settings(guild_id)
        if rules is None:  # a rematch keeps its game's rules
            rules = self._rules_with_target(settings, rules_name, target)
        if await self.storage.challenges.open_among(channel_id, users):
            raise UserError("You already have a challenge or a game going with exactly these "
                            "players in this channel.")
        return await self.storage.challenges.create_group(
            kind="challenge", guild_id=guild_id, channel_id=channel_id, seats=len(users),
            host=host, invited=[(user, "Computer" if user == self.computer_id else name,
                                 user == self.computer_id) for user, name, _ in invited],
            rules=rules.to_dict(), expires_at=self.clock() + settings.challenge_expiry_s,
            stake_cents=stakes[0], per_card_cents=stakes[1], currency=settings.currency,
            computer_level=level)

    def _rules_with_target(self, settings: GuildSettings, rules_name: str | None,
                           target: int | None) -> RuleSet:
        rules = self.rules_for(settings, rules_name)
        if target is not None:
            if not 1 <= target <= 1000:
                raise UserError("A match target must be between 1 and 1000 points.")
            rules = rules.with_options(match_target=target)
        return rules

    async def open_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host: tuple[int, str],
        seats: int,
        rules_name: str | None,
        stakes: tuple[int, int] = (0, 0),
        target: int | None = None,
    ) -> ChallengeRow:
        """An open table of ``seats`` (2 to 4) anyone may join; the host sits first."""
        if not 2 <= seats <= 4:
            raise UserError("A table seats two to four players.")
        settings = await self.storage.settings.get_settings(guild_id)
        rules = self._rules_with_target(settings, rules_name, target)
        return await self.storage.challenges.create_group(
            kind="table", guild_id=guild_id, channel_id=channel_id, seats=seats, host=host,
            rules=rules.to_dict(), expires_at=self.clock() + settings.challenge_expiry_s,
            stake_cents=stakes[0], per_card_cents=stakes[1], currency=settings.currency)

    async def accept_seat(self, challenge_id: int, user_id: int
                          ) -> tuple[ChallengeRow, LiveGame | None]:
        """An invited player accepts a challenge of three or four; the game starts (and is
        returned) when the last one has."""
        async with self._challenge_lock(challenge_id):
            row = await self._open_challenge(challenge_id)
            if not row.group:
                raise UserError("This challenge is for two: use its Accept button.")
            return await self._accept_seat(row, user_id)

    async def _accept_seat(self, row: ChallengeRow, user_id: int
                           ) -> tuple[ChallengeRow, LiveGame | None]:
        if row.kind == "table":
            raise UserError("This is an open table: press Join to sit down.")
        seat = row.seat_of(user_id)
        if seat is None:
            raise UserError("Only the players invited to this challenge can accept it.")
        if seat.accepted:
            raise UserError("You have already accepted: the game starts when everyone has.")
        await self.storage.challenges.accept_seat(row.id, user_id)
        row = await self.get_challenge(row.id)
        if all(s.accepted for s in row.seated):
            return await self._start_group(row)
        return row, None

    async def join_table(self, challenge_id: int, user_id: int, name: str
                         ) -> tuple[ChallengeRow, LiveGame | None]:
        """Sit down at an open table; the game starts (and is returned) when it is full. A
        second join, a full table or one that has started is a polite ``UserError`` and
        changes nothing."""
        async with self._challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            return await self._join(row, user_id, name)

    async def _join(self, row: ChallengeRow, user_id: int, name: str, level: str | None = None
                    ) -> tuple[ChallengeRow, LiveGame | None]:
        said = await self.storage.challenges.join_table(row.id, user_id, name, level=level)
        if said == "seated":
            raise UserError("The computer already has a seat at this table."
                            if user_id == self.computer_id else
                            "You already have a seat at this table.")
        if said == "full":
            raise UserError("Sorry, this table is full. Post one of your own with `/table`.")
        if said != "joined":
            raise UserError("This table is no longer open.")
        row = await self.get_challenge(row.id)
        if len(row.seated) >= row.seats:
            return await self._start_group(row)
        return row, None

    async def add_computer(self, challenge_id: int, user_id: int, level: str
                           ) -> tuple[ChallengeRow, LiveGame | None]:
        """The host gives the computer (at ``level``) a seat at his open table."""
        if level not in COMPUTER_LEVELS:
            raise UserError(f"Unknown level {level!r}: choose easy, normal or hard.")
        async with self._challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id != row.challenger_id:
                raise UserError("Only the host of the table can add the computer.")
            return await self._join(row, self.computer_id, "Computer", level=level)

    async def leave_table(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """Get up from an open table; the host leaving closes it (cancelled)."""
        async with self._challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id == row.challenger_id:
                if not await self.storage.challenges.settle_challenge(challenge_id, "cancelled"):
                    raise UserError("This table is no longer open.")
            elif not await self.storage.challenges.leave_table(challenge_id, user_id):
                raise UserError("You don't have a seat at this table.")
            return await self.get_challenge(challenge_id)

    async def start_table(self, challenge_id: int, user_id: int
                          ) -> tuple[ChallengeRow, LiveGame]:
        """The host starts his open table with those seated (at least two)."""
        async with self._challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id != row.challenger_id:
                raise UserError("Only the host of the table can start it.")
            if len(row.seated) < 2:
                raise UserError("Nobody has joined yet: a game needs at least two players.")
            row, live = await self._start_group(row)
            assert live is not None
            return row, live

    async def _open_table(self, challenge_id: int) -> ChallengeRow:
        row = await self.get_challenge(challenge_id)
        if row.kind != "table":
            raise UserError("That is not an open table.")
        if row.status == "accepted":
            raise UserError("This table has already started.")
        return await self._open_challenge(challenge_id)

    async def _start_group(self, row: ChallengeRow) -> tuple[ChallengeRow, LiveGame | None]:
        """Deal the game of a challenge of three or four or of a table, seats in the order
        taken (rule 24)."""
        try:
            rules = RuleSet.from_dict(row.rules)
        except ValueError:
            raise UserError("This challenge's terms are damaged; please challenge again.") \
                from None
        players = tuple(s.user_id for s in row.seated)
        names = tuple(s.name for s in row.seated)
        match, _ = Match.new(rules, self.new_seed(), players=len(players))
        game_id = await self.storage.challenges.accept_challenge(
            row.id, players=players, names=names, rules=rules.to_dict(),
            state=match.to_dict(), vs_computer=self.computer_id in players)
        if game_id is None:
            raise UserError("This challenge is no longer open.")
        saved_here.set(True)
        live = await self._load(game_id)
        return await self.get_challenge(row.id), live

    async def expire_due(self) -> list[ChallengeRow]:
        """Mark every open challenge past its time (in this process's servers) as expired;
        returns them."""
        now = self.clock()
        expired = []
        for row in await self.storage.challenges.open_challenges(shards=self.shards):
            if row.expires_at <= now:
                async with self._challenge_lock(row.id):
                    if await self.storage.challenges.settle_challenge(row.id, "expired"):
                        expired.append(await self.get_challenge(row.id))
        return expired

    # ------------------------------------------------------------------ games

    async def _start_game(
        self,
        guild_id: int,
        channel_id: int,
        players: tuple[int, int],
        names: tuple[str, str],
        rules: RuleSet,
        *,
        vs_computer: bool,
        level: str = "normal",
    ) -> LiveGame:
        match, _ = Match.new(rules, self.new_seed())
        game_id = await self.storage.games.create_game(
            guild_id=guild_id,
            channel_id=channel_id,
            players=players,
            names=names,
            rules=rules.to_dict(),
            state=match.to_dict(),
            vs_computer=vs_computer,
            computer_level=level,
        )
        saved_here.set(True)
        return await self._load(game_id)

    async def _load(self, game_id: int) -> LiveGame:
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
        # only when a save fails (see ``_commit``).
        cached = self._live.get(game_id)
        if cached is not None:
            return cached
        live = _live_from_row(row)
        self._keep(live)
        return live

    def _keep(self, live: LiveGame) -> None:
        self._live[live.id] = live
        for user_id in live.players:
            self._games_of.setdefault(user_id, set()).add(live.id)

    def _drop(self, game_id: int) -> None:
        live = self._live.pop(game_id, None)
        if live is None:
            return
        for user_id in live.players:
            ids = self._games_of.get(user_id)
            if ids is not None:
                ids.discard(game_id)
                if not ids:
                    del self._games_of[user_id]

    async def game(self, game_id: int) -> LiveGame:
        """The game, from memory or the database."""
        live = self._live.get(game_id)
        if live is None:
            live = await self._load(game_id)
        return live

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock that serialises every change to one game."""
        return self._locks.setdefault(game_id, asyncio.Lock())

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

    # ------------------------------------------------------------------ moves

    async def play(
        self, game_id: int, user_id: int, move_text: str, *, expected_version: int | None = None
    ) -> MoveOutcome:
        """Make a move for ``user_id``; saved before it returns."""
        async with self.lock(game_id):
            live = await self.game(game_id)
            seat = self.seat(live, user_id)
            self._check_live(live)
            if expected_version is not None and expected_version != live.version:
                raise UserError("That button is from an earlier moment of the game; the game "
                                "has moved on. Here is your hand as it is now.")
            try:
                move = Move.parse(move_text, centre_stacks=live.match.rules.centre_stacks)
            except MoveError as exc:
                raise UserError(str(exc)) from None
            if live.match.game.turn != seat:
                raise UserError("It's not your turn.")
            try:
                events = live.match.play(move, seat)
            except IllegalMoveError as exc:
                raise UserError(str(exc)) from None
            return await self._commit(live, seat, user_id, [move.text], events)

    async def resign(self, game_id: int, user_id: int) -> MoveOutcome:
        """The user leaves the game (rule 26) and the match: at a table of two that gives it
        up; at a bigger one the others play on, until one is left."""
        async with self.lock(game_id):
            live = await self.game(game_id)
            seat = self.seat(live, user_id)
            self._check_live(live)
            if seat not in live.match.seated:
                raise UserError("You have already left this game.")
            on_turn = live.match.game.turn
            events = live.match.resign(seat)
            return await self._commit(live, seat, user_id, ["resign"], events,
                                      turn_moved=on_turn != live.match.game.turn)

    async def claim(self, game_id: int, user_id: int) -> MoveOutcome:
        """The opponent of a player who has not moved for the claim time takes the game."""
        async with self.lock(game_id):
            live = await self.game(game_id)
            seat = self.seat(live, user_id)
            self._check_live(live)
            if seat not in live.match.seated:
                raise UserError("You have left this game: you can't claim it.")
            idle = live.match.game.turn
            if idle == seat:
                raise UserError("It's your own turn: you can't claim the game, you can play!")
            waited = self.clock() - live.turn_started_at
            if waited < live.terms.claim_s:
                hours = (live.terms.claim_s - waited) / 3600
                who = "Your opponent still has" if len(live.players) == 2 else \
                    f"{live.names[idle]} still has"
                raise UserError(f"{who} time to move: you can claim the game "
                                f"in {hours:.1f} hours.")
            events = live.match.resign(idle)
            return await self._commit(live, idle, user_id, ["claim"], events, turn_moved=True)

    async def computer_step(self, game_id: int) -> MoveOutcome | None:
        """Play one move for the computer if it is on turn; ``None`` otherwise."""
        async with self.lock(game_id):
            live = await self.game(game_id)
            if live.finished or live.on_turn != self.computer_id:
                return None
            seat = live.match.game.turn
            view = live.match.game.view(seat)
            player = self._players.get(live.id)
            if player is None:
                player = make_player(live.terms.computer_level, seed=live.id)
                self._players[live.id] = player
            # The player sees the view only; a search may take a while, so off the event loop.
            move = await asyncio.to_thread(player.choose, view)
            events = live.match.play(move, seat)
            return await self._commit(live, seat, None, [move.text], events)

    def _check_live(self, live: LiveGame) -> None:
        if live.finished or live.match.is_over:
            raise UserError("This game is over.")

    async def _commit(
        self, live: LiveGame, seat: int, user_id: int | None, notation: list[str],
        events: list[Event], *, turn_moved: bool = False,
    ) -> MoveOutcome:
        match = live.match
        game_over = any(isinstance(e, GameOver) for e in events)
        # ``turn_moved``: the player on turn left (rule 26), so the next one's time starts.
        turn_passed = any(isinstance(e, TurnEnded) for e in events) or game_over or turn_moved
        new_game = False
        if game_over and not match.is_over:
            events = events + match.next_game()
            new_game = True
        finished = match.is_over
        result: dict[str, Any] | None = None
        entries: tuple[GameEntry, ...] = ()
        if finished:
            result = {"winner": match.winner, "scores": list(match.scores),
                      "games": len(match.results), "resigned": match.resigned}
            if match.players > 2:
                result.update(margins=list(match.margins), ranks=list(match.ranks),
                              left=list(match.left))
            entries = game_entries(live, match, self.computer_id)
        new_version = live.version + len(notation)
        # A new deal is a snapshot too, so a replay on load never has to deal.
        snapshot = (finished or new_game
                    or new_version - live.state_version >= SNAPSHOT_EVERY)
        try:
            saved = await self.storage.games.save_moves(
                live.id,
                expected_version=live.version,
                state=match.to_dict() if snapshot else None,
                moves=[(seat, user_id, text) for text in notation],
                finished=finished,
                result=result,
                turn_passed=turn_passed,
                entries=entries,
            )
        except DatabaseUnavailable as exc:
            # Nothing of the move was kept (one transaction); said once a minute.
            self.failures.failed("database", "game %s: a move couldn't be saved: %s",
                                 live.id, exc)
            self._drop(live.id)
            raise UserError(DB_DOWN) from None
        except Exception:
            log.exception("game %s: saving a move failed", live.id)
            saved = False
        if not saved:
            # The in-memory match is ahead of the database: drop it, so the next access
            # reloads what was really saved.
            self._drop(live.id)
            raise UserError("Sorry, that move couldn't be saved, so it didn't happen. "
                            "Please try again.")
        saved_here.set(True)
        live.version = new_version
        if snapshot:
            live.state_version = new_version
        live.finished = finished
        live.last_moves = (live.last_moves + public_lines(events, live.names))[-12:]
        if turn_passed:
            live.turn_started_at = self.clock()
            live.reminded_at = None
            live.claim_offered_at = None
        outcome = MoveOutcome(live, seat, events, turn_passed, game_over, finished, new_game,
                              finished_result=match.results[-1] if game_over else None,
                              entries=entries)
        await self._notify(outcome)
        return outcome

    async def _notify(self, outcome: MoveOutcome) -> None:
        for listener in self.listeners:
            try:
                await listener(outcome)
            except Exception:
                log.exception("game %s: a listener failed", outcome.game.id)

    async def set_board(self, live: LiveGame, message_id: int, key_turn: int,
                        version: int) -> None:
        """Remember the board message of the current turn and the version it shows (saved
        first: what is in memory must never be ahead of the database, or a try again after a
        failed save would take the board for saved)."""
        await self.storage.games.set_board(live.id, message_id, key_turn, version)
        live.board_message_id = message_id
        live.board_turn = key_turn
        live.board_version = version

    async def set_board_version(self, live: LiveGame, version: int) -> None:
        """Note that the board message (edited) now shows ``version``."""
        await self.storage.games.set_board_version(live.id, version)
        live.board_version = max(version, live.board_version or 0)

    async def boards_behind(self) -> list[int]:
        """Games whose public board doesn't show their saved version (of this process's
        servers)."""
        return await self.storage.games.boards_behind(shards=self.shards)

    async def set_thread(self, live: LiveGame, thread_id: int) -> None:
        """The game is played in a thread of its own from now on."""
        await self.storage.games.set_thread(live.id, thread_id)
        live.thread_id = thread_id

    async def set_result_message(self, live: LiveGame, message_id: int) -> None:
        """The result was announced (so it is announced once, across restarts)."""
        await self.storage.games.set_result_message(live.id, message_id)
        live.result_message_id = message_id

    async def results_unannounced(self) -> list[int]:
        """Finished games whose result was never announced (of this process's servers)."""
        return await self.storage.games.results_unannounced(shards=self.shards)

    async def rematch(self, game_id: int, user_id: int, names: tuple[str, str]
                      ) -> ChallengeRow | LiveGame:
        """A player of a finished game offers the same terms to the same opponent: a new
        challenge (or, against the computer, a new game at once). ``names`` are (the offerer,
        the opponent)."""
        live = await self.game(game_id)
        seat = self.seat(live, user_id)
        if not live.finished:
            raise UserError("This game isn't over yet.")
        if len(live.players) > 2:
            terms = live.terms
            others = [(user, name, user == self.computer_id)
                      for user, name in zip(terms.players, terms.names, strict=True)
                      if user != user_id]
            return await self.challenge_group(
                guild_id=terms.guild_id, channel_id=terms.channel_id,
                host=(user_id, live.names[seat]), invited=others, rules_name=None,
                stakes=(terms.stake_cents, terms.per_card_cents), level=terms.computer_level,
                rules=live.match.rules)
        opponent = live.players[1 - seat]
        rules = live.match.rules
        if live.terms.vs_computer:
            terms = live.terms
            return await self._start_game(terms.guild_id, terms.channel_id, (user_id, opponent),
                                          names, rules, vs_computer=True,
                                          level=terms.computer_level)
        existing = await self.storage.challenges.open_between(
            live.terms.channel_id, user_id, opponent)
        if existing == "game":
            raise UserError("You already have a game going with them in this channel.")
        if existing == "challenge":
            raise UserError("There's already an open challenge between you two in this channel.")
        settings = await self.storage.settings.get_settings(live.terms.guild_id)
        return await self.storage.challenges.create_challenge(
            guild_id=live.terms.guild_id, channel_id=live.terms.channel_id, challenger_id=user_id,
            opponent_id=opponent, names=names, rules=rules.to_dict(),
            expires_at=self.clock() + settings.challenge_expiry_s,
            stake_cents=live.terms.stake_cents, per_card_cents=live.terms.per_card_cents,
            currency=live.terms.currency,
        )

    async def set_claim_offered(self, live: LiveGame) -> None:
        """Note that the opponent was offered a claim (so it is offered once per turn, across
        restarts)."""
        now = self.clock()
        await self.storage.games.set_claim_offered(live.id, now)
        live.claim_offered_at = now

    async def set_reminded(self, live: LiveGame) -> None:
        """Note a reminder was sent."""
        now = self.clock()
        await self.storage.games.set_reminded(live.id, now)
        live.reminded_at = now

    def forget_finished(self, keep: Callable[[int], bool] = lambda game_id: False) -> int:
        """Drop finished games (and their locks and computer players) from memory, except those
        ``keep`` says to keep (by id); they stay in the database. Returns how many were
        dropped."""
        done = [gid for gid, live in self._live.items()
                if live.finished and not keep(gid) and not self.lock(gid).locked()]
        for gid in done:
            self._drop(gid)
            self._locks.pop(gid, None)
            self._players.pop(gid, None)
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

    # ------------------------------------------------------------------ autocomplete

    def legal_sources(self, live: LiveGame, user_id: int) -> list[Move]:
        """One legal move per distinct source the user could move now (for autocomplete)."""
        return [moves[0] for moves in moves_by_source(self.view(live, user_id)).values()]

    def legal_targets(self, live: LiveGame, user_id: int, source: str) -> list[Move]:
        """The legal moves from ``source`` (a token such as ``7H``, ``P`` or ``S2``)."""
        try:
            kind, card, index = parse_source(source)
        except MoveError:
            return []
        # The canonical token, whatever way it was typed ("7h", "payoff", "s2").
        token = card.text if card is not None else (
            "P" if kind is Source.PAYOFF else f"S{index + 1}")
        return moves_by_source(self.view(live, user_id)).get(token, [])


def moves_by_source(view: View) -> dict[str, list[Move]]:
    """The viewer's legal moves (pass aside) grouped by source token, in the engine's order."""
    groups: dict[str, list[Move]] = {}
    for move in view.legal_moves:
        if not move.is_pass:
            groups.setdefault(move.source_token, []).append(move)
    return groups


def parse_target_token(token: str, centre_stacks: int | None = None) -> str:
    """Normalise a typed target token (``c2`` → ``C2``); raises ``UserError`` if malformed or
    beyond the ``centre_stacks`` of the rule set in play (the message names the real range)."""
    try:
        kind, index = parse_target(token, centre_stacks=centre_stacks)
    except MoveError as exc:
        raise UserError(str(exc)) from None
    return ("C" if kind.name == "CENTRE" else "S") + str(index + 1)


def restore_match(row: GameRow) -> Match:
    """The match at the row's version: its snapshot with the later moves made again, as
    ``GameService`` made them (a finished game of an unfinished match is followed by the next
    deal). Raises ``SetupError`` if the snapshot is damaged, ``ReplayError`` if a move can't
    be made again."""
    match = Match.from_dict(row.state)
    for number, (seat, text) in enumerate(row.later_moves, row.state_version + 1):
        try:
            if match.is_over:
                raise IllegalMoveError("The match is over.")
            if text in GIVING_UP:
                match.resign(seat)
            else:
                match.play(text, seat)
        except ValueError as exc:  # every MoveError (an illegal move too) is a ValueError
            raise ReplayError(f"Move {number} can't be made again: {exc}") from None
        if match.game.result is not None and not match.is_over:
            match.next_game()
    return match


def _live_from_row(row: GameRow) -> LiveGame:
    try:
        match = restore_match(row)
    except (SetupError, ReplayError) as exc:
        log.error("game %s: damaged state: %s", row.id, exc)
        raise UserError("This game's saved record is damaged, so it can't be played. "
                        "Nothing was changed.") from None
    return LiveGame(
        id=row.id,
        terms=row.terms(),
        match=match,
        version=row.version,
        board_message_id=row.board_message_id,
        board_turn=row.board_turn,
        turn_started_at=row.turn_started_at,
        reminded_at=row.reminded_at,
        finished=row.status == "finished",
        last_moves=history_lines(match.game.history[-6:], row.names),
        board_version=row.board_version,
        claim_offered_at=row.claim_offered_at,
        thread_id=row.thread_id,
        result_message_id=row.result_message_id,
        state_version=row.state_version,
    )
