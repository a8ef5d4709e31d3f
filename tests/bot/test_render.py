"""The board and hand pictures: valid small PNGs, public facts only, every position distinct."""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.bench.commands import main as bench_main
from bot.bench.render_bench import positions
from bot.pictures import (
    board_info,
    board_layout,
    board_picture,
    cards_and_fans,
    fonts,
    group_board,
    hand_picture,
    picture_palette,
)
from bot.pictures.board_info import BoardInfo
from bot.pictures.board_layout import BOARD_WIDTH, board_size
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import HAND_SIZE, render_hand
from engine import CLASSIC, KINGS, Card, EndReason, Game, Result, View, parse_cards
from engine.game import full_deck

MAX_BYTES = 300 * 1024
INFO = BoardInfo(("Ann", "Bob"), game_number=2, match_scores=(12, 30), match_target=50,
                 last_moves=("Ann: 7♥ from hand → C2", "Bob: pay-off card → C1", "Bob passed"))


def open_png(data: bytes, size: tuple[int, int]) -> Image.Image:
    assert len(data) < MAX_BYTES
    image = Image.open(io.BytesIO(data))
    image.verify()
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.size == size
    assert image.mode == "P"
    image.load()
    return image


@pytest.fixture(scope="module")
def cases() -> list[tuple[View, View, BoardInfo]]:
    # Seeded games of both rule sets, from the deal to the end, one of the two policies piling
    # discards on one side stack.
    return positions(48, seed=3)


def long_stacks() -> Game:
    """A classic position with 24- and 20-card side stacks, jokers in them and in the centre.

    Side stacks are given by rank (0 for a joker) and take whichever suit is still free; the
    cards left over make the pay-off piles and the hands.
    """
    free = Counter(full_deck(CLASSIC))
    centre = ["AH 2H 3H", "AS", "AD JK", "AC 2C 3C 4C"]
    free.subtract(parse_cards(" ".join(centre)))

    def take(rank: int) -> str:
        for card in sorted(free, key=lambda c: c.code):
            if free[card] > 0 and card.rank == rank:
                free[card] -= 1
                return card.text
        raise AssertionError(f"no card of rank {rank} left")

    plans = [["13 13 12 0 11 11 10 10 9 9 8 8 7 7 6 6 5 5 4 4 3 3 2 2",
              "12 12 11 10 10 9 0 8 7 6 6 5 4 3 2 1", "13 13", "13 12 11 10 9 8"],
             ["13 12 12 11 11 10 9 9 8 7 7 6 5 5 4 3 3 2 2 1",
              "11 11 10 10 0 9 8 8 7 7 6 6 5 5 4 4", "12", ""]]
    sides = [[" ".join(take(int(r)) for r in plan.split()) for plan in seat] for seat in plans]
    rest = [c.text for c in sorted(free.elements(), key=lambda c: c.code)]
    assert len(rest) == 13
    return Game.from_layout(
        CLASSIC, payoffs=[" ".join(rest[0:3]), " ".join(rest[3:5])],
        hands=[" ".join(rest[5:10]), " ".join(rest[10:13])], sides=sides, centre=centre, turn=0)


def test_boards_are_small_pngs_of_a_fixed_size(cases: list[tuple[View, View, BoardInfo]]) -> None:
    rules = {pub.rules.name for pub, _, _ in cases}
    assert rules == {"classic", "kings"}
    assert any(pub.is_over for pub, _, _ in cases)
    assert max(len(s) for pub, _, _ in cases for seat in pub.sides for s in seat) >= 15
    for pub, _, info in cases:
        open_png(render_board(pub, info), board_size(pub))


def test_hands_are_small_pngs_of_a_fixed_size(cases: list[tuple[View, View, BoardInfo]]) -> None:
    for _, mine, info in cases:
        open_png(render_hand(mine, info), HAND_SIZE)


def test_long_side_stacks_and_wild_cards() -> None:
    game = long_stacks()
    assert max(len(s) for seat in game.sides for s in seat) == 24
    open_png(render_board(game.public_view(), INFO), board_size(game.public_view()))
    open_png(render_hand(game.view(0), INFO), HAND_SIZE)
    thirty = " ".join(c.text for c in full_deck(KINGS)[:30])
    kings = Game.from_layout(KINGS, payoffs=["5D", "6D"], hands=["KS 2H", ""],
                             centre=["KH 2S KD", "KC"],
                             sides=[[thirty, "", "", ""], ["", "", "", "2C 2C 3C 3C 4C 4C"]])
    open_png(render_board(kings.public_view(), INFO), board_size(kings.public_view()))


def test_a_joker_on_a_side_stack_shows_what_it_stands_for() -> None:
    # Rule 13: the ranks a joker on a side stack stands for are public; the board's text says
    # 🃏(as 9/10), the picture ★9/10 in the joker's corner (as a centre stack's wild card
    # shows the rank it stands for).
    view = long_stacks().public_view()
    stack = view.joker_ranks(1, 1)
    at = next(i for i, ranks in enumerate(stack) if ranks)
    assert stack[at] == (9, 10)
    board = Image.open(io.BytesIO(render_board(view, INFO))).convert("RGB")

    def standing_for(ranks: tuple[int, ...]) -> Image.Image:
        sides = [list(seat) for seat in view.side_ranks]
        pile = list(sides[1][1])
        pile[at] = ranks
        sides[1][1] = tuple(pile)
        other = dataclasses.replace(view, side_ranks=tuple(tuple(seat) for seat in sides))
        return Image.open(io.BytesIO(render_board(other, INFO))).convert("RGB")

    # Another meaning changes that joker's card in the picture, and nothing else.
    box = ImageChops.difference(board, standing_for((10,))).getbbox()
    assert box is not None
    assert box[0] >= BOARD_WIDTH // 2 and box[2] - box[0] <= cards_and_fans._SIDE_W
    # Without the ranks it is a plain joker again.
    plain = dataclasses.replace(view, side_ranks=())
    assert render_board(plain, INFO) != render_board(view, INFO)


@pytest.mark.parametrize("n", range(1, 41))
def test_every_card_of_a_fan_shows_its_corner(n: int) -> None:
    height = board_layout._FAN_HEIGHT
    step = cards_and_fans._fan_step(n, height)
    assert (n - 1) * step + cards_and_fans._SIDE_H <= height
    if n > 1:
        size = cards_and_fans._corner_for_step(int(step))
        # The rank and suit fit in the strip each card shows, at a readable size.
        assert cards_and_fans._corner_pad(size) + fonts._cap_height(size) + 3 <= step
        assert size >= (cards_and_fans._CORNER_MAX if n <= 20 else 16 if n <= 28
                        else cards_and_fans._CORNER_MIN)


def test_public_and_player_views_give_the_same_board(
        cases: list[tuple[View, View, BoardInfo]]) -> None:
    games = [long_stacks()]
    for rules, seed in ((CLASSIC, 4), (KINGS, 4)):
        game, _ = Game.new(rules, seed)
        for _ in range(25):
            game.play(game.legal_moves()[0])
        games.append(game)
    for game in games:
        public = render_board(game.public_view(), INFO)
        assert render_board(game.view(0), INFO) == public
        assert render_board(game.view(1), INFO) == public
    # Nothing private is read: a view with another hand and other legal moves draws the same.
    for pub, mine, info in cases[::6]:
        other = dataclasses.replace(mine, hand=(Card.parse("JK"),), legal_moves=(),
                                    compulsory=(), viewer=1 - mine.turn)
        assert render_board(mine, info) == render_board(pub, info) == render_board(other, info)


def test_distinct_positions_give_distinct_boards() -> None:
    seen: dict[str, bytes] = {}
    for rules in (CLASSIC, KINGS):
        game, _ = Game.new(rules, 8)
        while game.result is None and len(seen) < 60 * (1 + (rules is KINGS)):
            view = game.public_view()
            key = json.dumps({k: v for k, v in view.to_dict().items() if k != "recent"})
            seen[key] = render_board(view, INFO)
            game.play(game.legal_moves()[-1])
    assert len(set(seen.values())) == len(seen)


def test_the_info_is_drawn() -> None:
    game = long_stacks()
    base = render_board(game.public_view(), INFO)
    for changed in (dataclasses.replace(INFO, names=("Ann", "Cy")),
                    dataclasses.replace(INFO, game_number=3),
                    dataclasses.replace(INFO, match_scores=(12, 31)),
                    dataclasses.replace(INFO, match_target=None),
                    dataclasses.replace(INFO, last_moves=())):
        assert render_board(game.public_view(), changed) != base


def test_the_result_is_drawn() -> None:
    view = long_stacks().public_view()
    pictures = {render_board(view, INFO)}
    for result in (Result(0, 7, EndReason.PAYOFF_EMPTIED, (0, 7)),
                   Result(1, 7, EndReason.PAYOFF_EMPTIED, (7, 0)),
                   Result(None, 0, EndReason.STOCK_OUT, (3, 4)),
                   Result(1, 2, EndReason.RESIGNED, (4, 2))):
        over = dataclasses.replace(view, result=result)
        pictures.add(render_board(over, INFO))
    assert len(pictures) == 5
    assert board_info.result_line(Result(1, 2, EndReason.RESIGNED, (4, 2)), ("Ann", "Bob")) == (
        "Bob wins · 2 points · Ann resigned")
    assert board_info.result_line(Result(None, 0, EndReason.STOCK_OUT, (3, 4)), ("Ann", "Bob")) == (
        "Tie · no points · the stock ran out")


def test_hand_marks_legal_and_compulsory_plays() -> None:
    game = long_stacks()
    mine = game.view(0)
    assert mine.compulsory  # C2 shows an Ace, and a 2 is on top of side stack 1 (rule 11)
    plain = dataclasses.replace(mine, legal_moves=(), compulsory=())
    not_due = dataclasses.replace(mine, compulsory=())
    pictures = {render_hand(v, INFO) for v in (mine, plain, not_due)}
    assert len(pictures) == 3


def test_pictures_drawn_in_threads_are_the_same() -> None:
    # The bot renders off the event loop, possibly two pictures at once.
    game = long_stacks()
    expected = render_board(game.public_view(), INFO)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: render_board(game.public_view(), INFO), range(8)))
    assert set(results) == {expected}


def test_hand_needs_a_player_view() -> None:
    game = long_stacks()
    with pytest.raises(ValueError):
        render_hand(game.public_view(), INFO)


def test_names_the_fonts_cannot_draw_are_cleaned() -> None:
    assert fonts._printable("Ann 🎉", True) == "Ann"
    assert fonts._printable("Zoë ♥", True) == "Zoë ♥"
    view = long_stacks().public_view()
    emoji = dataclasses.replace(INFO, names=("Ann 🎉", "Bob"))
    assert render_board(view, emoji) == render_board(view, INFO)


def test_the_renderer_imports_no_discord() -> None:
    code = ("import sys, bot.pictures.board_picture, bot.pictures.hand_picture\n"
            "print('discord' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"
    for module in (board_info, board_layout, board_picture, cards_and_fans, fonts, group_board,
                   hand_picture, picture_palette):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "discord" not in source.replace("Discord", ""), module


def test_fonts_are_bundled() -> None:
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVu-LICENSE.txt"):
        assert (fonts._ASSETS / name).is_file()


def test_bench_prints_one_json_line_per_picture(capsys: pytest.CaptureFixture[str]) -> None:
    bench_main(["render", "--boards", "4"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["name"] for line in lines] == ["render_board", "render_hand",
                                                "render_board_pool",
                                                "render_hand_pool",
                                                "render_board_3", "render_hand_3",
                                                "render_board_4", "render_hand_4"]
    for line in lines:
        assert line["boards"] == 4
        assert 0 < line["median_ms"] <= line["worst_ms"]
        assert 0 < line["png_kb"] < 300


# ---------------------------------------------------------------------- labels and lines fit


@pytest.fixture
def drawn() -> Iterator[fonts.DrawnText]:
    """What the renderer draws as text, and which texts it had to cut short to fit."""
    with fonts.drawn_text() as record:
        yield record


def texts_of(record: fonts.DrawnText) -> list[str]:
    return [text for text, _ in record.texts]


def ace_due_everywhere() -> Game:
    """Classic: an Ace in hand and on the pay-off pile, four free centre slots (rule 10)."""
    return Game.from_layout(CLASSIC, payoffs=["AH", "6S"], hands=["AS 2D 5S 7S JK", "KH QH"],
                            sides=[["9C", "", "", ""], ["", "", "", ""]], turn=0)


def test_the_compulsory_label_is_never_cut(drawn: fonts.DrawnText) -> None:
    view = ace_due_everywhere().view(0)
    assert len(view.compulsory) == 8  # the Ace in hand and the pay-off Ace, each to C1..C4
    render_hand(view, INFO)
    assert drawn.cut == []
    labels = [t for t in texts_of(drawn) if t.startswith(("MUST", "→"))]
    assert labels and all(t.endswith("C4") or t == "MUST" for t in labels), labels


def test_stacks_are_named_short() -> None:
    assert hand_picture._stacks("C", (0, 1, 2, 3)) == "C1–C4"
    assert hand_picture._stacks("S", (0, 2)) == "S1 S3"
    assert hand_picture._stacks("C", (0, 1, 3)) == "C1 C2 C4"


GAME_OVER = "Game over: Annabel wins, scoring 26 points: Annabel played the last pay-off card."


def test_a_long_last_move_is_wrapped_not_cut(drawn: fonts.DrawnText) -> None:
    info = dataclasses.replace(INFO, last_moves=(*INFO.last_moves, GAME_OVER))
    render_board(long_stacks().public_view(), info)
    assert drawn.cut == []
    lines = [t for t in texts_of(drawn) if t in GAME_OVER]
    assert len(lines) > 1 and GAME_OVER in " ".join(lines), lines


def test_the_joker_in_last_moves_is_written_as_a_word(drawn: fonts.DrawnText) -> None:
    # The font's U+1F0CF is a small outlined card: at 22 px it reads as a missing glyph.
    info = dataclasses.replace(INFO, last_moves=("Ann: 🃏 as 5 from hand → centre 1",))
    render_board(long_stacks().public_view(), info)
    assert "Ann: Joker as 5 from hand → centre 1" in " ".join(texts_of(drawn))
    assert not any("🃏" in t for t in texts_of(drawn))


def test_the_png_holds_the_picture_mapped_to_the_palette(
        cases: list[tuple[View, View, BoardInfo]]) -> None:
    # The PNG is written by picture_palette._png, not by Pillow: Pillow must read back exactly the
    # drawn picture. Boards and hands are drawn in the palette (issue 35), so the PNG holds
    # their very indices; a picture drawn in RGB is mapped, each pixel to its nearest colour.
    for pub, mine, info in cases[::8]:
        for drawn, png in ((board_picture._draw_board(board_info._public(pub), info),
                            render_board(pub, info)),
                           (hand_picture._draw_hand(mine, info), render_hand(mine, info))):
            assert picture_palette._in_palette(drawn)
            back = open_png(png, drawn.size)
            assert back.tobytes() == drawn.tobytes()
            assert back.convert("RGB").tobytes() == drawn.convert("RGB").tobytes()
            in_rgb = drawn.convert("RGB")
            again = open_png(picture_palette._png(in_rgb), drawn.size).convert("RGB")
            mapped = in_rgb.quantize(palette=picture_palette._PALETTE, dither=Image.Dither.NONE)
            assert again.tobytes() == mapped.convert("RGB").tobytes()
            diff = ImageChops.difference(again, in_rgb).convert("L").histogram()
            assert sum(level * n for level, n in enumerate(diff)) / sum(diff) < 4.0  # of 255


@pytest.mark.parametrize("size", [(1, 1), (3, 2), (2, 5)])
def test_tiny_pictures_make_valid_pngs(size: tuple[int, int]) -> None:
    picture = Image.new("RGB", size, (205, 20, 36))
    picture.putpixel((0, 0), (255, 255, 255))
    back = open_png(picture_palette._png(picture), size).convert("RGB")
    assert back.getpixel((0, 0)) == (255, 255, 255)
    assert back.getpixel((size[0] - 1, size[1] - 1)) == ((205, 20, 36) if size != (1, 1)
                                                         else (255, 255, 255))


# ---------------------------------------------------------------------- tables of three or four


@pytest.fixture(scope="module")
def group_cases() -> list[tuple[View, View, BoardInfo]]:
    # Seeded games of three and of four, both rule sets, from the deal to the end; a player
    # leaves in every other game.
    return positions(24, seed=5, players=3) + positions(24, seed=5, players=4)


def test_group_cases_cover_every_stage(group_cases: list[tuple[View, View, BoardInfo]]) -> None:
    assert {pub.players for pub, _, _ in group_cases} == {3, 4}
    assert {pub.rules.name for pub, _, _ in group_cases} == {"classic", "kings"}
    assert any(pub.turn_number == 0 for pub, _, _ in group_cases)
    assert any(pub.left and pub.result is None for pub, _, _ in group_cases)
    assert any(pub.left and pub.result is not None for pub, _, _ in group_cases)
    assert any(pub.result is not None and not pub.left for pub, _, _ in group_cases)


def test_group_boards_and_hands_are_small_pngs(
        group_cases: list[tuple[View, View, BoardInfo]]) -> None:
    for pub, mine, info in group_cases:
        n = pub.players
        assert board_size(pub)[0] == BOARD_WIDTH
        open_png(render_board(pub, info), board_size(pub))  # < 300 KB
        open_png(render_hand(mine, info), hand_picture.hand_size(n))
    assert hand_picture.hand_size(2) == HAND_SIZE


def group_game(rules: object, players: int, moves: int, seed: int = 4) -> Game:
    game, _ = Game.new(rules, seed, players=players)  # type: ignore[arg-type]
    for _ in range(moves):
        if game.result is not None:
            break
        game.play(game.legal_moves()[0])
    return game


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", [CLASSIC, KINGS], ids=lambda r: r.name)
def test_a_group_board_is_the_same_from_every_seat(rules: object, players: int) -> None:
    # Rule 29: nothing private reaches the board, whoever's view it is drawn from.
    names = ("Ann", "Bob", "Carol", "Dmitri")[:players]
    info = BoardInfo(names, last_moves=("Ann passed",))
    for moves in (0, 30, 90):
        game = group_game(rules, players, moves)
        if moves == 90 and game.result is None:
            game.resign(1)
        public = render_board(game.public_view(), info)
        for seat in range(players):
            assert render_board(game.view(seat), info) == public
        other = dataclasses.replace(game.view(0), hand=(Card.parse("KS"),), legal_moves=(),
                                    compulsory=())
        assert render_board(other, info) == public


def test_group_boards_show_who_plays_who_left_and_the_result(
        drawn: fonts.DrawnText) -> None:
    names = ("Ann", "Bob", "Carol", "Dmitri")
    game = group_game(KINGS, 4, 40)
    game.resign(2)
    render_board(game.public_view(), BoardInfo(names))
    texts = texts_of(drawn)
    assert "TO PLAY" in texts and "LEFT" in texts
    assert f"▶ {names[game.turn]}" in texts
    assert {"Ann", "Bob", "Carol", "Dmitri"} <= {t.removeprefix("▶ ") for t in texts}
    drawn.texts.clear()
    game.resign(0)
    game.resign(1)
    result = game.public_view().result
    assert result is not None and result.winner == 3
    render_board(game.public_view(), BoardInfo(names))
    texts = texts_of(drawn)
    assert f"WINNER +{result.score}" in texts
    assert any(t.startswith("Game over: Dmitri wins") and "Carol, Ann and Bob left" in t
               for t in texts), texts
    assert all(f"LEFT −{result.margins[s]}" in texts for s in (0, 1, 2))  # their margins


def test_three_seats_show_the_order_of_play(drawn: fonts.DrawnText) -> None:
    names = ("Ann", "Bob", "Carol")
    game = group_game(CLASSIC, 3, 20)
    render_board(game.public_view(), BoardInfo(names))
    order = [t for t in texts_of(drawn) if t.startswith(("▶ ", "2. ", "3. ")) and " left" in t]
    first = names[game.turn]
    assert order[0] == f"▶ {first} · {game.public_view().payoff_counts[game.turn]} left"
    assert [t.split(" · ")[0][3:] for t in order[1:]] == [
        names[(game.turn + 1) % 3], names[(game.turn + 2) % 3]]


@pytest.mark.parametrize("players", [3, 4])
def test_no_text_on_a_group_board_is_smaller_than_a_rank(
        players: int, group_cases: list[tuple[View, View, BoardInfo]]) -> None:
    # Every text is at least the corner rank of a side-stack card (the rank a player reads on
    # a fan); test_render_phone checks the 8 px on a phone. (Card faces themselves, and the
    # corners of a fan longer than _GROUP_FULL_FAN cards squeezed into its panel, are cards,
    # not text.)
    group_board._group_base.cache_clear()
    with fonts.drawn_text() as drawn:
        for pub, _, info in group_cases:
            if pub.players == players:
                render_board(pub, info)
    rank = cards_and_fans._CORNER_MAX
    assert min(drawn.sizes) >= rank
    # The side stacks keep full-size corners up to this many cards.
    step = cards_and_fans._fan_step(board_layout._GROUP_FULL_FAN, board_layout._GROUP_FAN_HEIGHT)
    assert cards_and_fans._corner_for_step(int(step)) == rank


@pytest.mark.parametrize("players", [3, 4])
def test_no_half_of_a_group_board_is_empty(players: int) -> None:
    # At the deal, with the fewest cards out: each half of the picture (top, bottom, left,
    # right) still holds cards and words, not felt alone.
    game = group_game(KINGS, players, 0)
    names = ("Ann", "Bob", "Carol", "Dmitri")[:players]
    board = Image.open(io.BytesIO(render_board(game.public_view(), BoardInfo(names)))
                       ).convert("RGB")
    w, h = board.size
    felt = {picture_palette._FELT, picture_palette._FELT_DARK}
    for box in ((0, 0, w, h // 2), (0, h // 2, w, h), (0, 0, w // 2, h), (w // 2, 0, w, h)):
        part = board.crop(box)
        colours = part.getcolors(part.width * part.height) or []
        ink = sum(n for n, c in colours if c not in felt) / (part.width * part.height)
        assert ink > 0.05, (box, ink)


def test_group_hands_show_the_opponents_in_order(drawn: fonts.DrawnText) -> None:
    names = ("Ann", "Bob", "Carol", "Dmitri")
    game = group_game(CLASSIC, 4, 25)
    game.resign(3) if game.turn != 3 else game.resign(2)
    seat = game.turn
    view = game.view(seat)
    open_png(render_hand(view, BoardInfo(names)), hand_picture.hand_size(4))
    shown = [t.removeprefix("▶ ") for t in texts_of(drawn) if t.removeprefix("▶ ") in names]
    order = [names[o.seat] for o in view.opponents]
    assert shown[-3:] == order and names[seat] not in shown[-3:]
    assert "left the game" in texts_of(drawn)


def test_group_result_lines() -> None:
    names = ("Ann", "Bob", "Carol", "Dmitri")
    left = Result(0, 30, EndReason.RESIGNED, (5, 10, 20, 0), (None, 10, 20, 0), (1, 2, 3))
    assert board_info.result_line(left, names) == (
        "Ann wins · 30 points · Bob, Carol and Dmitri left")
    drawn_game = Result(None, 0, EndReason.STALEMATE, (5, 5, 9), (None, None, None))
    assert board_info.result_line(drawn_game, names[:3]) == (
        "Tie · no points · stalemate, fewest pay-off cards shared")


DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC_BOARDS = {2: (DOCS / "board.png", 17), 3: (DOCS / "board-3-players.png", 30),
              4: (DOCS / "board-4-players.png", 40)}
"""The boards in the README: the picture and the turn it shows, by seats."""


def doc_board(players: int) -> bytes:
    """A picture in the README: a kings game of ``players`` played by the computer
    (``normal``) to a set turn, the second game of a match, the last moves as the bot writes
    them."""
    from bot.pictures.text import describe_events
    from engine.players import make_player

    names = ("Alice", "Bob", "Carol", "Dmitri")[:players]
    turns = DOC_BOARDS[players][1]
    game, _ = Game.new(KINGS, 7, players=players)
    robots = [make_player("normal", seat) for seat in range(players)]
    lines: list[str] = []
    while game.turn_number < turns:
        events = game.play(robots[game.turn].choose(game.view(game.turn)))
        lines += describe_events(names, [e.public() for e in events])
    info = BoardInfo(names, game_number=2, match_scores=(0, 14, 9, 0)[:players],
                     match_target=50, last_moves=tuple(lines[-12:]))
    return render_board(game.public_view(), info)


def _pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    # The pixels, not the PNG's bytes: ISA-L's deflate differs by the CPU's instruction set.
    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.convert("RGB").tobytes()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_readme_shows_boards_as_drawn_today(players: int) -> None:
    # python -m tests.bot.test_render draws them again.
    path = DOC_BOARDS[players][0]
    assert _pixels(path.read_bytes()) == _pixels(doc_board(players))


if __name__ == "__main__":
    for seats, (doc, _) in DOC_BOARDS.items():
        doc.write_bytes(doc_board(seats))
