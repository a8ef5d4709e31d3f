"""Cards drawn once per kind and size into cached tiles, card backs, empty slots, and the fans
of a side stack (every card of it shows its corner, rule 8)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine import Card
from engine.cards import rank_text

from .fonts import _cap_height, _drawn_cut, _font, _text
from .picture_palette import (
    _BACK,
    _BACK_LINE,
    _BLACK,
    _CARD_EDGE,
    _MUTED,
    _PALETTE_BYTES,
    _PURPLE,
    _PURPLE_TINT,
    _RED,
    _SLOT,
    _TEXT,
    _WHITE,
    RGB,
    Kept,
    _blend,
    _ink,
    _lean,
    _mapped,
    _one_index,
)

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
    key: Hashable = None
    """What the tile is (the arguments it was drawn with): names its blends on a picture drawn
    in the palette (``picture_palette._blend``)."""
    middle_in_palette: Image.Image | None = None
    """The middle as a picture drawn in the palette shows it (mapped again, as the whole
    picture was mapped before it was drawn in the palette: mapping twice can move a pixel to a
    neighbouring palette entry); ``None`` where that is the middle itself, as for most cards."""

    @classmethod
    def cut(cls, face: Image.Image, rows: int | None = None, key: Hashable = None) -> _Tile:
        """Cut a card; with ``rows``, keep only its top rows (for a card that stays covered).

        The pieces are kept mapped to the pictures' palette, a byte a pixel instead of three:
        the finished picture is mapped to it anyway, so only the blended rims of the corners
        can come out differently (measured on 120 boards and hands: 0.05% of the pixels, by
        at most 19 of 255). On a picture drawn in RGB, pasting converts a piece back; on one
        drawn in the palette (boards and hands), the middle is copied as it is and only the
        rounded ends are blended (``picture_palette._blend``)."""
        w, h = face.size
        mask = _masks(w, h)[0]
        r = _radius(w) + 1
        end = h - r if rows is None else min(h - r, rows)
        # Mapped whole, then cut: mapping is a pixel at a time, and each call costs as much
        # again for setting up its look-up.
        mapped = _mapped(face)
        middle = mapped.crop((0, r, w, end))
        again: Image.Image | None = _mapped(mapped.convert("RGB")).crop((0, r, w, end))
        if again is not None and again.tobytes() == middle.tobytes():
            again = None  # most cards map back to themselves: one middle is kept, not two
        pieces = (mapped.crop((0, 0, w, r)), middle, mapped.crop((0, h - r, w, h)), again)
        for piece in pieces:
            if piece is not None:
                _lean(piece)
        return cls(pieces[0], mask.crop((0, 0, w, r)), pieces[1], pieces[2],
                   mask.crop((0, h - r, w, h)), key, pieces[3])

    def rows(self, start: int, count: int) -> bytes:
        """The indices of ``count`` rows of the middle from row ``start`` of the card, as a
        picture drawn in the palette has them (remembered: the next card of a fan lands on
        them, and they name what it lands on)."""
        found = _ROWS.get((self.key, start, count))
        if found is None:
            top = self.top.height
            middle = self.middle_in_palette or self.middle
            found = middle.crop((0, start - top, middle.width, start - top + count)).tobytes()
            if len(_ROWS) >= _ROWS_KEPT:
                _ROWS.clear()
            if self.key is not None:
                _ROWS[(self.key, start, count)] = found
        return found

    def paste(self, image: Image.Image, x: int, y: int, *, covered: bool = False,
              over: Hashable = None) -> None:
        """Draw the card with its top left corner at ``(x, y)``; ``covered``: leave out its
        bottom (the next card of a fan covers it); ``over``: what the pixels under its top
        rows are a function of, if the caller knows (``picture_palette._blend``)."""
        top_h, middle_h = self.top.height, self.middle.height
        if image.mode != "P":
            image.paste(self.top, (x, y), self.top_mask)
            image.paste(self.middle, (x, y + top_h))
            if not covered:
                image.paste(self.bottom, (x, y + top_h + middle_h), self.bottom_mask)
            return
        # A picture drawn in the palette: the middle is a copy, the rounded ends are blended
        # once per background they land on.
        w = self.top.width
        key = self.key if self.key is not None else (self.top.tobytes(), self.middle.tobytes())
        top, top_mask = self.top, self.top_mask
        _blend(image, (x, y, x + w, y + top_h), ("top", key),
               lambda rgb: rgb.paste(top, (0, 0), top_mask), over)
        middle = self.middle_in_palette or self.middle
        image.im.paste(middle.im, (x, y + top_h, x + w, y + top_h + middle_h))
        if not covered:
            bottom, bottom_mask = self.bottom, self.bottom_mask
            y1 = y + top_h + middle_h
            _blend(image, (x, y1, x + w, y1 + bottom.height), ("bottom", key),
                   lambda rgb: rgb.paste(bottom, (0, 0), bottom_mask))


_ROWS: dict[tuple[Hashable, int, int], bytes] = {}
_ROWS_KEPT = 8192
"""Rows of cards kept by ``_Tile.rows`` (a few hundred bytes each)."""


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
        return _Tile.cut(tile, rows=_FAN_MAX_STEP + 2 * _radius(w) + 2,
                         key=("card", card, w, h, corner, face, as_rank, stands_for))
    _draw_face(draw, card, w, h, pad + _cap_height(corner) + 4, as_rank, stands_for)
    return _Tile.cut(tile, key=("card", card, w, h, corner, face, as_rank, stands_for))


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
    return _Tile.cut(tile, key=("back", w, h))


def _draw_backs(image: Image.Image, x: int, y: int, n: int, w: int, h: int, step: int) -> None:
    """``n`` card backs in a row from ``(x, y)``, each ``step`` px right of the one before (a
    hand seen from across the table).

    On a picture drawn in the palette they are blended together in RGB, as one drawing: the
    rounded corners of each back land on the back before it."""
    back = _back_tile(w, h)
    if image.mode != "P" or n < 2:
        for k in range(n):
            back.paste(image, x + k * step, y)
        return

    def draw(rgb: Image.Image) -> None:
        for k in range(n):
            back.paste(rgb, k * step, 0)

    _blend(image, (x, y, x + w + step * (n - 1), y + h), ("backs", n, w, h, step), draw)


@lru_cache(maxsize=8)
def _plain_tile(w: int, h: int) -> _Tile:
    return _Tile.cut(_blank(w, h, _WHITE), key=("plain", w, h))


def _paste_card(image: Image.Image, card: Card, x: int, y: int, w: int, h: int, *,
                corner: int | None = None, face: bool = True, as_rank: int = 0,
                stands_for: str = "", over: Hashable = None) -> _Tile:
    """Draw ``card`` at ``(x, y)``, ``w`` by ``h`` (see ``_card_tile``); the tile drawn."""
    corner = corner if corner is not None else _card_sizes(h)[0]
    tile = _card_tile(card, w, h, corner, face, as_rank, stands_for)
    tile.paste(image, x, y, covered=not face, over=over)
    return tile


@lru_cache(maxsize=16)
def _rounded_parts(w: int, h: int, radius: int) -> tuple[int, tuple[Any, ...]] | None:
    """The pixels a filled rounded rectangle ``w`` by ``h`` covers, as ``ImageDraw`` draws it:
    the side ``c`` of the squares at its corners outside which it covers every pixel, and its
    shape in each corner (top left, top right, bottom left, bottom right: Pillow's core
    images, 255 where it covers); ``None`` if no such squares fit."""
    shape = Image.new("L", (w, h), 0)
    ImageDraw.Draw(shape).rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=255)
    c = radius + 1
    if 2 * c > w or 2 * c > h:
        return None
    corners = ((0, 0), (w - c, 0), (0, h - c), (w - c, h - c))
    rest = shape.copy()
    for cx, cy in corners:
        rest.paste(255, (cx, cy, cx + c, cy + c))
    if rest.getextrema() != (255, 255):
        return None
    return c, tuple(shape.crop((cx, cy, cx + c, cy + c)).im for cx, cy in corners)


def _fill_rounded(image: Image.Image, box: tuple[int, int, int, int], radius: int,
                  colour: RGB) -> None:
    """``ImageDraw.rounded_rectangle(box, radius, fill=colour)`` (``box`` inclusive). On a
    picture drawn in the palette, the same pixels filled as rectangles and, in the corners,
    through the shape drawn once per size (the corners are drawn as pie slices, some 20 us
    each time)."""
    x0, y0, x1, y1 = box
    parts = _rounded_parts(x1 - x0 + 1, y1 - y0 + 1, radius) if image.mode == "P" else None
    if parts is None:
        ImageDraw.Draw(image).rounded_rectangle(box, radius, fill=_ink(image, colour))
        return
    c, corners = parts
    index = _ink(image, colour)
    core = image.im
    x1, y1 = x1 + 1, y1 + 1
    core.paste(index, (x0 + c, y0, x1 - c, y1))
    core.paste(index, (x0, y0 + c, x0 + c, y1 - c))
    core.paste(index, (x1 - c, y0 + c, x1, y1 - c))
    for (cx, cy), corner in zip(((x0, y0), (x1 - c, y0), (x0, y1 - c), (x1 - c, y1 - c)),
                                corners, strict=True):
        core.paste(index, (cx, cy, cx + c, cy + c), corner)


_SLOTS_KEPT_BYTES = 1 << 20
"""Bytes of empty slots ``_empty_slot`` keeps drawn (13-43 KB each: a few dozen kinds)."""
_slots: Kept[tuple[int, int, tuple[str, ...], int, bool, int, int, int], Any] = \
    Kept(_SLOTS_KEPT_BYTES)


def _empty_slot(image: Image.Image, x: int, y: int, w: int, h: int, lines: Sequence[str],
                size: int, bold: bool = True) -> None:
    """An empty slot: its outline and its words (``lines``, ``size`` px) in the middle.

    On a picture drawn in the palette, a slot on one colour (as every slot is) is drawn once
    per kind and colour, and copied: some 0.1 ms each, nine a picture. Its words are placed at
    half pixels, which round to even: the copy keeps the parity of ``x`` and ``y``. (While
    ``fonts.drawn_text`` records, it is drawn, so that its words are recorded.)"""
    if image.mode != "P" or _drawn_cut() is not None:
        _draw_empty_slot(image, x, y, w, h, lines, size, bold)
        return
    box = (x, y, x + w, y + h)
    low = _one_index(image, box)
    if low is None:
        _draw_empty_slot(image, x, y, w, h, lines, size, bold)
        return
    px, py = x % 2, y % 2
    key = (w, h, tuple(lines), size, bold, low, px, py)
    found = _slots.get(key)
    if found is None:
        slot = Image.new("P", (w + px, h + py), low)
        slot.putpalette(_PALETTE_BYTES)
        _draw_empty_slot(slot, px, py, w, h, lines, size, bold)
        found = slot.im.crop((px, py, px + w, py + h))
        _slots.put(key, found, w * h)
    image.im.paste(found, box)


def _draw_empty_slot(image: Image.Image, x: int, y: int, w: int, h: int,
                     lines: Sequence[str], size: int, bold: bool) -> None:
    ImageDraw.Draw(image).rounded_rectangle((x, y, x + w - 1, y + h - 1), _radius(w),
                                            outline=_ink(image, _SLOT), width=3)
    line_h = round(size * 1.25)
    y0 = y + h / 2 - line_h * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        _text(image, (x + w / 2, y0 + i * line_h), line, size, _SLOT, anchor="mm", width=w - 10,
              bold=bold)
_CENTRE_W, _CENTRE_H = 120, 168
_SIDE_W, _SIDE_H = 96, 134
_FAN_MAX_STEP = 44
_CORNER_MAX = 26
_CORNER_MIN = 10


def _fan_step(n: int, height: int) -> float:
    """The offset between the cards of a fan of ``n`` cards that must fit in ``height`` pixels."""
    if n <= 1:
        return 0.0
    return min(_FAN_MAX_STEP, (height - _SIDE_H) / (n - 1))


@lru_cache(maxsize=1)
def _full_corner_step() -> int:
    """The least step of a fan at which every corner shows at full size (``_CORNER_MAX``)."""
    return _corner_pad(_CORNER_MAX) + _cap_height(_CORNER_MAX) + 3


@lru_cache(maxsize=256)
def _corner_for_step(step: int) -> int:
    """The biggest corner font whose rank and suit show in full in a strip ``step`` pixels high."""
    size = _CORNER_MAX
    # The suits reach a little below the baseline of the digits: 3 px to spare.
    while size > _CORNER_MIN and _corner_pad(size) + _cap_height(size) + 3 > step:
        size -= 1
    return size


def _draw_fan(board: Image.Image, pile: Sequence[Card], x: int, top: int, bottom: int,
              jokers: Sequence[tuple[int, ...]], text_size: int) -> None:
    """A side stack fanned down from ``top``, every card's corner showing, the whole fan above
    ``bottom``; an empty one as an empty slot that says so in ``text_size`` px."""
    if not pile:
        # "none" rather than "empty": at the boards' smallest text (8 px on a phone) it is the
        # word that fits a side stack's slot.
        _empty_slot(board, x, top, _SIDE_W, _SIDE_H, ("none",), text_size, bold=False)
        return
    n = len(pile)
    step = _fan_step(n, bottom - top)
    corner = _corner_for_step(int(step)) if n > 1 else _CORNER_MAX
    below: bytes | None = None
    for i, card in enumerate(pile):
        last = i == n - 1
        stands_for = _ranks_text(jokers[i]) if i < len(jokers) and jokers[i] else ""
        y = top + round(i * step)
        # Where the top of a card lands on the middle of the card before it, it lands on
        # pixels of that card alone, at that offset: those pixels, taken from the card.
        tile = _paste_card(board, card, x, y, _SIDE_W, _SIDE_H,
                           corner=_CORNER_MAX if last else corner, face=last,
                           stands_for=stands_for, over=below)
        below = None
        if not last and round((i + 1) * step) - round(i * step) >= tile.top.height:
            below = tile.rows(round((i + 1) * step) - round(i * step), tile.top.height)


def _draw_side_label(image: Image.Image, x: int, y: int, s: int, pile_size: int,
                     size: int) -> None:
    """Above the side stack ``s`` whose slot starts at ``x``: ``S2``, and the count of a stack
    of several cards at the slot's right edge (``S2 · 17`` in one string, at the boards'
    smallest text, would reach the next stack's label)."""
    if pile_size > 1:
        _text(image, (x, y), f"S{s + 1}", size, _MUTED, anchor="lt", bold=False)
        _text(image, (x + _SIDE_W, y), str(pile_size), size, _TEXT, anchor="rt")
    else:
        _text(image, (x + _SIDE_W // 2, y), f"S{s + 1}", size, _MUTED, anchor="mt",
              bold=False)


def _ranks_text(ranks: Sequence[int]) -> str:
    """``7``, ``7/8``, or a run as ``2–K`` (as the board's text says it)."""
    if len(ranks) > 2 and list(ranks) == list(range(ranks[0], ranks[-1] + 1)):
        return f"{rank_text(ranks[0])}–{rank_text(ranks[-1])}"
    return "/".join(rank_text(r) for r in ranks)
