"""The colours of the pictures, the one palette they are mapped to, and the PNG writer.

Every picture is mapped to one fixed palette (no dithering) and saved as an 8-bit PNG, which is
faster and several times smaller than a truecolour PNG of the same picture.

Boards and hands are drawn in that palette from the start (issue 35): a "P" picture, a byte a
pixel, whose every pixel is already what the PNG holds. Copying a cached base, pasting a card and
writing the PNG then move a quarter of the bytes of an RGB picture, and the picture is never
mapped as a whole (that alone was 1.5-3 ms a board). Only what is blended (antialiased text, the
rounded corners of cards) is worked out in RGB, on the few pixels it covers, and mapped
(``_blend``); the result is remembered for the same drawing on the same pixels, so a label or a
card corner drawn again on the same background is a copy.
"""

from __future__ import annotations

import struct
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any, Generic, TypeVar

from isal import isal_zlib
from PIL import Image, ImageChops, _imaging

RGB = tuple[int, int, int]
K = TypeVar("K")
V = TypeVar("V")


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


_PALETTE_BYTES = bytes(_PALETTE.getpalette() or ())


def _mapped(image: Image.Image) -> Image.Image:
    """``image`` mapped to the fixed palette, each pixel to its nearest colour (a picture drawn
    in the palette already is returned as it is)."""
    if _in_palette(image):
        return image
    return image.quantize(palette=_PALETTE, dither=Image.Dither.NONE)


def _in_palette(image: Image.Image) -> bool:
    """Whether ``image`` is drawn in the pictures' palette already (a "P" picture of it).

    The palette is read as the core's bytes, as ``getpalette`` reads it before it makes a list
    of 768 numbers of them (some 7 us)."""
    if image.mode != "P":
        return False
    image.load()
    try:
        palette = image.im.getpalette(image.im.getpalettemode(), "RGB")
    except ValueError:  # no palette
        return False
    return bytes(palette[:len(_PALETTE_BYTES)]) == _PALETTE_BYTES


def _lean(image: Image.Image) -> Image.Image:
    """``image`` (a picture in the palette, kept in a cache) without its palette as Python
    objects, some 3 KB, more than the pixels of a card's corner: its core keeps the palette,
    which is what drawing, converting and cropping it read."""
    image.palette = None
    return image


@lru_cache(maxsize=256)
def _index(colour: RGB) -> int:
    """The palette index a colour is mapped to (as ``_mapped`` maps it)."""
    return int(_mapped(Image.new("RGB", (1, 1), colour)).getpixel((0, 0)))  # type: ignore[arg-type]


def _ink(image: Image.Image, colour: RGB) -> RGB | int:
    """What to give ``ImageDraw`` to draw ``colour`` on ``image``: its palette index on a
    picture drawn in the palette, else the colour."""
    return _index(colour) if image.mode == "P" else colour


def _new_picture(size: tuple[int, int], colour: RGB) -> Image.Image:
    """A new picture drawn in the palette, all of ``colour``."""
    image = Image.new("P", size, _index(colour))
    image.putpalette(_PALETTE_BYTES)
    return image


def _raw_palette() -> bytes:
    """The palette with each named colour at the index it is mapped to.

    Mapping is not exact: the felt (22, 94, 58) is mapped to the entry (21, 90, 55), a blend
    next to it. A picture drawn in RGB blended its text with the felt itself, so ``_blend``
    turns a pixel back into the colour that was drawn there, where that is a named colour."""
    flat = bytearray(_PALETTE_BYTES)
    for colour in dict.fromkeys(c for pair in _BLENDS for c in pair):
        i = _index(colour)
        flat[3 * i:3 * i + 3] = bytes(colour)
    return bytes(flat)


_BLENDS_KEPT_BYTES = 6 << 20
"""Bytes of blends ``_blend`` remembers (pixels, and the pixels under a blend where they are its
key): the labels, numbers and card corners of the boards being played, on their backgrounds."""
_BLEND_KEPT_PIXELS = 24_000
"""The largest blend remembered, in pixels: a centre stack or the stock with its count is
kept; a header line (some 44,000) is new on every board (it says the turn), and not kept."""
_INK_KEPT_PIXELS = 6_000
"""The largest text on one colour whose blend is remembered, in pixels: a label. Such a blend
is the text's mask (which ``fonts`` remembers) through a table of 256 indices, some 8 us for a
line of last moves: keeping it as well would hold each line twice."""
_RAW_PALETTE = _raw_palette()
_RAW_COLOURS: tuple[RGB, ...] = tuple(
    (_RAW_PALETTE[i], _RAW_PALETTE[i + 1], _RAW_PALETTE[i + 2]) for i in range(0, 768, 3))
"""Each index as the colour drawn there (``_raw_palette``)."""


def _maps_back() -> tuple[bool, ...]:
    image = Image.new("RGB", (256, 1))
    image.putdata(_RAW_COLOURS)
    mapped = _mapped(image).tobytes()
    return tuple(mapped[i] == i for i in range(256))


_MAPS_BACK = _maps_back()
"""Whether each index's colour (``_RAW_COLOURS``) is mapped to that very index: mapping is
not exact, and a few entries of the palette map to a neighbour."""
_ANY = [0] + [255] * 255


class Kept(Generic[K, V]):
    """A store of the values used last, as many as fit ``budget`` bytes (each value is put with
    its size): a cache bounded by the memory it holds rather than by its count, so that big
    values (a line of text, a blend on mixed pixels) cannot fill it with many megabytes."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the newest), or ``None``."""
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep ``value`` for ``key``, forgetting the values used longest ago to make room (a
        value bigger than the whole budget is not kept)."""
        if size > self.budget:
            return
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= old[1]
        self._items[key] = (value, size)
        self.size += size
        while self.size > self.budget:
            self.size -= self._items.popitem(last=False)[1][1]

    def clear(self) -> None:
        """Forget every value."""
        self._items.clear()
        self.size = 0

    def __len__(self) -> int:
        return len(self._items)


_blends: Kept[tuple[Hashable, int, int, Hashable], Any] = Kept(_BLENDS_KEPT_BYTES)
"""The blends ``_blend`` remembers, as Pillow's core images (``Image.im``): an ``Image`` of a
picture drawn in the palette carries a copy of the palette as Python objects, some 3 KB, more
than most blends' pixels."""


def _blend(image: Image.Image, box: tuple[int, int, int, int], key: Hashable,
           draw: Callable[[Image.Image], None], over: Hashable = None,
           ink: tuple[RGB, Image.Image] | None = None) -> None:
    """Do ``draw`` (an antialiased drawing, in RGB) on the pixels of ``box`` of ``image``, a
    picture drawn in the palette, as if ``image`` were RGB and mapped to the palette after.

    The box's pixels are turned into RGB, drawn on, and mapped back; only the pixels the
    drawing changed are written, so the others keep their index exactly. ``key`` names the
    drawing (what it draws, in which colour): the result is remembered for that drawing on
    those very pixels, and the next time it is a copy. Most drawings land on one colour (a
    label on the felt, a card on a panel): those are remembered by the colour; others by every
    pixel under them. So a remembered blend is the same whatever else was drawn, and it can
    carry nothing from another picture.

    ``over``, if given, stands for the pixels under the box in that key: the caller knows them
    to be a function of it (the part of a card that the next card of a fan lands on), and they
    are neither compared nor copied to be looked up. ``ink``, if given, is what ``draw`` does
    as a colour and a mask (text): on one colour it is then a look-up per level of the mask."""
    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    under: Image.Image | None = None
    low: int | None = 0
    found: tuple[Hashable, int, int, Hashable]
    if over is not None:
        found = (key, *size, ("over", over))
    else:
        data = _box_bytes(image, box)
        low = data[0] if data and data == data[:1] * len(data) else None
        found = (key, *size, low if low is not None else data)
    done = _blends.get(found)
    if done is None:
        if over is not None:
            low = _one_index(image, box)
        if low is None:
            under = image.crop(box)
            low = 0
        pixels = size[0] * size[1]
        if ink is not None and under is None and _MAPS_BACK[low]:
            done = ink[1].im.point(_ink_levels(ink[0], low), None)
            kept = pixels <= _INK_KEPT_PIXELS
        else:
            done = _drawn_blend(under, low, size, draw).im
            kept = pixels <= _BLEND_KEPT_PIXELS
        if kept:
            _blends.put(found, done, pixels if under is None or over is not None
                        else 2 * pixels)
    image.im.paste(done, box)


def _box_bytes(image: Image.Image, box: tuple[int, int, int, int]) -> bytes:
    """The indices of the pixels of ``box`` of ``image`` (a "P" picture), row by row: what
    ``image.crop(box).tobytes()`` gives (pixels outside the picture are 0), taken by the raw
    encoder as ``_raw_rows`` takes the picture, without an image in between."""
    x0, y0, x1, y1 = box
    pixels = (x1 - x0) * (y1 - y0)
    width, height = image.size
    if pixels > 0 and x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height:
        encoder = _imaging.raw_encoder("P", "P")
        encoder.setimage(image.im, box)
        _, status, data = encoder.encode(pixels + 1)
        if status == 1 and len(data) == pixels:
            return bytes(data)
    return image.crop(box).tobytes()


def _one_index(image: Image.Image, box: tuple[int, int, int, int]) -> int | None:
    """The index every pixel of ``box`` of ``image`` (a "P" picture) has, or ``None`` if they
    are not all one.

    The core's extrema scan a pixel at a time (some 11 us on a card's slot, 1 us on a label,
    with the crop they need): the box's bytes compared with the first repeated (a ``memcmp``)
    take 0.7-1 us."""
    data = _box_bytes(image, box)
    return data[0] if data and data == data[:1] * len(data) else None


@lru_cache(maxsize=256)
def _ink_levels(colour: RGB, low: int) -> tuple[int, ...]:
    """The index of ``colour`` drawn over index ``low`` through each level of a mask (0-255):
    what blending and mapping would give, done once for the 256 levels."""
    levels = Image.new("L", (256, 1))
    levels.putdata(range(256))
    over = Image.new("RGB", (256, 1), _RAW_COLOURS[low])
    over.paste(colour, (0, 0, 256, 1), levels)
    return tuple(_mapped(over).tobytes())


def _drawn_blend(under: Image.Image | None, low: int, size: tuple[int, int],
                 draw: Callable[[Image.Image], None]) -> Image.Image:
    """``draw`` done on ``under`` (or, if ``None``, on ``size`` pixels of the one index
    ``low``): the pixels it changed mapped to the palette, the others as they were."""
    if under is None:
        before = Image.new("RGB", size, _RAW_COLOURS[low])
        if _MAPS_BACK[low]:
            # On one colour that maps back to its own index, the whole box can be mapped: the
            # pixels the drawing left alone come out as they were.
            draw(before)
            return _mapped(before)
        under = Image.new("P", size, low)
    else:
        before = under.copy()
        before.putpalette(_RAW_PALETTE)
        before = before.convert("RGB")
    after = before.copy()
    draw(after)
    # Any channel changed (a luminance of the difference would miss a change of blue by 1).
    red, green, blue = ImageChops.difference(before, after).split()
    changed = ImageChops.lighter(ImageChops.lighter(red, green), blue).point(_ANY)
    under.paste(_mapped(after), (0, 0), changed)
    return under


def _raw_rows(image: Image.Image) -> bytes:
    """The rows of ``image`` (a "P" picture) one byte longer each, the last byte 0: what
    ``image.tobytes("raw", ("P", width + 1))`` gives, asked of the encoder in one piece.

    ``tobytes`` takes them in pieces of 64 KB and joins them: a second copy of the picture,
    some 0.5 ms of a board of three or four seats and 1.7 MB more at the peak."""
    width, height = image.size
    encoder = Image._getencoder("P", "raw", ("P", width + 1))
    encoder.setimage(image.im, (0, 0, width, height))
    _, status, data = encoder.encode((width + 1) * height + 1)
    if status != 1:  # not all in one piece (never seen): Pillow's way
        return image.tobytes("raw", ("P", width + 1))
    return bytes(data)


def _png(image: Image.Image) -> bytes:
    """``image`` mapped to the fixed palette and saved as an 8-bit PNG.

    The PNG is written here rather than by Pillow so that its pixels are deflated by ISA-L
    (``isal``), some six times faster than zlib at any level (a board: 0.45 ms instead of
    2.8 ms): encoding was half the time of a picture. A palette image needs no row filter
    (the PNG specification advises none), so each row is its filter byte 0 and the palette
    indices. A picture drawn in the palette (``_new_picture``) is written as it is.

    ISA-L's level 0 (fixed Huffman codes), not its level 1 (a code made for each block): level
    1 is as fast and ~15% smaller, but its bytes vary from one process, or one call, to the
    next for the very same pixels (a few bytes of a board, the stream always valid; isal
    1.9.1; more often under ``MALLOC_PERTURB_``, so it seems to read memory it does not set).
    It showed as a picture of the drawing process not byte for byte the bot's own (one CI run
    of ``tests/bot/test_drawing.py``; about one run in four of 360 pictures). Level 0 gave the
    same bytes in every run tried (40 runs of 360 pictures, ``MALLOC_PERTURB_`` set).
    """
    quantized = image if _in_palette(image) else _mapped(image)
    width, height = quantized.size
    # Each row written one byte longer than the picture, padded with a 0 (the raw encoder's
    # stride): a 0 in front of it all and the last one left off, and every row has its filter
    # byte 0 in front. No copy of the picture is made for it.
    rows = memoryview(_raw_rows(quantized))[:-1]
    deflate = isal_zlib.compressobj(0)
    idat = deflate.compress(b"\0") + deflate.compress(rows) + deflate.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit, palette colour
    return b"".join((_PNG_SIGNATURE, _chunk(b"IHDR", header), _PLTE, _chunk(b"IDAT", idat),
                     _chunk(b"IEND", b"")))
