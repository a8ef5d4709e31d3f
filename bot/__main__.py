"""``python -m bot``: run the bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from .config import Config, ConfigError

OWN_LOGGERS = ("bot", "engine")
"""The loggers ``LOG_LEVEL`` raises: the bot's own, never a library's."""


def configure_logging(level: str) -> None:
    """Log to stderr: the bot's own loggers at ``level``, libraries at INFO at most.

    Libraries log secrets at DEBUG (aiosqlite every saved game state, with both hands, the
    stock order and the seed; discord.py interaction tokens), so ``LOG_LEVEL=DEBUG`` must not
    reach them.
    """
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    logging.basicConfig(
        level=max(numeric, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(numeric)


def main() -> int:
    """Read the settings, then run the bot until it is stopped."""
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    configure_logging(config.log_level)
    from .client import run

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
