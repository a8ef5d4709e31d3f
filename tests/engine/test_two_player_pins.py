"""Two-player games stay exactly what they were before tables of three or four (issue 18).

``data/two_player_pins.json`` was recorded by the engine as it was before seats beyond two
existed (commit 42ffd6f): deals of 300 seeds per rule set, ten whole games played by the
computer players (the moves, and fingerprints of every event, of the saved game every seventh
move and of every seat's view), resigned games, and two kings matches. The engine of today must
give the same bytes: the same deals, saved games, events, views and replays. Views are compared
on the fields they had then (a view may gain fields, never change the old ones).
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import CLASSIC, KINGS, PRESETS, Game, Match
from engine.players import make_player

PINS = json.loads((Path(__file__).parent / "data" / "two_player_pins.json").read_text())

VIEW_KEYS = ["rules", "viewer", "hand", "hand_sizes", "payoff_tops", "payoff_counts", "sides",
             "centre", "stock_size", "turn", "turn_number", "first_player", "plays_this_turn",
             "legal_moves", "compulsory", "recent", "result", "side_ranks"]
"""The fields of a view in the recording."""


def _digest(obj: Any) -> str:
    return hashlib.sha256(
        json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _views(game: Game) -> list[dict[str, Any]]:
    return [{k: game.view(v).to_dict()[k] for k in VIEW_KEYS} for v in (0, 1, None)]


@pytest.mark.parametrize("rules", [CLASSIC, KINGS], ids=lambda r: r.name)
def test_deals_are_unchanged(rules) -> None:
    deals = []
    for seed in range(300):
        game, dealt = Game.new(rules, seed)
        deals.append([game.to_dict(), [e.to_dict() for e in dealt]])
    assert _digest(deals) == PINS["deals"][rules.name]


@pytest.mark.parametrize("record", PINS["games"], ids=lambda g: f"{g['rules']}-{g['seed']}")
def test_recorded_games_replay_to_the_same_bytes(record: dict[str, Any]) -> None:
    rules = PRESETS[record["rules"]]
    game, dealt = Game.new(rules, record["seed"])
    trail: list[Any] = [[e.to_dict() for e in dealt], _views(game)]
    for n, move in enumerate(record["moves"], start=1):
        trail.append([e.to_dict() for e in game.play(move)])
        if n % 7 == 0:
            trail.append(_views(game))
            trail.append(game.to_dict())
    trail.append(_views(game))
    assert game.result is not None
    assert _digest(game.to_dict()) == record["game"]
    assert _digest(trail) == record["trail"]
    assert Game.replay(rules, record["seed"], record["moves"]) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game


@pytest.mark.parametrize("record", PINS["games"], ids=lambda g: f"{g['rules']}-{g['seed']}")
def test_the_computer_players_still_play_the_recorded_games(record: dict[str, Any]) -> None:
    rules = PRESETS[record["rules"]]
    seed = record["seed"]
    game, _ = Game.new(rules, seed)
    players = [make_player(record["levels"][0], seed * 2 + 1),
               make_player(record["levels"][1], seed * 2 + 2)]
    moves = []
    while game.result is None:
        move = players[game.turn].choose(game.view(game.turn))
        game.play(move)
        moves.append(move.text)
    assert moves == record["moves"]


@pytest.mark.parametrize("record", PINS["resigned"],
                         ids=lambda g: f"{g['rules']}-{g['seed']}")
def test_resigned_games_are_unchanged(record: dict[str, Any]) -> None:
    rules = PRESETS[record["rules"]]
    game, _ = Game.new(rules, record["seed"])
    rng = random.Random(record["seed"])
    for _ in range(record["after"]):
        game.play(rng.choice([m for m in game.legal_moves() if not m.is_pass]))
    game.resign(record["seat"])
    assert game.result is not None and game.result.to_dict() == record["result"]
    assert _digest(game.to_dict()) == record["game"]
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game


@pytest.mark.parametrize("record", PINS["matches"], ids=lambda m: str(m["seed"]))
def test_recorded_matches_are_unchanged(record: dict[str, Any]) -> None:
    match, dealt = Match.new(KINGS, record["seed"])
    trail: list[Any] = [[e.to_dict() for e in dealt]]
    for move in record["moves"]:
        if move == "next":
            trail.append([e.to_dict() for e in match.next_game()])
        else:
            trail.append([e.to_dict() for e in match.play(move)])
    assert match.is_over
    assert (match.scores, match.winner) == (record["scores"], record["winner"])
    assert _digest(match.to_dict()) == record["match"]
    assert _digest(trail) == record["trail"]
    assert Match.from_dict(json.loads(json.dumps(match.to_dict()))) == match
