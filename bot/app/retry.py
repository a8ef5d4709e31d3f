"""Trying again after Discord or the database failed: with backoff, never in a tight loop.

discord.py already retries some failures itself (a 429 after its ``retry_after``; 500, 502,
504 up to five times); what still fails reaches the bot, and so does a call that never
answers (discord.py waits five minutes). What the bot must show in the end (a board at the
saved position, a result, a reminder, a claim notice) is tried again here: each try bounded by
``REST_TIMEOUT``, the waits growing from ``base`` to ``cap`` seconds, and never shorter than
the ``retry_after`` Discord asked for. Failures that trying again can't mend (a 403 for a
permission taken away, a 404 for a channel deleted) are raised at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

import aiohttp
import discord

from bot.failures import FailureLog
from bot.storage import DatabaseUnavailable

__all__ = ["REST_TIMEOUT", "UNBOUNDED", "describe", "discord_call", "retry_after", "retryable",
           "with_retries"]

T = TypeVar("T")

REST_TIMEOUT = 15.0
"""Seconds one try of a post or an edit may take before it is given up (and tried again:
a post carries a nonce, so Discord gives back the message a slow try made)."""

UNBOUNDED = math.inf
"""``with_retries``' ``timeout`` for an attempt that bounds its own Discord calls (with
``discord_call``) and must not be cut short as a whole: a board's publish waits for a drawing
process first, which takes as long as the drawings before it, and is no sign of Discord
failing."""


def retryable(exc: BaseException) -> bool:
    """Whether trying again later may succeed: a 5xx, a 429, no answer in time, a broken
    connection, or the database not answering (not a damaged row, which no wait mends)."""
    if isinstance(exc, discord.HTTPException):
        return exc.status >= 500 or exc.status == 429
    if isinstance(exc, discord.RateLimited):
        return True
    return isinstance(exc, (TimeoutError, aiohttp.ClientError, OSError, DatabaseUnavailable))


def retry_after(exc: BaseException) -> float:
    """The wait Discord asked for with a 429 (0 if none)."""
    if isinstance(exc, discord.RateLimited):
        return float(exc.retry_after)
    if isinstance(exc, discord.HTTPException) and exc.status == 429:
        try:
            return float(json.loads(exc.text).get("retry_after", 0.0)) if exc.text else float(
                exc.response.headers.get("Retry-After", 0.0))
        except (ValueError, AttributeError, TypeError):
            return float(exc.response.headers.get("Retry-After", 0.0) or 0.0)
    return 0.0


def describe(exc: BaseException) -> str:
    """A failure in a few words for the log (a status, or the exception's name)."""
    if isinstance(exc, discord.HTTPException):
        return f"Discord answered {exc.status}"
    if isinstance(exc, TimeoutError):
        return "Discord didn't answer in time"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


async def with_retries(attempt: Callable[[], Awaitable[T]], *, what: str, kind: str,
                       failures: FailureLog, base: float = 1.0, cap: float = 60.0,
                       timeout: float | None = None, tries: int | None = None,
                       log_level: int = logging.WARNING) -> T:
    """``attempt()`` until it succeeds: each try at most ``timeout`` seconds (by default
    ``REST_TIMEOUT``, read at each call; ``UNBOUNDED``: not bounded here), then waits of
    ``base``, 2×``base``… up to ``cap`` seconds (and at least Discord's ``retry_after``).
    A failure that can't mend, or the last of ``tries``, is raised. Failures are logged
    once a minute per ``kind``."""
    n = 0
    while True:
        try:
            limit = timeout or REST_TIMEOUT
            result = await (attempt() if limit == UNBOUNDED else asyncio.wait_for(attempt(), limit))
        except Exception as exc:
            n += 1
            if not retryable(exc) or (tries is not None and n >= tries):
                raise
            delay = max(retry_after(exc), min(cap, base * 2 ** (n - 1)) * random.uniform(0.8, 1.2))
            failures.failed(kind, "%s failed (%s); trying again in %.1f s", what, describe(exc),
                            delay, level=log_level)
            await asyncio.sleep(delay)
        else:
            if n:
                failures.recovered(kind, f"{kind}: {what} worked after {n} failed tries")
            return result


async def discord_call(call: Awaitable[T]) -> T:
    """One Discord call bounded by ``REST_TIMEOUT`` (read at each call): what an attempt
    run with ``timeout=UNBOUNDED`` bounds itself."""
    return await asyncio.wait_for(call, REST_TIMEOUT)
