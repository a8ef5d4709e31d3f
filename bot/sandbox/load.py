"""A :class:`FakeDiscord` for many simulated players at once (the load benchmark).

:meth:`FakeDiscord.wait_for` wakes *every* waiter on *every* change of the fake's state and
polls each one every 20 ms: right for a test with two players, but with hundreds of players
waiting at once the fake would spend the machine's CPU re-checking predicates, and the
benchmark would measure the fake instead of the bot. :class:`LoadFakeDiscord` adds a wait
that wakes only the player whose interaction (or the message it sits on) just changed, and
counts the public board messages the bot posts and edits. Nothing of the base class behaves
differently: it only calls the base methods and then wakes its own waiters.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .discord_state import DiscordState, UploadedFile
from .interactions import InteractionRecord
from .message_store import MessageStore
from .models import JSON, FakeMessage
from .server import FakeDiscord
from .waiting import release

__all__ = ["BOARD_TITLE", "LoadFakeDiscord", "LoadMessageStore"]

T = TypeVar("T")

BOARD_TITLE = "Spite & Malice ·"
"""How a board's embed title begins (what makes a public message a board)."""

_Key = tuple[str, int]


def _is_board(msg: FakeMessage) -> bool:
    return bool(msg.embeds) and str(msg.embeds[0].get("title", "")).startswith(BOARD_TITLE)


class LoadMessageStore(MessageStore):
    """The fake's message store, waking only the player a change concerns, and counting the
    boards."""

    def __init__(self, state: DiscordState) -> None:
        super().__init__(state)
        self._watch: defaultdict[_Key, set[asyncio.Future[None]]] = defaultdict(set)
        #: Board messages posted (a new message whose embed is a board).
        self.board_posts = 0
        #: Edits of board messages (redrawn in place, or closed when the turn passed).
        self.board_edits = 0
        #: Board edits that carried a new picture.
        self.board_redraws = 0
        self._boards: set[int] = set()
        #: The newest board posted in each channel or thread, by channel id.
        self.latest_board: dict[int, FakeMessage] = {}
        #: Every new board picture (posted, or edited in), by channel id: when, and the lines
        #: of its "Last moves" field (which moves it shows).
        self.board_pictures: defaultdict[int, list[tuple[float, frozenset[str]]]] = \
            defaultdict(list)
        #: Pictures the bot uploaded (with a message, a follow-up, an answer or an edit), by
        #: file name: ``hand.png``, ``board.png``…
        self.uploads: Counter[str] = Counter()

    def _count(self, files: Sequence[UploadedFile]) -> None:
        self.uploads.update(f.filename for f in files)

    # -- waking

    def _wake(self, key: _Key) -> None:
        waiters = self._watch.pop(key, None)
        for waiter in waiters or ():
            release(waiter)

    def accept_callback(
        self, record: InteractionRecord, body: JSON, files: Sequence[UploadedFile]
    ) -> JSON:
        try:
            answer = super().accept_callback(record, body, files)
            self._count(files)
            return answer
        finally:  # also when refused (late, duplicate): the player stops waiting
            self._wake(("i", record.id))

    def create_followup(
        self, record: InteractionRecord, payload: JSON, files: Sequence[UploadedFile]
    ) -> FakeMessage:
        try:
            message = super().create_followup(record, payload, files)
            self._count(files)
            return message
        finally:
            self._wake(("i", record.id))

    def create_message(self, channel: Any, author: Any, payload: JSON,
                       files: Sequence[UploadedFile] = (), **kwargs: Any) -> FakeMessage:
        msg = super().create_message(channel, author, payload, files, **kwargs)
        self._count(files)
        if not msg.ephemeral and msg.interaction_id is None and _is_board(msg):
            self.board_posts += 1
            self._boards.add(msg.id)
            self.latest_board[msg.channel_id] = msg
            self._picture(msg)
        return msg

    def _picture(self, msg: FakeMessage) -> None:
        fields = msg.embeds[0].get("fields", []) if msg.embeds else []
        lines = next((str(f.get("value", "")) for f in fields if f.get("name") == "Last moves"),
                     "")
        self.board_pictures[msg.channel_id].append(
            (time.monotonic(), frozenset(lines.splitlines())))

    def edit_message(self, msg: FakeMessage, payload: JSON,
                     files: Sequence[UploadedFile] = ()) -> FakeMessage:
        try:
            edited = super().edit_message(msg, payload, files)
            self._count(files)
        finally:
            self._wake(("m", msg.id))
        if msg.id in self._boards:
            self.board_edits += 1
            if files:
                self.board_redraws += 1
                self._picture(edited)
        return edited

    # -- waiting

    async def until(
        self,
        record: InteractionRecord,
        predicate: Callable[[], T | None],
        *,
        timeout: float,
        description: str = "condition",
        poll: float = 0.5,
    ) -> T:
        """Wait until ``predicate()`` is truthy, re-checking it when ``record`` gets an answer
        or a follow-up, when a message it concerns is edited, and every ``poll`` seconds.

        Raises ``TimeoutError`` naming ``description``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"{record!r}: timed out after {timeout}s waiting for "
                                   f"{description}")
            keys: list[_Key] = [("i", record.id)]
            for msg in (record.source_message, record.response_message):
                if msg is not None:
                    keys.append(("m", msg.id))
            waiter: asyncio.Future[None] = loop.create_future()
            for key in keys:
                self._watch[key].add(waiter)
            # A timer that wakes the waiter, rather than ``asyncio.wait_for``: the same wake-up,
            # without the wrapping future and the TimeoutError (with its traceback) of each poll.
            timer = loop.call_later(min(remaining, poll), release, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                for key in keys:
                    group = self._watch.get(key)
                    if group is not None:
                        group.discard(waiter)
                        if not group:
                            del self._watch[key]



class LoadFakeDiscord(FakeDiscord):
    """A fake Discord with per-interaction wake-ups (``store.until``) and board counters
    (``store.board_posts``...)."""

    store: LoadMessageStore

    def _new_store(self) -> LoadMessageStore:
        return LoadMessageStore(self.state)

    async def answered(self, record: InteractionRecord, timeout: float) -> bool:
        """Wait for the first response; False if none came within ``timeout``."""
        try:
            await self.store.until(record, lambda: record.callback is not None
                             or bool(record.rejected_callbacks), timeout=timeout,
                             description="the first response")
        except TimeoutError:
            return False
        return record.callback is not None

    async def reply(self, record: InteractionRecord, timeout: float) -> FakeMessage:
        """What the player sees once the bot has finished answering (as
        :meth:`InteractionRecord.settled`, without waking every other player)."""

        def done() -> FakeMessage | None:
            cb = record.callback
            if cb is None:
                return None
            if cb.type in (8, 9):
                raise TimeoutError(f"{record!r} was answered with {cb.kind.name}")
            if cb.type == 6:  # a deferred update: a follow-up, or the message edited since
                if record.followups:
                    return record.followups[0]
                src = record.source_message
                if src is not None and src.edited_at is not None \
                        and src.edited_at >= record.created_wall:
                    return src
                return None
            msg = record.original_message
            if msg is None:
                return None
            if msg.deleted and msg.loading and record.followups:
                return record.followups[0]
            return None if msg.loading else msg

        return await self.store.until(record, done, timeout=timeout, description="the reply")

    async def choices(self, record: InteractionRecord, timeout: float) -> list[JSON]:
        """Autocomplete: the choices the bot offered."""
        cb = await self.store.until(record, lambda: record.callback, timeout=timeout,
                              description="autocomplete choices")
        choices: list[JSON] = cb.data.get("choices", [])
        return choices
