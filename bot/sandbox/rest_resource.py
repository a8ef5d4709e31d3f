"""What every REST handler of the fake gets: the parsed request, and the lookups of the ids in
its path (the channel, guild, message, application), refused as Discord refuses them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .discord_state import UploadedFile
from .fake_errors import ApiError
from .message_store import MessageStore
from .models import JSON, FakeChannel, FakeGuild, FakeMessage, Perm

Handler = Callable[["ApiRequest"], Awaitable[Any]]


@dataclass
class ApiRequest:
    """A parsed REST request handed to a route handler."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise ApiError(404, 0, f"404: Not Found ({name}={self.params[name]!r})") from None

    def body(self) -> JSON:
        if not isinstance(self.json, dict):
            raise ApiError.form([("_", "Expected a JSON object body")])
        return self.json


class RestResource:
    """A group of REST handlers over the fake's state (``rest.py`` routes requests to them)."""

    def __init__(self, fake: MessageStore) -> None:
        self.fake = fake

    def _channel(self, req: ApiRequest) -> FakeChannel:
        channel = self.fake.channel(req.int_param("channel_id"))
        if channel is None:
            raise ApiError.unknown_channel()
        return channel

    def _guild(self, req: ApiRequest) -> FakeGuild:
        guild = self.fake.guilds.get(req.int_param("guild_id"))
        if guild is None:
            raise ApiError.unknown_guild()
        return guild

    def _channel_message(self, req: ApiRequest, channel: FakeChannel) -> FakeMessage:
        msg = self.fake.messages_by_id.get(req.int_param("message_id"))
        # Ephemeral messages only exist for their webhook token, never in channel routes.
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise ApiError.unknown_message()
        return msg

    def _check_app(self, req: ApiRequest) -> None:
        if req.int_param("app_id") != self.fake.application_id:
            raise ApiError(404, 10002, "Unknown Application")

    def _require(self, channel: FakeChannel, *perms: int) -> None:
        have = self.fake.permissions_in(channel, self.fake.bot_user)
        if not have & Perm.VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        for perm in perms:
            if not have & perm:
                raise ApiError(403, 50013, "Missing Permissions")
