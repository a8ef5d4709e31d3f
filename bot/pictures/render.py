"""Board pictures: pure functions from engine views to PNG bytes.

``render_board`` draws the public board (for the channel) and ``render_hand`` one player's private
hand (for an ephemeral reply). Neither ever sees a ``Game``, only a ``View``, and the board draws
from a copy of the view's public facts alone, so a player's view and the spectators' view give
byte-identical pictures: nothing private can reach the channel through a picture.

The pictures are sized for Discord: 1200 px wide, which a phone shows some 400 px wide, so ranks
are big and bold and the contrast is high. Side stacks are fanned so that every card in them shows
its rank and suit (rule 8); a long stack is squeezed to fit the fixed height, with a smaller corner
font once the fan gets tight. A table of three or four gets a taller board (a panel per seat, two
to a row, cards as large) and a hand picture with a row per opponent; two-player pictures are
drawn exactly as before (``tests/bot/test_two_player_pictures.py`` pins their bytes).

Speed (``python -m bot.bench render``): each card is drawn once per kind and size into a cached
tile, cut so that only its rounded ends need blending when pasted; text is rasterised once per
string and size; the parts of the board that do not change are drawn once per layout. The finished
picture is mapped to one fixed palette (no dithering) and saved as an 8-bit PNG, which is faster
and several times smaller than a truecolour PNG of the same picture. Rendering is CPU work, most
of it holding the interpreter lock: the bot has it done in another process
(``bot.pictures.drawing``).
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from isal import isal_zlib
from PIL import Image, ImageDraw, ImageFont

from engine import Card, EndReason, Move, Result, Source, Target, View
from engine.cards import rank_text

__all__ = ["BOARD_SIZE", "HAND_SIZE", "BoardInfo", "board_size", "hand_size", "render_board",
           "render_hand", "result_line"]

BOARD_SIZE = (1200, 1200)
"""Width and height of a two-player board picture in pixels, the same for every position (see
``board_size`` for a table of three or four)."""
HAND_SIZE = (1100, 680)
"""Width and height of a two-player hand picture in pixels (see ``hand_size``)."""

_ASSETS = Path(__file__).resolve().parent / "assets"

# The fonts (FreeType faces) and the caches of drawn cards and text are shared; pictures may be
# drawn from several threads (the history commands still draw in a thread of the bot), so one
# is drawn at a time. PNG encoding, which releases the GIL, runs outside the lock.
_DRAWING = threading.Lock()

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """What a picture shows beyond the view: the names, the match, and the last moves in words."""

    names: tuple[str, ...]
    """Display names, one per seat of the table (two to four), in seat order."""
    game_number: int = 1
    """Which game of the match this is (1 for the first)."""
    match_scores: tuple[int, ...] = (0, 0)
    """Match points per seat, as the caller wants them shown (a seat missing counts 0)."""
    match_target: int | None = None
    """Points that win the match, or ``None`` for a single game."""
    last_moves: tuple[str, ...] = ()
    """Short public descriptions of the last moves, oldest first (``"Ann: 7♥ from hand → C2"``)."""


# ----------------------------------------------------------------------------- colours

_FELT: RGB = (22, 94, 58)
_FELT_DARK: RGB = (13, 60, 36)
_FELT_LINE: RGB = (52, 128, 86)
_WHITE: RGB = (255, 255, 255)
_CARD_EDGE: RGB = (60, 60, 60)
_BLACK: RGB = (18, 18, 18)
_RED: RGB = (205, 20, 36)
_PURPLE: RGB = (110, 34, 176)
_PURPLE_TINT: RGB = (238, 226, 255)
_GOLD: RGB = (255, 203, 46)
_GOLD_INK: RGB = (48, 32, 0)
_TEXT: RGB = (244, 244, 236)
_MUTED: RGB = (170, 206, 184)
_NEEDS: RGB = (255, 226, 110)
_BACK: RGB = (36, 72, 160)
_BACK_LINE: RGB = (128, 160, 236)
_GREEN: RGB = (46, 196, 92)
_ORANGE: RGB = (255, 128, 16)
_SLOT: RGB = (120, 176, 144)

# Every colour the pictures use, and the blends that antialiased text and edges make between the
# pairs that touch. The finished picture is mapped to this one palette: mapping to a fixed
# palette is a quick table look-up, where computing a palette per picture (octree, median cut)
# costs more than all the drawing.
_BLENDS: tuple[tuple[RGB, RGB], ...] = (
    (_BLACK, _WHITE),
    (_RED, _WHITE),
    (_PURPLE, _WHITE),
    (_PURPLE, _PURPLE_TINT),
    (_BLACK, _PURPLE_TINT),
    (_CARD_EDGE, _WHITE),
    (_CARD_EDGE, _FELT),
    (_CARD_EDGE, _FELT_DARK),
    (_CARD_EDGE, _PURPLE_TINT),
    (_TEXT, _FELT),
    (_TEXT, _FELT_DARK),
    (_TEXT, _BACK),
    (_MUTED, _FELT),
    (_MUTED, _FELT_DARK),
    (_NEEDS, _FELT),
    (_NEEDS, _FELT_DARK),
    (_GOLD, _FELT),
    (_GOLD, _FELT_DARK),
    (_GOLD_INK, _GOLD),
    (_SLOT, _FELT),
    (_SLOT, _FELT_DARK),
    (_BACK_LINE, _BACK),
    (_CARD_EDGE, _BACK),
    (_GREEN, _FELT),
    (_GREEN, _WHITE),
    (_ORANGE, _FELT),
    (_ORANGE, _WHITE),
    (_FELT_LINE, _FELT),
    (_FELT_LINE, _FELT_DARK),
    (_FELT_DARK, _FELT),
)
_BLEND_STEPS = 8


def _build_palette() -> Image.Image:
    colours: list[RGB] = []
    for a, b in _BLENDS:
        for k in range(_BLEND_STEPS + 1):
            t = k / _BLEND_STEPS
            c = (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
                 round(a[2] + (b[2] - a[2]) * t))
            if c not in colours:
                colours.append(c)
    if len(colours) > 256:
        raise RuntimeError(f"The picture palette has {len(colours)} colours; 256 is the most.")
    flat = [v for c in colours for v in c]
    flat += flat[:3] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette(flat)
    return image


_PALETTE = _build_palette()


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + \
        struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


_PLTE = _chunk(b"PLTE", bytes(_PALETTE.getpalette() or ()))


def _mapped(image: Image.Image) -> Image.Image:
    """``image`` mapped to the fixed palette, each pixel to its nearest colour."""
    return image.quantize(palette=_PALETTE, dither=Image.Dither.NONE)


def _png(image: Image.Image) -> bytes:
    """``image`` mapped to the fixed palette and saved as an 8-bit PNG.

    The PNG is written here rather than by Pillow so that its pixels are deflated by ISA-L
    (``isal``), some six times faster than zlib at any level and a little smaller than zlib's
    level 1 (a board: 0.45 ms instead of 2.8 ms, ~58 KB): encoding was half the time of a
    picture. A palette image needs no row filter (the PNG specification advises none), so each
    row is its filter byte 0 and the palette indices: the picture is pasted one pixel right
    into a canvas whose first column is 0, and its bytes are the rows as PNG wants them.
    """
    quantized = _mapped(image)
    width, height = quantized.size
    rows = Image.new("P", (width + 1, height), 0)
    rows.paste(quantized, (1, 0))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit, palette colour
    return b"".join((_PNG_SIGNATURE, _chunk(b"IHDR", header), _PLTE,
                     _chunk(b"IDAT", isal_zlib.compress(rows.tobytes(), 1)),
                     _chunk(b"IEND", b"")))


# ----------------------------------------------------------------------------- fonts and text


@lru_cache(maxsize=64)
def _font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    # The basic layout engine: the text is plain left-to-right, it is faster than raqm, and it
    # gives the same pixels wherever FreeType does.
    return ImageFont.truetype(str(_ASSETS / name), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=64)
def _cap_height(size: int) -> int:
    # The height of a digit above the baseline: what a rank needs to be read.
    return -int(_font(size).getbbox("8", anchor="ls")[1])


@lru_cache(maxsize=4096)
def _fit(text: str, size: int, width: int, bold: bool = True) -> str:
    """``text`` cut short with an ellipsis so that it is at most ``width`` pixels wide."""
    font = _font(size, bold)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


# 1,024 strings: the labels, numbers and names of the boards being played, a few MB. Lines of
# last moves are mostly new on every board; keeping 4,096 of them cost some 30 MB more per
# drawing process for ~0.5 ms less a board (1,000 open games, 1,500 boards).
@lru_cache(maxsize=1024)
def _text_mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    font = _font(size, bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=2048)
def _has_glyph(char: str, bold: bool) -> bool:
    def pixels(c: str) -> bytes:
        image = Image.new("L", (40, 40), 0)
        ImageDraw.Draw(image).text((4, 4), c, font=_font(24, bold), fill=255)
        return image.tobytes()

    return char.isspace() or pixels(char) != pixels("\U0010FFFF")


@lru_cache(maxsize=1024)
def _printable(text: str, bold: bool) -> str:
    """``text`` without the characters the font has no glyph for (emoji in names, mostly).

    They would show as empty boxes; a name like "Ann 🎉" reads better as "Ann".
    """
    if all(" " <= c <= "~" for c in text):
        return text
    kept = "".join(c for c in text if _has_glyph(c, bold))
    return " ".join(kept.split()) or "?"


def _text(image: Image.Image, xy: tuple[float, float], text: str, size: int, fill: RGB, *,
          anchor: str = "la", bold: bool = True, width: int | None = None) -> None:
    """Draw ``text`` (cut to ``width`` pixels if given), rasterised once per string and size."""
    text = _printable(text, bold)
    if width is not None:
        text = _fit(text, size, width, bold)
    if not text:
        return
    mask, left, top = _text_mask(text, size, bold, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    image.paste(fill, (x, y, x + mask.width, y + mask.height), mask)


# ----------------------------------------------------------------------------- card tiles


def _radius(w: int) -> int:
    return max(6, w // 10)


@lru_cache(maxsize=16)
def _masks(w: int, h: int) -> tuple[Image.Image, Image.Image]:
    """The antialiased outline of a card of this size, and of its face inside the edge."""
    scale, radius, edge = 4, _radius(w), 2
    outer = Image.new("L", (w * scale, h * scale), 0)
    inner = Image.new("L", (w * scale, h * scale), 0)
    ImageDraw.Draw(outer).rounded_rectangle(
        (0, 0, w * scale - 1, h * scale - 1), radius * scale, fill=255)
    ImageDraw.Draw(inner).rounded_rectangle(
        (edge * scale, edge * scale, (w - edge) * scale - 1, (h - edge) * scale - 1),
        (radius - edge) * scale, fill=255)
    return (outer.resize((w, h), Image.Resampling.LANCZOS),
            inner.resize((w, h), Image.Resampling.LANCZOS))


@dataclass(frozen=True, slots=True)
class _Tile:
    """A card drawn once, cut in three: only the rounded ends need blending with the board.

    Blending through a mask costs some ten times a plain copy, so the straight middle is copied
    and only the corners are blended; a card covered by the next card of a fan needs no bottom.
    """

    top: Image.Image
    top_mask: Image.Image
    middle: Image.Image
    bottom: Image.Image
    bottom_mask: Image.Image

    @classmethod
    def cut(cls, face: Image.Image, rows: int | None = None) -> _Tile:
        """Cut a card; with ``rows``, keep only its top rows (for a card that stays covered).

        The pieces are kept mapped to the pictures' palette, a byte a pixel instead of three:
        the finished picture is mapped to it anyway, so only the blended rims of the corners
        can come out differently (measured on 120 boards and hands: 0.05% of the pixels, by
        at most 19 of 255). Pasting converts a piece back, some 5% more time a picture for a
        third of the memory of the tiles (a drawing process of 1,000 games: 10 MB less)."""
        w, h = face.size
        mask = _masks(w, h)[0]
        r = _radius(w) + 1
        end = h - r if rows is None else min(h - r, rows)
        return cls(_mapped(face.crop((0, 0, w, r))), mask.crop((0, 0, w, r)),
                   _mapped(face.crop((0, r, w, end))), _mapped(face.crop((0, h - r, w, h))),
                   mask.crop((0, h - r, w, h)))

    def paste(self, image: Image.Image, x: int, y: int, *, covered: bool = False) -> None:
        image.paste(self.top, (x, y), self.top_mask)
        image.paste(self.middle, (x, y + self.top.height))
        if not covered:
            image.paste(self.bottom, (x, y + self.top.height + self.middle.height),
                        self.bottom_mask)


def _suit_colour(card: Card) -> RGB:
    if card.is_joker:
        return _PURPLE
    return _RED if card.suit is not None and card.suit.is_red else _BLACK


def _corner_text(card: Card) -> str:
    if card.is_joker or card.suit is None:
        return "JK★"
    return rank_text(card.rank) + card.suit.symbol


def _card_sizes(h: int) -> tuple[int, int, int]:
    """Font sizes for a card of height ``h``: the corner, the big rank, the big suit."""
    return round(h * 0.19), round(h * 0.33), round(h * 0.27)


def _corner_pad(size: int) -> int:
    return max(2, round(size * 0.22)) + 1


def _blank(w: int, h: int, face: RGB) -> Image.Image:
    tile = Image.new("RGB", (w, h), _CARD_EDGE)
    tile.paste(face, (0, 0, w, h), _masks(w, h)[1])
    return tile


@lru_cache(maxsize=1024)
def _card_tile(card: Card, w: int, h: int, corner: int, face: bool, as_rank: int,
               stands_for: str = "") -> _Tile:
    """One card, drawn once.

    ``corner`` is the corner font size; ``face`` adds the big rank and suit in the middle (for a
    card whose whole face shows: without it the card is one covered in a fan, and only the top
    of it that can show is kept); ``as_rank`` > 0 marks a wild card on a centre stack and is the
    rank it stands for there; ``stands_for`` is what a joker on a side stack stands for
    (``7/8``), which its corner shows instead of ``JK★`` (as ``★7/8``), smaller if need be.
    """
    wild = as_rank > 0
    tile = _blank(w, h, _PURPLE_TINT if (card.is_joker or wild) else _WHITE)
    draw = ImageDraw.Draw(tile)
    colour = _suit_colour(card)
    pad = _corner_pad(corner)
    text, size = _corner_text(card), corner
    if stands_for:
        text = "★" + stands_for
        while size > _CORNER_MIN and _font(size).getlength(text) > w - 2 * pad - 2:
            size -= 1
    # On the corner's baseline, so that a smaller label fits the strip the corner fits in.
    draw.text((pad + 1, pad + _cap_height(corner)), text, font=_font(size), fill=colour,
              anchor="ls")
    if not face:
        # The next card of the fan starts at most _FAN_MAX_STEP lower; its rounded corners
        # show a few rows more of this one.
        return _Tile.cut(tile, rows=_FAN_MAX_STEP + 2 * _radius(w) + 2)
    _draw_face(draw, card, w, h, pad + _cap_height(corner) + 4, as_rank, stands_for)
    return _Tile.cut(tile)


def _draw_face(draw: ImageDraw.ImageDraw, card: Card, w: int, h: int, top: int,
               as_rank: int, stands_for: str = "") -> None:
    _, big, suit_size = _card_sizes(h)
    cx = w // 2
    small = _font(max(12, round(h * 0.1)))
    if as_rank:
        # What the players need is the rank the wild card stands for on this stack.
        draw.text((cx, top + (h - top) * 0.5), rank_text(as_rank), font=_font(big),
                  fill=_PURPLE, anchor="mm")
        draw.text((cx, h - 7), "wild", font=small, fill=_PURPLE, anchor="md")
    elif card.is_joker or card.suit is None:
        draw.text((cx, top + (h - top) * 0.45), "★", font=_font(big), fill=_PURPLE, anchor="mm")
        draw.text((cx, h - 7), f"as {stands_for}" if stands_for else "JOKER", font=small,
                  fill=_PURPLE, anchor="md")
    else:
        colour = _suit_colour(card)
        gap = round(h * 0.04)
        y = top + (h - top) / 2 + (_cap_height(big) - gap - _cap_height(suit_size)) / 2
        draw.text((cx, y), rank_text(card.rank), font=_font(big), fill=colour, anchor="ms")
        draw.text((cx, y + gap + _cap_height(suit_size)), card.suit.symbol,
                  font=_font(suit_size), fill=colour, anchor="ms")


@lru_cache(maxsize=8)
def _back_tile(w: int, h: int) -> _Tile:
    tile = _blank(w, h, _BACK)
    inset, radius, line = max(4, w // 12), max(3, w // 16), max(2, w // 40)
    frame = (inset, inset, w - 1 - inset, h - 1 - inset)
    lattice = Image.new("RGB", (w, h), _BACK)
    lines = ImageDraw.Draw(lattice)
    for k in range(-h, w, max(8, w // 6)):
        lines.line((k, 0, k + h, h), fill=_BACK_LINE, width=1)
        lines.line((k + h, 0, k, h), fill=_BACK_LINE, width=1)
    inside = Image.new("L", (w, h), 0)
    ImageDraw.Draw(inside).rounded_rectangle(frame, radius, fill=255)
    tile.paste(lattice, (0, 0), inside)
    ImageDraw.Draw(tile).rounded_rectangle(frame, radius, outline=_BACK_LINE, width=line)
    return _Tile.cut(tile)


@lru_cache(maxsize=8)
def _plain_tile(w: int, h: int) -> _Tile:
    return _Tile.cut(_blank(w, h, _WHITE))


def _paste_card(image: Image.Image, card: Card, x: int, y: int, w: int, h: int, *,
                corner: int | None = None, face: bool = True, as_rank: int = 0,
                stands_for: str = "") -> None:
    corner = corner if corner is not None else _card_sizes(h)[0]
    _card_tile(card, w, h, corner, face, as_rank, stands_for).paste(image, x, y,
                                                                    covered=not face)


def _empty_slot(image: Image.Image, x: int, y: int, w: int, h: int, lines: Sequence[str],
                size: int, bold: bool = True) -> None:
    ImageDraw.Draw(image).rounded_rectangle((x, y, x + w - 1, y + h - 1), _radius(w),
                                            outline=_SLOT, width=3)
    line_h = round(size * 1.25)
    y0 = y + h / 2 - line_h * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        _text(image, (x + w / 2, y0 + i * line_h), line, size, _SLOT, anchor="mm", width=w - 10,
              bold=bold)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ----------------------------------------------------------------------------- the public board


def _public(view: View) -> View:
    """The view with everything private taken out (rule 8): all the board may read, whoever the
    view is for. (The hand, the legal and compulsory moves are gone; the rest is public.)"""
    return replace(view, viewer=None, hand=None, legal_moves=(), compulsory=())


# Board geometry. The picture is a header, a row with the centre stacks, the stock and the last
# moves, and a panel per player: the pay-off pile and the hand size in a column on the left, the
# four side stacks fanned down beside it.
_W, _H = BOARD_SIZE
_MARGIN = 12
_HEADER_H = 58
_SUBHEADER_H = 34
_CENTRE_W, _CENTRE_H = 120, 168
_CENTRE_GAP = 22
_SIDE_W, _SIDE_H = 96, 134
_PANEL_HEAD = 54
_PANEL_W = (_W - 2 * _MARGIN - _MARGIN // 2) // 2
_LABEL_Y = _HEADER_H + _SUBHEADER_H + 8
_CARD_Y = _LABEL_Y + 30
_PANEL_TOP = _CARD_Y + _CENTRE_H + 46
_FAN_MAX_STEP = 44
_CORNER_MAX = 26
_CORNER_MIN = 10

_REASONS = {
    EndReason.PAYOFF_EMPTIED: "pay-off pile emptied",
    EndReason.STALEMATE: "stalemate",
    EndReason.TURN_LIMIT: "turn limit reached",
    EndReason.STOCK_OUT: "the stock ran out",
    EndReason.RESIGNED: "resigned",
}


def _and(words: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def result_line(result: Result, names: Sequence[str]) -> str:
    """The end of a game in a line: ``Ann wins · 12 points · pay-off pile emptied``.

    At a table of three or four the leavers are named (``Bob and Cy left``)."""
    if len(names) > 2 and result.reason is EndReason.RESIGNED and result.left:
        why = _and([names[s] for s in result.left]) + " left"
    elif result.reason is EndReason.RESIGNED and result.winner is not None:
        why = f"{names[1 - result.winner]} resigned"
    elif result.reason is EndReason.STALEMATE and result.winner is None:
        why = ("stalemate, equal pay-off piles" if len(names) == 2
               else "stalemate, fewest pay-off cards shared")
    else:
        why = _REASONS[result.reason]
    if result.winner is None:
        return f"Tie · no points · {why}"
    return f"{names[result.winner]} wins · {_plural(result.score, 'point')} · {why}"


def render_board(view: View, info: BoardInfo) -> bytes:
    """The public board as PNG bytes: the same picture for every view of the same position.

    Draws the centre stacks, both pay-off piles, every card of the side stacks, the stock and hand
    sizes, whose turn it is, the game and match, the last moves from ``info`` and the result once
    the game is over. It reads only the public facts of ``view`` (never the hand or the legal
    moves), so a player's view and the public view give byte-identical PNGs.
    """
    with _DRAWING:
        board = _draw_board(_public(view), info)
    return _png(board)


def _draw_board(pub: View, info: BoardInfo) -> Image.Image:
    if pub.players != 2:
        return _draw_group_board(pub, info)
    result = pub.result
    lit = tuple(result.winner == seat if result is not None else pub.turn == seat
                for seat in (0, 1))
    board = _board_base(len(pub.centre), lit[0], lit[1], result is not None)
    _draw_header(board, pub, info)
    _draw_centre_row(board, pub, info)
    for seat in (0, 1):
        _draw_panel(board, pub, info, seat, _MARGIN + seat * (_PANEL_W + _MARGIN // 2))
    return board


def _centre_x(i: int) -> int:
    return _MARGIN + 4 + i * (_CENTRE_W + _CENTRE_GAP)


def _board_base(centres: int, lit0: bool, lit1: bool, over: bool) -> Image.Image:
    """A new picture of everything on the board that depends only on the layout and on whose
    panel is lit.

    Made of cached parts, a base per layout and a lit panel per seat, rather than cached whole
    per combination: a whole board is 4.3 MB, and the combinations are ten.
    """
    board = _unlit_base(centres, over).copy()
    for seat, lit in enumerate((lit0, lit1)):
        if lit:
            board.paste(_lit_panel(seat), _panel_box(seat)[:2])
    return board


def _panel_box(seat: int) -> tuple[int, int, int, int]:
    x = _MARGIN + seat * (_PANEL_W + _MARGIN // 2)
    return x, _PANEL_TOP, x + _PANEL_W + 1, _H - _MARGIN + 1


@lru_cache(maxsize=2)
def _unlit_base(centres: int, over: bool) -> Image.Image:
    # Two: the boards being played, of both layouts (drawing one again takes about 1 ms).
    return _draw_base(centres, False, False, over)


@lru_cache(maxsize=2)
def _lit_panel(seat: int) -> Image.Image:
    # Nothing but the panel is drawn inside its box, whatever the layout.
    return _draw_base(3, seat == 0, seat == 1, False).crop(_panel_box(seat))


def _draw_base(centres: int, lit0: bool, lit1: bool, over: bool) -> Image.Image:
    board = Image.new("RGB", BOARD_SIZE, _FELT)
    draw = ImageDraw.Draw(board)
    draw.rectangle((0, 0, _W, _HEADER_H), fill=_GOLD if over else _FELT_DARK)
    draw.rectangle((0, _HEADER_H, _W, _HEADER_H + _SUBHEADER_H), fill=_FELT_DARK)
    draw.line((0, _HEADER_H, _W, _HEADER_H), fill=_FELT_LINE, width=1)
    stock_x = _centre_x(centres) + 8
    _text(board, (stock_x + _CENTRE_W // 2, _LABEL_Y), "Stock", 24, _MUTED, anchor="mt")
    x0, y0, x1, y1 = _moves_box(centres)
    draw.rounded_rectangle((x0, y0, x1, y1), 12, fill=_FELT_DARK)
    _text(board, (x0 + 14, y0 + 10), "Last moves", 22, _MUTED, anchor="lt")
    for seat, lit in enumerate((lit0, lit1)):
        x, top = _MARGIN + seat * (_PANEL_W + _MARGIN // 2), _PANEL_TOP
        draw.rounded_rectangle((x, top, x + _PANEL_W, _H - _MARGIN), 14, fill=_FELT_DARK,
                               outline=_GOLD if lit else _FELT_LINE, width=6 if lit else 2)
        if lit:
            draw.rounded_rectangle((x, top, x + _PANEL_W, top + _PANEL_HEAD), 14, fill=_GOLD)
            draw.rectangle((x, top + _PANEL_HEAD - 14, x + _PANEL_W, top + _PANEL_HEAD),
                           fill=_GOLD)
        cx = x + 14 + _CENTRE_W // 2
        _text(board, (cx, top + _PANEL_HEAD + 12), "Pay-off", 22, _MUTED, anchor="mt")
        _text(board, (cx, _payoff_y() + _CENTRE_H + 54), "left", 22, _MUTED, anchor="mt")
        _text(board, (cx, _hand_y()), "Hand", 22, _MUTED, anchor="mt")
    return board


def _moves_box(centres: int) -> tuple[int, int, int, int]:
    return _centre_x(centres) + 8 + _CENTRE_W + 24, _LABEL_Y - 2, _W - _MARGIN, _PANEL_TOP - 12


def _payoff_y() -> int:
    return _PANEL_TOP + _PANEL_HEAD + 42


def _hand_y() -> int:
    return _payoff_y() + _CENTRE_H + 110


_FAN_TOP = _payoff_y()
_FAN_BOTTOM = _H - _MARGIN - 14
_FAN_HEIGHT = _FAN_BOTTOM - _FAN_TOP
"""The height a side-stack fan must fit in: every corner shows in full up to 40 cards."""


def _draw_header(board: Image.Image, pub: View, info: BoardInfo) -> None:
    # Two lines: what is happening now (whose turn, or the result) big, the match small.
    if pub.result is not None:
        names = (_fit(_printable(info.names[0], True), 30, 360),
                 _fit(_printable(info.names[1], True), 30, 360))
        text = f"Game over: {result_line(pub.result, names)}"
        ink = _GOLD_INK
    else:
        text = f"{info.names[pub.turn]} to play · turn {pub.turn_number + 1}"
        ink = _TEXT
    _text(board, (_MARGIN + 4, _HEADER_H // 2), text, 30, ink, anchor="lm",
          width=_W - 2 * _MARGIN - 8)
    a, b = (_fit(_printable(n, True), 22, 260) for n in info.names)
    match = (f"{pub.rules.name.title()} · game {info.game_number} · match: {a} "
             f"{info.match_scores[0]} – {info.match_scores[1]} {b}")
    if info.match_target is not None:
        match += f" · first to {info.match_target}"
    _text(board, (_MARGIN + 4, _HEADER_H + _SUBHEADER_H // 2), match, 22, _MUTED, anchor="lm",
          width=_W - 2 * _MARGIN - 8)


def _draw_centre_row(board: Image.Image, pub: View, info: BoardInfo, least: int = 0,
                     moves_box: tuple[int, int, int, int] | None = None) -> None:
    """The centre stacks, the stock and the last moves (in ``moves_box`` if given, else beside
    the stock); no text smaller than ``least`` (0 at a table of two, whose board keeps the
    sizes it always had)."""
    rules = pub.rules
    starters = ("Ace or", "King", "to start") if (
        rules.wild_rank == 13 and rules.king_starts_stack) else ("Ace", "to start")
    for i, stack in enumerate(pub.centre):
        x = _centre_x(i)
        mid = x + _CENTRE_W // 2
        n = len(stack.cards)
        _text(board, (mid, _LABEL_Y), f"C{i + 1}" + (f" · {n}" if n else ""), max(24, least),
              _MUTED, anchor="mt")
        if stack.is_empty:
            _empty_slot(board, x, _CARD_Y, _CENTRE_W, _CENTRE_H, starters, max(24, least))
            continue
        # A hint of depth: one more edge for every few cards under the top card.
        for k in range(min(3, (n + 2) // 4), 0, -1):
            _plain_tile(_CENTRE_W, _CENTRE_H).paste(board, x + 3 * k, _CARD_Y - 3 * k)
        top = stack.cards[-1]
        # A wild card stands for the rank of its place in the stack (the bottom card is the Ace).
        as_rank = n if top.rank == rules.wild_rank else 0
        _paste_card(board, top, x, _CARD_Y, _CENTRE_W, _CENTRE_H, as_rank=as_rank)
        _text(board, (mid, _CARD_Y + _CENTRE_H + 10), f"needs {rank_text(stack.needs)}",
              max(26, least), _NEEDS, anchor="mt")
    x = _centre_x(len(pub.centre)) + 8
    mid = x + _CENTRE_W // 2
    if pub.stock_size:
        _back_tile(_CENTRE_W, _CENTRE_H).paste(board, x, _CARD_Y)
        ImageDraw.Draw(board).text(
            (mid, _CARD_Y + _CENTRE_H // 2), str(pub.stock_size), font=_font(44), fill=_TEXT,
            anchor="mm", stroke_width=4, stroke_fill=_BACK)
    else:
        _empty_slot(board, x, _CARD_Y, _CENTRE_W, _CENTRE_H, ("empty",), max(24, least))
    _text(board, (mid, _CARD_Y + _CENTRE_H + 10), _plural(pub.stock_size, "card"),
          max(24, least), _TEXT, anchor="mt")
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
                     box: tuple[int, int, int, int], least: int = 0) -> None:
    x0, y0, x1, y1 = box
    line_h, size, width = 31, 22, x1 - x0 - 28
    if least > size:
        line_h, size = round(least * 1.3), least
    room = (y1 - y0 - 44) // line_h
    if not info.last_moves:
        _text(board, (x0 + 14, y0 + 44), "none yet", size, _MUTED, anchor="lt", bold=False)
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
    y = y0 + 44
    for lines, newest in reversed(shown):
        for line in lines:
            _text(board, (x0 + 14, y), line, size, _TEXT if newest else _MUTED, anchor="lt",
                  bold=newest, width=width)
            y += line_h


def _draw_panel(board: Image.Image, pub: View, info: BoardInfo, seat: int, x: int) -> None:
    w, y0 = _PANEL_W, _PANEL_TOP
    result = pub.result
    on_turn = result is None and pub.turn == seat
    winner = result is not None and result.winner == seat
    ink = _GOLD_INK if (on_turn or winner) else _TEXT
    if on_turn:
        tag = "TO PLAY"
    elif winner:
        tag = "WINNER"
    elif result is not None and result.winner is None:
        tag = "TIE"
    else:
        tag = ""
    tag_w = round(_font(24).getlength(tag)) if tag else 0
    if tag:
        _text(board, (x + w - 16, y0 + _PANEL_HEAD // 2), tag, 24, ink, anchor="rm")
    name = ("▶ " if on_turn else "") + info.names[seat]
    _text(board, (x + 16, y0 + _PANEL_HEAD // 2), name, 30, ink, anchor="lm",
          width=w - 48 - tag_w)

    # The pay-off pile and the hand size (their labels are in the base picture).
    cx = x + 14
    mid = cx + _CENTRE_W // 2
    card_y = _payoff_y()
    payoff = pub.payoff_tops[seat]
    if payoff is None:
        _empty_slot(board, cx, card_y, _CENTRE_W, _CENTRE_H, ("empty",), 24)
    else:
        _paste_card(board, payoff, cx, card_y, _CENTRE_W, _CENTRE_H)
    _text(board, (mid, card_y + _CENTRE_H + 8), str(pub.payoff_counts[seat]), 40, _NEEDS,
          anchor="mt")
    n = pub.hand_sizes[seat]
    hand_y = _hand_y() + 30
    bw, bh, step = 42, 58, 17
    span = bw + step * (n - 1) if n else bw
    bx = cx + (_CENTRE_W - span) // 2
    for k in range(n):
        _back_tile(bw, bh).paste(board, bx + k * step, hand_y)
    if not n:
        ImageDraw.Draw(board).rounded_rectangle((bx, hand_y, bx + bw, hand_y + bh), 5,
                                                outline=_SLOT, width=2)
    _text(board, (mid, hand_y + bh + 10), _plural(n, "card"), 24, _TEXT, anchor="mt")

    # The side stacks, fanned down so that every card shows its corner.
    sx = cx + _CENTRE_W + 18
    gap = (x + w - 14 - sx - 4 * _SIDE_W) // 3
    label_y = y0 + _PANEL_HEAD + 12
    for s, pile in enumerate(pub.sides[seat]):
        colx = sx + s * (_SIDE_W + gap)
        label = f"S{s + 1}" + (f" · {len(pile)}" if len(pile) > 1 else "")
        _text(board, (colx + _SIDE_W // 2, label_y), label, 22, _MUTED, anchor="mt")
        _draw_fan(board, pile, colx, _FAN_TOP, _FAN_BOTTOM, pub.joker_ranks(seat, s))


def _fan_step(n: int, height: int) -> float:
    """The offset between the cards of a fan of ``n`` cards that must fit in ``height`` pixels."""
    if n <= 1:
        return 0.0
    return min(_FAN_MAX_STEP, (height - _SIDE_H) / (n - 1))


@lru_cache(maxsize=256)
def _corner_for_step(step: int) -> int:
    """The biggest corner font whose rank and suit show in full in a strip ``step`` pixels high."""
    size = _CORNER_MAX
    # The suits reach a little below the baseline of the digits: 3 px to spare.
    while size > _CORNER_MIN and _corner_pad(size) + _cap_height(size) + 3 > step:
        size -= 1
    return size


def _draw_fan(board: Image.Image, pile: Sequence[Card], x: int, top: int, bottom: int,
              jokers: Sequence[tuple[int, ...]] = (), least: int = 0) -> None:
    if not pile:
        # At a table of three or four no text is smaller than a rank: "empty" at that size
        # fits the slot in the regular face only.
        _empty_slot(board, x, top, _SIDE_W, _SIDE_H, ("empty",), max(22, least),
                    bold=least <= 22)
        return
    n = len(pile)
    step = _fan_step(n, bottom - top)
    corner = _corner_for_step(int(step)) if n > 1 else _CORNER_MAX
    for i, card in enumerate(pile):
        last = i == n - 1
        stands_for = _ranks_text(jokers[i]) if i < len(jokers) and jokers[i] else ""
        _paste_card(board, card, x, top + round(i * step), _SIDE_W, _SIDE_H,
                    corner=_CORNER_MAX if last else corner, face=last, stands_for=stands_for)


def _ranks_text(ranks: Sequence[int]) -> str:
    """``7``, ``7/8``, or a run as ``2–K`` (as the board's text says it)."""
    if len(ranks) > 2 and list(ranks) == list(range(ranks[0], ranks[-1] + 1)):
        return f"{rank_text(ranks[0])}–{rank_text(ranks[-1])}"
    return "/".join(rank_text(r) for r in ranks)


# ----------------------------------------------------------------------------- tables of 3 or 4

# A board of three or four seats keeps the top of the two-player board (the header, the centre
# stacks, the stock and the last moves) and puts the seats in a grid of two columns below it,
# each panel as wide as a two-player panel and so with cards of the same size: at the 400 px a
# phone shows it, the board reads as a two-player board does. The grid has two rows; with three
# seats the fourth cell holds the last moves (more of them: a round is three turns), and the
# order of play (once the game is over, the places) takes their box beside the stock.
#
# No text on it is smaller than the corner rank of a side-stack card (_CORNER_MAX): labels, last
# moves and counts are drawn at _GROUP_TEXT at least. The corners of a long side stack squeezed
# into its panel get smaller, as on the two-player board (see _fan_step): a panel's fan keeps
# full-size corners up to _GROUP_FULL_FAN cards.
_GROUP_TEXT = _CORNER_MAX
_GROUP_PANEL_H = 540
_GROUP_GAP = _MARGIN // 2
_GROUP_HEAD = _PANEL_HEAD
_GROUP_H = _PANEL_TOP + 2 * _GROUP_PANEL_H + _GROUP_GAP + _MARGIN
_GROUP_CARD_TOP = _GROUP_HEAD + 44
"""Where the pay-off card and the side-stack fans start, below the top of a panel."""
_GROUP_FAN_HEIGHT = _GROUP_PANEL_H - _GROUP_CARD_TOP - 14
_GROUP_FULL_FAN = 11
"""The longest side stack whose every corner shows at full size in a panel (tests check it)."""


def board_size(players: int) -> tuple[int, int]:
    """Width and height of the board picture of a table of ``players`` seats."""
    return BOARD_SIZE if players == 2 else (_W, _GROUP_H)


def _group_cell(cell: int) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of cell ``cell`` of the seat grid: 0 and 1 the top row."""
    x = _MARGIN + (cell % 2) * (_PANEL_W + _GROUP_GAP)
    y = _PANEL_TOP + (cell // 2) * (_GROUP_PANEL_H + _GROUP_GAP)
    return x, y, x + _PANEL_W, y + _GROUP_PANEL_H


def _seat_lit(pub: View, seat: int) -> bool:
    result = pub.result
    return result.winner == seat if result is not None else pub.turn == seat


@lru_cache(maxsize=2)
def _group_base(players: int) -> Image.Image:
    """What a board of ``players`` seats shows whatever the position: the seat panels unlit
    and their labels. (Two, for tables of three and four: a board is 5.2 MB; the header and the
    boxes of the top row are drawn on each board, cheaply.)"""
    board = Image.new("RGB", board_size(players), _FELT)
    for seat in range(players):
        _draw_group_panel_base(board, _group_cell(seat), lit=False)
    return board


def _draw_group_panel_base(board: Image.Image, box: tuple[int, int, int, int], *,
                           lit: bool) -> None:
    x, top, x1, bottom = box
    draw = ImageDraw.Draw(board)
    draw.rounded_rectangle((x, top, x1, bottom), 14, fill=_FELT_DARK,
                           outline=_GOLD if lit else _FELT_LINE, width=6 if lit else 2)
    if lit:
        draw.rounded_rectangle((x, top, x1, top + _GROUP_HEAD), 14, fill=_GOLD)
        draw.rectangle((x, top + _GROUP_HEAD - 14, x1, top + _GROUP_HEAD), fill=_GOLD)
    cx = x + 14 + _CENTRE_W // 2
    _text(board, (cx, top + _GROUP_HEAD + 10), "Pay-off", _GROUP_TEXT, _MUTED, anchor="mt")


def _draw_group_board(pub: View, info: BoardInfo) -> Image.Image:
    players = pub.players
    board = _group_base(players).copy()
    over = pub.result is not None
    draw = ImageDraw.Draw(board)
    draw.rectangle((0, 0, _W, _HEADER_H), fill=_GOLD if over else _FELT_DARK)
    draw.rectangle((0, _HEADER_H, _W, _HEADER_H + _SUBHEADER_H), fill=_FELT_DARK)
    draw.line((0, _HEADER_H, _W, _HEADER_H), fill=_FELT_LINE, width=1)
    centres = len(pub.centre)
    _text(board, (_centre_x(centres) + 8 + _CENTRE_W // 2, _LABEL_Y), "Stock", _GROUP_TEXT,
          _MUTED, anchor="mt")
    top_box = _moves_box(centres)
    moves_box = _group_cell(3) if players == 3 else top_box
    for box in {top_box, moves_box}:
        draw.rounded_rectangle(box, 12, fill=_FELT_DARK)
    _text(board, (moves_box[0] + 14, moves_box[1] + 8), "Last moves", _GROUP_TEXT, _MUTED,
          anchor="lt")
    _draw_group_header(board, pub, info)
    _draw_centre_row(board, pub, info, least=_GROUP_TEXT, moves_box=moves_box)
    for seat in range(players):
        box = _group_cell(seat)
        if _seat_lit(pub, seat):
            _draw_group_panel_base(board, box, lit=True)
        _draw_group_panel(board, pub, info, seat, box)
    if players == 3:
        _draw_order_of_play(board, pub, info, top_box)
    return board


def _names(info: BoardInfo, players: int) -> tuple[str, ...]:
    """A name per seat (``Seat 3`` for one the caller did not name)."""
    return tuple(info.names[s] if s < len(info.names) else f"Seat {s + 1}"
                 for s in range(players))


def _points(info: BoardInfo, seat: int) -> int:
    return info.match_scores[seat] if seat < len(info.match_scores) else 0


def _draw_group_header(board: Image.Image, pub: View, info: BoardInfo) -> None:
    names = _names(info, pub.players)
    if pub.result is not None:
        short = tuple(_fit(_printable(n, True), 30, 300) for n in names)
        text, ink = f"Game over: {result_line(pub.result, short)}", _GOLD_INK
    else:
        text, ink = f"{names[pub.turn]} to play · turn {pub.turn_number + 1}", _TEXT
    _text(board, (_MARGIN + 4, _HEADER_H // 2), text, 30, ink, anchor="lm",
          width=_W - 2 * _MARGIN - 8)
    line = f"{pub.rules.name.title()} · {pub.players} players · game {info.game_number}"
    if info.match_target is not None:
        line += f" · match to {info.match_target} points"
    _text(board, (_MARGIN + 4, _HEADER_H + _SUBHEADER_H // 2), line, _GROUP_TEXT, _MUTED,
          anchor="lm", width=_W - 2 * _MARGIN - 8)


def _seat_tag(pub: View, seat: int) -> str:
    """The word at the right of a seat's name: who plays, who won, who left, each margin."""
    result = pub.result
    if result is None:
        if seat in pub.absent:
            return "AWAY"
        if seat in pub.left:
            return "LEFT"
        return "TO PLAY" if pub.turn == seat else ""
    if result.winner == seat:
        return f"WINNER +{result.score}"
    margin = result.margins[seat] if seat < len(result.margins) else None
    if seat in pub.absent:
        return "AWAY"
    if seat in result.left:
        return f"LEFT −{margin}" if margin is not None else "LEFT"
    if margin is not None:
        return f"−{margin}"
    return "TIE"


def _draw_group_panel(board: Image.Image, pub: View, info: BoardInfo, seat: int,
                      box: tuple[int, int, int, int]) -> None:
    x, y0, x1, _ = box
    w = x1 - x
    lit = _seat_lit(pub, seat)
    gone = seat in pub.left or seat in pub.absent
    ink = _GOLD_INK if lit else (_MUTED if gone else _TEXT)
    tag = _seat_tag(pub, seat)
    tag_w = round(_font(_GROUP_TEXT).getlength(tag)) if tag else 0
    if tag:
        _text(board, (x1 - 16, y0 + _GROUP_HEAD // 2), tag, _GROUP_TEXT, ink, anchor="rm")
    on_turn = pub.result is None and pub.turn == seat
    name = ("▶ " if on_turn else "") + _names(info, pub.players)[seat]
    _text(board, (x + 16, y0 + _GROUP_HEAD // 2), name, 30, ink, anchor="lm",
          width=w - 48 - tag_w)

    # The pay-off pile and its count, the hand, the match points: a column on the left.
    cx = x + 14
    mid = cx + _CENTRE_W // 2
    card_y = y0 + _GROUP_CARD_TOP
    payoff = pub.payoff_tops[seat]
    if payoff is None:
        _empty_slot(board, cx, card_y, _CENTRE_W, _CENTRE_H, ("empty",), _GROUP_TEXT)
    else:
        _paste_card(board, payoff, cx, card_y, _CENTRE_W, _CENTRE_H)
    y = card_y + _CENTRE_H + 8
    _text(board, (mid, y), f"{pub.payoff_counts[seat]} left", 34, _NEEDS, anchor="mt",
          width=_CENTRE_W + 30)
    y += 58
    n = pub.hand_sizes[seat]
    bw, bh, step = 42, 58, 17
    span = bw + step * (n - 1) if n else bw
    bx = cx + (_CENTRE_W - span) // 2
    for k in range(n):
        _back_tile(bw, bh).paste(board, bx + k * step, y)
    if not n:
        ImageDraw.Draw(board).rounded_rectangle((bx, y, bx + bw, y + bh), 5, outline=_SLOT,
                                                width=2)
    y += bh + 8
    _text(board, (mid, y), f"hand {n}", _GROUP_TEXT, _TEXT, anchor="mt")
    y += 42
    if gone:
        for line in (("not dealt", "in") if seat in pub.absent else ("left the", "game")):
            _text(board, (mid, y), line, _GROUP_TEXT, _MUTED, anchor="mt")
            y += 32
    elif info.match_target is not None or any(info.match_scores):
        _text(board, (mid, y), _plural(_points(info, seat), "pt"), _GROUP_TEXT, _MUTED,
              anchor="mt")

    # The side stacks, fanned down so that every card shows its corner.
    sx = cx + _CENTRE_W + 18
    gap = (x1 - 14 - sx - 4 * _SIDE_W) // 3
    label_y = y0 + _GROUP_HEAD + 10
    for s, pile in enumerate(pub.sides[seat]):
        colx = sx + s * (_SIDE_W + gap)
        label = f"S{s + 1}" + (f" · {len(pile)}" if len(pile) > 1 else "")
        _text(board, (colx + _SIDE_W // 2, label_y), label, _GROUP_TEXT, _MUTED, anchor="mt")
        _draw_fan(board, pile, colx, card_y, card_y + _GROUP_FAN_HEIGHT,
                  pub.joker_ranks(seat, s), least=_GROUP_TEXT)


def _draw_order_of_play(board: Image.Image, pub: View, info: BoardInfo,
                        box: tuple[int, int, int, int]) -> None:
    """The fourth cell of a table of three: who plays after whom, each pay-off count, and once
    the game is over each seat's place."""
    x0, y0, x1, _ = box
    names = _names(info, pub.players)
    width = x1 - x0 - 28
    result = pub.result
    y = y0 + 8
    rows: list[tuple[str, RGB, bool]] = []
    if result is None:
        title = "Order of play"
        seated = [s for s in range(pub.players) if s not in pub.left and s not in pub.absent]
        start = seated.index(pub.turn) if pub.turn in seated else 0
        for k, seat in enumerate(seated[start:] + seated[:start]):
            mark = "▶ " if k == 0 else f"{k + 1}. "
            rows.append((f"{mark}{names[seat]} · {pub.payoff_counts[seat]} left",
                         _TEXT if k == 0 else _MUTED, k == 0))
        for seat in pub.left:
            rows.append((f"{names[seat]} left the game", _MUTED, False))
    else:
        title = "Result"
        places = result.ranks
        order = sorted((s for s in range(pub.players) if places[s] is not None),
                       key=lambda s: (places[s] or 0, s))
        for seat in order:
            margin = result.margins[seat]
            if result.winner == seat:
                what = f"wins {_plural(result.score, 'point')}"
            elif margin is None:
                what = "tie"
            else:
                what = f"margin {margin}" + (" · left" if seat in result.left else "")
            rows.append((f"{places[seat]}. {names[seat]} · {what}",
                         _TEXT if result.winner == seat else _MUTED, result.winner == seat))
    _text(board, (x0 + 14, y), title, _GROUP_TEXT, _MUTED, anchor="lt")
    y += 42
    # Three rows of one line each fit the box (names are cut short to keep them on one line).
    for text, fill, bold in rows[:4]:
        _text(board, (x0 + 14, y), text, 28, fill, anchor="lt", bold=bold, width=width)
        y += 44


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
    image = Image.new("RGB", hand_size(view.players), _FELT)
    mine = view.my_turn
    hints = _hints(view.legal_moves, view.compulsory) if mine else {}

    # Header: whose hand, and whether it is this player's turn.
    ImageDraw.Draw(image).rectangle((0, 0, _HW, 58), fill=_GOLD if mine else _FELT_DARK)
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
    ImageDraw.Draw(image).line((_MARGIN, row_y - 18, _HW - _MARGIN, row_y - 18), fill=_FELT_LINE,
                               width=2)
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
    draw.line((_MARGIN, top, _HW - _MARGIN, top), fill=_FELT_LINE, width=2)
    _text(image, (_MARGIN + 20, top + 14), "Next to play, in order", 22, _MUTED, anchor="lt")
    _text(image, (340 + _OPP_W // 2, top + 14), "Pay-off", 22, _MUTED, anchor="mt")
    _text(image, (440, top + 14), "Side stacks: the top card of each", 22, _MUTED, anchor="lt")
    for k, opponent in enumerate(view.opponents):
        y = _OPP_TOP + k * _OPP_ROW
        if k:
            draw.line((_MARGIN + 20, y - 8, _HW - _MARGIN - 20, y - 8), fill=_FELT_DARK, width=2)
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
        ImageDraw.Draw(image).rounded_rectangle(
            (x - ring, y - ring, x + w + ring - 1, y + h + ring - 1), _radius(w) + ring,
            fill=colour)
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
    if _font(size).getlength(whole) <= width:
        return (whole,), size
    while size > 12 and max(_font(size).getlength(p) for p in parts) > width:
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
