"""``python -m bot``: run the bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

from .config import Config, ConfigError


def main() -> int:
    """Read the settings, then run the bot until it is stopped."""
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=config.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from .client import run

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
