"""The colours of the pictures, the one palette they are mapped to, and the PNG writer.

Every picture is mapped to one fixed palette (no dithering) and saved as an 8-bit PNG, which is
faster and several times smaller than a truecolour PNG of the same picture."""

from __future__ import annotations

import struct
import zlib

from isal import isal_zlib
from PIL import Image

RGB = tuple[int, int, int]


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
