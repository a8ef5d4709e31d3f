"""``ui.answer_soon``: an answer ready within ``QUICK_ANSWER`` is the interaction's response; a
later one follows a deferral, which a refusal waits for; a cancelled one leaves nothing behind.

The interaction is a stand-in that records the calls discord.py's would make (the whole path
against the fake Discord is in ``tests/e2e/test_answers.py``)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from bot.app import ui


class _Response:
    def __init__(self, calls: list[str], fail_defer: bool) -> None:
        self.calls = calls
        self.fail_defer = fail_defer
        self.deferring = asyncio.Event()
        self.deferred = asyncio.Event()
        self._done = False

    def is_done(self) -> bool:
        return self._done

    async def defer(self, **kwargs: Any) -> None:
        self.calls.append(f"defer thinking={kwargs.get('thinking')}")
        self.deferring.set()
        await asyncio.sleep(0.01)
        self.deferred.set()
        if self.fail_defer:
            raise ConnectionError("the deferral was lost")
        self._done = True

    async def send_message(self, content: str = "", **kwargs: Any) -> None:
        self.calls.append(f"send_message {content}")
        self._done = True

    async def edit_message(self, content: str = "", **kwargs: Any) -> None:
        self.calls.append(f"edit_message {content}")
        self._done = True


class _Followup:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    async def send(self, content: str = "", **kwargs: Any) -> None:
        self.calls.append(f"followup {content}")


class _Interaction:
    def __init__(self, fail_defer: bool = False) -> None:
        self.calls: list[str] = []
        self.response = _Response(self.calls, fail_defer)
        self.followup = _Followup(self.calls)
        self.extras: dict[str, Any] = {}

    async def edit_original_response(self, content: str = "", **kwargs: Any) -> None:
        self.calls.append(f"edit_original {content}")


async def _answer(inter: _Interaction, work: Any, *, update: bool = False) -> None:
    await ui.answer_soon(inter, work, update=update)  # type: ignore[arg-type]


async def _payload(delay: float = 0.0, text: str = "hand") -> dict[str, Any]:
    await asyncio.sleep(delay)
    return {"content": text, "view": None}


@pytest.mark.parametrize("update", [False, True])
async def test_a_quick_answer_is_the_response_itself(update: bool) -> None:
    inter = _Interaction()
    await _answer(inter, _payload(), update=update)
    assert inter.calls == [("edit_message hand" if update else "send_message hand")]


@pytest.mark.parametrize("update", [False, True])
async def test_a_late_answer_follows_a_deferral(monkeypatch: pytest.MonkeyPatch,
                                                update: bool) -> None:
    monkeypatch.setattr(ui, "QUICK_ANSWER", 0.0)
    inter = _Interaction()

    async def late() -> dict[str, Any]:
        await inter.response.deferred.wait()  # the work ends only once the deferral is out
        return await _payload()

    await _answer(inter, late(), update=update)
    assert inter.calls == ([f"defer thinking={not update}"]
                           + (["edit_original hand"] if update else ["followup hand"]))


async def test_a_refusal_after_the_hold_waits_for_the_deferral(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ui, "QUICK_ANSWER", 0.0)
    inter = _Interaction()

    async def refused() -> dict[str, Any]:
        await inter.response.deferring.wait()  # the deferral is on its way, not yet done
        raise ui.UserError("That card can't move now.")

    with pytest.raises(ui.UserError):
        await _answer(inter, refused())
    # Answered by then: the refusal goes as a follow-up (``reply_error``), not a response.
    assert inter.response.is_done() and inter.calls == ["defer thinking=True"]


async def test_a_lost_deferral_fails_the_answer_and_is_not_left_unread(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(ui, "QUICK_ANSWER", 0.0)
    inter = _Interaction(fail_defer=True)

    async def late() -> dict[str, Any]:
        await inter.response.deferred.wait()
        return await _payload()

    with pytest.raises(ConnectionError):
        await _answer(inter, late())
    assert inter.calls == ["defer thinking=True"], "no answer after a lost deferral"

    inter = _Interaction(fail_defer=True)

    async def refused() -> dict[str, Any]:
        await inter.response.deferred.wait()
        raise ui.UserError("refused")

    with pytest.raises(ui.UserError):  # the refusal, not the deferral's failure, is raised
        await _answer(inter, refused())
    gc.collect()
    assert "never retrieved" not in caplog.text


async def test_a_cancelled_answer_does_not_wait_for_its_deferral(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(ui, "QUICK_ANSWER", 0.0)
    inter = _Interaction(fail_defer=True)
    started = asyncio.Event()

    async def endless() -> dict[str, Any]:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("never")

    task = asyncio.create_task(_answer(inter, endless()))
    await started.wait()
    await inter.response.deferring.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await inter.response.deferred.wait()  # the deferral ends (it fails)...
    await asyncio.sleep(0)  # ...and its outcome is read, after this task's turn
    gc.collect()
    assert "never retrieved" not in caplog.text
    assert inter.calls == ["defer thinking=True"]
