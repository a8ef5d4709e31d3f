"""What every kind of record shares: the database and the clock."""

from __future__ import annotations

import time
from collections.abc import Callable

from .interface import Database

__all__ = ["Records"]


class Records:
    """The base of each record module's class; ``Storage`` combines them."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self.clock = clock
        """Where timestamps come from (tests pass a fake clock)."""

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._db.dialect
