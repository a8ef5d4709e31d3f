"""The row every board shares below its header: the centre stacks, the stock and the last
moves."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine import Card, View
from engine.cards import rank_text

from .board_info import BoardInfo, _plural
from .board_layout import _CARD_Y, _LABEL_Y, _centre_x, _moves_box
from .cards_and_fans import (
    _CENTRE_H,
    _CENTRE_W,
    _back_tile,
    _card_sizes,
    _card_tile,
    _empty_slot,
    _paste_card,
    _plain_tile,
)
from .fonts import _drawn_cut, _fit, _fit_to_width, _font, _pen, _printable, _record, _text
from .picture_palette import _BACK, _MUTED, _NEEDS, _TEXT, _blend


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
        top = stack.cards[-1]
        # A wild card stands for the rank of its place in the stack (the bottom card is the Ace).
        as_rank = n if top.rank == rules.wild_rank else 0
        # A hint of depth: one more edge for every few cards under the top card.
        _draw_stack(board, x, min(3, (n + 2) // 4), top, as_rank)
        _text(board, (mid, _CARD_Y + _CENTRE_H + 8), f"needs {rank_text(stack.needs)}",
              least, _NEEDS, anchor="mt", bold=False)
    x = _centre_x(len(pub.centre)) + 8
    mid = x + _CENTRE_W // 2
    if pub.stock_size:
        _back_tile(_CENTRE_W, _CENTRE_H).paste(board, x, _CARD_Y)
        _draw_stock_count(board, x, str(pub.stock_size))
    else:
        _empty_slot(board, x, _CARD_Y, _CENTRE_W, _CENTRE_H, ("empty",), least, bold=False)
    _text(board, (mid, _CARD_Y + _CENTRE_H + 8), _plural(pub.stock_size, "card"), least,
          _TEXT, anchor="mt", bold=False)
    _draw_last_moves(board, info, moves_box or _moves_box(len(pub.centre)), least)


def _draw_stack(board: Image.Image, x: int, edges: int, top: Card, as_rank: int) -> None:
    """A centre stack at ``x``: ``edges`` card edges up and to the right, the top card.

    On a picture drawn in the palette they are blended together in RGB, as one drawing: the
    rounded corners of each card land on the blended corners of the one before."""
    if board.mode != "P" or not edges:
        for k in range(edges, 0, -1):
            _plain_tile(_CENTRE_W, _CENTRE_H).paste(board, x + 3 * k, _CARD_Y - 3 * k)
        _paste_card(board, top, x, _CARD_Y, _CENTRE_W, _CENTRE_H, as_rank=as_rank)
        return
    plain = _plain_tile(_CENTRE_W, _CENTRE_H)
    tile = _card_tile(top, _CENTRE_W, _CENTRE_H, _card_sizes(_CENTRE_H)[0], True, as_rank)

    def draw(image: Image.Image) -> None:
        for k in range(edges, 0, -1):
            plain.paste(image, 3 * k, 3 * (edges - k))
        tile.paste(image, 0, 3 * edges)

    _blend(board, (x, _CARD_Y - 3 * edges, x + 3 * edges + _CENTRE_W, _CARD_Y + _CENTRE_H),
           ("stack", edges, tile.key), draw)


def _draw_stock_count(board: Image.Image, x: int, count: str) -> None:
    """The number of cards in the stock, outlined, on the stock's card back at ``x``."""
    _record(count, 44)

    def draw(image: Image.Image, left: int = 0, top: int = 0) -> None:
        ImageDraw.Draw(image).text(
            (left + _CENTRE_W // 2, top + _CENTRE_H // 2), count, font=_font(44), fill=_TEXT,
            anchor="mm", stroke_width=4, stroke_fill=_BACK)

    if board.mode == "P":
        _blend(board, (x, _CARD_Y, x + _CENTRE_W, _CARD_Y + _CENTRE_H), ("stock", count), draw)
    else:
        draw(board, x, _CARD_Y)


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
    lines = _wrapped(text, size, width, bold)
    if _drawn_cut() is not None:
        # What is cut short is recorded as it is drawn (``fonts.drawn_text``), cached or not.
        for word in _printable(text, bold).split():
            _fit(word, size, width, bold)
    return list(lines)


@lru_cache(maxsize=1024)
def _wrapped(text: str, size: int, width: int, bold: bool) -> tuple[str, ...]:
    # A line of the last moves stays on the boards of its game for several moves: measuring its
    # words once (some 0.5 ms a board) is enough.
    # The rest of a move, which mostly fits on the line it starts, is measured whole first,
    # and word by word only if it does not fit. (A line's length grows with each word added,
    # so the lines are those of adding word by word.) Measured from the glyphs (``fonts``).
    words = _printable(text, bold).split()
    lines: list[str] = []
    while words:
        rest = " ".join(words)
        if _pen(rest, size, bold) / 64 <= width:
            lines.append(rest)
            break
        line = _fit_to_width(words.pop(0), size, width, bold)
        while words and _pen(line + " " + words[0], size, bold) / 64 <= width:
            line += " " + words.pop(0)
        lines.append(line)
    return tuple(lines)


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
            # Wrapped to the width already: not measured again.
            _text(board, (x0 + 14, y), line, size, _TEXT if newest else _MUTED, anchor="lt",
                  bold=newest)
            y += line_h
