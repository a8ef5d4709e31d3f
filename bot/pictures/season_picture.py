"""The picture of a season's final standings: the champion, the top places, the most games and
the best streak. A pure function from plain strings to PNG bytes, run in the drawing process
(registered in ``drawing_worker.DRAWINGS``)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from .fonts import _DRAWING, _font, _printable

__all__ = ["render_season_final"]

BG = (18, 70, 45)
GOLD = (255, 204, 51)
SILVER = (205, 212, 220)
BRONZE = (214, 150, 90)
TEXT = (240, 240, 232)
MUTED = (170, 200, 180)
STRIPE = (24, 84, 55)
BANNER = (12, 52, 33)

WIDTH = 900
ROW_H = 46
COLUMNS = (("#", 60), ("Player", 330), ("Points", 110), ("Games", 100), ("W-L-T", 130),
           ("Net", 130))


def _fit(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int
         ) -> str:
    while draw.textlength(text, font=font) > width and len(text) > 1:
        text = text[:-2] + "…"
    return text


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int
          ) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and draw.textlength(f"{lines[-1]} {word}", font=font) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def render_season_final(season: str, span: str, champion: str, champion_line: str,
                        rows: Sequence[Sequence[str]], facts: Sequence[str],
                        note: str) -> bytes:
    """A season's final standings: ``season`` (its name), ``span`` (its dates), the
    ``champion``'s name (empty: nobody ranked) and his line, ``rows`` of the top places
    (place, player, points, games, W-L-T, net), ``facts`` (most games, best streak) and a
    ``note`` (the minimum of games to be ranked, the points)."""
    with _DRAWING:
        probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
        notes = _wrap(probe, _printable(note, False), _font(20, bold=False), WIDTH - 40)
        height = 250 + ROW_H * (len(rows) + 1) + 34 * len(facts) + 28 * len(notes) + 30
        image = Image.new("RGB", (WIDTH, height), BG)
        draw = ImageDraw.Draw(image)
        draw.rectangle((0, 0, WIDTH, 200), fill=BANNER)
        title = _fit(draw, _printable(season, True) + " · final standings", _font(28),
                     WIDTH - 40)
        draw.text((20, 14), title, font=_font(28), fill=MUTED)
        draw.text((WIDTH - 20, 60), _printable(span, False), font=_font(20, bold=False),
                  fill=MUTED, anchor="ra")
        # A cup: a bowl, two handles, a stem and a base, in gold.
        cx, top = 70, 78
        draw.pieslice((cx - 34, top - 34, cx + 34, top + 34), 0, 180, fill=GOLD)
        draw.rectangle((cx - 34, top - 12, cx + 34, top), fill=GOLD)
        draw.arc((cx - 50, top - 10, cx - 22, top + 18), 90, 270, fill=GOLD, width=6)
        draw.arc((cx + 22, top - 10, cx + 50, top + 18), 270, 90, fill=GOLD, width=6)
        draw.rectangle((cx - 6, top + 30, cx + 6, top + 56), fill=GOLD)
        draw.rectangle((cx - 26, top + 56, cx + 26, top + 68), fill=GOLD)
        if champion:
            draw.text((140, 66), "Champion", font=_font(24, bold=False), fill=MUTED)
            name = _fit(draw, _printable(champion, True), _font(44), WIDTH - 160)
            draw.text((140, 94), name, font=_font(44), fill=GOLD)
            draw.text((140, 150), _printable(champion_line, False), font=_font(22, bold=False),
                      fill=TEXT)
        else:
            draw.text((140, 96), "No champion", font=_font(40), fill=GOLD)
            draw.text((140, 150), "nobody played enough games to be ranked",
                      font=_font(22, bold=False), fill=TEXT)
        y = 220
        x = 20
        for header, w in COLUMNS:
            draw.text((x + 8, y + 10), header, font=_font(22), fill=MUTED)
            x += w
        y += ROW_H
        medals = {"1": GOLD, "2": SILVER, "3": BRONZE}
        for i, row in enumerate(rows):
            draw.rectangle((16, y, WIDTH - 16, y + ROW_H - 4), fill=STRIPE if i % 2 == 0 else BG)
            x = 20
            for j, (cell, (_, w)) in enumerate(zip(row, COLUMNS, strict=False)):
                font = _font(24, bold=j < 2)
                colour = medals.get(row[0], TEXT) if j < 2 else TEXT
                draw.text((x + 8, y + 8), _fit(draw, _printable(cell, j < 2), font, w - 12),
                          font=font, fill=colour)
                x += w
            y += ROW_H
        if not rows:
            draw.text((28, y + 6), "Nobody ranked", font=_font(24, bold=False), fill=MUTED)
            y += ROW_H
        y += 10
        for fact in facts:
            draw.text((20, y), _fit(draw, _printable(fact, False), _font(24, bold=False),
                                    WIDTH - 40), font=_font(24, bold=False), fill=TEXT)
            y += 34
        for text in notes:
            draw.text((20, y + 6), text, font=_font(20, bold=False), fill=MUTED)
            y += 28
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()
