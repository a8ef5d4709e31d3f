"""The private hand picture is drawn once per game, version and seat, and never shown for
another position."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest

from bot.app import ui
from bot.app.host import Host
from bot.games.game_service import GameService, LiveGame
from bot.pictures.hand_picture import render_hand
from bot.storage import Storage

ANN, BOB = 101, 202


class _Bot:
    def __init__(self, service: GameService) -> None:
        self.service = service


@pytest.fixture
async def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
              ) -> AsyncIterator[tuple[GameService, Host, list[Any]]]:
    drawn: list[Any] = []

    class Counting:
        # The drawing processes (bot.pictures.drawing) draw the same bytes: here, the count matters.
        async def hand(self, view: Any, info: Any) -> bytes:
            drawn.append((view, info))
            return render_hand(view, info)

    monkeypatch.setattr(ui, "pictures", Counting())
    monkeypatch.setattr(ui, "_hand_pictures", type(ui._hand_pictures)())
    storage = await Storage.open(tmp_path / "h.sqlite3")
    seeds = iter(range(5, 1000))
    service = GameService(storage, computer_id=999, seed_source=lambda: next(seeds))
    yield service, cast(Host, _Bot(service)), drawn
    await storage.close()


async def _game(service: GameService, channel: int = 10) -> LiveGame:
    row = await service.inviting.challenge(guild_id=1, channel_id=channel, challenger_id=ANN,
                                           opponent_id=BOB, opponent_is_bot=False,
                                           rules_name="kings", names=("Ann", "Bob"))
    assert not isinstance(row, LiveGame)
    return (await service.inviting.accept(row.id, BOB))[1]


def _png(payload: dict[str, Any]) -> bytes:
    return bytes(payload["file"].fp.getvalue())


async def test_a_hand_shown_again_is_not_drawn_again(env) -> None:
    service, bot, drawn = env
    live = await _game(service)
    user = live.on_turn
    first = await ui.hand_payload(bot, live, user)
    token = service.live.view(live, user).legal_moves[0].source_token
    chosen = await ui.hand_payload(bot, live, user, selected=token)  # the card menu
    back = await ui.hand_payload(bot, live, user)  # Back
    assert len(drawn) == 1
    assert _png(first) == _png(chosen) == _png(back)
    # The other seat's hand is its own picture; a move makes a new one for both.
    other = ANN if user == BOB else BOB
    await ui.hand_payload(bot, live, other)
    assert len(drawn) == 2 and drawn[1][0].viewer != drawn[0][0].viewer
    move = service.live.view(live, user).legal_moves[0]
    live = (await service.playing.play(live.id, user, move.text)).game
    after = await ui.hand_payload(bot, live, user)
    assert len(drawn) == 3 and _png(after) != _png(first)
    facts = service.live.facts(live, user)
    assert _png(after) == render_hand(facts.view, ui.board_info(facts))


async def test_a_kept_picture_is_used_only_for_the_same_position(env) -> None:
    service, bot, drawn = env
    # Two games that share an id, version and seat (say, before and after a restart onto
    # another database) but not their cards: each gets its own picture.
    live = await _game(service)
    user = live.on_turn
    first = await ui.hand_payload(bot, live, user)
    other = await _game(service, channel=11)
    other.id = live.id
    assert other.version == live.version and other.terms.seat_of(user) == live.terms.seat_of(user)
    second = await ui.hand_payload(bot, other, user)
    assert len(drawn) == 2 and _png(second) != _png(first)


async def test_only_so_many_pictures_are_kept(env, monkeypatch: pytest.MonkeyPatch) -> None:
    service, bot, drawn = env
    monkeypatch.setattr(ui, "HAND_PICTURES_KEPT", 2)
    games = [await _game(service, channel=20 + n) for n in range(3)]
    for live in games:
        await ui.hand_payload(bot, live, live.on_turn)
    assert len(ui._hand_pictures) == 2 and len(drawn) == 3
    await ui.hand_payload(bot, games[2], games[2].on_turn)  # kept
    assert len(drawn) == 3
    await ui.hand_payload(bot, games[0], games[0].on_turn)  # dropped: drawn again
    assert len(drawn) == 4


def test_the_storage_and_hand_benchmarks_run_from_bot_bench(capsys) -> None:
    import json

    from bot.bench.commands import main as bench_main

    bench_main(["hand", "--games", "2", "--repeats", "2"])
    bench_main(["storage", "--games", "1", "--moves", "20"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["name"] == "hand_repeated" and rows[0]["again_ms"] >= 0
    assert any(r["name"] == "store_run" and r["bytes_per_move"] > 0 for r in rows)
