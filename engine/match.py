"""A match: games between the same two to four seats until one reaches the target score.

Kings plays to 50 points (rules 21 and 27); classic plays one game unless a target is given.
Rules 2 and 24 pick who starts each game. Tied games add nothing. A player who leaves a game
leaves the match (rule 27): at a table of two that gives the match up; at a bigger table the
game goes on among the rest, later games are dealt without him (his seat stays his, absent),
and the last player left wins the match.
"""

from __future__ import annotations

from typing import Any

from .errors import IllegalMoveError, SetupError
from .events import Event, Result, rank_places
from .game import Game
from .moves import Move
from .rules import RuleSet

__all__ = ["Match"]


class Match:
    """Games to a target score between the seats of one table, one ``Game`` at a time."""

    rules: RuleSet
    """The rule set of every game (its ``match_target`` is the target)."""
    seed: int
    """The match's seed; game ``n`` is dealt from a seed derived from it."""
    scores: list[int]
    """Points of each seat so far."""
    results: list[Result]
    """Results of the finished games, in order."""
    game: Game
    """The current (or last) game."""
    left: list[int]
    """Seats that left the match (rule 27), in the order they left."""
    games_dealt: int
    """How many games have been dealt, the current one included."""

    def __init__(self, rules: RuleSet, seed: int, game: Game) -> None:
        """Use ``Match.new`` or ``Match.from_dict``."""
        self.rules = rules.for_table(game.players)  # as its games keep it
        self.seed = int(seed)
        self.scores = [0] * game.players
        self.results = []
        self.game = game
        self.left = []
        self.games_dealt = 1

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.scores)

    @property
    def seated(self) -> tuple[int, ...]:
        """Seats still in the match, in seat order."""
        return tuple(s for s in range(len(self.scores)) if s not in self.left)

    @property
    def resigned(self) -> int | None:
        """The seat whose leaving ended the match, one player being left (at a table of two:
        the seat that resigned the match); ``None`` otherwise."""
        if self.left and len(self.left) == len(self.scores) - 1:
            return self.left[-1]
        return None

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
    def new(cls, rules: RuleSet, seed: int, players: int = 2) -> tuple[Match, list[Event]]:
        """Start a match of ``players`` seats (2 to 4) and deal its first game; returns the
        match and the deal events."""
        game, events = Game.new(rules, cls.game_seed(seed, 1), players)
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
        if len(self.left) >= len(self.scores) - 1:
            return True
        if self.target is None:
            return bool(self.results)
        return max(self.scores[s] for s in self.seated) >= self.target

    @property
    def winner(self) -> int | None:
        """The seat that won the match; ``None`` while it goes on or if it ended level."""
        if not self.is_over:
            return None
        seated = self.seated
        if len(seated) == 1:
            return seated[0]
        best = max(self.scores[s] for s in seated)
        leaders = [s for s in seated if self.scores[s] == best]
        return leaders[0] if len(leaders) == 1 else None

    @property
    def margin(self) -> int:
        """The winner's lead over the best of the others, never below 0 (rule 28: a winner by
        the others leaving may have fewer points); while no seat has won, the leader's lead.
        At a table of two, what the loser owes on (see ``margins``)."""
        winner = self.winner
        if winner is None:
            ordered = sorted(self.scores, reverse=True)
            return ordered[0] - ordered[1]
        others = [score for seat, score in enumerate(self.scores) if seat != winner]
        return max(0, self.scores[winner] - max(others))

    @property
    def margins(self) -> tuple[int | None, ...]:
        """Per seat, once the match is over: what each loser owes on (rule 28). In a one-game
        match, his margin in that game (``Result.margins``); in a match to a target, the
        winner's match score less his own. ``None`` for the winner, for every seat while the
        match goes on, and for the players of a drawn game who stayed. Never below 0: a
        leaver with more points than the winner owes the stake alone."""
        if not self.is_over:
            return (None,) * len(self.scores)
        winner = self.winner
        if self.target is None and self.results:
            last = self.results[-1]
            if winner is None or last.winner == winner:
                return last.margins
        if winner is None:
            return (None,) * len(self.scores)
        top = self.scores[winner]
        return tuple(None if s == winner else max(0, top - score)
                     for s, score in enumerate(self.scores))

    @property
    def ranks(self) -> tuple[int | None, ...]:
        """Per seat, its place in the match for ratings (rule 28), 1 the best: the winner, then
        the losers by ``margins`` (equal margins share a place: 1, 2, 2, 4); everyone equal
        when the match ended level. Only once the match is over (all ``None`` before)."""
        if not self.is_over:
            return (None,) * len(self.scores)
        return rank_places(self.margins, ())

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
        """Deal the next game once the current one is over and the match is not (the seats that
        left the match are not dealt in)."""
        self._score_if_over()
        if self.game.result is None:
            raise IllegalMoveError("The current game is still going on.")
        if self.is_over:
            raise IllegalMoveError("The match is over.")
        self.games_dealt += 1
        self.game, events = Game.new(self.rules, self.game_seed(self.seed, self.games_dealt),
                                     self.players, self.left)
        return events

    def resign(self, player: int) -> list[Event]:
        """Seat ``player`` leaves the match (rule 27): he leaves the current game as by
        ``Game.resign``. At a table of two that gives up the match; at a bigger table the game
        and the match go on among the rest until one player is left or one reaches the target.
        Claiming the game from a player who let the claim time pass is the same call for him.
        """
        if self.is_over:
            raise IllegalMoveError("The match is over.")
        if type(player) is not int or player not in self.seated:
            raise IllegalMoveError("Only a player in this match can resign it.")
        events: list[Event] = []
        if self.game.result is None:
            events = self.game.resign(player)
            self._score_if_over()
        self.left.append(player)
        return events

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, the current game included (a match of two is saved as it always
        was; a bigger one also holds the seats that left, ``left``)."""
        data = {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "scores": list(self.scores),
            "results": [r.to_dict() for r in self.results],
            "resigned": self.resigned,
            "games_dealt": self.games_dealt,
            "game": self.game.to_dict(),
        }
        if self.players != 2:
            data["left"] = list(self.left)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Load a match saved with ``to_dict``; a damaged save raises ``SetupError``."""
        if not isinstance(data, dict):
            raise SetupError("This saved match is damaged: it is not a match record.")
        try:
            rules = RuleSet.from_dict(data["rules"])
            match = cls(rules, int(data["seed"]), Game.from_dict(data["game"]))
            n = match.players
            match.scores = [int(s) for s in data["scores"]]
            match.results = [Result.from_dict(r) for r in data["results"]]
            resigned = data.get("resigned")
            if resigned is not None and (type(resigned) is not int or not 0 <= resigned < n):
                raise SetupError("This saved match is damaged: bad resignation.")
            if n == 2:
                match.left = [] if resigned is None else [resigned]
            else:
                match.left = [int(s) for s in data["left"]]
                if any(type(s) is not int or not 0 <= s < n for s in data["left"]) \
                        or len(set(match.left)) != len(match.left) \
                        or resigned != match.resigned:
                    raise SetupError("This saved match is damaged: bad leavers.")
            match.games_dealt = int(data["games_dealt"])
        except SetupError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError) as exc:
            raise SetupError(f"This saved match is damaged and can't be loaded ({exc}).") from exc
        expected = [0] * n
        for result in match.results:
            if result.winner is not None and not 0 <= result.winner < n \
                    or result.score < 0 or result.players != n:
                raise SetupError("This saved match is damaged: impossible result.")
            if result.winner is not None:
                expected[result.winner] += result.score
        if (match.scores != expected or match.game.rules != rules
                or not 0 <= match.games_dealt - len(match.results) <= 1
                or not set(match.game.absent) <= set(match.left)):
            raise SetupError("This saved match is damaged.")
        match._score_if_over()
        return match

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
