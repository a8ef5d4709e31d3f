"""What a finished match is worth: the ledger line written with its last move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import Match

from .storage import GameEntry

if TYPE_CHECKING:
    from .service import LiveGame

__all__ = ["game_entry"]


def game_entry(live: LiveGame, match: Match) -> GameEntry | None:
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
