"""Settings from the environment or a ``.env`` file.

The token is kept out of ``repr`` and logs; nothing here prints it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.shards import ShardSet

__all__ = ["Config", "ConfigError"]

TOKEN_HELP = (
    "No Discord bot token found. Create an application at "
    "https://discord.com/developers/applications, open Bot → Reset Token, and put the token in "
    "the DISCORD_TOKEN environment variable or in a .env file beside README.md "
    "(copy .env.example to .env)."
)


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says how to fix it."""


@dataclass(frozen=True)
class Config:
    """Everything the bot reads from its environment."""

    token: str = field(repr=False)
    database: str = "data/spite-malice.sqlite3"
    guild_id: int | None = None
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: str = "INFO"
    board_delay: float = 1.0
    """Seconds to wait before redrawing a board, so rapid moves make one edit."""
    computer_delay: float = 1.5
    """Seconds the computer waits before each of its moves, so people can follow."""
    tick: float = 60.0
    """Seconds between checks for expired challenges, reminders and claims."""
    heartbeat_file: str | None = None
    """Where the housekeeping loop notes that it is alive (default: beside the database)."""
    backup_keep: int = 7
    """How many daily SQLite backups to keep in ``backups/`` beside the database (0: none)."""
    shards: ShardSet | None = None
    """The shards this process runs (``SHARD_IDS`` of ``SHARD_COUNT``); ``None``: unsharded."""

    @property
    def heartbeat_path(self) -> Path:
        """The heartbeat file that ``python -m bot health`` reads: beside a SQLite database,
        under ``data/`` for PostgreSQL; a shard process's carries its shards in its name, so
        shard processes on one machine don't share one."""
        if self.heartbeat_file:
            return Path(self.heartbeat_file)
        from bot.storage.db import is_postgres_url, sqlite_path

        # Never a path made of a PostgreSQL URL (and its password).
        base = "data/spite-malice" if is_postgres_url(self.database) else sqlite_path(self.database)
        if self.shards is not None:
            base += ".shards-" + "-".join(map(str, sorted(self.shards.ids)))
        return Path(f"{base}.heartbeat")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, dotenv: bool = True,
                 require_token: bool = True) -> Config:
        """Read the settings (``.env`` first fills in what the environment lacks)."""
        if env is None:
            if dotenv:
                from dotenv import load_dotenv

                load_dotenv(Path.cwd() / ".env", override=False)
            env = os.environ
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token and require_token:
            raise ConfigError(TOKEN_HELP)
        log_level = env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if log_level not in LOG_LEVELS:
            raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}.")
        guild = env.get("DISCORD_GUILD_ID", "").strip()
        if guild and not _whole(guild):
            raise ConfigError("DISCORD_GUILD_ID must be a server id (a number).")
        return cls(
            token=token,
            database=env.get("DATABASE", "").strip() or cls.database,
            guild_id=int(guild) if guild else None,
            api_base=env.get("DISCORD_API_BASE", "").strip() or None,
            gateway_url=env.get("DISCORD_GATEWAY_URL", "").strip() or None,
            log_level=log_level,
            board_delay=_seconds(env, "BOARD_DELAY_SECONDS", 1.0),
            computer_delay=_seconds(env, "COMPUTER_DELAY_SECONDS", 1.5),
            tick=_seconds(env, "TICK_SECONDS", 60.0),
            heartbeat_file=env.get("HEARTBEAT_FILE", "").strip() or None,
            backup_keep=_count(env, "BACKUP_KEEP", 7),
            shards=_shards(env),
        )


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds.") from None
    if value < 0:
        raise ConfigError(f"{name} can't be negative.")
    return value


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    if not _whole(text):
        raise ConfigError(f"{name} must be a whole number (0 or more).")
    return int(text)


def _shards(env: Mapping[str, str]) -> ShardSet | None:
    count_text = env.get("SHARD_COUNT", "").strip()
    ids_text = env.get("SHARD_IDS", "").strip()
    if not count_text:
        if ids_text:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT too (how many shards the bot has in "
                              "all), e.g. SHARD_IDS=0,1 SHARD_COUNT=4.")
        return None
    if not _whole(count_text) or int(count_text) < 1:
        raise ConfigError("SHARD_COUNT must be a whole number of shards, at least 1.")
    count = int(count_text)
    if not ids_text:
        return ShardSet(count, frozenset(range(count)))  # one process runs every shard
    parts = [part.strip() for part in ids_text.split(",")]
    if not all(_whole(part) for part in parts):
        raise ConfigError("SHARD_IDS must be shard numbers separated by commas, e.g. 0,1.")
    ids = [int(part) for part in parts]
    if len(set(ids)) != len(ids):
        raise ConfigError("SHARD_IDS names a shard more than once.")
    if any(i >= count for i in ids):
        raise ConfigError(f"SHARD_IDS must be between 0 and {count - 1} "
                          f"(SHARD_COUNT={count} numbers the shards from 0).")
    return ShardSet(count, frozenset(ids))


def _whole(text: str) -> bool:
    # ``str.isdigit`` also accepts digits such as "²" that ``int`` refuses.
    return text.isascii() and text.isdigit()
