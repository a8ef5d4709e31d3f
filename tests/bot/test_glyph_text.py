"""Text drawn from cached glyphs (``fonts._anchored``) is the text Pillow draws: the same mask,
pixel for pixel, at the same offset for every anchor, and the same length as ``getlength``."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from bot.pictures import fonts

_ANCHORS = ("la", "lt", "lm", "ls", "lb", "ld", "mt", "mm", "ms", "md", "ra", "rt", "rm", "rb")
_CHARS = ("".join(chr(c) for c in range(32, 127)) + "♥♦♣♠→·…–★▶−ÄÖÜßéèàçñøåæœЖжΩλ"
          + "\u0301\u200b")
_TEXTS = (
    "AVAVAVAVAVAVAVAVAVAVAVAVAVAVAV To Ty Te Yo LT y. r, “quoted”",
    "Bartholomew-Maximilian Jones 3rd: pay-off card 10♦ → centre 2 (pay-off: 17 left)",
    "Anastasia Wolkonskaja-Petr: Joker as Q from hand → centre 4",
    "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW to play · turn 12",
    " leading and trailing spaces ", "   ", "i", ".", "…", "10", "S4 · 17",
)


def _pillow(text: str, size: int, bold: bool, anchor: str) -> tuple[bytes, tuple[int, int],
                                                                     int, int]:
    font = fonts._font(size, bold)
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask.tobytes(), mask.size, left, top


def _ours(text: str, size: int, bold: bool, anchor: str) -> tuple[bytes, tuple[int, int],
                                                                   int, int]:
    mask, left, top = fonts._anchored(text, size, bold, anchor)
    return mask.tobytes(), mask.size, left, top


@pytest.mark.parametrize("bold", [True, False])
@pytest.mark.parametrize("size", [12, 20, 22, 24, 28, 31, 33, 34, 44])
def test_glyph_text_is_pillows_text(size: int, bold: bool) -> None:
    rng = random.Random(size * 2 + bold)
    texts = list(_TEXTS) + ["".join(rng.choice(_CHARS) for _ in range(rng.randint(1, 60)))
                            for _ in range(60)]
    for i, text in enumerate(texts):
        for anchor in (_ANCHORS if i < len(_TEXTS) else (_ANCHORS[i % len(_ANCHORS)],)):
            assert _ours(text, size, bold, anchor) == _pillow(text, size, bold, anchor), \
                (text, anchor)
        assert fonts._pen(text, size, bold) / 64 == fonts._font(size, bold).getlength(text)


def test_glyphs_and_pairs_forgotten_past_their_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fonts, "_GLYPHS_KEPT_BYTES", 3000)
    monkeypatch.setattr(fonts, "_PAIRS_KEPT", 20)
    fonts._forget(glyphs=True)
    fonts._forget(glyphs=False)
    for text in _TEXTS:
        assert _ours(text, 31, True, "la") == _pillow(text, 31, True, "la"), text
        assert fonts._kept[0] <= 3000 and fonts._kept[1] <= 20
        kept = sum(len(face.glyphs) for face in fonts._faces.values())
        assert kept < len(set(text)) + 10
    fonts._forget(glyphs=True)
    fonts._forget(glyphs=False)
