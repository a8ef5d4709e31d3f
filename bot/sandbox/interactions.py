"""Records of interactions sent to the bot and of everything the bot answered.

A test gets an :class:`InteractionRecord` back from ``fake.slash(...)``,
``fake.click(...)`` etc. and awaits what it needs::

    inter = await fake.slash(alice, general, "ping")
    msg = await inter.message()          # the reply as the user sees it
    assert msg.ephemeral and "pong" in msg.content
    print(inter.latency)                 # seconds from dispatch to first callback
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from .fake_errors import FakeDiscordError
from .models import JSON, FakeChannel, FakeMember, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .waiting import Waiting


class InteractionType(IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    """``InteractionResponseType``: what the bot answered on POST .../callback."""

    PONG = 1
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9
    PREMIUM_REQUIRED = 10
    LAUNCH_ACTIVITY = 12


#: Which callback types Discord accepts for which interaction type.
ALLOWED_CALLBACKS: dict[int, set[int]] = {
    InteractionType.APPLICATION_COMMAND: {4, 5, 9, 10, 12},
    InteractionType.MESSAGE_COMPONENT: {4, 5, 6, 7, 9, 10, 12},
    InteractionType.AUTOCOMPLETE: {8},
    InteractionType.MODAL_SUBMIT: {4, 5, 6, 7, 10},
}


@dataclass
class CallbackRecord:
    """One accepted initial response (POST /interactions/{id}/{token}/callback)."""

    type: int
    data: JSON
    at: float
    #: Files uploaded with the callback: (filename, bytes).
    files: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def kind(self) -> CallbackType:
        return CallbackType(self.type)


@dataclass(eq=False)
class InteractionRecord:
    """An interaction the fake dispatched, plus everything the bot did with it."""

    #: The fake it came from, to wait on.
    fake: Waiting
    id: int
    token: str
    type: int
    user: FakeUser
    member: FakeMember | None
    channel: FakeChannel
    payload: JSON
    #: Command name ("game start") for commands, custom_id for components/modals.
    name: str
    created_at: float = field(default_factory=time.monotonic)
    created_wall: float = field(default_factory=time.time)
    dispatched_at: float | None = None
    callback: CallbackRecord | None = None
    #: Callback attempts Discord would refuse (late, duplicate, wrong type): (type, reason).
    rejected_callbacks: list[tuple[int, str]] = field(default_factory=list)
    followups: list[FakeMessage] = field(default_factory=list)
    #: The message the component/modal was attached to (component interactions).
    source_message: FakeMessage | None = None
    #: For type 4/5 responses: the message the response created.
    response_message: FakeMessage | None = None
    #: Extra: for ``submit_modal``, the interaction whose callback opened the modal.
    parent: InteractionRecord | None = None

    # -- state -------------------------------------------------------------------

    @property
    def responded(self) -> bool:
        return self.callback is not None

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch to the first (initial) callback, or None if none yet."""
        if self.callback is None or self.dispatched_at is None:
            return None
        return self.callback.at - self.dispatched_at

    @property
    def original_message(self) -> FakeMessage | None:
        """What ``@original`` refers to for this interaction's webhook token."""
        if self.response_message is not None:
            return self.response_message
        if self.callback is not None and self.callback.type in (6, 7):
            return self.source_message
        return None

    @property
    def ephemeral(self) -> bool:
        msg = self.original_message
        return msg is not None and msg.ephemeral

    # -- awaiting ------------------------------------------------------------------

    async def _wait(self, predicate: Callable[[], Any], what: str, timeout: float) -> Any:
        return await self.fake.wait_for(predicate, timeout=timeout, description=f"{self!r}: {what}")

    async def response(self, timeout: float = 5.0) -> CallbackRecord:
        """Wait for the initial callback (any type)."""
        record: CallbackRecord = await self._wait(
            lambda: self.callback, "initial response", timeout
        )
        return record

    async def message(self, timeout: float = 5.0, *, settled: bool = True) -> FakeMessage:
        """The reply message as the user sees it.

        * callback 4: the message it created;
        * callback 5 ("thinking"): with ``settled`` waits until the bot replaced the
          loading placeholder (edit of ``@original`` or first follow-up);
        * callback 6/7: the component's message (after the update, for 7; for 6 it
          returns at once - use :meth:`wait_edit` to wait for the later edit).
        """
        await self.response(timeout)

        def ready() -> FakeMessage | None:
            msg = self.original_message
            if msg is None:
                return None
            if msg.deleted and msg.loading and self.followups:
                # The bot removed its "thinking" placeholder and answered with a follow-up.
                return self.followups[0]
            if settled and msg.loading:
                return None
            return msg

        if self.callback is not None and self.callback.type in (8, 9):
            raise FakeDiscordError(f"{self!r} was answered with {self.callback.kind.name}")
        msg: FakeMessage = await self._wait(ready, "reply message", timeout)
        return msg

    async def wait_edit(self, timeout: float = 5.0) -> FakeMessage:
        """Wait until the original message was edited after this interaction was sent.

        For flows that acknowledge first and edit later (``defer()`` of a component
        -> callback 6, then ``edit_original_response``), where :meth:`message`
        returns right after the acknowledgement.
        """
        await self.response(timeout)

        def edited() -> FakeMessage | None:
            msg = self.original_message
            if msg is None or msg.edited_at is None or msg.edited_at < self.created_wall:
                return None
            return msg

        msg: FakeMessage = await self._wait(edited, "an edit of the original message", timeout)
        return msg

    async def settled(self, timeout: float = 5.0) -> FakeMessage:
        """What the user sees once the bot has finished answering, whatever it answered first.

        * callback 4/7: the message, as :meth:`message`;
        * callback 5: the placeholder's replacement (or the follow-up that came after a
          deleted placeholder);
        * callback 6 (a deferred update): the first follow-up if one came (a refusal, say),
          else the original message once edited after this interaction was sent.
        """
        cb = await self.response(timeout)
        if cb.type != CallbackType.DEFERRED_UPDATE_MESSAGE:
            return await self.message(timeout)

        def done() -> FakeMessage | None:
            if self.followups:
                return self.followups[0]
            msg = self.original_message
            if msg is not None and msg.edited_at is not None and msg.edited_at >= self.created_wall:
                return msg
            return None

        msg: FakeMessage = await self._wait(done, "an edit or a follow-up", timeout)
        return msg

    async def choices(self, timeout: float = 5.0) -> list[JSON]:
        """Autocomplete: the choices the bot offered."""
        cb = await self.response(timeout)
        if cb.type != CallbackType.AUTOCOMPLETE_RESULT:
            raise FakeDiscordError(f"expected AUTOCOMPLETE_RESULT, bot answered {cb.kind.name}")
        choices: list[JSON] = cb.data.get("choices", [])
        return choices

    async def modal(self, timeout: float = 5.0) -> JSON:
        """The modal the bot opened (callback type 9 data: custom_id, title, components)."""
        cb = await self.response(timeout)
        if cb.type != CallbackType.MODAL:
            raise FakeDiscordError(f"expected MODAL, bot answered {cb.kind.name}")
        return cb.data

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """Wait until the bot sent at least ``count`` follow-up messages."""
        await self._wait(lambda: len(self.followups) >= count, f"{count} follow-up(s)", timeout)
        return list(self.followups)

    def __repr__(self) -> str:
        kind = InteractionType(self.type).name
        return f"<Interaction {kind} {self.name!r} by {self.user.username} id={self.id}>"
