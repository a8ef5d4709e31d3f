"""The game services of one bot, built together around the state they share.

- ``inviting`` (``Inviting``): challenges of two, three or four, open tables, the settings;
  one way from an accepted invitation to a game.
- ``playing`` (``Playing``): moves, turns, the computer's moves, leaving and claims.
- ``finishing`` (``Finishing``): results, money, what a resignation would do, rematches.
- ``tournaments`` (``Tournaments``): sign-up, rounds, results, deadlines and forfeits.
- ``live`` (``LiveGames``): the games in memory, their locks and the storage handle, shared
  by the three; finding a player's game and what may be shown of it.

The Discord side calls them; they never call it back (it listens: ``live.listeners``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.failures import FailureLog
from bot.shards import ShardSet
from bot.storage import Storage
from bot.user_errors import UserError

from .finishing import Finishing
from .inviting import Inviting
from .live_game import (
    SNAPSHOT_EVERY,
    ChallengeExpired,
    GameFacts,
    LiveGame,
    MoveOutcome,
    restore_match,
    saved_here,
)
from .live_games import LiveGames
from .playing import Playing
from .tournament_service import Tournaments

__all__ = ["SNAPSHOT_EVERY", "ChallengeExpired", "GameFacts", "GameService", "LiveGame",
           "MoveOutcome", "UserError", "restore_match", "saved_here"]


class GameService:
    """The game services sharing one ``LiveGames``: ``inviting``, ``playing``, ``finishing``,
    ``tournaments`` and ``live``."""

    def __init__(self, storage: Storage, *, computer_id: int,
                 clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], int] | None = None,
                 shards: ShardSet | None = None, failures: FailureLog | None = None) -> None:
        self.storage = storage
        self.clock = clock
        self.live = LiveGames(storage, computer_id=computer_id, clock=clock,
                              seed_source=seed_source, shards=shards, failures=failures)
        self.inviting = Inviting(self.live)
        self.finishing = Finishing(self.live, self.inviting)
        self.playing = Playing(self.live, self.finishing)
        self.tournaments = Tournaments(self.live, self.playing)
