"""The engine's error tree: every error a player can cause is a ``MoveError`` with a message
written for that player."""

from __future__ import annotations

__all__ = ["IllegalMoveError", "InvalidMoveError", "MoveError", "SetupError"]


class MoveError(ValueError):
    """Base of the errors a player can cause; ``str(error)`` is a message for the player."""


class InvalidMoveError(MoveError):
    """The text is not a move in the notation at all (``7H>C2``, ``P>C1``, ``S3>C2``, ``pass``)."""


class IllegalMoveError(MoveError):
    """The move is well formed, but the rules or the position forbid it now."""


class SetupError(ValueError):
    """A position, deal or saved game that cannot exist (wrong cards, corrupted data)."""
