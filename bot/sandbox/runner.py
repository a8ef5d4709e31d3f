"""Start and stop a real discord.py client against a :class:`FakeDiscord`.

::

    async with running_bot(fake, MyBot()) as bot:
        ...                                  # bot is logged in, synced, READY

    handle = await start_bot(fake, MyBot())  # when the test controls the lifetime
    await handle.stop()                      # e.g. to restart with a new instance

Why ``guild_ready_timeout``: after READY, discord.py waits until no GUILD_CREATE has
arrived for ``guild_ready_timeout`` seconds (default 2 s) before firing ``on_ready``.
That is 2 s of dead time per bot start. The runner lowers it *on that bot instance*
(it is the same knob as the public ``guild_ready_timeout=`` client option); the fake
sends all GUILD_CREATEs right after READY, and the runner additionally waits until
every guild is in the bot's cache, so nothing is lost by shortening the wait.

Why ``skip_identify_delay``: ``Client.before_identify_hook`` sleeps 5 s before every
*non-initial* IDENTIFY (identify rate limiting), i.e. after INVALID_SESSION or a
failed RESUME. Unless the bot class overrides that hook, the runner replaces it on
the instance with a no-op so re-identify tests take milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Generic, TypeVar

from .fake_errors import FakeDiscordError, FakeDiscordTimeout

if TYPE_CHECKING:
    import discord

    from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound="discord.Client")


class BotHandle(Generic[ClientT]):
    """A running bot: the client object plus the task running ``client.start()``."""

    def __init__(self, fake: FakeDiscord, bot: ClientT, task: asyncio.Task[None]) -> None:
        self.fake = fake
        self.bot = bot
        self.task = task

    async def stop(self, timeout: float = 10.0) -> None:
        """``bot.close()`` (closes the gateway and the HTTP session), then wait for
        ``start()`` to return; re-raise if it died with an exception."""
        if not self.bot.is_closed():
            await self.bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout)
        except TimeoutError:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            raise FakeDiscordTimeout(f"bot did not stop within {timeout}s") from None


async def start_bot(
    fake: FakeDiscord,
    bot: ClientT,
    *,
    token: str | None = None,
    timeout: float = 10.0,
    guild_ready_timeout: float | None = 0.05,
    skip_identify_delay: bool = True,
) -> BotHandle[ClientT]:
    """Run ``bot.start(token)`` in a task; return once the bot is READY and has every
    fake guild (of its shards) in cache. Raises if ``start()`` fails (bad token,
    ``setup_hook`` exception, disallowed intents...) or on timeout."""
    import discord

    if guild_ready_timeout is not None:
        bot._connection.guild_ready_timeout = guild_ready_timeout
    default_hooks = (
        discord.Client.before_identify_hook,
        discord.AutoShardedClient.before_identify_hook,
    )
    if skip_identify_delay and type(bot).before_identify_hook in default_hooks:
        bot.before_identify_hook = _no_identify_delay  # type: ignore[method-assign]
    task: asyncio.Task[None] = asyncio.create_task(
        bot.start(token or fake.token), name=f"bot-{type(bot).__name__}"
    )
    handle = BotHandle(fake, bot, task)
    fake.state.bots.append(handle)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def guilds_cached() -> bool:
        return all(bot.get_guild(gid) is not None
                   for gid in fake.guilds if _runs_shard_of(bot, gid))

    # Readiness is bot-side state the fake cannot observe, so poll briefly.
    while not (bot.is_ready() and guilds_cached()):
        if task.done():
            await bot.close()  # start() does not close its HTTP session on failure
            exc = task.exception()
            if exc is None:
                raise FakeDiscordError("bot.start() returned before the bot became ready")
            raise FakeDiscordError(f"bot failed to start: {exc!r}") from exc
        if loop.time() > deadline:
            with contextlib.suppress(Exception):
                await handle.stop()
            raise FakeDiscordTimeout(f"bot not ready within {timeout}s")
        await asyncio.sleep(0.005)
    return handle


def _runs_shard_of(bot: discord.Client, guild_id: int) -> bool:
    """Whether ``bot`` runs the shard Discord routes the guild to (an unsharded bot: every)."""
    import discord

    count = bot.shard_count
    if count is None:
        return True
    if isinstance(bot, discord.AutoShardedClient):
        ids = bot.shard_ids if bot.shard_ids is not None else range(count)
    else:
        ids = [bot.shard_id or 0]
    return (guild_id >> 22) % count in ids


async def _no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
    """Replacement for the 5 s sleep in ``Client.before_identify_hook``."""


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    bot: ClientT,
    *,
    token: str | None = None,
    timeout: float = 10.0,
    guild_ready_timeout: float | None = 0.05,
    skip_identify_delay: bool = True,
) -> AsyncIterator[ClientT]:
    """``async with running_bot(fake, bot) as bot:`` - started and ready inside, closed after."""
    handle = await start_bot(
        fake,
        bot,
        token=token,
        timeout=timeout,
        guild_ready_timeout=guild_ready_timeout,
        skip_identify_delay=skip_identify_delay,
    )
    try:
        yield bot
    finally:
        await handle.stop()
