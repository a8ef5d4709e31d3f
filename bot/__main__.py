"""``python -m bot``: run the bot; ``health``, ``backup PATH`` and ``restore PATH`` beside it.

Exit status: 0 done; 1 refused or failed (the message says why, and nothing was changed);
2 a wrong command line or setting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time

from .ops.config import Config, ConfigError

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


USAGE = """usage: python -m bot                        run the bot
       python -m bot health                 is the running bot's housekeeping alive?
       python -m bot backup PATH [--overwrite]
                                            copy the database to PATH (a file or a folder)
       python -m bot restore PATH           put the backup PATH in place (bot stopped)
       python -m bot migrate --to postgresql://…
                                            copy the SQLite database into an empty
                                            PostgreSQL one and check the copy (bot stopped)"""


def backup_command(config: Config, dest: str, overwrite: bool) -> int:
    """``python -m bot backup PATH``: a consistent copy of the database while the bot runs."""
    from .ops.backup import BackupError, backup

    try:
        info = backup(config.database, dest, overwrite=overwrite)
    except BackupError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"spite-malice-bot: the backup failed: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {config.database} to {info.path} ({info.describe()}).")
    return 0


def restore_command(config: Config, src: str) -> int:
    """``python -m bot restore PATH``: check the backup, then put it in place of the database
    (the bot must be stopped; the database it replaces is kept)."""
    from .ops.backup import BackupError, restore
    from .ops.dblock import DatabaseInUse
    from .storage import SQLITE_SCHEMA_VERSION

    try:
        done = restore(src, config.database)
    except DatabaseInUse as exc:
        print(f"spite-malice-bot: nothing was restored. {exc}", file=sys.stderr)
        return 1
    except BackupError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"spite-malice-bot: the restore failed: {exc}", file=sys.stderr)
        return 1
    print(f"Restored {done.database} from {src} ({done.restored.describe()}).")
    if done.kept is not None:
        print(f"The database it replaced is kept at {done.kept}.")
    if done.restored.schema_version < SQLITE_SCHEMA_VERSION:
        print(f"It is at schema version {done.restored.schema_version}; the bot brings it up "
              f"to {SQLITE_SCHEMA_VERSION} when it starts.")
    return 0


def migrate_command(config: Config, target: str) -> int:
    """``python -m bot migrate --to URL``: copy the SQLite database into PostgreSQL."""
    from .ops.migrate import MigrationError, migrate

    try:
        asyncio.run(migrate(config.database, target))
    except MigrationError as exc:
        print(f"spite-malice-bot: nothing was migrated. {exc}", file=sys.stderr)
        return 1
    return 0


def _migrate_target(words: list[str]) -> str | None:
    """The URL of ``migrate --to URL`` (or ``--to=URL``), or ``None`` if that isn't what the
    words say."""
    if words[:2] == ["migrate", "--to"] and len(words) == 3:
        return words[2]
    if words[:1] == ["migrate"] and len(words) == 2 and words[1].startswith("--to="):
        return words[1][len("--to="):]
    return None


def main(argv: list[str] | None = None) -> int:
    """Read the settings, then run the bot until it is stopped (or check its health, or back
    up or restore its database)."""
    args = sys.argv[1:] if argv is None else argv
    overwrite = args[:1] == ["backup"] and args.count("--overwrite") == 1
    words = [a for a in args if a != "--overwrite"] if overwrite else args
    target = _migrate_target(words)
    if not (words in ([], ["health"]) or (len(words) == 2 and words[0] in ("backup", "restore")
                                          and not words[1].startswith("-"))
            or target):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        config = Config.from_env(require_token=not args)
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    if args == ["health"]:
        return health(config)
    if words[:1] == ["backup"]:
        return backup_command(config, words[1], overwrite)
    if words[:1] == ["restore"]:
        return restore_command(config, words[1])
    if target:
        return migrate_command(config, target)
    configure_logging(config.log_level)
    from .app.client import run
    from .ops.dblock import DatabaseInUse
    from .storage import StorageError

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(config))
    except DatabaseInUse as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    except StorageError as exc:  # the database can't be opened (a server down, a bad file)
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
