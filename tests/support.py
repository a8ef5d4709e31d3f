"""Small helpers shared by the test packages."""

from __future__ import annotations


class Clock:
    """A clock the test moves by hand (expiry, reminders, claims, settlements)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
