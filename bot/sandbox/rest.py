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
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from .discord_state import API_VERSION, RequestRecord, UploadedFile
from .fake_errors import ApiError
from .faults import Fault, FaultPlan, route_kind
from .form_data import media_type, read_form_data
from .message_store import MessageStore
from .rest_application import ApplicationRoutes
from .rest_channels import ChannelRoutes
from .rest_guilds import GuildRoutes
from .rest_resource import ApiRequest, Handler

log = logging.getLogger("fakediscord.rest")


@dataclass
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler
    auth: bool


def _json(data: Any, status: int = 200) -> web.Response:
    # orjson, as discord.py itself uses: the fake's JSON was a tenth of its CPU under load.
    return web.Response(
        body=orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS),
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
    # The Content-Type is read by hand and a form body parsed whole (``form_data.py``):
    # aiohttp's own parsing of them was the fake's largest cost under the load benchmark.
    content_type = request.headers.get("Content-Type")
    raw = await request.read()
    if media_type(content_type) == "multipart/form-data":
        assert content_type is not None
        return read_form_data(raw, content_type)
    if not raw:
        return None, []
    try:
        return orjson.loads(raw), []
    except ValueError:  # orjson's JSONDecodeError is one
        return raw.decode(errors="replace"), []


class RestApi:
    """The route table and the dispatch of each request to its handler. One instance per
    :class:`FakeDiscord`; the handlers are in ``rest_application.py``, ``rest_channels.py`` and
    ``rest_guilds.py``."""

    def __init__(self, store: MessageStore) -> None:
        self.store = store
        self.state = store.state
        #: Faults injected into REST calls (``faults.py``); none unless a test adds some.
        self.faults = FaultPlan()
        self.routes: list[_Route] = []
        add = self._add
        app, channels, guilds = (ApplicationRoutes(store), ChannelRoutes(store),
                                 GuildRoutes(store))
        # meta / login
        add("GET", "/gateway", app.get_gateway, auth=False)
        add("GET", "/gateway/bot", app.get_gateway_bot)
        add("GET", "/users/@me", app.get_me)
        add("GET", "/oauth2/applications/@me", app.get_application)
        add("GET", "/applications/@me", app.get_application)
        add("POST", "/users/@me/channels", app.create_dm)
        add("GET", "/users/{user_id}", app.get_user)
        # application commands (guild routes first: they are more specific)
        guild_cmds = "/applications/{app_id}/guilds/{guild_id}/commands"
        add("GET", guild_cmds + "/permissions", app.get_command_permissions)
        add("GET", guild_cmds, app.list_commands)
        add("PUT", guild_cmds, app.put_commands)
        add("POST", guild_cmds, app.post_command)
        add("GET", guild_cmds + "/{command_id}", app.get_command)
        add("PATCH", guild_cmds + "/{command_id}", app.patch_command)
        add("DELETE", guild_cmds + "/{command_id}", app.delete_command)
        global_cmds = "/applications/{app_id}/commands"
        add("GET", global_cmds, app.list_commands)
        add("PUT", global_cmds, app.put_commands)
        add("POST", global_cmds, app.post_command)
        add("GET", global_cmds + "/{command_id}", app.get_command)
        add("PATCH", global_cmds + "/{command_id}", app.patch_command)
        add("DELETE", global_cmds + "/{command_id}", app.delete_command)
        # interactions & webhooks (token-authenticated)
        add("POST", "/interactions/{interaction_id}/{token}/callback", app.callback, auth=False)
        hook = "/webhooks/{app_id}/{token}"
        add("POST", hook, app.followup, auth=False)
        add("GET", hook + "/messages/{message_id}", app.get_webhook_message, auth=False)
        add("PATCH", hook + "/messages/{message_id}", app.edit_webhook_message, auth=False)
        add("DELETE", hook + "/messages/{message_id}", app.delete_webhook_message, auth=False)
        # channels & messages (literal segments before {message_id})
        ch = "/channels/{channel_id}"
        add("GET", ch, channels.get_channel)
        add("PATCH", ch, channels.edit_channel)
        add("DELETE", ch, channels.delete_channel)
        add("POST", ch + "/typing", channels.typing)
        add("GET", ch + "/messages", channels.list_messages)
        add("POST", ch + "/messages", channels.send_message)
        add("POST", ch + "/messages/bulk-delete", channels.bulk_delete)
        add("GET", ch + "/messages/pins", channels.list_pins)
        add("PUT", ch + "/messages/pins/{message_id}", channels.pin)
        add("DELETE", ch + "/messages/pins/{message_id}", channels.unpin)
        add("PUT", ch + "/pins/{message_id}", channels.pin)
        add("DELETE", ch + "/pins/{message_id}", channels.unpin)
        msg = ch + "/messages/{message_id}"
        add("GET", msg, channels.get_message)
        add("PATCH", msg, channels.edit_message)
        add("DELETE", msg, channels.delete_message)
        add("POST", msg + "/threads", guilds.thread_from_message)
        add("GET", msg + "/reactions/{emoji}", channels.list_reactions)
        add("PUT", msg + "/reactions/{emoji}/@me", channels.add_reaction)
        add("DELETE", msg + "/reactions/{emoji}/{user_id}", channels.remove_reaction)
        add("DELETE", msg + "/reactions/{emoji}", channels.clear_emoji)
        add("DELETE", msg + "/reactions", channels.clear_reactions)
        add("POST", ch + "/threads", guilds.create_thread)
        add("GET", ch + "/thread-members", guilds.list_thread_members)
        add("PUT", ch + "/thread-members/{user_id}", guilds.join_thread)
        add("DELETE", ch + "/thread-members/{user_id}", guilds.leave_thread)
        # guilds
        g = "/guilds/{guild_id}"
        add("GET", g, guilds.get_guild)
        add("GET", g + "/channels", guilds.get_guild_channels)
        add("GET", g + "/roles", guilds.get_roles)
        add("GET", g + "/members", guilds.list_members)
        add("GET", g + "/members/search", guilds.search_members)
        add("GET", g + "/members/{user_id}", guilds.get_member)
        add("GET", g + "/threads/active", guilds.active_threads)

    def _add(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        self.routes.append(_Route(method, template, _compile(template), handler, auth))

    # ------------------------------------------------------------------ dispatch

    async def handle(self, request: web.Request) -> web.StreamResponse:
        state = self.state
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
        state.requests.append(record)
        try:
            record.json, record.files = await _read_body(request)
        except Exception as exc:
            state._internal_error(f"reading body of {request.method} {path}", exc)
            record.status = 400
            return _json({"message": f"fake discord: unreadable body: {exc}", "code": 0}, 400)

        route, params = self._match(request.method, path) if path != request.path else (None, {})
        if route is None:
            record.status = 404
            state.unhandled.append(record)
            log.warning("fake discord: unimplemented route %s %s", request.method, request.path)
            state.notify()
            return _json({"message": "404: Not Found", "code": 0}, 404)
        if route.auth and request.headers.get("Authorization") != f"Bot {state.token}":
            record.status = 401
            state.rejected.append(record)
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
            state.rejected.append(record)
            log.info("fake discord: %s %s -> %s", request.method, path, record.error)
            state.notify()
            return _json(exc.body(), exc.status)
        except Exception as exc:
            state._internal_error(f"{request.method} {path}", exc)
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
        """The answer of an injected fault, or None when the call goes on (slow, held, or an
        error answered after carrying the call out)."""
        if fault.what == "slow":
            await asyncio.sleep(fault.delay)
            return None
        if fault.what == "held":
            assert fault.release is not None
            await fault.release.wait()
            return None
        if fault.what == "error" and fault.applied:
            return None
        record.status, record.error = fault.status, f"injected {fault}"
        self.state.notify()
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
