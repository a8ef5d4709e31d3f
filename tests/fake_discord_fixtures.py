"""pytest fixtures for the fake Discord harness.

Import them where they are needed (a ``conftest.py`` or a test module)::

    from tests.fake_discord_fixtures import fake_discord, make_fake_discord, no_error_logs

* ``fake_discord``: a started :class:`FakeDiscord` with discord.py pointed at it, one
  guild "Test Guild" (channels ``#general`` and ``#games``; members ``alice`` and
  ``bob`` plus the owner and the bot). On teardown the server stops and the test
  fails if the bot hit an unimplemented route or the fake itself crashed.
* ``make_fake_discord``: factory for fakes with non-default options
  (``await make_fake_discord(resume_policy="invalidate")``), same teardown.
* ``fake_discord_server(**options)``: the same as an ``async with`` context manager,
  for use outside fixtures.
* ``no_error_logs``: fails the test on any ERROR log record from ``discord``,
  ``bot``, ``asyncio``, ``aiohttp`` or ``fakediscord`` (see ``logguard.py``);
  ``no_error_logs.allow(regex)`` tolerates an expected one.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from bot.sandbox.logguard import ErrorLogGuard
from bot.sandbox.server import FakeDiscord

#: Type of the ``make_fake_discord`` fixture: ``await factory(**FakeDiscord options)``.
FakeDiscordFactory = Callable[..., Awaitable[FakeDiscord]]


def populate_default_world(fake: FakeDiscord) -> None:
    """One guild with ``#general``/``#games`` and members ``alice`` and ``bob``."""
    guild = fake.add_guild("Test Guild", channels=("general", "games"))
    fake.add_member(guild, "alice")
    fake.add_member(guild, "bob")


@contextlib.asynccontextmanager
async def fake_discord_server(
    *, populate: bool = True, **options: Any
) -> AsyncIterator[FakeDiscord]:
    """A started fake with discord.py pointed at it; stops it (and any leftover bot)
    on exit and then, if the body succeeded, runs :meth:`FakeDiscord.assert_clean`."""
    fake = FakeDiscord(**options)
    await fake.start()
    try:
        with fake.configure_client():
            if populate:
                populate_default_world(fake)
            yield fake
    finally:
        await fake.stop()
    fake.assert_clean()


@pytest.fixture
def no_error_logs() -> Iterator[ErrorLogGuard]:
    guard = ErrorLogGuard().install()
    try:
        yield guard
        # Collect garbage while still watching, so a leaked aiohttp ClientSession
        # reports "Unclosed client session" against *this* test.
        gc.collect()
    finally:
        guard.uninstall()
    guard.check()


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    async with fake_discord_server() as fake:
        yield fake


@pytest.fixture
async def make_fake_discord() -> AsyncIterator[FakeDiscordFactory]:
    async with contextlib.AsyncExitStack() as stack:

        async def factory(*, populate: bool = True, **options: Any) -> FakeDiscord:
            return await stack.enter_async_context(
                fake_discord_server(populate=populate, **options)
            )

        yield factory
