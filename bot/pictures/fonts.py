"""The bundled fonts and text on a picture: each string rasterised once per size, cut short
to a width, cleaned of characters the fonts cannot draw.

The fonts (FreeType faces) and the caches of drawn cards and text are shared; pictures may be
drawn from several threads, so one is drawn at a time (``_DRAWING``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

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
    return _font(size, bold).getlength(text)


@lru_cache(maxsize=4096)
def _fit_to_width(text: str, size: int, width: int, bold: bool) -> str:
    font = _font(size, bold)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


_LINES_KEPT_BYTES = 4 << 20
"""Bytes of the masks of long texts ``_text_mask`` keeps (a byte a pixel): the lines of last
moves, names and headers, each on the boards of several moves of its game while few games are
played. (With a thousand games a line comes back after a thousand other boards, too late for
any bound worth its memory: it is drawn again.)"""
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
    font = _font(size, bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
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
