"""``python -m bot``: run the bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time

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


def health(config: Config, now: float | None = None) -> int:
    """``python -m bot health``: 0 while the running bot's housekeeping loop keeps writing its
    heartbeat (the Docker HEALTHCHECK), 1 with the reason otherwise."""
    path = config.heartbeat_path
    allowed = max(3 * config.tick, 180.0)
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except FileNotFoundError:
        print(f"unhealthy: no heartbeat at {path} (the bot isn't running, or not ready yet)")
        return 1
    if age > allowed:
        print(f"unhealthy: the last heartbeat is {age:.0f} s old (allowed {allowed:.0f} s)")
        return 1
    print(f"healthy: heartbeat {age:.0f} s ago")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Read the settings, then run the bot until it is stopped (or check its health)."""
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["health"]):
        print("usage: python -m bot [health]", file=sys.stderr)
        return 2
    try:
        config = Config.from_env(require_token=not args)
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    if args == ["health"]:
        return health(config)
    configure_logging(config.log_level)
    from .client import run
    from .dblock import DatabaseInUse

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(config))
    except DatabaseInUse as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
