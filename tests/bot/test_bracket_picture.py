"""The tournament picture: a bracket or the pairings of each round, with the standings beside
them, drawn in the drawing process from plain data (``bot/pictures/bracket_picture.py``).

``python -m tests.bot.test_bracket_picture`` writes ``docs/bracket.png`` again."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from bot.pictures.bracket_picture import BracketView, draw_bracket
from bot.pictures.drawing_worker import DRAWINGS
from bot.tournaments import Entrant, Tournament, replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "bracket.png"
NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan")


def view_of(t: Tournament, title: str) -> BracketView:
    name = {p: NAMES[p - 1] for p in t.seeding}
    rounds = tuple(tuple((tuple(name[p] for p in tb.seats), tb.places, tb.forfeit)
                         for tb in r.tables) + tuple(((name[p],), (1,), False) for p in r.byes)
                   for r in t.rounds)
    lines = t.standings()
    ordered = [s for s in lines if s.place is None] + [s for s in lines if s.place is not None]
    standings = tuple((s.place, name[s.player], s.points, s.wins, s.losses, s.withdrawn)
                      for s in ordered)
    return BracketView(title, t.format_name, rounds, standings, t.finished,
                       planned=getattr(t, "total_rounds", len(t.rounds)), seats=t.seats)


def doc_knockout() -> Tournament:
    """Eight players at tables of two, after round 1 and one semi-final."""
    t = replay("knockout", [Entrant(p, 1600 - 10 * p) for p in range(1, 9)], (), 2)
    for table, places in enumerate(((1, 2), (2, 1), (1, 2), (1, 2))):
        t.play(1, table, places)
    t.play(2, 0, (1, 2))
    return t


def _size(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def test_the_picture_is_registered_for_the_drawing_process() -> None:
    assert DRAWINGS["draw_bracket"] is draw_bracket


def test_a_knockout_shows_its_whole_bracket_from_the_start() -> None:
    t = doc_knockout()
    png = draw_bracket(view_of(t, "Friday cup"))
    width, height = _size(png)
    assert len(t.rounds) == 2 and width == 40 + 3 * 270 + 380  # the final, to come
    t.play(2, 1, (2, 1))
    t.play(3, 0, (1, 2))
    assert t.finished
    assert _size(draw_bracket(view_of(t, "Friday cup")))[0] == width


def test_a_round_robin_with_byes_and_a_swiss_are_drawn() -> None:
    rr = replay("round robin", [Entrant(p, 1500) for p in range(1, 6)], (), 2)
    rr.withdraw(5)
    assert _size(draw_bracket(view_of(rr, "Everyone")))[1] > 200
    swiss = replay("swiss", [Entrant(p, 1500 - p) for p in range(1, 7)], (), 2)
    swiss.play(1, 0, (1, 2))
    assert draw_bracket(view_of(swiss, "Swiss night")).startswith(b"\x89PNG")


def test_the_picture_in_the_docs_is_what_the_renderer_draws() -> None:
    assert DOC.read_bytes() == draw_bracket(view_of(doc_knockout(), "Friday cup"))


if __name__ == "__main__":
    DOC.write_bytes(draw_bracket(view_of(doc_knockout(), "Friday cup")))
    print(f"wrote {DOC}")
