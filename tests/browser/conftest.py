"""The sandbox's page in a real browser: Debian's chromium, driven by Playwright (headless).

Playwright's own browser download doesn't work on our machines, so the browser is the system's
(``CHROMIUM``, default ``/usr/bin/chromium``; ``apt-get install -y chromium``). Without it, or
without the ``playwright`` package, these tests are skipped with the reason, unless
``REQUIRE_BROWSER=1`` (set by ``.ci/run``), which makes that a failure, so CI can't pass
without them.

Each test gets the sandbox (the fake Discord and its page, as ``python -m bot sandbox`` starts
them) with the real bot in this process (fast settings: no pause before boards or the
computer's moves), and a browser in which each person has a page of their own.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app.client import SpiteBot
from bot.ops.config import Config
from bot.sandbox import start_bot
from bot.sandbox.logguard import ErrorLogGuard
from bot.sandbox.session import Sandbox

from .page_actions import send_command

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
TIMEOUT_MS = 15_000
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 3}
"""A phone as chromium emulates one (the size of an iPhone 12 to 14)."""


def _browser_problem() -> str | None:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return f"no chromium at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)"
    return None


def need_browser() -> None:
    """Skip (or, with ``REQUIRE_BROWSER=1``, fail) when there is no browser to test with."""
    problem = _browser_problem()
    if problem is None:
        return
    if os.environ.get("REQUIRE_BROWSER", "").strip() not in ("", "0"):
        pytest.fail(f"REQUIRE_BROWSER is set but the browser tests can't run: {problem}")
    pytest.skip(f"browser tests skipped: {problem}")


@dataclass
class Person:
    """One person's page."""

    name: str
    page: Any
    frames: list[str] = field(default_factory=list)
    """Every websocket frame the page received (what the server ever sent this person)."""

    async def command(self, text: str) -> None:
        """Type a whole command and send it."""
        await send_command(self.page, text)

    async def open(self, name: str) -> None:
        """Open a channel or thread of the side list whose name contains ``name`` (on a phone,
        the list is in the drawer, opened with its button first)."""
        toggle = self.page.locator("#drawer-toggle")
        if await toggle.is_visible():
            await toggle.click()
            await self.page.locator("#sidebar.open").wait_for()
        await self.page.locator(".channel", has_text=name).first.click()
        await self.page.wait_for_function(
            "(n) => document.getElementById('channel-name').textContent.includes(n)", arg=name)

    def message(self, text: str | re.Pattern[str]) -> Any:
        """The newest message (in the channel shown) containing ``text``."""
        return self.page.locator(".message", has_text=text).last

    async def text(self) -> str:
        text: str = await self.page.locator("body").inner_text()
        return text


@dataclass
class Run:
    """The sandbox, its bot, and a browser to open people's pages in."""

    sandbox: Sandbox
    bot: SpiteBot
    browser: Any
    people: dict[str, Person] = field(default_factory=dict)

    async def person(self, name: str, *, phone: bool = False,
                     scale: float | None = None) -> Person:
        """``name``'s page, in a window of its own (on a phone, with ``phone``; ``scale``:
        device pixels a CSS pixel)."""
        settings: dict[str, Any] = dict(PHONE) if phone else {"viewport": {"width": 1280,
                                                                           "height": 900}}
        if scale is not None:
            settings["device_scale_factor"] = scale
        context = await self.browser.new_context(**settings)
        context.set_default_timeout(TIMEOUT_MS)
        page = await context.new_page()
        person = Person(name, page)
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: person.frames.append(str(payload))))
        await page.goto(f"{self.sandbox.page.url}?as={name.lower()}")
        await page.wait_for_selector(".channel", state="attached")
        await page.wait_for_function("() => document.getElementById('connection')"
                                     ".classList.contains('up')")
        self.people[name] = person
        return person

    def live(self) -> Any:
        """The newest game in the bot's memory (read to check, never to act)."""
        games = list(self.bot.service.live._live.values())
        assert games, "no game yet"
        return max(games, key=lambda g: g.id)

    def on_turn(self) -> Person:
        live = self.live()
        member = self.sandbox.world.guild.members[live.on_turn]
        return self.people[member.user.global_name or ""]


@pytest.fixture
async def sandbox_run(tmp_path: Path) -> AsyncIterator[Run]:
    need_browser()
    from playwright.async_api import async_playwright

    guard = ErrorLogGuard().install()
    sandbox = Sandbox(None)
    await sandbox.start(0)
    seeds = itertools.count(11)
    try:
        with sandbox.fake.configure_client():
            config = Config(token=sandbox.fake.token, database=str(tmp_path / "bot.sqlite3"),
                            board_delay=0.05, computer_delay=0.0, tick=3600, backup_keep=0)
            bot = SpiteBot(config, seed_source=lambda: next(seeds))
            handle = await start_bot(sandbox.fake, bot)
            try:
                async with async_playwright() as playwright:
                    browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                               headless=True)
                    try:
                        yield Run(sandbox, bot, browser)
                    finally:
                        await browser.close()
            finally:
                await handle.stop()
    finally:
        await sandbox.stop()
        guard.uninstall()
    sandbox.fake.assert_clean()
    guard.check()
