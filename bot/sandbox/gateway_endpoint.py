"""The gateway: the websocket the bot connects to, identifies and resumes on.

:class:`GatewayEndpoint` serves ``/gateway`` for the fake: HELLO, heartbeats, IDENTIFY (READY
and a GUILD_CREATE per guild of the shard), RESUME (replaying what the session missed) and
member requests. The sessions and connections themselves are in ``gateway.py``; the state they
report on in ``discord_state.py``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets

from aiohttp import WSMsgType, web

from .discord_state import API_VERSION, DiscordState
from .gateway import (
    OP_HEARTBEAT,
    OP_HEARTBEAT_ACK,
    OP_HELLO,
    OP_IDENTIFY,
    OP_INVALID_SESSION,
    OP_PRESENCE_UPDATE,
    OP_RECONNECT,
    OP_REQUEST_GUILD_MEMBERS,
    OP_RESUME,
    PRIVILEGED_INTENTS,
    GatewayConnection,
    GatewaySession,
)
from .models import JSON

log = logging.getLogger("fakediscord")

HEARTBEAT_ACK_DELAY = 0.03
"""Seconds before a heartbeat is acknowledged (a network's round trip, roughly)."""


class GatewayEndpoint:
    """The ``/gateway`` websocket handler, and the drops Discord makes of its connections.
    One instance per :class:`FakeDiscord`."""

    def __init__(self, fake: DiscordState) -> None:
        self.fake = fake

    def disconnect_all(self, code: int = 4000) -> None:
        """Drop every websocket (sessions stay resumable). discord.py reconnects and RESUMEs."""
        for conn in list(self.fake.connections):
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            conn.close(code)
        self.fake.notify()

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and RESUMEs (Discord does this on deploys)."""
        for conn in list(self.fake.connections):
            conn.send({"op": OP_RECONNECT, "d": None})

    def invalidate_sessions(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable): the client must IDENTIFY again."""
        for session in self.fake.sessions:
            if session.connection is not None:
                session.connection.send({"op": OP_INVALID_SESSION, "d": False})
            session.ended = True
            session.connection = None
        self.fake.notify()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = self.fake.gateway_compression and request.query.get("compress") == "zlib-stream"
        conn = GatewayConnection(ws, compress=compress)
        self.fake.connections.add(conn)
        conn.send(
            {"op": OP_HELLO, "d": {"heartbeat_interval": int(self.fake.heartbeat_interval * 1000)}}
        )
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        self._on_gateway_frame(conn, json.loads(msg.data))
                    except Exception as exc:  # a harness bug: record it, keep serving
                        self.fake._internal_error(f"gateway frame {msg.data[:200]!r}", exc)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self.fake.connections.discard(conn)
            session = conn.session
            log.debug(
                "connection %s closed: code=%s by_server=%s",
                conn.id,
                ws.close_code,
                conn.closed_by_server,
            )
            if session is not None and session.connection is conn:
                session.connection = None
                # A client-initiated 1000/1001 close ends the session (it cannot resume).
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    session.ended = True
            await conn.aclose()
            self.fake.notify()
        return ws

    def _on_gateway_frame(self, conn: GatewayConnection, frame: JSON) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == OP_HEARTBEAT:
            # A moment later, as over a network: discord.py notes when it sent a heartbeat
            # only once its heartbeat thread wakes after the send, and an acknowledgement
            # read before that is measured as a whole interval of lag ("Can't keep up").
            asyncio.get_running_loop().call_later(
                HEARTBEAT_ACK_DELAY, conn.send, {"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            self._identify(conn, data or {})
        elif op == OP_RESUME:
            self._resume(conn, data or {})
        elif op == OP_PRESENCE_UPDATE:
            if conn.session is not None:
                conn.session.identify["presence"] = data
        elif op == OP_REQUEST_GUILD_MEMBERS:
            self._request_members(conn, data or {})
        else:
            log.debug("ignoring gateway op %s", op)

    def _identify(self, conn: GatewayConnection, data: JSON) -> None:
        if conn.session is not None:
            conn.close(4005)  # Already authenticated
            return
        if data.get("token") != self.fake.token:
            conn.close(4004)  # Authentication failed
            return
        intents = int(data.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.fake.allowed_privileged_intents:
            conn.close(4014)  # Disallowed intent(s)
            return
        shard_id, shard_count = data.get("shard") or (0, 1)
        if not 0 <= shard_id < shard_count:
            conn.close(4010)  # Invalid shard
            return
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            token=data["token"],
            intents=intents,
            shard=(int(shard_id), int(shard_count)),
            connection=conn,
            identify=dict(data),
        )
        conn.session = session
        self.fake.sessions.append(session)
        guilds = [g for g in self.fake.guilds.values() if session.covers_guild(g.id)]
        session.dispatch(
            "READY",
            {
                "v": API_VERSION,
                "user": {
                    **self.fake.bot_user.payload(),
                    "verified": True,
                    "mfa_enabled": False,
                    "flags": 0,
                },
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.fake.gateway_url,
                "shard": [session.shard[0], session.shard[1]],
                "application": {
                    "id": str(self.fake.application_id),
                    "flags": self.fake._application_flags(),
                },
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "auth": {},
                "user_settings": {},
            },
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", self.fake._guild_create_payload(guild, session))
        self.fake.notify()

    def _resume(self, conn: GatewayConnection, data: JSON) -> None:
        session = next(
            (s for s in self.fake.sessions if s.session_id == data.get("session_id")), None
        )
        if (
            self.fake.resume_policy != "resume"
            or session is None
            or session.ended
            or data.get("token") != session.token
        ):
            # d=false: not resumable. discord.py then closes with 1000 and IDENTIFYs.
            conn.send({"op": OP_INVALID_SESSION, "d": False})
            if session is not None:
                session.ended = True
            return
        if session.connection is not None and session.connection is not conn:
            session.connection.close(4000)  # a zombie connection of the same session
        session.connection = conn
        conn.session = session
        for frame in session.replay_after(int(data.get("seq") or 0)):
            conn.send(frame)
        session.dispatch("RESUMED", {})
        self.fake.notify()

    def _request_members(self, conn: GatewayConnection, data: JSON) -> None:
        session = conn.session
        guild = self.fake.guilds.get(int(data.get("guild_id", 0)))
        if session is None or guild is None:
            return
        members = list(guild.members.values())
        user_ids = {int(u) for u in data.get("user_ids") or []}
        query = str(data.get("query") or "").lower()
        if user_ids:
            members = [m for m in members if m.id in user_ids]
        elif query:
            members = [m for m in members if m.user.username.lower().startswith(query)]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if user_ids:
            chunk["not_found"] = [str(u) for u in user_ids - {m.id for m in members}]
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
