"""The engine's error tree: every error a player can cause is a ``MoveError`` with a message
written for that player."""

from __future__ import annotations

__all__ = [
    "QUOTE_LIMIT",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveError",
    "SetupError",
    "quote",
]

QUOTE_LIMIT = 20
"""Characters of a player's input that an error message quotes (the rest becomes "…")."""


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` quoted for a message, cut to its first ``limit`` characters.

    Messages quote what the player typed, and a reply must stay short whatever he sent:
    Discord refuses a message over 2,000 characters, and an option value may be longer.
    """
    shown = text if len(text) <= limit else text[:limit] + "…"
    return repr(shown)


class MoveError(ValueError):
    """Base of the errors a player can cause; ``str(error)`` is a message for the player."""


class InvalidMoveError(MoveError):
    """The text is not a move in the notation at all (``7H>C2``, ``P>C1``, ``S3>C2``, ``pass``)."""


class IllegalMoveError(MoveError):
    """The move is well formed, but the rules or the position forbid it now."""


class SetupError(ValueError):
    """A position, deal or saved game that cannot exist (wrong cards, corrupted data)."""
