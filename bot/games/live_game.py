"""A game in memory and what the game services hand out of it.

``LiveGame`` is a game as the services keep it (its terms, the engine's match, the bot's
bookkeeping); ``GameFacts`` is all the presentation layer gets of it (one seat's view, never
the engine's game); ``MoveOutcome`` is what a saved change did. ``restore_match`` rebuilds a
saved game's match: its last snapshot with the later moves made again.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from dataclasses import dataclass, field

from bot.storage import GameEntry, GameRow, GameTerms
from bot.user_errors import UserError
from engine import (
    Event,
    IllegalMoveError,
    Match,
    Move,
    MoveError,
    Result,
    RuleSet,
    SetupError,
    View,
)
from engine.describe import history_lines
from engine.moves import parse_target

from .replay import GIVING_UP, ReplayError

__all__ = ["SNAPSHOT_EVERY", "ChallengeExpired", "GameFacts", "LiveGame", "MoveOutcome",
           "live_from_row", "moves_by_source", "parse_target_token", "restore_match",
           "saved_here"]

log = logging.getLogger(__name__)

saved_here: ContextVar[bool] = ContextVar("saved_here", default=False)
"""True in a task (an interaction's: discord.py runs each in its own) once it has saved a move
or a new game: a failure after that point must not tell the player that nothing changed."""

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
    """The match at the row's version: its snapshot with the later moves made again, as the
    services made them (a finished game of an unfinished match is followed by the next deal).
    Raises ``SetupError`` if the snapshot is damaged, ``ReplayError`` if a move can't be made
    again."""
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


def live_from_row(row: GameRow) -> LiveGame:
    """The game of a saved row, its match restored; a ``UserError`` if the row is damaged."""
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
