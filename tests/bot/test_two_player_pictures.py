"""Two-player pictures and words stay exactly what they were before tables of three or four.

``data/two_player_picture_pins.json`` was recorded by the renderer and the text module as they
were before seats beyond two were drawn (commit e99b37b): the SHA-256 of the pixels of every
board and hand of 48 seeded positions of both rule sets and of a few hand-made ones (long side
stacks, wild cards, each kind of result), and of the words beside them (board fields, event
lines, result sentences, turn summaries, result announcements). Two-player boards must stay
pixel-identical. The boards were pinned again, on purpose, when their text grew to 8 px on a
phone and the board was fitted to its content (issue 31): the hands and the words kept their
pins of e99b37b.

The pins hash the decoded picture (mode, size, palette, pixels), not the PNG's bytes: ISA-L
chooses its deflate code by the CPU's instruction set, and a CI run on another machine gave
other bytes for three hands whose pixels were right. The pins would move with a new Pillow or
FreeType (the fonts are bundled), and then only with them: record them again with
``python -m tests.bot.test_two_player_pictures``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import sys
from pathlib import Path
from typing import Any

from PIL import Image

from bot.bench.render_bench import positions
from bot.pictures import text
from bot.pictures.board_info import BoardInfo, result_line
from bot.pictures.board_picture import render_board
from bot.pictures.hand_picture import render_hand
from engine import CLASSIC, KINGS, EndReason, Game, Result
from engine.players import make_player

PINS_PATH = Path(__file__).parent / "data" / "two_player_picture_pins.json"

NAMES = ("Ann", "Bartholomew")
INFO = BoardInfo(("Ann", "Bob"), game_number=2, match_scores=(12, 30), match_target=50,
                 last_moves=("Ann: 7♥ from hand → C2", "Bob: pay-off card → C1", "Bob passed"))
RESULTS = (Result(0, 7, EndReason.PAYOFF_EMPTIED, (0, 7)),
           Result(1, 7, EndReason.PAYOFF_EMPTIED, (7, 0)),
           Result(None, 0, EndReason.STOCK_OUT, (3, 4)),
           Result(None, 0, EndReason.TURN_LIMIT, (3, 4)),
           Result(None, 0, EndReason.STALEMATE, (5, 5)),
           Result(0, 3, EndReason.STALEMATE, (2, 5)),
           Result(1, 2, EndReason.RESIGNED, (4, 2)),
           Result(0, 9, EndReason.RESIGNED, (3, 9)))


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def _pixels(png: bytes) -> str:
    """The SHA-256 of a PNG's picture: its size, palette and pixels, whatever the deflate."""
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        head = f"{image.mode} {image.size} ".encode() + bytes(image.getpalette() or ())
        return _sha(head + image.tobytes())


def _pictures() -> dict[str, str]:
    out: dict[str, str] = {}
    for i, (pub, mine, info) in enumerate(positions(48, seed=3)):
        out[f"board {i}"] = _pixels(render_board(pub, info))
        out[f"hand {i}"] = _pixels(render_hand(mine, info))
    from tests.bot.test_render import ace_due_everywhere, long_stacks

    game = long_stacks()
    out["long board"] = _pixels(render_board(game.public_view(), INFO))
    out["long hand"] = _pixels(render_hand(game.view(0), INFO))
    out["long hand 1"] = _pixels(render_hand(game.view(1), INFO))
    out["ace hand"] = _pixels(render_hand(ace_due_everywhere().view(0), INFO))
    for k, result in enumerate(RESULTS):
        over = dataclasses.replace(game.public_view(), result=result)
        out[f"result board {k}"] = _pixels(render_board(over, INFO))
        out[f"result hand {k}"] = _pixels(render_hand(dataclasses.replace(game.view(0),
                                                                       result=result), INFO))
    return out


def _words() -> dict[str, str]:
    out: dict[str, str] = {}
    for rules in (CLASSIC, KINGS):
        for seed in (3, 11):
            game, dealt = Game.new(rules, seed)
            players = [make_player("easy", seed), make_player("normal", seed + 1)]
            lines = text.describe_events(NAMES, dealt)
            fields: list[Any] = []
            summaries: list[str] = []
            while game.result is None and game.turn_number < 400:
                events = game.play(players[game.turn].choose(game.view(game.turn)))
                lines += text.describe_events(NAMES, [e.public() for e in events])
                view = game.public_view()
                if len(game.history) % 5 == 0 or game.result is not None:
                    fields.append(text.board_fields(view, NAMES))
                    summaries.append(text.turn_summary(view, NAMES))
                    if game.result is None:
                        mine = game.view(game.turn)
                        fields.append(text.hand_text(mine))
                        fields.append([[text.source_label(m, mine), text.target_label(m, mine)]
                                       for m in mine.legal_moves[:12]])
            key = f"{rules.name} {seed}"
            out[f"{key} events"] = _sha("\n".join(lines))
            out[f"{key} fields"] = _sha(json.dumps(fields, ensure_ascii=False))
            out[f"{key} summaries"] = _sha("\n".join(summaries))
            out[f"{key} history"] = _sha("\n".join(text.describe_history(NAMES,
                                                                         game.history)))
    sentences = []
    for result in RESULTS:
        sentences.append(text.result_text(result, NAMES))
        sentences.append(result_line(result, NAMES))
        for claimed in (False, True):
            for scores, target, winner in ((None, None, None), ((20, 51), 50, 1),
                                           ((30, 30), None, None)):
                sentences.append(text.result_announcement(
                    game_id=7, players=(101, 202), names=NAMES, rules="kings", result=result,
                    claimed=claimed, match_winner=winner, scores=scores, target=target,
                    money="Bartholomew owes Ann 1.50."))
    out["results"] = _sha("\n".join(sentences))
    return out


def record() -> dict[str, dict[str, str]]:
    """The pins, as the code of today gives them."""
    return {"pictures": _pictures(), "words": _words()}


PINS = json.loads(PINS_PATH.read_text()) if PINS_PATH.exists() else {}


def test_two_player_pictures_are_byte_identical() -> None:
    got = _pictures()
    changed = sorted(k for k, v in PINS["pictures"].items() if got.get(k) != v)
    assert not changed, changed


def test_two_player_words_are_unchanged() -> None:
    got = _words()
    changed = sorted(k for k, v in PINS["words"].items() if got.get(k) != v)
    assert not changed, changed


if __name__ == "__main__":
    PINS_PATH.parent.mkdir(exist_ok=True)
    PINS_PATH.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PINS_PATH}", file=sys.stderr)
