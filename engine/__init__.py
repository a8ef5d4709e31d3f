"""The Spite & Malice rules engine: a plain synchronous library with no I/O.

Both rule sets of RULES.md (``classic`` and ``kings``), at tables of two, three or four
(``Game.new(rules, seed, players=3)``; two by default). The pieces:

- ``Card`` (``Card.parse("7H")``), ``Suit``, ``JOKER``;
- ``RuleSet`` with the presets ``CLASSIC`` and ``KINGS``;
- ``Move`` with the text notation ``7H>C2``, ``P>C1``, ``S3>C2``, ``9D>S1``, ``pass``;
- ``Game``: ``new``/``deal``/``from_layout``, ``legal_moves`` (and apart: ``legal_plays``,
  ``legal_endings``), ``is_legal``, ``play`` (checked, with events) and ``push`` (a move from
  the legal moves, for computer players and benchmarks: no check, no events), ``view``,
  ``to_dict``/``from_dict``, ``replay``;
- ``Game.resign(seat)``: a player leaves (rule 26); ``Result`` gives the winner, the score, each
  loser's margin (``margins``, ``losers``) and the places for ratings (``ranks``);
- events (``Played``, ``Drew``, ``Left`` …) returned by ``play``; ``View`` for what a player may
  see (``view.opponents``: every other seat's public state, in the order they play after him);
- ``Match``: several games to a target score.

The bot depends on this package; this package never imports the bot, Discord, Pillow or asyncio.
"""

from __future__ import annotations

from .cards import ACE, ALL_KINDS, JOKER, KING, QUEEN, Card, CardParseError, Suit, parse_cards
from .errors import IllegalMoveError, InvalidMoveError, MoveError, SetupError
from .events import (
    Dealt,
    Discarded,
    Drew,
    EndReason,
    Event,
    GameOver,
    Left,
    Passed,
    Played,
    Result,
    StackCompleted,
    TurnEnded,
    rank_places,
)
from .game import MAX_PLAYERS, MIN_PLAYERS, Game, full_deck
from .match import Match
from .moves import ALL_MOVES, PASS, Move, Source, Target
from .rules import CLASSIC, KINGS, PRESETS, RuleSet, RuleSetError
from .views import CentreStackView, SeatView, View

__all__ = [
    "ACE",
    "ALL_KINDS",
    "ALL_MOVES",
    "CLASSIC",
    "JOKER",
    "KING",
    "KINGS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PASS",
    "PRESETS",
    "QUEEN",
    "Card",
    "CardParseError",
    "CentreStackView",
    "Dealt",
    "Discarded",
    "Drew",
    "EndReason",
    "Event",
    "Game",
    "GameOver",
    "IllegalMoveError",
    "InvalidMoveError",
    "Left",
    "Match",
    "Move",
    "MoveError",
    "Passed",
    "Played",
    "Result",
    "RuleSet",
    "RuleSetError",
    "SeatView",
    "SetupError",
    "Source",
    "StackCompleted",
    "Suit",
    "Target",
    "TurnEnded",
    "View",
    "full_deck",
    "parse_cards",
    "rank_places",
]
