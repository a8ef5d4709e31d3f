"""Finishing: how a match ends and what it is worth.

The record saved with a match's last move (its result, and the ledger lines: one per loser,
``bot.money.stakes``), what a resignation would do before anyone confirms it (worked out on a
copy of the match: nothing changes), the result's announcement once, and a rematch on the same
terms (a new invitation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.money.stakes import game_entries
from bot.storage import ChallengeRow, GameEntry
from bot.user_errors import UserError
from engine import Match

from .inviting import Inviting
from .live_game import LiveGame
from .live_games import LiveGames

__all__ = ["Finishing", "Resignation"]


@dataclass(frozen=True, slots=True)
class Resignation:
    """What resigning would do now, for the question asked before it is done."""

    seat: int
    """The seat that would resign."""
    match_over: bool
    """It ends the match (at a table of two it always does)."""
    winner: int | None
    """The match winner's seat, when it ends it (``None``: it goes on, or ends level)."""
    scores: tuple[int, ...]
    """The match scores afterwards."""
    target: int | None
    """The match's target (``None``: a match of one game)."""
    playing_on: tuple[int, ...]
    """The seats that would play on (when it doesn't end the match)."""
    entries: tuple[GameEntry, ...]
    """The money that would change hands (when it ends the match): one line per loser."""
    stake_cents: int
    per_card_cents: int
    currency: str
    owed_if_lost: int | None = None
    """At a table of three or four that plays on, in cents: what the leaver will owe the winner
    when it is known now (a one-game match: his margin is his pay-off count as he leaves, rule
    26); ``None`` in a match to a target (his margin is the winner's lead then, rule 28)."""


class Finishing:
    """Results, money and rematches; every method may raise ``UserError``."""

    def __init__(self, games: LiveGames, inviting: Inviting) -> None:
        self.games = games
        self.inviting = inviting
        self.storage = games.storage

    def record(self, live: LiveGame, match: Match
               ) -> tuple[dict[str, Any] | None, tuple[GameEntry, ...]]:
        """What is saved with the move that ends the match: its result and its ledger lines
        (``None`` and none while it goes on)."""
        if not match.is_over:
            return None, ()
        result: dict[str, Any] = {"winner": match.winner, "scores": list(match.scores),
                                  "games": len(match.results), "resigned": match.resigned}
        if match.players > 2:
            result.update(margins=list(match.margins), ranks=list(match.ranks),
                          left=list(match.left))
        return result, game_entries(live, match, self.games.computer_id)

    def resignation(self, live: LiveGame, user_id: int) -> Resignation:
        """What ``user_id`` resigning would do now, without doing it: on a copy of the match."""
        seat = self.games.seat(live, user_id)
        if live.finished or live.match.is_over:
            raise UserError("This game is over.")
        if seat not in live.match.seated:
            raise UserError("You have already left this game.")
        payoff_left = len(live.match.game.payoffs[seat])
        match = Match.from_dict(live.match.to_dict())
        match.resign(seat)
        over = match.is_over
        terms = live.terms
        owed = (terms.stake_cents + terms.per_card_cents * payoff_left
                if not over and match.target is None else None)
        return Resignation(
            seat=seat, match_over=over, winner=match.winner if over else None,
            scores=tuple(match.scores), target=match.target,
            playing_on=() if over else match.seated,
            entries=game_entries(live, match, self.games.computer_id) if over else (),
            stake_cents=terms.stake_cents, per_card_cents=terms.per_card_cents,
            currency=terms.currency, owed_if_lost=owed)

    async def set_result_message(self, live: LiveGame, message_id: int) -> None:
        """The result was announced (so it is announced once, across restarts)."""
        await self.storage.games.set_result_message(live.id, message_id)
        live.result_message_id = message_id

    async def results_unannounced(self) -> list[int]:
        """Finished games whose result was never announced (of this process's servers)."""
        return await self.storage.games.results_unannounced(shards=self.games.shards)

    async def rematch(self, game_id: int, user_id: int, names: tuple[str, str]
                      ) -> ChallengeRow | LiveGame:
        """A player of a finished game offers its terms to the same players: a new invitation
        (against the computer alone, a new game at once). ``names`` are (the offerer, the
        opponent) at a table of two."""
        live = await self.games.game(game_id)
        seat = self.games.seat(live, user_id)
        if not live.finished:
            raise UserError("This game isn't over yet.")
        if await self.storage.tournaments.tournament_of_game(game_id) is not None:
            raise UserError("This game was played for a tournament: the tournament decides "
                            "who plays whom next, so it has no rematch. Challenge your "
                            "opponent with /challenge for a game of your own.")
        terms = live.terms
        computer = self.games.computer_id
        if len(live.players) > 2:
            host = (user_id, live.names[seat])
            others = [(user, name, user == computer)
                      for user, name in zip(terms.players, terms.names, strict=True)
                      if user != user_id]
        else:
            host = (user_id, names[0])
            opponent = live.players[1 - seat]
            others = [(opponent, names[1], opponent == computer)]
        return await self.inviting.invite(
            guild_id=terms.guild_id, channel_id=terms.channel_id, host=host, invited=others,
            rules_name=None, stakes=(terms.stake_cents, terms.per_card_cents),
            level=terms.computer_level, rules=live.match.rules, currency=terms.currency)
