"""Fixtures for the end-to-end tests: the real bot against the local fake Discord."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app import ui
from bot.app.client import INTERACTION_TASKS, SpiteBot
from bot.ops.config import Config
from bot.sandbox import FakeDiscord, start_bot
from bot.sandbox.interactions import InteractionRecord
from bot.sandbox.models import FakeMessage
from tests import fake_discord_fixtures as _fixtures
from tests.support import Clock

fake_discord = _fixtures.fake_discord
no_error_logs = _fixtures.no_error_logs


@dataclass
class World:
    """The fake Discord, the running bot and its people."""

    fake: FakeDiscord
    db: Path
    clock: Clock
    seeds: Callable[[], int]
    bot: SpiteBot | None = None
    handles: list[Any] = field(default_factory=list)

    @property
    def guild(self) -> Any:
        return self.fake.guild

    @property
    def channel(self) -> Any:
        return self.fake.guild.channel("general")

    @property
    def alice(self) -> Any:
        return self.fake.guild.member("alice")

    @property
    def bob(self) -> Any:
        return self.fake.guild.member("bob")

    async def start(self) -> SpiteBot:
        config = Config(token=self.fake.token, database=str(self.db), board_delay=0.01,
                        computer_delay=0.0, tick=3600)
        bot = SpiteBot(config, seed_source=self.seeds, clock=self.clock)
        handle = await start_bot(self.fake, bot)
        self.bot = bot
        self.handles.append(handle)
        return bot

    async def stop(self) -> None:
        if self.handles:
            await self.handles.pop().stop()
        self.bot = None

    def threads(self) -> list[Any]:
        """The threads opened in ``#general`` (one per game), oldest first."""
        return sorted((c for c in self.guild.channels.values()
                       if c.is_thread and c.parent_id == self.channel.id), key=lambda c: c.id)

    def in_channel(self) -> list[FakeMessage]:
        """Public messages in ``#general`` itself (not in its threads)."""
        return [m for m in self.fake.messages(self.channel) if not m.ephemeral]

    def public(self) -> list[FakeMessage]:
        """Every public message: ``#general`` and its games' threads, in posting order."""
        messages = self.in_channel()
        for thread in self.threads():
            messages += [m for m in self.fake.messages(thread) if not m.ephemeral]
        return sorted(messages, key=lambda m: m.id)

    def boards(self) -> list[FakeMessage]:
        return [m for m in self.public() if any(c.startswith("sm:hand:") for c in m.custom_ids())
                or (m.embeds and "Spite & Malice ·" in m.embeds[0].get("title", ""))]

    async def settle(self) -> None:
        """Wait until the bot has no board update, computer move, callback or background
        task (a result, ratings) pending."""
        assert self.bot is not None
        bot = self.bot

        def idle() -> bool:
            # A command's or a button's callback may still be running after its answer was
            # sent (it asks for the board after the ✅): wait for those tasks too.
            return (not bot.boards._pending and not bot._computer_tasks and not bot._tasks
                    and not any(t.get_name().startswith(INTERACTION_TASKS) and not t.done()
                                for t in asyncio.all_tasks()))
        # Again after a flush: a board drawn may hand the turn to the computer, whose move asks
        # for a board.
        for _ in range(3):
            await asyncio.sleep(0)
            await self.fake.wait_for(idle, timeout=20, description="bot idle")
            await bot.boards.flush()


@pytest.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[World]:
    counter = itertools.count(11)
    # Every world deals the same games (seeds 11, 12, …): a hand picture kept by an earlier
    # test's bot in this process would be the very same picture, and a test that times the
    # drawing would find none to time.
    ui._hand_pictures.clear()
    w = World(fake_discord, tmp_path / "bot.sqlite3", Clock(), lambda: next(counter))
    await w.start()
    try:
        yield w
    finally:
        while w.handles:
            await w.stop()


def slowed(monkeypatch: pytest.MonkeyPatch, target: Any, names: tuple[str, ...],
           seconds: float = 0.4) -> None:
    """These methods of ``target`` wait ``seconds`` before they work: a busy database."""
    for name in names:
        method = getattr(target, name)

        async def slowly(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
            await asyncio.sleep(seconds)
            return await _method(*args, **kwargs)
        monkeypatch.setattr(target, name, slowly)


async def quick(inter: InteractionRecord, within: float = 0.2) -> InteractionRecord:
    """The interaction got its first answer (a deferral, say) within ``within`` seconds."""
    await inter.response()
    assert inter.latency is not None and inter.latency < within, (inter, inter.latency)
    return inter


def select_options(message: FakeMessage) -> list[dict[str, Any]]:
    """The options of the card menu of a private hand."""
    for comp in message.iter_components():
        if comp.get("type") == 3 and str(comp.get("custom_id", "")).startswith("sm:src:"):
            return list(comp.get("options", []))
    return []


def option_targets(option: dict[str, Any]) -> list[str]:
    """The targets listed in a card-menu option's description (``to C1, S2``)."""
    text = str(option.get("description", "")).split("to ", 1)[-1]
    return re.findall(r"\b[CS]\d\b", text)
