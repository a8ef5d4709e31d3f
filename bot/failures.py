"""Failures said once: a log that names what failed once per kind per minute, not once per try.

Under a Discord outage every board edit, reminder and reply fails, again and again while the
bot retries; a line per attempt would bury the one thing an operator needs to read. So each
kind of failure (``"board"``, ``"notice"``, ``"database"``...) is logged at most once a minute,
with how many more like it were left unsaid, and once more when that kind works again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FailureLog"]


@dataclass
class _Kind:
    logged_at: float
    unsaid: int = 0
    failing: bool = True


class FailureLog:
    """Log failures of each kind at most once per ``every`` seconds."""

    def __init__(self, logger: logging.Logger, every: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.every = every
        self.clock = clock
        self._kinds: dict[str, _Kind] = {}
        self.counts: dict[str, int] = {}
        """Failures seen, by kind (logged or not): for tests and the chaos run."""

    def failed(self, kind: str, message: str, *args: object, level: int = logging.WARNING,
               exc: BaseException | None = None) -> bool:
        """Note a failure of ``kind``; log ``message % args`` (with ``exc``'s traceback, if
        given) unless this kind was logged less than ``every`` seconds ago. True if logged."""
        self.counts[kind] = self.counts.get(kind, 0) + 1
        now = self.clock()
        state = self._kinds.get(kind)
        if state is not None and state.failing and now - state.logged_at < self.every:
            state.unsaid += 1
            return False
        if state is not None and state.unsaid:
            message += f" ({state.unsaid} more like it since the last report)"
        self.logger.log(level, message, *args, exc_info=exc)
        self._kinds[kind] = _Kind(logged_at=now)
        return True

    def recovered(self, kind: str, message: str, *args: object) -> None:
        """Say once that ``kind`` works again (nothing if it wasn't failing)."""
        state = self._kinds.get(kind)
        if state is None or not state.failing:
            return
        state.failing = False
        unsaid = f" ({state.unsaid} more failures since the last report)" if state.unsaid else ""
        self.logger.info(message + unsaid, *args)
        del self._kinds[kind]

    def failing(self, kind: str) -> bool:
        """Whether the last word on ``kind`` was a failure."""
        state = self._kinds.get(kind)
        return state is not None and state.failing
