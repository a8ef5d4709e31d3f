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
- events (``Played``, ``Drew``, ``Left`` …) returned by ``play``, each with its short notation
  (``event.notation``: ``0 7H>C2``); ``View`` for what a player may see (``view.opponents``:
  every other seat's public state, in the order they play after him);
- ``describe_event``/``describe_events``/``describe_move``: a ``Description`` of a move or an
  event for one viewer, as data (who, which card, from where to where, what it caused) and in
  words given the players' names; ``describe_result``: how a game ended, in a sentence;
  ``public_lines``/``history_lines``: the short public lines a board lists;
- ``Match``: several games to a target score.

The bot depends on this package; this package never imports the bot, Discord, Pillow or asyncio.
"""

from __future__ import annotations

from .cards import ACE, ALL_KINDS, JOKER, KING, QUEEN, Card, CardParseError, Suit, parse_cards
from .describe import (
    Description,
    describe_event,
    describe_events,
    describe_move,
    describe_result,
    history_lines,
    parse_move_notation,
    public_lines,
)
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
    "Description",
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
    "describe_event",
    "describe_events",
    "describe_move",
    "describe_result",
    "full_deck",
    "history_lines",
    "parse_cards",
    "parse_move_notation",
    "public_lines",
    "rank_places",
]
