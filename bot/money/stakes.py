"""What a finished match is worth: the ledger line written with its last move."""

from __future__ import annotations

from typing import Protocol

from bot.storage import GameEntry
from engine import Match

__all__ = ["StakedGame", "game_entry"]


class StakedGame(Protocol):
    """What a game's ledger line needs to know of it (the service's ``LiveGame`` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def guild_id(self) -> int: ...
    @property
    def players(self) -> tuple[int, int]: ...
    @property
    def vs_computer(self) -> bool: ...
    @property
    def stake_cents(self) -> int: ...
    @property
    def per_card_cents(self) -> int: ...


def game_entry(live: StakedGame, match: Match) -> GameEntry | None:
    """The ledger line of a finished match between two people (``None`` against the computer).

    The loser pays the winner the flat stake plus the per-card amount times the margin: the
    cards left in the loser's pay-off pile, or in a match the difference of the scores. A tie
    pays nothing (and is still written, so the notebook shows the game).
    """
    if live.vs_computer or not match.is_over:
        return None
    winner = match.winner
    rules = match.rules.name
    if winner is None:
        return GameEntry(live.guild_id, live.id, live.players[0], live.players[1], 0, rules,
                         None, 0)
    margin = max(0, match.scores[winner] - match.scores[1 - winner])
    amount = live.stake_cents + live.per_card_cents * margin
    return GameEntry(live.guild_id, live.id, live.players[1 - winner], live.players[winner],
                     amount, rules, live.players[winner], margin)
