"""Gateway (websocket) side of the fake: connections, sessions, resume buffers.

Protocol as discord.py 2.7 speaks it (``discord/gateway.py``):

1. client connects to ``DEFAULT_GATEWAY?v=10&encoding=json&compress=zlib-stream``;
2. server sends HELLO (op 10) with ``heartbeat_interval``; the client immediately
   heartbeats (op 1) and expects HEARTBEAT_ACK (op 11) for each one;
3. client sends IDENTIFY (op 2) -> server dispatches READY then one GUILD_CREATE per
   guild (READY lists the guilds as ``unavailable``; discord.py waits
   ``guild_ready_timeout`` after the last GUILD_CREATE before firing ``on_ready``);
4. or client sends RESUME (op 6) -> server replays missed dispatches and sends
   RESUMED, or answers INVALID_SESSION (op 9, ``d=false``) to force a fresh IDENTIFY.

A *session* outlives its websocket *connection*: when the server drops a connection
(``fake.gateway.disconnect_all``) the session keeps buffering dispatches until the
client RESUMEs. A client that closes with 1000/1001 ends its session for good, as on
real Discord. Quirk: ``Client.close()`` calls ``ws.close(code=1000)``, but aiohttp
first wakes the task blocked in ``receive()``, and discord.py's ``poll_event`` reacts
to that by closing with **4000** - so what actually goes on the wire is 4000 and the
session stays resumable. The fake mirrors Discord here (it does not special-case it).

discord.py asks for ``compress=zlib-stream``. Real Discord then sends binary frames
of one shared zlib stream, each ending in a ``Z_SYNC_FLUSH`` (``00 00 ff ff``). The
client also accepts plain text frames, so compression is optional here
(``FakeDiscord(gateway_compression=...)``); both paths are exercised by the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from .models import JSON

log = logging.getLogger("fakediscord.gateway")

# Gateway opcodes.
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Gateway intents the fake filters on.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_GUILD_MESSAGE_REACTIONS = 1 << 10
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_DIRECT_MESSAGE_REACTIONS = 1 << 13
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

_CLOSE = object()  # sentinel in a connection's outbound queue


def _encode(frame: Any) -> bytes:
    """A frame as compact JSON (orjson, as discord.py itself uses when it is installed)."""
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS)


class GatewayConnection:
    """One websocket. Frames are written by a single writer task, in order.

    A queue (rather than concurrent ``send_str`` calls) keeps sequence numbers and
    the shared zlib stream strictly ordered, and lets synchronous code (REST
    handlers, test helpers) dispatch events without awaiting.
    """

    def __init__(self, ws: web.WebSocketResponse, *, compress: bool) -> None:
        self.ws = ws
        self.id = secrets.token_hex(4)
        self.session: GatewaySession | None = None
        self.closed_by_server = False
        self._compressor = zlib.compressobj() if compress else None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name=f"fakediscord-ws-{self.id}")

    @property
    def compressed(self) -> bool:
        return self._compressor is not None

    def send(self, payload: JSON) -> None:
        """Queue a frame (any opcode)."""
        self._queue.put_nowait(payload)

    def close(self, code: int) -> None:
        """Queue a close frame after everything already queued."""
        self.closed_by_server = True
        self._queue.put_nowait((_CLOSE, code))

    async def _write_loop(self) -> None:
        while True:
            item = await self._queue.get()
            if isinstance(item, tuple) and item and item[0] is _CLOSE:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await self.ws.close(code=item[1])
                return
            if self.ws.closed:
                continue
            text = _encode(item)
            try:
                if self._compressor is not None:
                    chunk = self._compressor.compress(text)
                    chunk += self._compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(chunk)
                else:
                    await self.ws.send_str(text.decode())
            except (ConnectionError, RuntimeError):
                # The peer went away mid-write; the reader side will notice and clean up.
                log.debug("connection %s: write failed, dropping frame", self.id)

    async def aclose(self) -> None:
        """Stop the writer (after the socket is gone)."""
        if not self._writer.done():
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer


@dataclass(eq=False)
class GatewaySession:
    """An identified gateway session (one per bot shard)."""

    session_id: str
    token: str
    intents: int
    shard: tuple[int, int] = (0, 1)
    seq: int = 0
    connection: GatewayConnection | None = None
    ended: bool = False
    #: Every dispatch ever sent, so a RESUME can replay what the client missed.
    history: list[JSON] = field(default_factory=list)
    identify: JSON = field(default_factory=dict)

    @property
    def connected(self) -> bool:
        return self.connection is not None and not self.ended

    def covers_guild(self, guild_id: int | None) -> bool:
        """Discord's shard routing: ``(guild_id >> 22) % num_shards``; DMs go to shard 0."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id

    def has_intent(self, intent: int) -> bool:
        return bool(self.intents & intent)

    def dispatch(self, event: str, data: JSON) -> None:
        """Send (or buffer, while disconnected) a DISPATCH with the next sequence number."""
        if self.ended:
            return
        self.seq += 1
        frame = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
        self.history.append(frame)
        if self.connection is not None:
            self.connection.send(frame)

    def replay_after(self, seq: int) -> list[JSON]:
        return [f for f in self.history if f["s"] > seq]
