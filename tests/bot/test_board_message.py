"""The words of a board message: the line a closed board keeps, and the footer of a live one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from bot.app.board import BoardPublisher
from bot.pictures.text import turn_summary
from engine import CLASSIC, KINGS, Game, RuleSet

NAMES = ("Alice", "Bob")


def _first_turn_played(rules: RuleSet, seed: int) -> Game:
    game, _ = Game.new(rules, seed)
    while game.turn_number == 0:
        game.play(game.legal_moves()[-1])
    return game


def test_the_closed_board_of_the_first_turn_has_no_stray_ellipsis() -> None:
    # The first turn began with the game: every one of its moves is remembered, nothing was
    # left out before them.
    for rules in (CLASSIC, KINGS):
        for seed in range(1, 6):
            view = _first_turn_played(rules, seed).public_view()
            first = NAMES[view.recent[0][0]]
            summary = turn_summary(view, NAMES)
            assert summary.startswith(f"✔ Turn 1 · {first}"), summary
            assert "…" not in summary, summary


def test_a_later_turn_longer_than_the_moves_remembered_still_says_so() -> None:
    # When every remembered move is the last turn's, and turns came before it, the moves
    # before them are gone from the view: "…" says the list starts mid-turn.
    game = _first_turn_played(KINGS, 3)
    while game.turn_number < 3:
        game.play(game.legal_moves()[-1])
    view = game.public_view()
    mover = view.recent[-1][0]
    only_last = tuple((mover, move) for _, move in view.recent)
    summary = turn_summary(view.__class__(**{**_fields(view), "recent": only_last}), NAMES)
    assert summary.startswith(f"✔ Turn {view.turn_number} · …; "), summary


def _fields(view: Any) -> dict[str, Any]:
    return {name: getattr(view, name) for name in view.__dataclass_fields__}


def _facts(game: Game, *, finished: bool) -> Any:
    return SimpleNamespace(
        id=7, names=NAMES, rules=game.rules, target=50, game_number=1, scores=(0, 0),
        finished=finished, winner=0 if finished else None, view=game.public_view(),
        last_moves=("Alice: 7♥ from hand → centre 2",), players=(1, 2))


def test_only_a_live_board_tells_players_to_press_show_my_hand() -> None:
    publisher = BoardPublisher(cast(Any, None), delay=0)
    game = _first_turn_played(KINGS, 2)
    live = publisher._payload(_facts(game, finished=False), b"png", [])
    assert "Show my hand" in (live["embed"].footer.text or "")
    assert live["view"] is not None  # the button the footer names
    game.resign(game.turn)
    over = publisher._payload(_facts(game, finished=True), b"png", [])
    assert over["view"] is None
    assert not over["embed"].footer.text
    assert "Show my hand" not in str(over["embed"].to_dict())


async def test_a_move_after_a_quiet_spell_is_drawn_at_once_and_a_burst_waits_for_the_delay(
        ) -> None:
    import asyncio
    import logging

    from bot.failures import FailureLog

    bot = SimpleNamespace(failures=FailureLog(logging.getLogger("test")), retry_base=0.01)
    publisher = BoardPublisher(cast(Any, bot), delay=3600.0)
    drawn: asyncio.Queue[int] = asyncio.Queue()
    waits: list[float] = []

    async def publish(game_id: int) -> None:
        drawn.put_nowait(game_id)

    later = publisher._later

    async def recorded_later(game_id: int, wait: float) -> None:
        waits.append(wait)
        await later(game_id, wait)

    publisher.publish = publish  # type: ignore[method-assign]
    publisher._later = recorded_later  # type: ignore[method-assign]
    publisher.request(1)
    assert await asyncio.wait_for(drawn.get(), 30) == 1, "the first move is drawn at once"
    await publisher.drawn(1)
    assert not publisher.is_due(1)
    publisher.request(1)  # a second move within the delay: waits for the rest of it
    await asyncio.sleep(0)  # its task starts
    assert publisher.is_due(1) and waits[0] == 0.0 and waits[1] > 3500
    publisher.request(2)  # another game, quiet until now: drawn at once
    assert await asyncio.wait_for(drawn.get(), 30) == 2
    assert drawn.empty() and publisher.is_due(1), "game 1's second move still waits"
    waiting = publisher._pending[1]
    waiting.cancel()
    await asyncio.wait({waiting})
