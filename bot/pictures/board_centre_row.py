"""The row every board shares below its header: the centre stacks, the stock and the last
moves."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine import View
from engine.cards import rank_text

from .board_info import BoardInfo, _plural
from .board_layout import _CARD_Y, _LABEL_Y, _centre_x, _moves_box
from .cards_and_fans import _CENTRE_H, _CENTRE_W, _back_tile, _empty_slot, _paste_card, _plain_tile
from .fonts import _fit, _font, _printable, _record, _text
from .picture_palette import _BACK, _MUTED, _NEEDS, _TEXT


def _draw_centre_row(board: Image.Image, pub: View, info: BoardInfo, least: int,
                     moves_box: tuple[int, int, int, int] | None = None) -> None:
    """The centre stacks, the stock and the last moves (in ``moves_box`` if given, else beside
    the stock); the words in ``least`` px, the boards' smallest text.

    The words under a card are in the regular face: in the bold one, "needs 10" would reach the
    next stack's."""
    rules = pub.rules
    starters = ("Ace or", "King", "starts") if (
        rules.wild_rank == 13 and rules.king_starts_stack) else ("Ace", "starts")
    for i, stack in enumerate(pub.centre):
        x = _centre_x(i)
        mid = x + _CENTRE_W // 2
        n = len(stack.cards)
        _text(board, (mid, _LABEL_Y), f"C{i + 1}" + (f" · {n}" if n else ""), least,
              _MUTED, anchor="mt")
        if stack.is_empty:
            _empty_slot(board, x, _CARD_Y, _CENTRE_W, _CENTRE_H, starters, least, bold=False)
            continue
        # A hint of depth: one more edge for every few cards under the top card.
        for k in range(min(3, (n + 2) // 4), 0, -1):
            _plain_tile(_CENTRE_W, _CENTRE_H).paste(board, x + 3 * k, _CARD_Y - 3 * k)
        top = stack.cards[-1]
        # A wild card stands for the rank of its place in the stack (the bottom card is the Ace).
        as_rank = n if top.rank == rules.wild_rank else 0
        _paste_card(board, top, x, _CARD_Y, _CENTRE_W, _CENTRE_H, as_rank=as_rank)
        _text(board, (mid, _CARD_Y + _CENTRE_H + 8), f"needs {rank_text(stack.needs)}",
              least, _NEEDS, anchor="mt", bold=False)
    x = _centre_x(len(pub.centre)) + 8
    mid = x + _CENTRE_W // 2
    if pub.stock_size:
        _back_tile(_CENTRE_W, _CENTRE_H).paste(board, x, _CARD_Y)
        ImageDraw.Draw(board).text(
            (mid, _CARD_Y + _CENTRE_H // 2), str(pub.stock_size), font=_font(44), fill=_TEXT,
            anchor="mm", stroke_width=4, stroke_fill=_BACK)
        _record(str(pub.stock_size), 44)
    else:
        _empty_slot(board, x, _CARD_Y, _CENTRE_W, _CENTRE_H, ("empty",), least, bold=False)
    _text(board, (mid, _CARD_Y + _CENTRE_H + 8), _plural(pub.stock_size, "card"), least,
          _TEXT, anchor="mt", bold=False)
    _draw_last_moves(board, info, moves_box or _moves_box(len(pub.centre)), least)


# The joker's own character (U+1F0CF) is in the bundled font, but at the size of a last-moves
# line it is a small outlined card that reads as a missing glyph: the word says it plainly.
_WORDS_FOR_CHARS = {"🃏": "Joker"}


def _in_words(text: str) -> str:
    for char, words in _WORDS_FOR_CHARS.items():
        text = text.replace(char, words)
    return text


def _wrap(text: str, size: int, width: int, bold: bool) -> list[str]:
    """``text`` broken at spaces into lines at most ``width`` pixels wide (a word longer than a
    line is cut with an ellipsis)."""
    font = _font(size, bold)
    lines: list[str] = []
    for word in _printable(text, bold).split():
        if lines and font.getlength(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(_fit(word, size, width, bold))
    return lines


def _draw_last_moves(board: Image.Image, info: BoardInfo,
                     box: tuple[int, int, int, int], size: int) -> None:
    """The last moves in ``box`` below its title, newest last, in ``size`` px."""
    x0, y0, x1, y1 = box
    line_h, width, top = round(size * 1.22), x1 - x0 - 28, y0 + size + 16
    room = (y1 - 6 - top) // line_h
    if not info.last_moves:
        _text(board, (x0 + 14, top), "none yet", size, _MUTED, anchor="lt", bold=False)
        return
    # Newest first, each move on as many lines as it needs, until the box is full; a long line
    # (the result of a game) is wrapped, never cut.
    shown: list[tuple[list[str], bool]] = []
    used = 0
    for i, text in enumerate(reversed(info.last_moves)):
        newest = i == 0
        lines = _wrap(_in_words(text), size, width, newest)
        if used + len(lines) > room:
            if not shown:
                shown.append((lines[:room], newest))
            break
        shown.append((lines, newest))
        used += len(lines)
    y = top
    for lines, newest in reversed(shown):
        for line in lines:
            _text(board, (x0 + 14, y), line, size, _TEXT if newest else _MUTED, anchor="lt",
                  bold=newest, width=width)
            y += line_h
