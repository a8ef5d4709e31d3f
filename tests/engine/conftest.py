"""Shared helpers for the engine tests: positions are set up with ``Game.from_layout``."""

from __future__ import annotations

from typing import Any

from engine import Game, RuleSet


def lay(rules: RuleSet, **layout: Any) -> Game:
    """A position; piles are written bottom first, e.g. ``payoffs=["2C 9H", "5D KS"]``."""
    layout.setdefault("payoffs", ["9C 9C", "9D 9D"])
    layout.setdefault("hands", ["", ""])
    return Game.from_layout(rules, **layout)


def moves(game: Game) -> set[str]:
    """The legal moves as notation strings."""
    return {m.text for m in game.legal_moves()}


EMPTY4 = ["", "", "", ""]
