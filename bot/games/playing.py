"""Playing: moves, turns, the computer's moves, leaving and claims.

Every change to a game is made under its lock and saved in one transaction before anyone is
told it happened (``_commit``); if the save fails, the game is dropped from memory and read
again from the database, so nothing half-done survives. A save appends the move; the whole
match state is saved with it only now and then (``SNAPSHOT_EVERY`` moves, each new deal, the
end), and a game is loaded as its last snapshot with the later moves made again.
"""

from __future__ import annotations

import asyncio
import logging

from bot.storage import DatabaseUnavailable
from bot.user_errors import DB_DOWN, UserError
from engine import Event, GameOver, IllegalMoveError, Move, MoveError, Source, TurnEnded
from engine.describe import public_lines
from engine.moves import parse_source
from engine.players import make_player

from .finishing import Finishing
from .live_game import SNAPSHOT_EVERY, LiveGame, MoveOutcome, moves_by_source, saved_here
from .live_games import LiveGames

__all__ = ["Playing"]

log = logging.getLogger(__name__)


class Playing:
    """Moves and turns of the games going on; every method may raise ``UserError``."""

    def __init__(self, games: LiveGames, finishing: Finishing) -> None:
        self.games = games
        self.finishing = finishing
        self.storage = games.storage

    # ------------------------------------------------------------------ moves

    async def play(
        self, game_id: int, user_id: int, move_text: str, *, expected_version: int | None = None
    ) -> MoveOutcome:
        """Make a move for ``user_id`` (in the engine's notation); saved before it returns."""
        async with self.games.lock(game_id):
            live = await self.games.game(game_id)
            seat = self.games.seat(live, user_id)
            _check_going_on(live)
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
        up; at a bigger one the others play on, until one is left (``Finishing.resignation``
        says beforehand what it would do)."""
        async with self.games.lock(game_id):
            live = await self.games.game(game_id)
            seat = self.games.seat(live, user_id)
            _check_going_on(live)
            if seat not in live.match.seated:
                raise UserError("You have already left this game.")
            on_turn = live.match.game.turn
            events = live.match.resign(seat)
            return await self._commit(live, seat, user_id, ["resign"], events,
                                      turn_moved=on_turn != live.match.game.turn)

    async def claim(self, game_id: int, user_id: int) -> MoveOutcome:
        """Another player of one who has not moved for the claim time takes the game from him
        (at a table of three or four, he leaves it)."""
        async with self.games.lock(game_id):
            live = await self.games.game(game_id)
            seat = self.games.seat(live, user_id)
            _check_going_on(live)
            if seat not in live.match.seated:
                raise UserError("You have left this game: you can't claim it.")
            idle = live.match.game.turn
            if idle == seat:
                raise UserError("It's your own turn: you can't claim the game, you can play!")
            waited = self.games.clock() - live.turn_started_at
            if waited < live.terms.claim_s:
                hours = (live.terms.claim_s - waited) / 3600
                who = "Your opponent still has" if len(live.players) == 2 else \
                    f"{live.names[idle]} still has"
                raise UserError(f"{who} time to move: you can claim the game "
                                f"in {hours:.1f} hours.")
            events = live.match.resign(idle)
            return await self._commit(live, idle, user_id, ["claim"], events, turn_moved=True)

    async def decide_late(self, game_id: int) -> bool:
        """A tournament round's deadline passed: the game is decided by the claim rule, the
        player on turn (who has not moved) losing; at a table of three or four each player
        then on turn leaves in turn until one is left. Each is a claim, saved as any other.
        False if the game was over already."""
        decided = False
        while True:
            async with self.games.lock(game_id):
                live = await self.games.game(game_id)
                if live.finished or live.match.is_over:
                    return decided
                idle = live.match.game.turn
                events = live.match.resign(idle)
                await self._commit(live, idle, None, ["claim"], events, turn_moved=True)
                decided = True

    async def computer_step(self, game_id: int) -> MoveOutcome | None:
        """Play one move for the computer if it is on turn; ``None`` otherwise."""
        async with self.games.lock(game_id):
            live = await self.games.game(game_id)
            if live.finished or live.on_turn != self.games.computer_id:
                return None
            seat = live.match.game.turn
            view = live.match.game.view(seat)
            player = self.games.players.get(live.id)
            if player is None:
                player = make_player(live.terms.computer_level, seed=live.id)
                self.games.players[live.id] = player
            # The player sees the view only; a search may take a while, so off the event loop.
            move = await asyncio.to_thread(player.choose, view)
            events = live.match.play(move, seat)
            return await self._commit(live, seat, None, [move.text], events)

    def legal_sources(self, live: LiveGame, user_id: int) -> list[Move]:
        """One legal move per distinct source the user could move now (for autocomplete)."""
        return [moves[0] for moves in moves_by_source(self.games.view(live, user_id)).values()]

    def legal_targets(self, live: LiveGame, user_id: int, source: str) -> list[Move]:
        """The legal moves from ``source`` (a token such as ``7H``, ``P`` or ``S2``)."""
        try:
            kind, card, index = parse_source(source)
        except MoveError:
            return []
        # The canonical token, whatever way it was typed ("7h", "payoff", "s2").
        token = card.text if card is not None else (
            "P" if kind is Source.PAYOFF else f"S{index + 1}")
        return moves_by_source(self.games.view(live, user_id)).get(token, [])

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
        result, entries = self.finishing.record(live, match)
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
            self.games.failures.failed("database", "game %s: a move couldn't be saved: %s",
                                       live.id, exc)
            self.games.drop(live.id)
            raise UserError(DB_DOWN) from None
        except Exception:
            log.exception("game %s: saving a move failed", live.id)
            saved = False
        if not saved:
            # The in-memory match is ahead of the database: drop it, so the next access
            # reloads what was really saved.
            self.games.drop(live.id)
            raise UserError("Sorry, that move couldn't be saved, so it didn't happen. "
                            "Please try again.")
        saved_here.set(True)
        live.version = new_version
        if snapshot:
            live.state_version = new_version
        live.finished = finished
        live.last_moves = (live.last_moves + public_lines(events, live.names))[-12:]
        if turn_passed:
            live.turn_started_at = self.games.clock()
            live.reminded_at = None
            live.claim_offered_at = None
        outcome = MoveOutcome(live, seat, events, turn_passed, game_over, finished, new_game,
                              finished_result=match.results[-1] if game_over else None,
                              entries=entries)
        await self.games.notify(outcome)
        return outcome

    # ------------------------------------------------------------------ turns and boards

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
        return await self.storage.games.boards_behind(shards=self.games.shards)

    async def set_thread(self, live: LiveGame, thread_id: int) -> None:
        """The game is played in a thread of its own from now on."""
        await self.storage.games.set_thread(live.id, thread_id)
        live.thread_id = thread_id

    async def set_claim_offered(self, live: LiveGame) -> None:
        """Note that the others were offered a claim (so it is offered once per turn, across
        restarts)."""
        now = self.games.clock()
        await self.storage.games.set_claim_offered(live.id, now)
        live.claim_offered_at = now

    async def set_reminded(self, live: LiveGame) -> None:
        """Note a reminder was sent."""
        now = self.games.clock()
        await self.storage.games.set_reminded(live.id, now)
        live.reminded_at = now


def _check_going_on(live: LiveGame) -> None:
    if live.finished or live.match.is_over:
        raise UserError("This game is over.")
