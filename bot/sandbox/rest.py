"""REST side of the fake: ``/api/v10/...`` routes.

Protocol details that matter to discord.py 2.7 (``discord/http.py``,
``discord/webhook/async_.py``):

* JSON bodies are only parsed by discord.py when the response ``Content-Type`` is
  *exactly* ``application/json``; aiohttp's ``json_response`` appends
  ``; charset=utf-8``, which makes discord.py treat the body as a string and break.
  Hence :func:`_json` sets the header by hand.
* The interaction callback is posted with ``?with_response=1`` and discord.py parses
  the body (an ``InteractionCallback``); a bare 204 there breaks every response.
* Without ``X-RateLimit-*`` headers discord.py never sleeps pre-emptively, so none
  are sent. 5xx answers make discord.py retry with 1-9 s sleeps, so the fake reports
  its own bugs as a 400 instead (and records them in ``FakeDiscord.errors``).
* Files arrive as ``multipart/form-data``: a ``payload_json`` part plus ``files[n]``
  parts; ``payload_json.attachments[i].id`` is ``n`` for new uploads.
* Webhook and interaction-callback routes carry no ``Authorization`` header (the
  token in the URL authenticates), everything else needs ``Bot <token>``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from .discord_state import API_VERSION, RequestRecord, UploadedFile
from .fake_errors import ApiError
from .faults import Fault, FaultPlan, route_kind
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS
from .message_store import MessageStore
from .models import JSON, ChannelType, FakeChannel, FakeGuild, FakeMessage, Perm, iso

log = logging.getLogger("fakediscord.rest")

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


@dataclass
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler
    auth: bool


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json"},
    )


def _compile(template: str) -> re.Pattern[str]:
    regex = ""
    for part in re.split(r"(\{\w+\})", template):
        if part.startswith("{") and part.endswith("}"):
            regex += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            regex += re.escape(part)
    return re.compile(regex)


async def _read_body(request: web.Request) -> tuple[Any, list[UploadedFile]]:
    if request.content_type == "multipart/form-data":
        payload: Any = None
        files: list[UploadedFile] = []
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                continue  # nested multipart: never sent by discord.py
            name = part.name or ""
            data = await part.read(decode=False)
            if name == "payload_json":
                payload = json.loads(data.decode())
                continue
            match = re.fullmatch(r"files\[(\d+)\]", name)
            if match is None:
                continue
            files.append(
                UploadedFile(
                    index=int(match.group(1)),
                    filename=part.filename or f"file{match.group(1)}",
                    data=bytes(data),
                    content_type=part.headers.get("Content-Type"),
                )
            )
        return payload, files
    raw = await request.read()
    if not raw:
        return None, []
    try:
        return json.loads(raw), []
    except ValueError:
        return raw.decode(errors="replace"), []


class RestApi:
    """Route table + handlers. One instance per :class:`FakeDiscord`."""

    def __init__(self, fake: MessageStore) -> None:
        self.fake = fake
        #: Faults injected into REST calls (``faults.py``); none unless a test adds some.
        self.faults = FaultPlan()
        self.routes: list[_Route] = []
        add = self._add
        # meta / login
        add("GET", "/gateway", self.get_gateway, auth=False)
        add("GET", "/gateway/bot", self.get_gateway_bot)
        add("GET", "/users/@me", self.get_me)
        add("GET", "/oauth2/applications/@me", self.get_application)
        add("GET", "/applications/@me", self.get_application)
        add("POST", "/users/@me/channels", self.create_dm)
        add("GET", "/users/{user_id}", self.get_user)
        # application commands (guild routes first: they are more specific)
        guild_cmds = "/applications/{app_id}/guilds/{guild_id}/commands"
        add("GET", guild_cmds + "/permissions", self.get_command_permissions)
        add("GET", guild_cmds, self.list_commands)
        add("PUT", guild_cmds, self.put_commands)
        add("POST", guild_cmds, self.post_command)
        add("GET", guild_cmds + "/{command_id}", self.get_command)
        add("PATCH", guild_cmds + "/{command_id}", self.patch_command)
        add("DELETE", guild_cmds + "/{command_id}", self.delete_command)
        global_cmds = "/applications/{app_id}/commands"
        add("GET", global_cmds, self.list_commands)
        add("PUT", global_cmds, self.put_commands)
        add("POST", global_cmds, self.post_command)
        add("GET", global_cmds + "/{command_id}", self.get_command)
        add("PATCH", global_cmds + "/{command_id}", self.patch_command)
        add("DELETE", global_cmds + "/{command_id}", self.delete_command)
        # interactions & webhooks (token-authenticated)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self.callback, auth=False)
        hook = "/webhooks/{app_id}/{token}"
        add("POST", hook, self.followup, auth=False)
        add("GET", hook + "/messages/{message_id}", self.get_webhook_message, auth=False)
        add("PATCH", hook + "/messages/{message_id}", self.edit_webhook_message, auth=False)
        add("DELETE", hook + "/messages/{message_id}", self.delete_webhook_message, auth=False)
        # channels & messages (literal segments before {message_id})
        ch = "/channels/{channel_id}"
        add("GET", ch, self.get_channel)
        add("PATCH", ch, self.edit_channel)
        add("DELETE", ch, self.delete_channel)
        add("POST", ch + "/typing", self.typing)
        add("GET", ch + "/messages", self.list_messages)
        add("POST", ch + "/messages", self.send_message)
        add("POST", ch + "/messages/bulk-delete", self.bulk_delete)
        add("GET", ch + "/messages/pins", self.list_pins)
        add("PUT", ch + "/messages/pins/{message_id}", self.pin)
        add("DELETE", ch + "/messages/pins/{message_id}", self.unpin)
        add("PUT", ch + "/pins/{message_id}", self.pin)
        add("DELETE", ch + "/pins/{message_id}", self.unpin)
        msg = ch + "/messages/{message_id}"
        add("GET", msg, self.get_message)
        add("PATCH", msg, self.edit_message)
        add("DELETE", msg, self.delete_message)
        add("POST", msg + "/threads", self.thread_from_message)
        add("GET", msg + "/reactions/{emoji}", self.list_reactions)
        add("PUT", msg + "/reactions/{emoji}/@me", self.add_reaction)
        add("DELETE", msg + "/reactions/{emoji}/{user_id}", self.remove_reaction)
        add("DELETE", msg + "/reactions/{emoji}", self.clear_emoji)
        add("DELETE", msg + "/reactions", self.clear_reactions)
        add("POST", ch + "/threads", self.create_thread)
        add("GET", ch + "/thread-members", self.list_thread_members)
        add("PUT", ch + "/thread-members/{user_id}", self.join_thread)
        add("DELETE", ch + "/thread-members/{user_id}", self.leave_thread)
        # guilds
        g = "/guilds/{guild_id}"
        add("GET", g, self.get_guild)
        add("GET", g + "/channels", self.get_guild_channels)
        add("GET", g + "/roles", self.get_roles)
        add("GET", g + "/members", self.list_members)
        add("GET", g + "/members/search", self.search_members)
        add("GET", g + "/members/{user_id}", self.get_member)
        add("GET", g + "/threads/active", self.active_threads)

    def _add(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        self.routes.append(_Route(method, template, _compile(template), handler, auth))

    # ------------------------------------------------------------------ dispatch

    async def handle(self, request: web.Request) -> web.StreamResponse:
        fake = self.fake
        prefix = f"/api/v{API_VERSION}"
        path = (
            request.path[len(prefix) :] if request.path.startswith(prefix + "/") else request.path
        )
        record = RequestRecord(
            method=request.method,
            path=path,
            query=dict(request.query),
            json=None,
            files=[],
            at=time.time(),
        )
        fake.requests.append(record)
        try:
            record.json, record.files = await _read_body(request)
        except Exception as exc:
            fake._internal_error(f"reading body of {request.method} {path}", exc)
            record.status = 400
            return _json({"message": f"fake discord: unreadable body: {exc}", "code": 0}, 400)

        route, params = self._match(request.method, path) if path != request.path else (None, {})
        if route is None:
            record.status = 404
            fake.unhandled.append(record)
            log.warning("fake discord: unimplemented route %s %s", request.method, request.path)
            fake.notify()
            return _json({"message": "404: Not Found", "code": 0}, 404)
        if route.auth and request.headers.get("Authorization") != f"Bot {fake.token}":
            record.status = 401
            fake.rejected.append(record)
            return _json({"message": "401: Unauthorized", "code": 0}, 401)

        fault = self.faults.pick(route_kind(request.method, path), record)
        if fault is not None:
            answer = await self._injected(fault, record)
            if answer is not None:
                return answer
        api_request = ApiRequest(
            method=request.method,
            path=path,
            params=params,
            query=dict(request.query),
            json=record.json,
            files=record.files,
        )
        try:
            result = await route.handler(api_request)
        except ApiError as exc:
            record.status = exc.status
            record.error = f"{exc.code} {exc.message} {exc.errors or ''}".strip()
            fake.rejected.append(record)
            log.info("fake discord: %s %s -> %s", request.method, path, record.error)
            fake.notify()
            return _json(exc.body(), exc.status)
        except Exception as exc:
            fake._internal_error(f"{request.method} {path}", exc)
            record.status = 400
            return _json({"message": f"fake discord internal error: {exc!r}", "code": 0}, 400)
        if fault is not None and fault.what == "error":  # applied, its answer lost
            record.status, record.error = fault.status, f"injected {fault}"
            return _json({"message": f"{fault.status}: injected fault", "code": 0},
                         fault.status)
        if result is None:
            record.status = 204
            return web.Response(status=204)
        record.status = 200
        return _json(result)

    async def _injected(self, fault: Fault, record: RequestRecord) -> web.Response | None:
        """The answer of an injected fault, or None when the call goes on (slow, or an
        error answered after carrying the call out)."""
        if fault.what == "slow":
            await asyncio.sleep(fault.delay)
            return None
        if fault.what == "error" and fault.applied:
            return None
        record.status, record.error = fault.status, f"injected {fault}"
        self.fake.notify()
        if fault.what == "rate_limited":
            # As Discord: the body's retry_after, Retry-After, and Via (without which
            # discord.py takes a 429 for a Cloudflare ban and doesn't retry).
            body = {"message": "You are being rate limited.", "retry_after": fault.retry_after,
                    "global": False}
            return web.Response(body=json.dumps(body).encode(), status=429, headers={
                "Content-Type": "application/json", "Via": "1.1 google",
                "Retry-After": str(max(1, math.ceil(fault.retry_after))),
                "X-RateLimit-Scope": "user"})
        return _json({"message": f"{fault.status}: injected fault", "code": 0}, fault.status)

    def _match(self, method: str, path: str) -> tuple[_Route | None, dict[str, str]]:
        for route in self.routes:
            if route.method != method:
                continue
            match = route.pattern.fullmatch(path)
            if match:
                return route, match.groupdict()
        return None, {}

    # ------------------------------------------------------------------ lookup helpers

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

    # ------------------------------------------------------------------ meta / login

    async def get_gateway(self, req: ApiRequest) -> JSON:
        return {"url": self.fake.gateway_url}

    async def get_gateway_bot(self, req: ApiRequest) -> JSON:
        return {
            "url": self.fake.gateway_url,
            "shards": self.fake.recommended_shards,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    async def get_me(self, req: ApiRequest) -> JSON:
        fake = self.fake
        return {**fake.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0}

    async def get_application(self, req: ApiRequest) -> JSON:
        fake = self.fake
        return {
            "id": str(fake.application_id),
            "name": fake.bot_user.username,
            "description": "",
            "icon": None,
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": fake.owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": fake._application_flags(),
            "bot": fake.bot_user.payload(),
            "tags": [],
            "redirect_uris": [],
            "rpc_origins": [],
            "interactions_endpoint_url": None,  # non-null makes discord.py warn
            "approximate_guild_count": len(fake.guilds),
            "integration_types_config": {"0": {}},
        }

    async def get_user(self, req: ApiRequest) -> JSON:
        user = self.fake.users.get(req.int_param("user_id"))
        if user is None:
            raise ApiError.unknown_user()
        return user.payload()

    async def create_dm(self, req: ApiRequest) -> JSON:
        user = self.fake.users.get(int(req.body().get("recipient_id", 0)))
        if user is None:
            raise ApiError.unknown_user()
        if user.bot:
            raise ApiError(400, 50007, "Cannot send messages to this user")
        return self.fake.dm_channel(user).payload()

    # ------------------------------------------------------------------ application commands

    def _scope(self, req: ApiRequest) -> int | None:
        self._check_app(req)
        if "guild_id" in req.params:
            return self._guild(req).id
        return None

    async def list_commands(self, req: ApiRequest) -> list[JSON]:
        scope = self._scope(req)
        return [c.payload() for (g, _, _), c in self.fake.registered.items() if g == scope]

    async def put_commands(self, req: ApiRequest) -> list[JSON]:
        scope = self._scope(req)
        if not isinstance(req.json, list):
            raise ApiError.form([("_", "Expected an array of commands")])
        return [c.payload() for c in self.fake.upsert_commands(scope, req.json, replace=True)]

    async def post_command(self, req: ApiRequest) -> JSON:
        scope = self._scope(req)
        return self.fake.upsert_commands(scope, [req.body()], replace=False)[0].payload()

    def _command_key(self, req: ApiRequest) -> tuple[int | None, str, int]:
        scope = self._scope(req)
        cid = req.int_param("command_id")
        for key, cmd in self.fake.registered.items():
            if key[0] == scope and cmd.id == cid:
                return key
        raise ApiError.unknown_command()

    async def get_command(self, req: ApiRequest) -> JSON:
        return self.fake.registered[self._command_key(req)].payload()

    async def patch_command(self, req: ApiRequest) -> JSON:
        key = self._command_key(req)
        merged = {**self.fake.registered[key].payload(), **req.body()}
        del self.fake.registered[key]
        return self.fake.upsert_commands(key[0], [merged], replace=False)[0].payload()

    async def delete_command(self, req: ApiRequest) -> None:
        del self.fake.registered[self._command_key(req)]
        self.fake.notify()

    async def get_command_permissions(self, req: ApiRequest) -> list[JSON]:
        self._scope(req)
        return []

    # ------------------------------------------------------------------ interactions / webhooks

    async def callback(self, req: ApiRequest) -> JSON:
        record = self.fake.interaction(req.int_param("interaction_id"))
        if record is None or record.token != req.params["token"]:
            raise ApiError.unknown_interaction()
        return self.fake.accept_callback(record, req.body(), req.files)

    def _webhook_record(self, req: ApiRequest) -> Any:
        self._check_app(req)
        record = self.fake.interaction_by_token(req.params["token"])
        if record is None:
            raise ApiError.unknown_webhook()
        return record

    async def followup(self, req: ApiRequest) -> JSON | None:
        record = self._webhook_record(req)
        message = self.fake.create_followup(record, req.body(), req.files)
        if req.query.get("wait") in ("1", "true", "True"):
            return self.fake.message_payload(message)
        return None

    async def get_webhook_message(self, req: ApiRequest) -> JSON:
        record = self._webhook_record(req)
        return self.fake.message_payload(
            self.fake.webhook_message(record, req.params["message_id"])
        )

    async def edit_webhook_message(self, req: ApiRequest) -> JSON:
        record = self._webhook_record(req)
        if record.callback is None:
            raise ApiError.unknown_webhook()
        msg = self.fake.webhook_message(record, req.params["message_id"])
        body = {k: v for k, v in req.body().items() if k != "flags"} if msg.loading else req.body()
        return self.fake.message_payload(self.fake.edit_message(msg, body, req.files))

    async def delete_webhook_message(self, req: ApiRequest) -> None:
        record = self._webhook_record(req)
        self.fake.delete_message(self.fake.webhook_message(record, req.params["message_id"]))

    # ------------------------------------------------------------------ channels

    async def get_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        return channel.payload()

    async def edit_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        body = req.body()
        if channel.is_dm:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        self._require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        for key in ("name", "topic", "position", "archived", "locked", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        for session in self.fake._sessions_for(channel.guild_id, INTENT_GUILDS):
            session.dispatch(event, channel.payload())
        self.fake.notify()
        return channel.payload()

    async def delete_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        guild = self.fake.guild_of(channel)
        if guild is None:
            return channel.payload()  # "closing" a DM is a no-op here
        self._require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        del guild.channels[channel.id]
        event = "THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE"
        data = channel.payload()
        for session in self.fake._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch(event, data)
        self.fake.notify()
        return data

    async def typing(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self.fake.typing.append((channel.id, self.fake.bot_user.id, time.time()))
        self.fake.notify()

    async def list_messages(self, req: ApiRequest) -> list[JSON]:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY)
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        msgs = self.fake.messages(channel, include_ephemeral=False)
        if "around" in req.query:
            around = int(req.query["around"])
            older = [m for m in msgs if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in msgs if m.id > around][: limit - len(older)]
            chosen = older + newer
        elif "after" in req.query:
            after = int(req.query["after"])
            chosen = [m for m in msgs if m.id > after][:limit]
        else:
            before = int(req.query.get("before", 1 << 63))
            chosen = [m for m in msgs if m.id < before][-limit:]
        # Discord always returns newest first.
        return [self.fake.message_payload(m) for m in reversed(chosen)]

    async def send_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        if channel.guild_id is not None:
            send = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            self._require(channel, send, *([Perm.ATTACH_FILES] if req.files else []))
        if channel.is_thread and channel.archived:
            if channel.locked:
                raise ApiError(400, 50083, "Thread is archived")
            channel.archived = False  # sending a message unarchives, as on Discord
        body = req.body()
        if int(body.get("flags") or 0) & 64:
            raise ApiError.form([("flags", "Only interaction responses can be ephemeral")])
        if body.get("enforce_nonce") and body.get("nonce"):
            # As Discord: the same nonce from the same author in the same channel within a
            # few minutes gives back the message already created (a retry after a timeout).
            same = self.fake.message_by_nonce(channel, str(body["nonce"]))
            if same is not None:
                return self.fake.message_payload(same)
        msg = self.fake.create_message(channel, self.fake.bot_user, body, req.files)
        return self.fake.message_payload(msg)

    async def get_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY)
        return self.fake.message_payload(self._channel_message(req, channel))

    async def edit_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        body = req.body()
        if msg.author.id != self.fake.bot_user.id and set(body) - {"flags"}:
            raise ApiError.not_author()
        return self.fake.message_payload(self.fake.edit_message(msg, body, req.files))

    async def delete_message(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        if msg.author.id != self.fake.bot_user.id:
            if channel.is_dm:
                raise ApiError(403, 50003, "Cannot execute action on a DM channel")
            self._require(channel, Perm.MANAGE_MESSAGES)
        self.fake.delete_message(msg)

    async def bulk_delete(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        ids = [int(i) for i in req.body().get("messages", [])]
        if not 2 <= len(ids) <= 100:
            raise ApiError.form([("messages", "Must be between 2 and 100 in length.")])
        for mid in ids:
            msg = self.fake.messages_by_id.get(mid)
            if msg is not None and msg.channel_id == channel.id and not msg.deleted:
                self.fake.delete_message(msg)

    async def list_pins(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        pinned = [m for m in self.fake.messages(channel, include_ephemeral=False) if m.pinned]
        return {
            "items": [
                {
                    "pinned_at": iso(m.edited_at or m.created_at),
                    "message": self.fake.message_payload(m),
                }
                for m in reversed(pinned)
            ],
            "has_more": False,
        }

    async def pin(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).pinned = True
        self.fake.notify()

    async def unpin(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).pinned = False
        self.fake.notify()

    # -- reactions

    async def list_reactions(self, req: ApiRequest) -> list[JSON]:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        ids = msg.reactions.get(req.params["emoji"], set())
        return [self.fake.users[i].payload() for i in sorted(ids) if i in self.fake.users]

    async def add_reaction(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY, Perm.ADD_REACTIONS)
        msg = self._channel_message(req, channel)
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.fake.bot_user.id)
        self.fake.notify()

    async def remove_reaction(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        user_id = req.params["user_id"]
        uid = self.fake.bot_user.id if user_id == "@me" else int(user_id)
        if uid != self.fake.bot_user.id:
            self._require(channel, Perm.MANAGE_MESSAGES)
        msg.reactions.get(req.params["emoji"], set()).discard(uid)
        self.fake.notify()

    async def clear_emoji(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).reactions.pop(req.params["emoji"], None)
        self.fake.notify()

    async def clear_reactions(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).reactions.clear()
        self.fake.notify()

    # -- threads

    def _new_thread(
        self, parent: FakeChannel, body: JSON, *, thread_id: int | None, thread_type: int
    ) -> JSON:
        fake = self.fake
        guild = fake.guild_of(parent)
        if guild is None or parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perm = Perm.CREATE_PRIVATE_THREADS if thread_type == 12 else Perm.CREATE_PUBLIC_THREADS
        self._require(parent, perm)
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise ApiError.form([("name", "Must be between 1 and 100 in length.")])
        thread = FakeChannel(
            id=thread_id or fake.snowflake(),
            type=thread_type,
            name=name,
            guild_id=guild.id,
            parent_id=parent.id,
            owner_id=fake.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            thread_member_ids={fake.bot_user.id},
        )
        guild.channels[thread.id] = thread
        for session in fake._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        fake.notify()
        return thread.payload()

    async def thread_from_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        if any(c.id == msg.id for g in self.fake.guilds.values() for c in g.channels.values()):
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread_type = 10 if channel.type == ChannelType.GUILD_NEWS else ChannelType.PUBLIC_THREAD
        # A thread started from a message shares the message's id (a Discord rule).
        return self._new_thread(channel, req.body(), thread_id=msg.id, thread_type=thread_type)

    async def create_thread(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        body = req.body()
        thread_type = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        return self._new_thread(channel, body, thread_id=None, thread_type=thread_type)

    def _thread(self, req: ApiRequest) -> FakeChannel:
        channel = self._channel(req)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return channel

    async def list_thread_members(self, req: ApiRequest) -> list[JSON]:
        thread = self._thread(req)
        return [
            {
                "id": str(thread.id),
                "user_id": str(uid),
                "join_timestamp": iso(thread.created_at),
                "flags": 0,
            }
            for uid in sorted(thread.thread_member_ids)
        ]

    async def join_thread(self, req: ApiRequest) -> None:
        thread = self._thread(req)
        raw = req.params["user_id"]
        uid = self.fake.bot_user.id if raw == "@me" else int(raw)
        if uid not in self.fake.users:
            raise ApiError.unknown_user()
        thread.thread_member_ids.add(uid)
        self.fake.notify()

    async def leave_thread(self, req: ApiRequest) -> None:
        thread = self._thread(req)
        raw = req.params["user_id"]
        thread.thread_member_ids.discard(self.fake.bot_user.id if raw == "@me" else int(raw))
        self.fake.notify()

    # ------------------------------------------------------------------ guilds

    async def get_guild(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        data = guild.payload(members=[], member_count=len(guild.members))
        for key in ("channels", "threads", "members", "voice_states", "presences", "joined_at"):
            data.pop(key, None)
        if req.query.get("with_counts") in ("1", "true", "True"):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return data

    async def get_guild_channels(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        return [c.payload() for c in guild.channels.values() if not c.is_thread]

    async def get_roles(self, req: ApiRequest) -> list[JSON]:
        return [r.payload() for r in self._guild(req).roles.values()]

    async def get_member(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        member = guild.members.get(req.int_param("user_id"))
        if member is None:
            raise ApiError.unknown_member()
        return member.payload()

    async def list_members(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        if not self.fake.allowed_privileged_intents & INTENT_GUILD_MEMBERS:
            raise ApiError(403, 50001, "Missing Access")
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return [m.payload() for m in members[:limit]]

    async def search_members(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        query = req.query.get("query", "").lower()
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        found = [
            m
            for m in guild.members.values()
            if m.user.username.lower().startswith(query) or (m.nick or "").lower().startswith(query)
        ]
        return [m.payload() for m in found[:limit]]

    async def active_threads(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        threads = [c for c in guild.channels.values() if c.is_thread and not c.archived]
        return {"threads": [t.payload() for t in threads], "members": []}
