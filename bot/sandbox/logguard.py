"""Turn logged errors into test failures.

discord.py never lets an exception from an event handler, command, view callback
or background task reach the test: it catches it and *logs* it
(``Client.on_error`` -> ``discord.client``, ``CommandTree.on_error`` ->
``discord.app_commands.tree``, ``View.on_error`` -> ``discord.ui.view``...).
A bot can therefore be thoroughly broken while every end-to-end assertion that
does not look at the broken path still passes. :class:`ErrorLogGuard` collects
ERROR-or-worse records from the relevant loggers so a test can fail on them.

``asyncio`` is watched too: "Task exception was never retrieved" and aiohttp's
"Unclosed client session" / "Unclosed connector" (leaked ``ClientSession``) are
reported through it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

DEFAULT_LOGGERS: tuple[str, ...] = ("discord", "bot", "asyncio", "aiohttp", "fakediscord")


class ErrorLogGuard(logging.Handler):
    """Collects log records at ``level`` or above from ``loggers`` (and their children)."""

    def __init__(
        self, loggers: Iterable[str] = DEFAULT_LOGGERS, *, level: int = logging.ERROR
    ) -> None:
        super().__init__(level=level)
        self.logger_names = tuple(loggers)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[tuple[str, re.Pattern[str]]] = []
        self._saved_levels: dict[str, int] = {}
        self._seen: set[int] = set()
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if id(record) not in self._seen:  # the same record can reach two watched loggers
            self._seen.add(id(record))
            self.records.append(record)

    def install(self) -> ErrorLogGuard:
        for name in self.logger_names:
            logger = logging.getLogger(name)
            # Make sure ERROR records are created even if something raised the level.
            if logger.getEffectiveLevel() > self.level:
                self._saved_levels[name] = logger.level
                logger.setLevel(self.level)
            logger.addHandler(self)
        return self

    def uninstall(self) -> None:
        for name in self.logger_names:
            logger = logging.getLogger(name)
            logger.removeHandler(self)
            if name in self._saved_levels:
                logger.setLevel(self._saved_levels.pop(name))

    @contextmanager
    def installed(self) -> Iterator[ErrorLogGuard]:
        self.install()
        try:
            yield self
        finally:
            self.uninstall()

    def allow(self, pattern: str, *, logger: str = "") -> None:
        """Tolerate records whose message matches ``pattern`` (regex, searched) from
        loggers starting with ``logger`` - for tests that provoke an error on purpose."""
        self._allowed.append((logger, re.compile(pattern)))

    def _is_allowed(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return any(
            record.name.startswith(prefix) and pattern.search(message)
            for prefix, pattern in self._allowed
        )

    @property
    def unexpected(self) -> list[logging.LogRecord]:
        return [r for r in self.records if not self._is_allowed(r)]

    def clear(self) -> None:
        self.records.clear()

    def format_records(self, records: Iterable[logging.LogRecord] | None = None) -> str:
        return "\n\n".join(
            self.format(r) for r in (self.unexpected if records is None else records)
        )

    def check(self) -> None:
        """Raise ``AssertionError`` listing every unexpected record (with tracebacks)."""
        bad = self.unexpected
        if bad:
            raise AssertionError(
                f"{len(bad)} unexpected ERROR log record(s):\n\n{self.format_records(bad)}"
            )
