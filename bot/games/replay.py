"""Replays of finished games: from the rules, the seed and the saved moves to the position at
every turn, as views.

Pure: no Discord, no database, no pictures. A saved game is its match seed plus its move log
(``Storage.games.move_log``), so dealing from the seed and making the logged moves again with the
engine gives every position the game went through (OpenSpiel's "a state is rebuilt by
replaying its history"). What a position keeps is what the presentation layer may receive: the
public view, and each seat's own view for that seat alone, never the engine's game.

Turns are numbered per game, as on the live board ("turn 5" is the fifth turn of its game);
positions are numbered across the match (a kings match has several deals), so ◀ ▶ step from
the end of one game to the deal of the next.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engine import (
    Event,
    GameOver,
    IllegalMoveError,
    Match,
    MoveError,
    Result,
    RuleSet,
    SetupError,
    TurnEnded,
    View,
    describe_result,
    public_lines,
)

__all__ = ["GIVING_UP", "Position", "Replay", "ReplayError", "TurnLine", "move_list",
           "replay_match", "replay_saved"]

GIVING_UP = ("resign", "claim")
"""Move-log entries that end the match without a card move: the seat gave up (``resign``) or
lost on time (``claim``, logged under the idle seat). Both are ``Match.resign(seat)``."""

_LAST_MOVES = 6
"""How many public lines about the latest moves a position's picture shows (as the board)."""


class ReplayError(ValueError):
    """The seed and the moves don't give the saved game (a damaged record, or an engine whose
    rules changed since the game was played)."""


@dataclass(frozen=True, slots=True)
class Position:
    """The table at one moment of a replay: the start of a turn, or the end of a game."""

    index: int
    """0-based, across the whole match."""
    game_number: int
    """Which game of the match (1-based)."""
    turn: int
    """The turn of its game (1-based): the one about to start, or for the end of a game the
    turn in which it ended."""
    over: bool
    """True for the last position of a game (its result is in the views)."""
    public: View
    """What everyone could see then."""
    hands: tuple[View, ...]
    """What each seat could see then: ``hands[seat]`` is for that seat's player alone."""
    scores: tuple[int, ...]
    """Match points of each seat at this moment."""
    last_moves: tuple[str, ...]
    """Public lines about the latest moves, oldest first (what the board showed)."""
    previous_turn: tuple[str, ...]
    """Public lines about the turn (or the end) that led here; empty at a deal."""

    def hand(self, seat: int) -> View:
        """Seat ``seat``'s own view at this moment (show it to that player only)."""
        return self.hands[seat]


@dataclass(frozen=True, slots=True)
class TurnLine:
    """The moves one seat made in one turn, for the move list."""

    game_number: int
    turn: int
    seat: int
    moves: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished (or unfinished: the caller decides what to show) match, turn by turn."""

    rules: RuleSet
    seed: int
    """The match seed (``Match.new(rules, seed)``); each game's deal seed is derived from it."""
    names: tuple[str, ...]
    positions: tuple[Position, ...]
    turns: tuple[TurnLine, ...]
    game_seeds: tuple[int, ...]
    """The deal seed of each game (``Match.game_seed(seed, n)``), for ``Game.replay``."""
    results: tuple[Result, ...]
    """How each game ended."""
    scores: tuple[int, ...]
    winner: int | None
    """The match winner's seat (``None``: level, or not over)."""
    resigned: int | None
    final: dict[str, Any]
    """``Match.to_dict()`` after the last move: compare it with the saved state."""

    @property
    def single_game(self) -> bool:
        """True for a one-game match (classic without a target)."""
        return self.rules.match_target is None

    def label(self, index: int) -> str:
        """``Turn 5``, ``Game 2 · turn 5`` or ``Game 2 · end``: how a position is named."""
        pos = self.positions[index]
        turn = "end" if pos.over else f"turn {pos.turn}"
        return turn.capitalize() if self.single_game else f"Game {pos.game_number} · {turn}"

    def jump_points(self, limit: int = 25) -> list[int]:
        """Up to ``limit`` position indices spread over the match, for a "jump to" menu: the
        first and the last, every deal where they fit, the rest evenly."""
        n = len(self.positions)
        if n <= limit:
            return list(range(n))
        anchors = sorted({0, n - 1, *(p.index for p in self.positions
                                      if p.turn == 1 and not p.over)})
        if len(anchors) >= limit:
            return sorted({anchors[round(i * (len(anchors) - 1) / (limit - 1))]
                           for i in range(limit)})
        points = set(anchors)
        for i in range(limit):
            if len(points) >= limit:
                break
            points.add(round(i * (n - 1) / (limit - 1)))
        return sorted(points)


def replay_match(rules: RuleSet, seed: int, log: Sequence[tuple[int, str]],
                 names: tuple[str, ...] = ("Player 1", "Player 2"),
                 players: int | None = None, *, positions_kept: bool = True) -> Replay:
    """Deal the match of ``players`` seats (default: one per name) from ``seed`` and make the
    logged ``(seat, notation)`` moves, as the bot did: a finished game of an unfinished match
    is followed at once by the next deal. With ``positions_kept=False`` the replay keeps no
    position and no move's words (its ``positions`` are empty): only checking where the moves
    lead, it is several times quicker.

    Raises ``ReplayError`` if a logged move is illegal or malformed.
    """
    try:
        match, _ = Match.new(rules, seed, players=players or len(names))
    except (SetupError, ValueError) as exc:
        raise ReplayError(f"The game can't be dealt again ({exc}).") from exc
    positions: list[Position] = []
    turns: list[TurnLine] = []
    lines: list[str] = []
    game_seeds = [match.game.seed]
    this_turn: list[str] = []  # public lines of the turn in progress
    moves_this_turn: list[str] = []

    def capture(*, over: bool, turn: int) -> None:
        if not positions_kept:
            return
        game = match.game
        positions.append(Position(
            index=len(positions), game_number=match.games_dealt, turn=turn, over=over,
            public=game.public_view(),
            hands=tuple(game.view(seat) for seat in range(match.players)),
            scores=tuple(match.scores),
            last_moves=tuple(lines[-_LAST_MOVES:]), previous_turn=tuple(this_turn),
        ))

    capture(over=False, turn=1)
    for number, (seat, text) in enumerate(log, 1):
        game = match.game
        if match.is_over:
            raise ReplayError(f"Move {number} ({text}) comes after the end of the match.")
        turn = game.turn_number + 1
        on_turn = game.turn
        events: list[Event]
        try:
            if text in GIVING_UP:
                if moves_this_turn:
                    turns.append(TurnLine(match.games_dealt, turn, on_turn,
                                          tuple(moves_this_turn)))
                    moves_this_turn = []
                events = match.resign(seat)
                turns.append(TurnLine(match.games_dealt, turn, seat, (text,)))
            else:
                events = match.play(text, seat)
                moves_this_turn.append(text)
        except (IllegalMoveError, MoveError, ValueError) as exc:
            raise ReplayError(f"Move {number} ({text}) can't be made again: {exc}") from exc
        if positions_kept:
            described = public_lines(events, names)
            lines.extend(described)
            this_turn.extend(described)
        game_over = any(isinstance(e, GameOver) for e in events)
        if moves_this_turn and (game_over or any(isinstance(e, TurnEnded) for e in events)):
            turns.append(TurnLine(match.games_dealt, turn, on_turn, tuple(moves_this_turn)))
            moves_this_turn = []
        if game_over:
            capture(over=True, turn=turn)
            this_turn = []
            if not match.is_over:
                match.next_game()
                game_seeds.append(match.game.seed)
                capture(over=False, turn=1)
        elif any(isinstance(e, TurnEnded) for e in events):
            capture(over=False, turn=match.game.turn_number + 1)
            this_turn = []
    if moves_this_turn:  # an unfinished turn (only in an unfinished match)
        turns.append(TurnLine(match.games_dealt, match.game.turn_number + 1, match.game.turn,
                              tuple(moves_this_turn)))
    return Replay(
        rules=rules, seed=match.seed, names=names, positions=tuple(positions),
        turns=tuple(turns), game_seeds=tuple(game_seeds), results=tuple(match.results),
        scores=tuple(match.scores),
        winner=match.winner if match.is_over else None, resigned=match.resigned,
        final=match.to_dict(),
    )


def replay_saved(state: dict[str, Any], log: Sequence[tuple[int, str]],
                 names: tuple[str, ...] = ("Player 1", "Player 2")) -> Replay:
    """Replay a saved match (its ``Match.to_dict()`` state and its move log) and check that the
    replay ends exactly at the saved state; raises ``ReplayError`` otherwise."""
    try:
        rules = RuleSet.from_dict(state["rules"])
        seed = int(state["seed"])
        players = len(state.get("scores", names))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayError("The saved game has no readable rules or seed.") from exc
    replay = replay_match(rules, seed, log, names, players)
    if _normal(replay.final) != _normal(state):
        raise ReplayError("Replaying the saved moves doesn't give the saved game.")
    return replay


def _normal(data: dict[str, Any]) -> Any:
    # A saved state went through JSON (tuples became lists): compare both that way.
    return json.loads(json.dumps(data, sort_keys=True))


def move_list(replay: Replay, game_id: int, finished_at: float) -> str:
    """The match's moves in the notation, as a text file with a header that says how to
    reproduce the game with the engine.

    The header gives the match seed. That is safe only because the match is over: the seed fixes
    every card of every deal (hands, stock order), which is exactly what must stay secret while
    the game is played, and it says nothing that matters once the last card is down. Callers
    must never write this file for an unfinished match.
    """
    rules = replay.rules
    names = replay.names
    rules_json = json.dumps(rules.to_dict(), sort_keys=True)
    when = datetime.fromtimestamp(finished_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    kind = "one game" if replay.single_game else f"first to {rules.match_target} points"
    out = [
        f"# Spite & Malice, game #{game_id}: {names[0]} (seat 0) vs {names[1]} (seat 1)",
        f"# Rules: {rules.name}, {kind}. Finished {when}.",
        f"# Result: {_match_result(replay)}",
        "#",
        f"# Rule set (engine.RuleSet.from_dict): {rules_json}",
        f"# Match seed: {replay.seed}",
        "# (The seed fixes every deal, so it stays secret while a game is played; this game is",
        "# over, and now it only lets you deal the same cards again.)",
        "#",
        "# Each line below is one turn: <game>.<turn> <seat>: <moves in the notation>.",
        "# 'resign' gives the match up; 'claim' is the seat that lost on time.",
        "# Reproduce the whole match with the engine (python -m pip install -e . in the bot):",
        "#",
        "#   import json",
        "#   from engine import Match, RuleSet",
        f"#   rules = RuleSet.from_dict(json.loads('{rules_json}'))",
        f"#   match, _ = Match.new(rules, {replay.seed})",
        f"#   for line in open('game-{game_id}.txt'):",
        "#       if line.startswith('#') or not line.strip():",
        "#           continue",
        "#       _, seat, *moves = line.split()",
        "#       seat = int(seat.rstrip(':'))",
        "#       for move in moves:",
        "#           if move in ('resign', 'claim'):",
        "#               match.resign(seat)",
        "#           else:",
        "#               match.play(move, seat)",
        "#           if match.game.result and not match.is_over:",
        "#               match.next_game()",
        "#",
        "# One game alone: Game.replay(rules, <its deal seed>, <its moves>), the deal seeds below",
        "# (Match.game_seed(seed, n)); a game ended by 'resign' or 'claim' ends with",
        "# game.resign(seat) instead.",
    ]
    game = 0
    for line in replay.turns:
        if line.game_number != game:
            game = line.game_number
            result = replay.results[game - 1] if game <= len(replay.results) else None
            out.append("")
            out.append(f"# Game {game}: deal seed {replay.game_seeds[game - 1]}"
                       + (f"; {describe_result(result, names)}" if result else ""))
        out.append(f"{line.game_number}.{line.turn} {line.seat}: {' '.join(line.moves)}")
    return "\n".join(out) + "\n"


def _match_result(replay: Replay) -> str:
    names = replay.names
    if replay.single_game and replay.results:
        return describe_result(replay.results[-1], names)
    a, b = replay.scores
    n = len(replay.results)
    games = f"{n} game{'' if n == 1 else 's'}"
    if replay.winner is None:
        return f"the match ended level, {a}–{b}, after {games}."
    return f"{names[replay.winner]} won the match {a}–{b} after {games}."
