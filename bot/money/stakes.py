"""What a finished match is worth: the ledger lines written with its last move."""

from __future__ import annotations

from typing import Protocol

from bot.storage import GameEntry, GameTerms
from engine import Match

__all__ = ["StakedGame", "game_entries", "game_entry"]


class StakedGame(Protocol):
    """What a game's ledger lines need to know of it (the service's ``LiveGame`` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def terms(self) -> GameTerms: ...


def human_seats(terms: GameTerms, computer_id: int | None) -> list[int]:
    """The seats of people (not the computer), in seat order."""
    if not terms.vs_computer:
        return list(range(len(terms.players)))
    return [seat for seat, user in enumerate(terms.players) if user != computer_id]


def game_entries(live: StakedGame, match: Match, computer_id: int | None = None
                 ) -> tuple[GameEntry, ...]:
    """The ledger lines of a finished match: one per loser (rule 28), between people only.

    Each loser pays the winner the flat stake plus the per-card amount times his margin: the
    cards left in his pay-off pile (``Match.margins``), or in a match to a target the
    winner's match score less his own. The computer neither pays nor is paid: a seat of the
    computer has no line, and a match the computer wins has none at all (as a game of two
    against the computer never had). A drawn match pays nothing and is still written, so the
    notebook and the statistics show it: a line of 0 from each person to the last person
    seated (at a table of two, exactly the one line of 0 it always was).
    """
    terms = live.terms
    if not match.is_over:
        return ()
    humans = human_seats(terms, computer_id)
    if len(humans) < 2 or (terms.vs_computer and len(terms.players) == 2):
        return ()
    winner = match.winner
    rules = match.rules.name
    players = terms.players
    if winner is None:
        last = humans[-1]
        return tuple(GameEntry(terms.guild_id, live.id, players[seat], players[last], 0, rules,
                               None, 0) for seat in humans[:-1])
    if winner not in humans:
        return ()
    if len(players) == 2:
        margins: list[int] = [max(0, match.scores[winner] - match.scores[1 - winner])] * 2
    else:
        margins = [max(0, m or 0) for m in match.margins]
    return tuple(
        GameEntry(terms.guild_id, live.id, players[seat], players[winner],
                  terms.stake_cents + terms.per_card_cents * margins[seat], rules,
                  players[winner], margins[seat])
        for seat in humans if seat != winner)


def game_entry(live: StakedGame, match: Match, computer_id: int | None = None
               ) -> GameEntry | None:
    """The first of ``game_entries`` (the only one at a table of two), or ``None``."""
    entries = game_entries(live, match, computer_id)
    return entries[0] if entries else None
