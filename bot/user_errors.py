"""The refusal every service shares: what the adapters turn into a private reply."""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(Exception):
    """A refusal with a message for the user who asked (sent to him privately)."""
