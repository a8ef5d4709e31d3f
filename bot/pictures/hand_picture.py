"""``render_hand``: one player's private hand as PNG bytes, for that player's eyes only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine import Card, Move, Source, Target, View
from engine.cards import rank_text

from .board_info import BoardInfo, _names
from .board_layout import _MARGIN
from .cards_and_fans import (
    _SIDE_H,
    _SIDE_W,
    _empty_slot,
    _fill_rounded,
    _paste_card,
    _radius,
    _ranks_text,
)
from .fonts import _DRAWING, _pen, _text
from .picture_palette import (
    _FELT,
    _FELT_DARK,
    _FELT_LINE,
    _GOLD,
    _GOLD_INK,
    _GREEN,
    _MUTED,
    _NEEDS,
    _ORANGE,
    _TEXT,
    _ink,
    _new_picture,
    _png,
)

HAND_SIZE = (1100, 680)
"""Width and height of a two-player hand picture in pixels (see ``hand_size``)."""


# ----------------------------------------------------------------------------- the private hand

_HW, _HH = HAND_SIZE
_HAND_W, _HAND_H = 176, 246
# At a table of three or four the hand picture grows a strip below: a row per opponent, in the
# order they play after the viewer, with his name, pay-off top and count, hand size and the top
# of each side stack (what he may play next).
_OPP_TOP = _HH + 56
_OPP_ROW = 118
_OPP_W, _OPP_H = 70, 98
_OPP_STEP = 164


def hand_size(players: int) -> tuple[int, int]:
    """Width and height of the hand picture at a table of ``players`` seats."""
    return HAND_SIZE if players == 2 else (_HW, _OPP_TOP + (players - 1) * _OPP_ROW + 8)


@dataclass(frozen=True, slots=True)
class _Hints:
    """What one card (or pile top) may do now: its centre stacks, side stacks, compulsory plays."""

    centre: tuple[int, ...] = ()
    sides: tuple[int, ...] = ()
    compulsory: tuple[int, ...] = ()


_NO_HINTS = _Hints()


def _hints(moves: Sequence[Move], compulsory: Sequence[Move]) -> dict[object, _Hints]:
    """Hints keyed by the hand card, ``("S", index)`` for a side-stack top, or ``"P"``."""
    table: dict[object, tuple[set[int], set[int], set[int]]] = {}
    due = set(compulsory)
    for move in moves:
        if move.source is None or move.target is None:
            continue
        key: object
        if move.source is Source.HAND:
            key = move.card
        elif move.source is Source.SIDE:
            key = ("S", move.source_index)
        else:
            key = "P"
        centre, sides, must = table.setdefault(key, (set(), set(), set()))
        if move.target is Target.CENTRE:
            centre.add(move.target_index)
            if move in due:
                must.add(move.target_index)
        else:
            sides.add(move.target_index)
    return {k: _Hints(tuple(sorted(c)), tuple(sorted(s)), tuple(sorted(m)))
            for k, (c, s, m) in table.items()}


def render_hand(view: View, info: BoardInfo) -> bytes:
    """The viewer's own hand as PNG bytes, for that player's eyes only.

    The hand is drawn large and sorted by rank. When the viewer is on turn, a card that can go to
    a centre stack now is ringed green with the stacks it fits, a compulsory play (classic rules
    10 and 11) orange, and the side stacks a card may be discarded to are listed under it. The
    viewer's pay-off top and side-stack tops are shown with the same marks, and the rank each
    centre stack needs. Raises ``ValueError`` for the public view, which has no hand.
    """
    if view.hand is None or view.viewer is None:
        raise ValueError("The public view has no hand to draw.")
    with _DRAWING:
        image = _draw_hand(view, info)
    return _png(image)


def _draw_hand(view: View, info: BoardInfo) -> Image.Image:
    assert view.hand is not None and view.viewer is not None
    seat = view.viewer
    image = _new_picture(hand_size(view.players), _FELT)
    mine = view.my_turn
    hints = _hints(view.legal_moves, view.compulsory) if mine else {}

    # Header: whose hand, and whether it is this player's turn.
    ImageDraw.Draw(image).rectangle((0, 0, _HW, 58),
                                    fill=_ink(image, _GOLD if mine else _FELT_DARK))
    if view.result is not None:
        status = "game over"
    elif mine:
        status = "your turn"
        if view.compulsory:
            status += " · an Ace or 2 must be played first"
        elif any(m.is_pass for m in view.legal_moves):
            status += " · you may pass"
    else:
        status = f"{info.names[view.turn]} to play"
    _text(image, (_MARGIN + 4, 29), f"{info.names[seat]}'s hand · {status}", 28,
          _GOLD_INK if mine else _TEXT, anchor="lm", width=_HW - 2 * _MARGIN - 8)

    hand = sorted(view.hand)
    n = len(hand)
    card_y = 88
    all_sides = view.rules.side_stacks
    if n == 0:
        _empty_slot(image, (_HW - _HAND_W) // 2, card_y, _HAND_W, _HAND_H, ("no cards",), 28)
    else:
        gap = 26
        w = min(_HAND_W, (_HW - 2 * _MARGIN - gap * (n - 1)) // n)
        h = round(w * _HAND_H / _HAND_W)
        x = (_HW - (w * n + gap * (n - 1))) // 2
        for card in hand:
            _draw_hinted(image, card, x, card_y, w, h, hints.get(card, _NO_HINTS), all_sides,
                         big=True)
            x += w + gap

    # Below: the viewer's pay-off top and side-stack tops, and what the centre needs.
    row_y = card_y + _HAND_H + 100
    ImageDraw.Draw(image).line((_MARGIN, row_y - 18, _HW - _MARGIN, row_y - 18),
                               fill=_ink(image, _FELT_LINE), width=2)
    x = _MARGIN + 20
    card_y = row_y + 30
    _text(image, (x + _SIDE_W // 2, row_y), "Pay-off", 22, _MUTED, anchor="mt")
    top = view.payoff_tops[seat]
    if top is None:
        _empty_slot(image, x, card_y, _SIDE_W, _SIDE_H, ("empty",), 22)
    else:
        _draw_hinted(image, top, x, card_y, _SIDE_W, _SIDE_H, hints.get("P", _NO_HINTS),
                     all_sides, big=False)
    _text(image, (x + _SIDE_W + 12, card_y), str(view.payoff_counts[seat]), 34, _NEEDS,
          anchor="lt")
    _text(image, (x + _SIDE_W + 12, card_y + 42), "left", 20, _MUTED, anchor="lt")
    x += _SIDE_W + 90
    for s, pile in enumerate(view.sides[seat]):
        label = f"S{s + 1}" + (f" · {len(pile)}" if len(pile) > 1 else "")
        _text(image, (x + _SIDE_W // 2, row_y), label, 22, _MUTED, anchor="mt")
        if pile:
            _draw_hinted(image, pile[-1], x, card_y, _SIDE_W, _SIDE_H,
                         hints.get(("S", s), _NO_HINTS), all_sides, big=False)
        else:
            _empty_slot(image, x, card_y, _SIDE_W, _SIDE_H, ("empty",), 22)
        x += _SIDE_W + 22
    x += 14
    _text(image, (x, row_y), "Centre", 22, _MUTED, anchor="lt")
    for i, stack in enumerate(view.centre):
        if stack.is_empty:
            line, fill = f"C{i + 1}  empty", _MUTED
        else:
            line, fill = f"C{i + 1}  needs {rank_text(stack.needs)}", _NEEDS
        _text(image, (x, card_y + 4 + i * 38), line, 26, fill, anchor="lt", width=_HW - x - 8)
    if view.players > 2:
        _draw_opponents(image, view, info)
    return image


def _draw_opponents(image: Image.Image, view: View, info: BoardInfo) -> None:
    """A row per opponent, in the order they play after the viewer (public facts only)."""
    names = _names(info, view.players)
    draw = ImageDraw.Draw(image)
    top = _HH
    draw.line((_MARGIN, top, _HW - _MARGIN, top), fill=_ink(image, _FELT_LINE), width=2)
    _text(image, (_MARGIN + 20, top + 14), "Next to play, in order", 22, _MUTED, anchor="lt")
    _text(image, (340 + _OPP_W // 2, top + 14), "Pay-off", 22, _MUTED, anchor="mt")
    _text(image, (440, top + 14), "Side stacks: the top card of each", 22, _MUTED, anchor="lt")
    for k, opponent in enumerate(view.opponents):
        y = _OPP_TOP + k * _OPP_ROW
        if k:
            draw.line((_MARGIN + 20, y - 8, _HW - _MARGIN - 20, y - 8),
                      fill=_ink(image, _FELT_DARK), width=2)
        gone = opponent.has_left
        name = ("▶ " if opponent.on_turn else "") + names[opponent.seat]
        _text(image, (_MARGIN + 20, y + 10), name, 30, _MUTED if gone else
              (_GOLD if opponent.on_turn else _TEXT), anchor="lt", width=290)
        summary = ("left the game" if gone else
                   f"{opponent.payoff_count} left · hand {opponent.hand_size}")
        _text(image, (_MARGIN + 20, y + 56), summary, 24, _MUTED if gone else _NEEDS,
              anchor="lt", width=290)
        x = 340
        if opponent.payoff_top is None:
            _empty_slot(image, x, y, _OPP_W, _OPP_H, (), 20)
        else:
            _paste_card(image, opponent.payoff_top, x, y, _OPP_W, _OPP_H)
        x = 440
        for s, pile in enumerate(opponent.sides):
            if pile:
                ranks = opponent.side_ranks[s][-1] if pile[-1].is_joker else ()
                _paste_card(image, pile[-1], x, y, _OPP_W, _OPP_H,
                            stands_for=_ranks_text(ranks) if ranks else "")
            else:
                _empty_slot(image, x, y, _OPP_W, _OPP_H, (), 20)
            label = f"S{s + 1}" + (f" · {len(pile)}" if len(pile) > 1 else "")
            _text(image, (x + _OPP_W + 8, y + _OPP_H // 2), label, 22, _MUTED, anchor="lm",
                  bold=False, width=_OPP_STEP - _OPP_W - 14)
            x += _OPP_STEP


def _draw_hinted(image: Image.Image, card: Card, x: int, y: int, w: int, h: int, hint: _Hints,
                 all_sides: int, *, big: bool) -> None:
    words: tuple[str, ...]
    if hint.compulsory:
        words, colour = ("MUST", "→ " + _stacks("C", hint.compulsory)), _ORANGE
    elif hint.centre:
        words, colour = ("→ " + _stacks("C", hint.centre),), _GREEN
    else:
        words, colour = (), _GREEN
    if words:
        ring = 7
        _fill_rounded(image, (x - ring, y - ring, x + w + ring - 1, y + h + ring - 1),
                      _radius(w) + ring, colour)
    _paste_card(image, card, x, y, w, h)
    width = w + 40
    line_y = y + h + (16 if big else 12)
    if words:
        # One line if it fits ("MUST → C2"), else one line per part, smaller if need be:
        # the label is never cut short.
        lines, size = _label_lines(words, 28 if big else 22, width)
        for line in lines:
            _text(image, (x + w / 2, line_y), line, size, colour, anchor="mt", width=width)
            line_y += size + 6
        line_y += 4
    if big and hint.sides:
        sides = "any" if len(hint.sides) == all_sides else _stacks("S", hint.sides)
        _text(image, (x + w / 2, line_y), f"discard: {sides}", 20, _MUTED, anchor="mt",
              bold=False, width=width)


@lru_cache(maxsize=256)
def _label_lines(parts: tuple[str, ...], size: int, width: int) -> tuple[tuple[str, ...], int]:
    """The lines and font size for a card's label made of ``parts``, so that every line fits
    ``width`` pixels."""
    whole = " ".join(parts)
    if _pen(whole, size) / 64 <= width:
        return (whole,), size
    while size > 12 and max(_pen(p, size) for p in parts) / 64 > width:
        size -= 1
    return parts, size


def _stacks(prefix: str, indices: Sequence[int]) -> str:
    """``C1 C3``; a run of three or more as a range: ``C1–C4``."""
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return " ".join(f"{prefix}{r[0] + 1}–{prefix}{r[-1] + 1}" if len(r) >= 3
                    else " ".join(f"{prefix}{i + 1}" for i in r) for r in runs)
