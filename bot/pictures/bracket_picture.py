"""A tournament's live picture: its rounds as columns of tables (a knockout's bracket, read left
to right to the final; a Swiss or round robin's pairings), and the standings beside them.

A pure function of plain, picklable data (``BracketView``) to PNG bytes, run in the drawing
process (``drawing_worker.DRAWINGS``).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .fonts import _DRAWING, _font, _printable

__all__ = ["BracketView", "draw_bracket"]

BG = (18, 70, 45)
HEAD = (255, 204, 51)
TEXT = (240, 240, 232)
MUTED = (170, 200, 180)
BOX = (28, 92, 60)
WON = (60, 140, 90)
LINE = (110, 160, 125)

COLUMN = 270
SEAT_H = 30
GAP = 14
MOST_TABLES = 16
"""Tables drawn per round; the rest are counted ("+3 more")."""

TableView = tuple[tuple[str, ...], tuple[int, ...] | None, bool]
"""A table: its players' names in seat order, their places once decided (``None`` while it
plays), and whether a forfeit decided it. A bye is a table of one, placed first."""


@dataclass(frozen=True)
class BracketView:
    """What the picture shows."""

    title: str
    format_name: str
    rounds: tuple[tuple[TableView, ...], ...]
    standings: tuple[tuple[int | None, str, float, int, int, bool], ...]
    """Per player, best first: (place or ``None`` while still in, name, points, wins,
    losses, left)."""
    finished: bool
    planned: int = 0
    """The rounds the format plans (a knockout's full bracket; the Swiss's or round robin's
    count): those not drawn yet are shown to come."""
    seats: int = 2


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool) -> str:
    text = _printable(text, bold)
    font = _font(size, bold)
    while draw.textlength(text, font=font) > width and len(text) > 1:
        text = text[:-2] + "…"
    return text


def _table_height(table: TableView) -> int:
    return SEAT_H * len(table[0]) + 8


def _column_height(tables: Sequence[TableView]) -> int:
    shown = tables[:MOST_TABLES]
    return sum(_table_height(t) + GAP for t in shown) + (30 if len(tables) > MOST_TABLES else 0)


def _to_come(view: BracketView, number: int) -> tuple[TableView, ...]:
    """A knockout's round not drawn yet: its empty tables (each the winners of the tables
    before)."""
    tables = view.seats ** (view.planned - number)
    return tuple((("…",) * view.seats, None, False) for _ in range(tables))


def draw_bracket(view: BracketView) -> bytes:
    """The picture as PNG bytes."""
    drawn = len(view.rounds)
    rounds = list(view.rounds)
    if not view.finished and view.format_name == "knockout":
        rounds += [_to_come(view, n) for n in range(drawn + 1, view.planned + 1)]
    columns = max(1, len(rounds))
    standings_w = 380
    width = 40 + columns * COLUMN + standings_w
    body = max([_column_height(r) for r in rounds] + [40 * (len(view.standings[:24]) + 1)])
    height = 130 + body + 20
    with _DRAWING:
        image = Image.new("RGB", (width, height), BG)
        draw = ImageDraw.Draw(image)
        state = "final" if view.finished else "live"
        draw.text((20, 16), _fit(draw, f"{view.title}", 34, width - 40, True), font=_font(34),
                  fill=HEAD)
        planned = f" · {view.planned} rounds" if view.planned else ""
        draw.text((20, 62), f"{view.format_name} · {state}{planned}", font=_font(22, False),
                  fill=MUTED)
        top = 110
        knockout = view.format_name == "knockout"
        for c, tables in enumerate(rounds):
            x = 20 + c * COLUMN
            last = knockout and c == len(rounds) - 1 and len(tables) == 1
            head = "Final" if last else f"Round {c + 1}"
            if c >= drawn:
                head += " (to come)"
            draw.text((x, top - 8), head, font=_font(20), fill=MUTED)
            y = top + 22
            for names, places, forfeit in tables[:MOST_TABLES]:
                h = _table_height((names, places, forfeit))
                draw.rounded_rectangle((x, y, x + COLUMN - 24, y + h), 6, fill=BOX,
                                       outline=LINE)
                for s, name in enumerate(names):
                    place = None if places is None else places[s]
                    sy = y + 4 + s * SEAT_H
                    if place == 1 and places is not None:
                        draw.rectangle((x + 2, sy, x + COLUMN - 26, sy + SEAT_H - 2), fill=WON)
                    mark = "" if place is None else f"{place}"
                    label = name + (" (bye)" if len(names) == 1 else "")
                    draw.text((x + 10, sy + 3), _fit(draw, label, 20, COLUMN - 80, place == 1),
                              font=_font(20, place == 1), fill=TEXT)
                    if mark:
                        draw.text((x + COLUMN - 50, sy + 3), mark, font=_font(20), fill=HEAD)
                if forfeit:
                    draw.text((x + COLUMN - 90, y + h - 20), "forfeit", font=_font(14, False),
                              fill=MUTED)
                y += h + GAP
            if len(tables) > MOST_TABLES:
                draw.text((x, y), f"+{len(tables) - MOST_TABLES} more", font=_font(18, False),
                          fill=MUTED)
        x = 20 + columns * COLUMN
        draw.text((x, top - 8), "Standings", font=_font(20), fill=MUTED)
        y = top + 22
        for place, name, points, wins, losses, left in view.standings[:24]:
            # A knockout's player beaten in the round being played has no place until the
            # round ends (those beaten in one round share it), but is out already.
            where = str(place) if place is not None else "out" if knockout and losses else "–"
            score = f"{wins}-{losses}" if knockout else \
                f"{points:g} pt" if points == 1 else f"{points:g} pts"
            small = len(where) > 2  # "out", or a place of three figures
            draw.text((x, y + (5 if small else 0)), where, font=_font(16 if small else 22),
                      fill=HEAD if place == 1 else MUTED if where == "out" else TEXT)
            draw.text((x + 44, y), _fit(draw, name + (" (left)" if left else ""), 22, 220,
                                        place == 1), font=_font(22, place == 1), fill=TEXT)
            draw.text((x + 280, y), score, font=_font(20, False), fill=MUTED)
            y += 40
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()
