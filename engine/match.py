"""A match: games between the same two seats until one reaches the target score.

Kings plays to 50 points (rule 21); classic plays one game unless a target is given. Rule 2
picks who starts each game. Tied games add nothing. A resignation gives up the whole match.
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalMoveError, SetupError
from .events import Event, Result
from .game import Game
from .moves import Move
from .rules import RuleSet

__all__ = ["Match"]


class Match:
    """Games to a target score between seats 0 and 1, one ``Game`` at a time."""

    rules: RuleSet
    """The rule set of every game (its ``match_target`` is the target)."""
    seed: int
    """The match's seed; game ``n`` is dealt from a seed derived from it."""
    scores: list[int]
    """Points of seats 0 and 1 so far."""
    results: list[Result]
    """Results of the finished games, in order."""
    game: Game
    """The current (or last) game."""
    resigned: int | None
    """The seat that resigned the match, if one did."""
    games_dealt: int
    """How many games have been dealt, the current one included."""

    def __init__(self, rules: RuleSet, seed: int, game: Game) -> None:
        """Use ``Match.new`` or ``Match.from_dict``."""
        self.rules = rules
        self.seed = int(seed)
        self.scores = [0, 0]
        self.results = []
        self.game = game
        self.resigned = None
        self.games_dealt = 1

    @staticmethod
    def game_seed(seed: int, number: int) -> int:
        """The deal seed of game ``number`` (1-based) of the match with ``seed``.

        A hash, so that learning one game's seed tells nothing about the next game's cards.
        """
        # Imported here: hashlib loads OpenSSL's libcrypto (some 3 MB resident), which the
        # processes that only draw pictures of matches never need.
        import hashlib

        digest = hashlib.sha256(f"spite-malice-match/{int(seed)}/{number}".encode()).digest()
        return int.from_bytes(digest[:8], "big") >> 2

    @classmethod
    def new(cls, rules: RuleSet, seed: int) -> tuple[Match, list[Event]]:
        """Start a match and deal its first game; returns the match and the deal events."""
        game, events = Game.new(rules, cls.game_seed(seed, 1))
        return cls(rules, seed, game), events

    @property
    def target(self) -> int | None:
        """Points that win the match, or ``None`` for a one-game match."""
        return self.rules.match_target

    @property
    def game_number(self) -> int:
        """1-based number of the current game."""
        return self.games_dealt

    @property
    def is_over(self) -> bool:
        """True once the match is decided."""
        self._score_if_over()
        if self.resigned is not None:
            return True
        if self.target is None:
            return bool(self.results)
        return max(self.scores) >= self.target

    @property
    def winner(self) -> int | None:
        """The seat that won the match; ``None`` while it goes on or if it ended level."""
        if not self.is_over:
            return None
        if self.resigned is not None:
            return 1 - self.resigned
        if self.scores[0] == self.scores[1]:
            return None
        return 0 if self.scores[0] > self.scores[1] else 1

    @property
    def margin(self) -> int:
        """The difference of the match scores (the winner's lead)."""
        return abs(self.scores[0] - self.scores[1])

    def play(self, move: Move | str, player: int | None = None) -> list[Event]:
        """Play a move in the current game; a finished game is scored into the match."""
        if self.is_over:
            raise IllegalMoveError("The match is over.")
        events = self.game.play(move, player)
        self._score_if_over()
        return events

    def _score_if_over(self) -> None:
        # The current game is game number ``games_dealt``; score it once, when it ends.
        result = self.game.result
        if result is not None and len(self.results) < self.games_dealt:
            self.results.append(result)
            if result.winner is not None:
                self.scores[result.winner] += result.score

    def next_game(self) -> list[Event]:
        """Deal the next game once the current one is over and the match is not."""
        self._score_if_over()
        if self.game.result is None:
            raise IllegalMoveError("The current game is still going on.")
        if self.is_over:
            raise IllegalMoveError("The match is over.")
        self.games_dealt += 1
        self.game, events = Game.new(self.rules, self.game_seed(self.seed, self.games_dealt))
        return events

    def resign(self, player: int) -> list[Event]:
        """Seat ``player`` gives up the match (the current game is lost as by ``Game.resign``)."""
        if self.is_over:
            raise IllegalMoveError("The match is over.")
        events: list[Event] = []
        if self.game.result is None:
            events = self.game.resign(player)
            self._score_if_over()
        self.resigned = player
        return events

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, the current game included."""
        return {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "scores": list(self.scores),
            "results": [r.to_dict() for r in self.results],
            "resigned": self.resigned,
            "games_dealt": self.games_dealt,
            "game": self.game.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Load a match saved with ``to_dict``; a damaged save raises ``SetupError``."""
        if not isinstance(data, dict):
            raise SetupError("This saved match is damaged: it is not a match record.")
        try:
            rules = RuleSet.from_dict(data["rules"])
            match = cls(rules, int(data["seed"]), Game.from_dict(data["game"]))
            match.scores = [int(s) for s in data["scores"]]
            match.results = [Result.from_dict(r) for r in data["results"]]
            resigned = data.get("resigned")
            if resigned not in (None, 0, 1) or isinstance(resigned, bool):
                raise SetupError("This saved match is damaged: bad resignation.")
            match.resigned = resigned
            match.games_dealt = int(data["games_dealt"])
        except SetupError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
            raise SetupError(f"This saved match is damaged and can't be loaded ({exc}).") from exc
        expected = [0, 0]
        for result in match.results:
            if result.winner not in (None, 0, 1) or result.score < 0:
                raise SetupError("This saved match is damaged: impossible result.")
            if result.winner is not None:
                expected[result.winner] += result.score
        if (match.scores != expected or match.game.rules != rules
                or not 0 <= match.games_dealt - len(match.results) <= 1):
            raise SetupError("This saved match is damaged.")
        match._score_if_over()
        return match

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
