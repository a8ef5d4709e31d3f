"""What a finished match is worth: the ledger line written with its last move."""

from __future__ import annotations

from typing import Protocol

from bot.storage import GameEntry, GameTerms
from engine import Match

__all__ = ["StakedGame", "game_entry"]


class StakedGame(Protocol):
    """What a game's ledger line needs to know of it (the service's ``LiveGame`` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def terms(self) -> GameTerms: ...


def game_entry(live: StakedGame, match: Match) -> GameEntry | None:
    """The ledger line of a finished match between two people (``None`` against the computer).

    The loser pays the winner the flat stake plus the per-card amount times the margin: the
    cards left in the loser's pay-off pile, or in a match the difference of the scores. A tie
    pays nothing (and is still written, so the notebook shows the game).
    """
    terms = live.terms
    if terms.vs_computer or not match.is_over:
        return None
    winner = match.winner
    rules = match.rules.name
    if winner is None:
        return GameEntry(terms.guild_id, live.id, terms.players[0], terms.players[1], 0, rules,
                         None, 0)
    margin = max(0, match.scores[winner] - match.scores[1 - winner])
    amount = terms.stake_cents + terms.per_card_cents * margin
    return GameEntry(terms.guild_id, live.id, terms.players[1 - winner], terms.players[winner],
                     amount, rules, terms.players[winner], margin)
