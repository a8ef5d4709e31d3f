"""Which servers a bot process looks after, when the bot runs as several shard processes.

Discord routes a server to shard ``(guild_id >> 22) % shard_count``; a process started with
``SHARD_IDS`` owns the servers of those shards and does their housekeeping only, so with every
shard running exactly once, each game is looked after by exactly one process.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ShardSet", "shard_of"]


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord sends a server's events to."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The shards ``ids`` of ``count`` that one process runs."""

    count: int
    ids: frozenset[int]

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("a bot has at least one shard")
        if not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shard ids must be between 0 and {self.count - 1}")

    @classmethod
    def single(cls) -> ShardSet:
        """One process for every server (no sharding)."""
        return cls(1, frozenset({0}))

    @property
    def everything(self) -> bool:
        """Whether this process owns every server."""
        return len(self.ids) == self.count

    def owns(self, guild_id: int) -> bool:
        """Whether this process looks after the server."""
        return shard_of(guild_id, self.count) in self.ids

    def sql(self, column: str = "guild_id") -> str:
        """An SQL condition (SQLite and PostgreSQL alike) true for the owned servers' rows.

        Built from integers only, never from user input.
        """
        if self.everything:
            return "1 = 1"
        ids = ", ".join(str(int(i)) for i in sorted(self.ids))
        return f"(({column} >> 22) % {int(self.count)}) IN ({ids})"
