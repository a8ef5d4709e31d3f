"""The bundled fonts and text on a picture: each glyph rasterised once per size and strings
laid out from the glyphs as Pillow lays them out (the same pixels), cut short to a width,
cleaned of characters the fonts cannot draw.

The fonts (FreeType faces) and the caches of drawn cards and text are shared; pictures may be
drawn from several threads, so one is drawn at a time (``_DRAWING``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from .picture_palette import RGB, Kept, _blend

_ASSETS = Path(__file__).resolve().parent / "assets"

# The fonts (FreeType faces) and the caches of drawn cards and text are shared; pictures may be
# drawn from several threads (the history commands still draw in a thread of the bot), so one
# is drawn at a time. PNG encoding, which releases the GIL, runs outside the lock.
_DRAWING = threading.Lock()


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


@dataclass(slots=True)
class DrawnText:
    """What was drawn as text while ``drawn_text()`` was open: each string with its font size
    in pixels (the em size FreeType draws at), and the strings cut short to fit a width."""

    texts: list[tuple[str, int]] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)

    @property
    def sizes(self) -> list[int]:
        """The font size of every text drawn."""
        return [size for _, size in self.texts]


_drawn: DrawnText | None = None


@contextmanager
def drawn_text() -> Iterator[DrawnText]:
    """Records every text the pictures draw inside the block, and what had to be cut short.

    The font sizes a picture really uses, so that a test can tell how tall its text shows on a
    phone. Text that went into a cached part of a picture (a board's unchanging labels) is
    drawn once per process: ``clear_caches`` of the picture modules first to see it."""
    global _drawn
    outer, _drawn = _drawn, DrawnText()
    record = _drawn
    try:
        yield record
    finally:
        _drawn = outer


def _record(text: str, size: int) -> None:
    if _drawn is not None:
        _drawn.texts.append((text, size))


def _drawn_cut() -> list[str] | None:
    """Where ``drawn_text`` records the texts cut short, while it is open."""
    return _drawn.cut if _drawn is not None else None


def _fit(text: str, size: int, width: int, bold: bool = True) -> str:
    """``text`` cut short with an ellipsis so that it is at most ``width`` pixels wide."""
    fitted = _fit_to_width(text, size, width, bold)
    if _drawn is not None and fitted != text:
        _drawn.cut.append(text)
    return fitted


@lru_cache(maxsize=256)
def _length(text: str, size: int, bold: bool = True) -> float:
    """The width of ``text`` in pixels (a word a board shows again and again: measured once)."""
    return _pen(text, size, bold) / 64


@lru_cache(maxsize=4096)
def _fit_to_width(text: str, size: int, width: int, bold: bool) -> str:
    if _pen(text, size, bold) / 64 <= width:
        return text
    while text and _pen(text + "…", size, bold) / 64 > width:
        text = text[:-1]
    return text.rstrip() + "…"


# ----------------------------------------------------------------------------- glyphs
#
# FreeType draws a string (Pillow's ``Font.render``, basic layout) by loading every glyph three
# times, hinting and rasterising it, some 5 us a glyph: 0.2 ms for a line of last moves, most
# of a board's text under a thousand games, whose lines and names are new on each board. The
# same pixels come from each glyph drawn once and laid out as Pillow lays it out:
#
# - a glyph's pen advance is its hinted advance (whole pixels for these fonts), plus the
#   kerning of the pair it starts (Pillow adds the pair's kerning in pixels as 1/64 px: "AV"
#   is 1/32 px narrower than "A" and "V"); the glyph is drawn at the pen rounded to a pixel;
# - a glyph's bitmap does not depend on where it is drawn (it is rendered at the origin);
# - overlapping glyphs are blended as a paste of white through the glyph does (the same
#   rounding: ``out + (255 - out) * glyph / 255``);
# - the mask spans the glyphs' boxes and the pen's line from 0 to its end; the anchor moves it.
#
# A string with a glyph whose advance is not whole pixels (none in the bundled fonts) is left
# to Pillow. ``tests/bot/test_glyph_text.py`` compares the two on every character and size the
# pictures draw.

_GLYPHS_KEPT_BYTES = 1 << 20
"""Bytes of glyphs kept, all fonts and sizes together (each its bitmap, some 0.2-1 KB, and its
metrics, some 200 bytes): the pictures' texts use some 500 glyphs, 0.3 MB. Past it (names in
many alphabets), every glyph is forgotten and measured again as it comes."""
_GLYPH_OVERHEAD = 200
_PAIRS_KEPT = 16384
"""Kerning of pairs of characters kept, all fonts and sizes together (some 100 bytes each):
some 3,500 under a thousand games. Past it, every pair is forgotten."""
_kept = [0, 0]
"""The bytes of glyphs and the pairs kept now."""


@dataclass(frozen=True, slots=True)
class _Glyph:
    advance: int
    """The pen's advance, in 1/64 px."""
    mask: Any
    """The glyph's coverage (Pillow's core image, ``L``), or ``None`` for an empty one."""
    left: int
    top: int
    right: int
    bottom: int
    """The box of the glyph with its pen line (``getbbox`` at anchor ``ls``)."""


@dataclass(slots=True)
class _Face:
    """A font at a size, and what has been measured of it."""

    font: ImageFont.FreeTypeFont
    glyphs: dict[str, _Glyph | None] = field(default_factory=dict)
    """Each character's glyph, ``None`` if its advance is not whole pixels."""
    pairs: dict[str, int] = field(default_factory=dict)
    """The kerning of each pair of characters in 1/64 px, as Pillow's layout adds it."""
    anchors: dict[str, int] = field(default_factory=dict)
    """How far above the baseline each vertical anchor but ``t`` and ``b`` is."""

    def glyph(self, char: str) -> _Glyph | None:
        glyph = self.glyphs.get(char, _UNSEEN)
        if glyph is not _UNSEEN:
            return glyph  # type: ignore[return-value]
        font = self.font
        advance = round(font.getlength(char) * 64)
        left, top, right, bottom = (int(v) for v in font.getbbox(char, anchor="ls"))
        found: _Glyph | None = None
        if advance > 0 and advance % 64 == 0:
            mask = font.getmask2(char, "L", anchor="ls")[0] if right > left and \
                bottom > top else None
            found = _Glyph(advance, mask, left, top, right, bottom)
        size = _GLYPH_OVERHEAD + (right - left) * (bottom - top)
        if _kept[0] + size > _GLYPHS_KEPT_BYTES:
            _forget(glyphs=True)
        _kept[0] += size
        self.glyphs[char] = found
        return found

    def kerning(self, pair: str) -> int:
        found = self.pairs.get(pair)
        if found is None:
            font = self.font
            found = round(font.getlength(pair) * 64) - round(font.getlength(pair[0]) * 64) - \
                round(font.getlength(pair[1]) * 64)
            if _kept[1] >= _PAIRS_KEPT:
                _forget(glyphs=False)
            _kept[1] += 1
            self.pairs[pair] = found
        return found

    def pen(self, text: str) -> int:
        """Where the pen ends after ``text``, in 1/64 px: ``getlength(text) * 64``."""
        pen = 0
        glyphs, pairs = self.glyphs, self.pairs
        previous = ""
        for char in text:
            glyph = glyphs.get(char) or self.glyph(char)
            if previous:
                kern = pairs.get(previous + char)
                pen += kern if kern is not None else self.kerning(previous + char)
            pen += glyph.advance if glyph is not None else round(
                self.font.getlength(char) * 64)
            previous = char
        return pen

    def anchor_height(self, anchor: str) -> int:
        found = self.anchors.get(anchor)
        if found is None:
            found = int(self.font.getbbox("x", anchor="l" + anchor)[1]) - \
                int(self.font.getbbox("x", anchor="ls")[1])
            self.anchors[anchor] = found
        return found


_UNSEEN = object()


_faces: dict[tuple[int, bool], _Face] = {}
"""A face per font and size the pictures draw text in (the sizes are the code's, a few dozen
at most; what each keeps is bounded by ``_GLYPHS_KEPT_BYTES`` and ``_PAIRS_KEPT``)."""


def _face(size: int, bold: bool) -> _Face:
    found = _faces.get((size, bold))
    if found is None:
        found = _faces[(size, bold)] = _Face(_font(size, bold))
    return found


def _forget(*, glyphs: bool) -> None:
    """Forget the glyphs (or the pairs) of every font and size kept (``_GLYPHS_KEPT_BYTES``)."""
    for face in _faces.values():
        (face.glyphs if glyphs else face.pairs).clear()
    _kept[0 if glyphs else 1] = 0


def _pen(text: str, size: int, bold: bool = True) -> int:
    """The length of ``text`` in 1/64 px, as ``getlength`` measures it (``* 64``)."""
    return _face(size, bold).pen(text)


def _laid_out(text: str, size: int, bold: bool
              ) -> tuple[Image.Image, int, int, int, int] | None:
    """``text`` drawn from its glyphs: its mask, the offsets of the mask's top left corner and
    of its bottom from the pen's start on the baseline, and where the pen ends (1/64 px);
    ``None`` for a string
    Pillow must draw (a glyph whose advance is not whole pixels)."""
    face = _face(size, bold)
    glyphs, pairs = face.glyphs, face.pairs
    placed: list[tuple[int, _Glyph]] = []
    pen = left = top = bottom = 0
    right = 0
    previous = ""
    for char in text:
        glyph = glyphs.get(char) or face.glyph(char)
        if glyph is None:
            return None
        if previous:
            kern = pairs.get(previous + char)
            pen += kern if kern is not None else face.kerning(previous + char)
        x = (pen + 32) >> 6
        if x + glyph.left < left:
            left = x + glyph.left
        if x + glyph.right > right:
            right = x + glyph.right
        if glyph.top < top:
            top = glyph.top
        if glyph.bottom > bottom:
            bottom = glyph.bottom
        if glyph.mask is not None:
            placed.append((x, glyph))
        pen += glyph.advance
        previous = char
    end = (pen + 32) >> 6
    if end > right:
        right = end
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    core = mask.im
    for x, glyph in placed:
        x0, y0 = x + glyph.left - left, glyph.top - top
        core.paste(255, (x0, y0, x0 + glyph.right - glyph.left, y0 + glyph.bottom - glyph.top),
                   glyph.mask)
    return mask, left, top, bottom, pen


def _anchored(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    """The mask of ``text`` and the offset of its top left corner from the anchor point, as
    ``ImageDraw.text`` draws it (from the glyphs where it can)."""
    laid = _laid_out(text, size, bold)
    if laid is None:
        font = _font(size, bold)
        left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
        return mask, left, top
    mask, left, top, bottom, pen = laid
    horizontal, vertical = anchor[0], anchor[1]
    if horizontal == "m":
        left -= ((pen // 2) + 32) >> 6
    elif horizontal == "r":
        left -= (pen + 32) >> 6
    if vertical == "t":
        top = 0
    elif vertical == "b":
        top -= bottom
    else:
        top += _face(size, bold).anchor_height(vertical)
    return mask, left, top


_LINES_KEPT_BYTES = 2 << 20
"""Bytes of the masks of long texts ``_text_mask`` keeps (a byte a pixel): the lines of last
moves, names and headers, each on the boards of several moves of its game while few games are
played. (With a thousand games a line comes back after a thousand other boards, too late for
any bound worth its memory: it is drawn again.) Laid out from the glyphs, a line costs some
30 us to draw again (0.25 ms when FreeType drew it): half the 4 MB it had before, which leaves
room for the glyphs and the kerning pairs kept (``_GLYPHS_KEPT_BYTES``)."""
_LABELS_KEPT_BYTES = 2 << 20
"""Bytes of the masks of short texts kept apart (labels, counts: some 2 KB each), so that
the lines, mostly new on each board, do not push out the labels every board shows."""
_LABEL_PIXELS = 4096
"""The largest mask that is a label's, in pixels."""
_MASK_OVERHEAD = 600
"""Bytes a kept mask takes besides its pixels (its ``Image``, its key), for the budgets."""
_Mask = tuple[Image.Image, int, int]
_lines: Kept[tuple[str, int, bool, str], _Mask] = Kept(_LINES_KEPT_BYTES)
_labels: Kept[tuple[str, int, bool, str], _Mask] = Kept(_LABELS_KEPT_BYTES)


def _text_mask(text: str, size: int, bold: bool, anchor: str) -> _Mask:
    """The mask of ``text`` drawn in white on black (``L``) and the offset of its top left
    corner from the anchor point."""
    key = (text, size, bold, anchor)
    found = _labels.get(key) or _lines.get(key)
    if found is not None:
        return found
    mask, left, top = _anchored(text, size, bold, anchor)
    pixels = mask.width * mask.height
    kept = _labels if pixels <= _LABEL_PIXELS else _lines
    kept.put(key, (mask, left, top), pixels + _MASK_OVERHEAD)
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
    if text.isascii() and text.isprintable():  # every character from " " to "~"
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
    if _drawn is not None:
        _drawn.texts.append((text, size))
    mask, left, top = _text_mask(text, size, bold, anchor)
    x, y = round(xy[0]) + left, round(xy[1]) + top
    box = (x, y, x + mask.width, y + mask.height)
    if image.mode == "P":
        # A picture drawn in the palette: blended in RGB on the pixels under the text, once
        # per string, colour and background (``picture_palette._blend``).
        _blend(image, box, ("text", text, size, bold, anchor, fill),
               lambda rgb: rgb.paste(fill, (0, 0, mask.width, mask.height), mask),
               ink=(fill, mask))
    else:
        image.paste(fill, box, mask)
