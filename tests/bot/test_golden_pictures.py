"""Every kind of picture against a reference drawn before the drawing got cheaper (issue 35).

``data/golden/*.png`` were drawn by the renderer of ``main`` at 83ac289, before issue 35 changed
how the pictures are drawn: a board of two (both rule sets, a long one with jokers, a finished
one), of three and of four (both rule sets, one with a player gone, one finished), a hand at
each size (on turn with its marks, a compulsory Ace, not on turn), a leaderboard table and a
money chart. (A replayed position is drawn by ``render_board`` as any board is.) The kinds born
after 83ac289 (a settle-up plan, drawn round a circle or listed; a tournament's bracket and its
standings; a season's final standings) were drawn as their references when this test took them
in, so that a cheaper drawing of them is held to the same bound. Today's pictures
must be the same to the eye: of the same size, and differing from the reference in at most
``MOST_PIXELS_DIFFERENT`` of their pixels, none of them by more than ``MOST_CHANNEL_DIFFERENCE``
of 255 in any colour channel, and the whole picture by at most ``MOST_MEAN_DIFFERENCE`` on
average. The figures of each picture are printed (``-s``).

Drawn again, on purpose, with ``python -m tests.bot.test_golden_pictures`` (which then is the new
reference: only after looking at the pictures).
"""

from __future__ import annotations

import dataclasses
import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.bench.render_bench import positions
from bot.pictures import cards_and_fans, fonts, picture_palette
from bot.pictures.board_info import BoardInfo
from bot.pictures.board_picture import render_board
from bot.pictures.bracket_picture import draw_bracket
from bot.pictures.hand_picture import render_hand
from bot.pictures.plan_picture import render_plan
from bot.pictures.render_tables import render_leaderboard, render_money_chart
from bot.tournaments import Entrant, replay
from engine import EndReason, Result

GOLDEN = Path(__file__).parent / "data" / "golden"

MOST_PIXELS_DIFFERENT = 0.002
"""The share of a picture's pixels that may differ from its reference at all (0.2%)."""
MOST_CHANNEL_DIFFERENCE = 64
"""The most any pixel may differ from its reference in any colour channel, of 255."""
MOST_MEAN_DIFFERENCE = 0.05
"""The mean difference over every channel of every pixel, of 255."""

INFO = BoardInfo(("Ann", "Bob"), game_number=2, match_scores=(12, 30), match_target=50,
                 last_moves=("Ann: 7♥ from hand → C2", "Bob: pay-off card → C1", "Bob passed"))


def _long_board() -> bytes:
    from tests.bot.test_render import long_stacks

    return render_board(long_stacks().public_view(), INFO)


def _long_hand() -> bytes:
    from tests.bot.test_render import long_stacks

    return render_hand(long_stacks().view(0), INFO)


def _ace_hand() -> bytes:
    from tests.bot.test_render import ace_due_everywhere

    return render_hand(ace_due_everywhere().view(0), INFO)


def _finished_long_board() -> bytes:
    from tests.bot.test_render import long_stacks

    over = dataclasses.replace(long_stacks().public_view(),
                               result=Result(0, 9, EndReason.RESIGNED, (3, 9)))
    return render_board(over, INFO)


def _board(players: int, seed: int, index: int) -> Callable[[], bytes]:
    def draw() -> bytes:
        pub, _, info = positions(index + 1, seed, players=players)[index]
        return render_board(pub, info)
    return draw


def _hand(players: int, seed: int, index: int) -> Callable[[], bytes]:
    def draw() -> bytes:
        _, mine, info = positions(index + 1, seed, players=players)[index]
        return render_hand(mine, info)
    return draw


def _leaderboard() -> bytes:
    rows = [[str(i + 1), f"Player {i} 🎉", "10", "5-4-1", "55%", f"${i * 3 - 7}"]
            for i in range(8)]
    return render_leaderboard("Leaderboard · this season", ["#", "Player", "Games", "W-L-T",
                                                             "Win %", "Net"],
                              rows, highlight=2, note="Net is money won less money lost.")


def _money_chart() -> bytes:
    series = [(1_800_000_000.0 + i * 5_400, (-1) ** i * 37 * i + 20 * i) for i in range(40)]
    return render_money_chart(series, "Ann's net money")


def _plan(people: int) -> Callable[[], bytes]:
    def draw() -> bytes:
        # Nets that add up to zero, and the payments that settle them: the first half pay the
        # second half (a plan of the fewest payments would be one of these shapes).
        names = ["Ann", "Bob", "Carol", "Dmitri 🎲", "Erin", "Frank", "Grace", "Heidi",
                 "Ivan", "Judy", "Karl", "Lena", "Mallory", "Niaj", "Olivia", "Peggy",
                 "Quentin", "Rupert", "Sybil", "Trent"][:people]
        half = people // 2
        nets = [-(150 + 35 * i) for i in range(half)]
        nets += [0] * (people - half)
        payments = []
        for i in range(half):
            payee = half + i % (people - half)
            nets[payee] -= nets[i]
            payments.append((i + 1, payee + 1, -nets[i]))
        listed = [(i + 1, name, nets[i]) for i, name in enumerate(names)]
        return render_plan("Settle-up plan · 🎲 night", listed, payments, "$",
                           note="Every balance among these people goes to zero.")
    return draw


def _bracket(seats: int) -> Callable[[], bytes]:
    def draw() -> bytes:
        from tests.bot.test_bracket_picture import doc_knockout, view_of

        if seats == 2:
            return draw_bracket(view_of(doc_knockout(), "Friday cup"))
        swiss = replay("swiss", [Entrant(p, 1600 - 10 * p) for p in range(1, 7)], (), 2)
        for table in range(3):
            swiss.play(1, table, (1, 2) if table % 2 else (2, 1))
        return draw_bracket(view_of(swiss, "Swiss Sunday"))
    return draw


def _season_final() -> bytes:
    from tests.bot.test_season_picture import doc_picture

    return doc_picture()


PICTURES: dict[str, Callable[[], bytes]] = {
    # positions(.., seed 3): game 0 (positions 0-7) is classic, game 1 (8-15) kings.
    "board-2-classic-middle": _board(2, 3, 4),
    "board-2-kings-deal": _board(2, 3, 8),
    "board-2-kings-end": _board(2, 3, 15),
    "board-2-long-jokers": _long_board,
    "board-2-long-result": _finished_long_board,
    # seed 5 at three or four: games 0 and 1 have no leaver, games 2 and 3 have one.
    "board-3-classic-middle": _board(3, 5, 3),
    "board-3-kings-left": _board(3, 5, 28),
    "board-3-classic-end": _board(3, 5, 23),
    "board-4-kings-middle": _board(4, 5, 11),
    "board-4-classic-left": _board(4, 5, 20),
    "hand-2-classic": _hand(2, 3, 4),
    "hand-2-kings": _hand(2, 3, 11),
    "hand-2-long": _long_hand,
    "hand-2-ace-due": _ace_hand,
    "hand-3-classic": _hand(3, 5, 3),
    "hand-4-kings": _hand(4, 5, 11),
    "leaderboard": _leaderboard,
    "money-chart": _money_chart,
    "plan-circle": _plan(5),
    "plan-listed": _plan(20),
    "bracket-knockout": _bracket(2),
    "bracket-swiss": _bracket(0),
    "season-final": _season_final,
}


@dataclasses.dataclass(frozen=True)
class Difference:
    """How far a picture is from its reference."""

    pixels: float
    """The share of pixels that differ at all."""
    most: int
    """The largest difference of any channel of any pixel, of 255."""
    mean: float
    """The mean difference of every channel of every pixel, of 255."""


def difference(png: bytes, reference: bytes) -> Difference:
    """How ``png`` differs from ``reference`` (both of the same size, else an AssertionError)."""
    with Image.open(io.BytesIO(png)) as a, Image.open(io.BytesIO(reference)) as b:
        assert a.size == b.size, (a.size, b.size)
        diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    per_pixel = diff.convert("L").point(lambda v: 255 if v else 0)  # any channel differs
    differing = per_pixel.histogram()[255]
    # The largest channel difference: the maximum over the channels' extremes.
    most = max(high for _, high in diff.getextrema())  # type: ignore[misc]
    channels = diff.split()
    total = sum(level * n for channel in channels
                for level, n in enumerate(channel.histogram()))
    pixels = a.size[0] * a.size[1]
    return Difference(differing / pixels, most, total / (3 * pixels))


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_pictures_are_the_same_to_the_eye(name: str) -> None:
    reference = (GOLDEN / f"{name}.png").read_bytes()
    got = difference(PICTURES[name](), reference)
    print(f"{name}: {got.pixels:.4%} of the pixels differ, by at most {got.most}, "
          f"mean {got.mean:.4f}")
    assert got.pixels <= MOST_PIXELS_DIFFERENT, got
    assert got.most <= MOST_CHANNEL_DIFFERENCE, got
    assert got.mean <= MOST_MEAN_DIFFERENCE, got


def test_the_comparison_sees_a_changed_card() -> None:
    # A board with one card changed (another position of the same game) is not the same.
    a, b = _board(2, 3, 4)(), _board(2, 3, 5)()
    got = difference(a, b)
    assert got.pixels > MOST_PIXELS_DIFFERENT or got.most > MOST_CHANNEL_DIFFERENCE


def _clear_drawn_parts() -> None:
    picture_palette._blends.clear()
    cards_and_fans._ROWS.clear()


def test_remembered_parts_change_no_pixel() -> None:
    # A picture drawn with every remembered blend and card row gone, and the same picture
    # drawn after 40 others filled them: the same pixels (and the same PNG).
    cases = positions(44, seed=11) + positions(12, seed=11, players=4)
    pub, mine, info = cases[-1]
    _clear_drawn_parts()
    fresh = (render_board(pub, info), render_hand(mine, info))
    for other_pub, other_mine, other_info in cases[:-1]:
        render_board(other_pub, other_info)
        render_hand(other_mine, other_info)
    assert picture_palette._blends
    assert (render_board(pub, info), render_hand(mine, info)) == fresh


def test_a_blend_on_mixed_pixels_is_the_rgb_drawing_mapped() -> None:
    # Text across stripes of two colours: drawn in the palette, it is what drawing it in RGB
    # and mapping the picture gives.
    rgb = Image.new("RGB", (240, 60), picture_palette._FELT)
    for x in range(0, 240, 20):
        rgb.paste(picture_palette._WHITE, (x, 0, x + 10, 60))
    in_palette = picture_palette._mapped(rgb)
    in_palette.putpalette(picture_palette._PALETTE_BYTES)
    for image in (rgb, in_palette):
        fonts._text(image, (6, 30), "Ann: 7♥ → C2", 34, picture_palette._RED, anchor="lm")
    assert in_palette.tobytes() == picture_palette._mapped(rgb).tobytes()


if __name__ == "__main__":
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for picture, draw in PICTURES.items():
        with Image.open(io.BytesIO(draw())) as image:
            # Stored as Pillow's smallest PNG: the pixels are what is compared, not the bytes.
            image.save(GOLDEN / f"{picture}.png", optimize=True)
    print(f"{len(PICTURES)} pictures drawn to {GOLDEN}", file=sys.stderr)
