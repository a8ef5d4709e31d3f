"""Exceptions of the fake Discord harness.

Two families, deliberately distinct:

* :class:`ApiError` is raised *inside* the fake's HTTP handlers and becomes a
  Discord-shaped JSON error response to the bot (so discord.py raises
  ``HTTPException``/``NotFound``/``Forbidden`` exactly as it would in production).
* :class:`FakeDiscordError` is raised *to the test* when the test asks for something
  a real Discord client could not do (clicking a button that does not exist,
  running an unregistered command, ...) or when a wait times out.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A Discord REST error: HTTP status + JSON error code + message (+ form errors)."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data

    # Common Discord errors, named after the official error-code table.

    @classmethod
    def not_found(cls, what: str, code: int) -> ApiError:
        return cls(404, code, f"Unknown {what}")

    @classmethod
    def unknown_channel(cls) -> ApiError:
        return cls.not_found("Channel", 10003)

    @classmethod
    def unknown_guild(cls) -> ApiError:
        return cls.not_found("Guild", 10004)

    @classmethod
    def unknown_member(cls) -> ApiError:
        return cls.not_found("Member", 10007)

    @classmethod
    def unknown_message(cls) -> ApiError:
        return cls.not_found("Message", 10008)

    @classmethod
    def unknown_user(cls) -> ApiError:
        return cls.not_found("User", 10013)

    @classmethod
    def unknown_webhook(cls) -> ApiError:
        return cls.not_found("Webhook", 10015)

    @classmethod
    def unknown_interaction(cls) -> ApiError:
        return cls.not_found("interaction", 10062)

    @classmethod
    def unknown_command(cls) -> ApiError:
        return cls.not_found("application command", 10063)

    @classmethod
    def already_acknowledged(cls) -> ApiError:
        return cls(400, 40060, "Interaction has already been acknowledged.")

    @classmethod
    def empty_message(cls) -> ApiError:
        return cls(400, 50006, "Cannot send an empty message")

    @classmethod
    def not_author(cls) -> ApiError:
        return cls(403, 50005, "Cannot edit a message authored by another user")

    @classmethod
    def form(cls, problems: list[tuple[str, str]]) -> ApiError:
        """``50035 Invalid Form Body`` with Discord's nested ``errors`` structure.

        ``problems`` are ``(dotted.path, message)`` pairs, e.g. ``("embeds.0.title", ...)``.
        """
        errors: dict[str, Any] = {}
        for path, message in problems:
            node = errors
            for part in path.split("."):
                node = node.setdefault(part, {})
            node.setdefault("_errors", []).append({"code": "FAKE_VALIDATION", "message": message})
        return cls(400, 50035, "Invalid Form Body", errors)


class FakeDiscordError(AssertionError):
    """The test asked the fake for something impossible on real Discord."""


class FakeDiscordTimeout(FakeDiscordError):
    """A ``wait_for``-style helper timed out; the message says what was awaited."""
