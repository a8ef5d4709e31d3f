"""The refusal every service shares, what the adapters turn into a private reply, and the words
of the refusals every service may give (the database is away)."""

from __future__ import annotations

__all__ = ["DB_DOWN", "SAVED_DB_AWAY", "UserError"]

DB_DOWN = ("⏳ The database is not answering, so nothing was changed. Please try again in a "
           "moment.")
"""The answer while the database is down, unreachable, full or read-only."""

SAVED_DB_AWAY = ("✅ That was saved, but the database stopped answering before I could show it: "
                 "the board shows it once the database is back.")
"""The answer when a move or a new game was saved and the database went away just after."""


class UserError(Exception):
    """A refusal with a message for the user who asked (sent to him privately)."""
