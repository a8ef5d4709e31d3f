"""HistoryService: finished games, their replays and their move lists, for ``/history`` and
``/replay``.

Read-only: it never changes a game. It decides who may see what. Anyone in the server may list
a player's finished games and replay one (the public view at every turn); only a player of the
game may see his own hand at a turn; a game still being played is never replayed, since its
seed and moves would give away the hands and the stock.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass

from bot.storage import GameRow, GameTerms, Storage, StorageError
from bot.user_errors import UserError
from engine import EndReason, Result

from .replay import Replay, ReplayError, move_list, replay_saved

__all__ = ["PAGE", "HistoryEntry", "HistoryPage", "HistoryService", "ReplayedGame", "check_index",
           "position_at"]

log = logging.getLogger(__name__)

PAGE = 10
"""Games per page of ``/history``."""

_CACHED = 8
"""Replays kept in memory (a finished game never changes, so a cached one stays right)."""


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One finished game as a line of a player's history, from that player's side."""

    game_id: int
    finished_at: float
    rules: str
    target: int | None
    opponent: str
    outcome: str
    """``won``, ``lost`` or ``tie``."""
    scores: tuple[int, ...]
    """The player's points, then the opponent's (match points, or the game's score)."""
    games: int
    how: str
    """How it ended, in words: ``pay-off pile played out``, ``Bob resigned`` …"""
    voided: bool = False
    """Its ledger line was voided (e.g. played by mistake): it counts for nothing."""
    players: int = 2
    """The table's size (``opponent`` then names every other player)."""


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """A page of a player's finished games, the latest first."""

    user_id: int
    page: int
    pages: int
    total: int
    entries: tuple[HistoryEntry, ...]


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """A finished game ready to be stepped through: its saved facts and its replay."""

    id: int
    terms: GameTerms
    finished_at: float
    replay: Replay


class HistoryService:
    """Finished games: lists, replays, hands at a turn, move lists. Raises ``UserError``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        # game id -> (its server, its replay); the oldest used goes first.
        self._replays: OrderedDict[int, tuple[int, ReplayedGame]] = OrderedDict()

    async def history(self, guild_id: int, user_id: int, page: int) -> HistoryPage:
        """Page ``page`` (0-based, clamped) of ``user_id``'s finished games in the server."""
        page = max(0, page)
        rows, total = await self.storage.games.finished_games(guild_id, user_id, offset=page * PAGE,
                                                              limit=PAGE)
        pages = max(1, -(-total // PAGE))
        if page >= pages and page > 0:  # an old "Older" button: show the last page there is
            page = pages - 1
            rows, total = await self.storage.games.finished_games(
                guild_id, user_id, offset=page * PAGE, limit=PAGE)
        entries = tuple(e for e in (_entry(row, last, user_id, voided)
                                    for row, last, voided in rows) if e is not None)
        return HistoryPage(user_id, page, pages, total, entries)

    async def replay(self, game_id: int, guild_id: int) -> ReplayedGame:
        """The finished game ``game_id`` of this server, replayed from its seed and moves."""
        cached = self._replays.get(game_id)
        if cached is not None and cached[0] == guild_id:
            self._replays.move_to_end(game_id)
            return cached[1]
        row = await self._finished_row(game_id, guild_id)
        moves = await self.storage.games.move_log(game_id)
        entries = [(seat, text) for _, seat, _, text in moves]
        try:
            # Replaying a long match takes a few tens of milliseconds: off the event loop.
            replay = await asyncio.to_thread(replay_saved, row.state, entries, row.names)
        except ReplayError as exc:
            log.error("game %s can't be replayed: %s", game_id, exc)
            raise UserError(f"Sorry, game #{game_id} can't be replayed: its saved moves don't "
                            "give the saved game (it may be from an older version of the "
                            "rules).") from None
        game = ReplayedGame(game_id, row.terms(), row.updated_at, replay)
        self._replays[game_id] = (row.guild_id, game)
        while len(self._replays) > _CACHED:
            self._replays.popitem(last=False)
        return game

    async def _finished_row(self, game_id: int, guild_id: int) -> GameRow:
        try:
            row = await self.storage.games.get_game(game_id)
        except StorageError:
            log.error("game %s: damaged row", game_id)
            raise UserError(f"Game #{game_id}'s saved record is damaged, so it can't be "
                            "replayed.") from None
        if row is None or row.guild_id != guild_id:
            raise UserError(f"There is no game #{game_id} in this server. `/history` lists "
                            "the finished ones.")
        if row.status != "finished":
            raise UserError(f"Game #{game_id} is still being played. Its replay opens when it "
                            "is over (a replay of a game going on would give its cards away).")
        return row

    def hand_at(self, game: ReplayedGame, index: int, user_id: int) -> int:
        """The seat whose hand ``user_id`` may see at position ``index``: his own; a
        ``UserError`` for anyone not playing in the game or a position that doesn't exist."""
        seat = game.terms.seat_of(user_id)
        if seat is None:
            two = "two " if len(game.terms.players) == 2 else ""
            raise UserError(f"Only the {two}players of this game can see their hands in its "
                            "replay; the board is all anyone else could see.")
        check_index(game, index)
        return seat

    def move_list(self, game: ReplayedGame) -> str:
        """The match's moves as ``game-N.txt`` (only finished games reach here)."""
        return move_list(game.replay, game.id, game.finished_at)


def position_at(game: ReplayedGame, turn: int, deal: int = 1) -> int:
    """The position where turn ``turn`` of the match's deal ``deal`` starts (both 1-based); a
    ``UserError`` saying what there is if there is no such turn."""
    deals = max(p.game_number for p in game.replay.positions)
    if not 1 <= deal <= deals:
        raise UserError(f"Game #{game.id} had {deals} deal{'s' if deals != 1 else ''}: pick "
                        f"`deal` from 1 to {deals}.")
    turns = [p for p in game.replay.positions if p.game_number == deal and not p.over]
    for position in turns:
        if position.turn == turn:
            return position.index
    last = max((p.turn for p in turns), default=1)
    where = f"deal {deal} of game #{game.id}" if deals > 1 else f"game #{game.id}"
    raise UserError(f"There is no turn {turn} in {where}: its turns go from 1 to {last}.")


def check_index(game: ReplayedGame, index: int) -> int:
    """``index`` if the replay has such a position; a ``UserError`` otherwise."""
    if not 0 <= index < len(game.replay.positions):
        raise UserError("That turn isn't in this replay.")
    return index


_HOW = {
    EndReason.PAYOFF_EMPTIED: "pay-off pile played out",
    EndReason.STALEMATE: "stalemate",
    EndReason.TURN_LIMIT: "turn limit",
    EndReason.STOCK_OUT: "the stock ran out",
}


def _entry(row: GameRow, last_move: str | None, user_id: int, voided: bool = False
           ) -> HistoryEntry | None:
    """One history line from the saved row; ``None`` if its result can't be read."""
    if len(row.players) > 2:
        return _table_entry(row, last_move, user_id, voided)
    seat = 0 if row.players[0] == user_id else 1
    state = row.state
    try:
        results = [Result.from_dict(r) for r in state.get("results", [])]
        target = state["rules"].get("match_target")
        rules = str(state["rules"]["name"])
        saved = row.result or {}
        winner = saved.get("winner")
        scores = [int(s) for s in saved.get("scores", [0, 0])]
    except (KeyError, TypeError, ValueError, AttributeError):
        log.error("game %s: damaged result", row.id)
        return None
    last = results[-1] if results else None
    if last is not None and last.reason is EndReason.RESIGNED:
        loser = row.names[1 - last.winner] if last.winner is not None else "a player"
        how = f"{loser} lost on time" if last_move == "claim" else f"{loser} resigned"
    elif last is not None:
        how = _HOW[last.reason]
    else:
        how = "ended"
    if target is None and last is not None:
        # One game: its score is the cards left in the loser's pay-off pile.
        mine = last.score if last.winner == seat else 0
        theirs = last.score if last.winner == 1 - seat else 0
    else:
        mine, theirs = scores[seat], scores[1 - seat]
    outcome = "tie" if winner is None else "won" if winner == seat else "lost"
    return HistoryEntry(
        game_id=row.id, finished_at=row.updated_at, rules=rules, target=target,
        opponent=row.names[1 - seat], outcome=outcome, scores=(mine, theirs),
        games=len(results), how=how, voided=voided,
    )


def _table_entry(row: GameRow, last_move: str | None, user_id: int, voided: bool
                 ) -> HistoryEntry | None:
    """A history line of a table of three or four: the player's score against the best of
    the others (the winner's, when he lost)."""
    seat = row.players.index(user_id)
    try:
        results = [Result.from_dict(r) for r in row.state.get("results", [])]
        target = row.state["rules"].get("match_target")
        rules = str(row.state["rules"]["name"])
        saved = row.result or {}
        winner = saved.get("winner")
        scores = [int(s) for s in saved.get("scores", [0] * len(row.players))]
    except (KeyError, TypeError, ValueError, AttributeError):
        log.error("game %s: damaged result", row.id)
        return None
    last = results[-1] if results else None
    if last is not None and last.reason is EndReason.RESIGNED:
        how = "the others left" if last_move != "claim" else "claimed on time"
    elif last is not None:
        how = _HOW[last.reason]
    else:
        how = "ended"
    others = [s for s in range(len(row.players)) if s != seat]
    best = winner if winner is not None and winner != seat else max(
        others, key=lambda s: scores[s])
    outcome = "tie" if winner is None else "won" if winner == seat else "lost"
    return HistoryEntry(
        game_id=row.id, finished_at=row.updated_at, rules=rules, target=target,
        opponent=", ".join(row.names[s] for s in others), outcome=outcome,
        scores=(scores[seat], scores[best]), games=len(results), how=how, voided=voided,
        players=len(row.players))
