"""``FakeDiscord``: an in-process Discord (REST + gateway) for end-to-end bot tests.

The real, unmodified discord.py client talks to it over HTTP and websockets on
127.0.0.1. Only two class attributes of discord.py are redirected (see
:meth:`FakeDiscord.configure_client`): ``discord.http.Route.BASE`` (every REST and
webhook URL is built from it) and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``.

Typical use (see ``fixtures.py`` / ``runner.py`` for the pytest glue)::

    async with FakeDiscord() as fake, fake.configure_client():   # (fixture does this)
        guild = fake.add_guild("Test Guild")
        alice = fake.add_member(guild, "alice")
        async with running_bot(fake, make_bot()):
            inter = await fake.slash(alice, guild.channel("general"), "ping")
            assert (await inter.message()).content == "pong"

Design notes
------------
* One concern a module, imported one way (as aiohttp's ``web_app``, ``web_request``...):
  the state (``discord_state.py``, over ``waiting.py``), the servers and people in it
  (``guild_setup.py``), the bot's messages, answers and commands (``message_store.py``), what
  people do (``user_actions.py``), the REST API (``rest.py``, its handlers in ``rest_*.py``),
  the gateway (``gateway_endpoint.py``, its sessions in ``gateway.py``), and this module,
  which serves them on one port. ``FakeDiscord`` is the one object tests hold: each layer a
  class of its own module, each built on the one below. The sandbox's page (``web.py``) sits
  above it all.
* State lives in plain dataclasses (``models.py``) that tests can inspect directly.
* Everything the bot sends is validated against Discord's limits (``validation.py``);
  violations get Discord's own 400 answers so the bot logs an error, as in production.
* Anything the fake does not implement answers ``404`` *and* is recorded in
  :attr:`FakeDiscord.unhandled`; :meth:`FakeDiscord.assert_clean` fails on it.
* All waiting goes through :meth:`FakeDiscord.wait_for`, which re-checks a predicate
  whenever the fake's state changes (plus a short poll for bot-side state) - tests
  never need ``asyncio.sleep``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
from collections.abc import Iterator

import yarl
from aiohttp import web

from .faults import FaultPlan
from .gateway_endpoint import GatewayEndpoint
from .rest import RestApi
from .user_actions import UserActions

log = logging.getLogger("fakediscord")


class FakeDiscord(UserActions):
    """A fake Discord API + gateway bound to 127.0.0.1 on a free port.

    Takes the options of :class:`~.discord_state.DiscordState` (the token, the bot's name, the
    gateway's compression and resume policy, the interaction deadline...).
    """

    _runner: web.AppRunner | None = None

    # Made on first use rather than in an ``__init__`` of their own, so the options are
    # declared once (``DiscordState``) and subclasses pass them straight through.
    @functools.cached_property
    def _rest(self) -> RestApi:
        return RestApi(self)

    @functools.cached_property
    def _gateway(self) -> GatewayEndpoint:
        return GatewayEndpoint(self)

    @property
    def faults(self) -> FaultPlan:
        """Faults injected into REST calls (``faults.py``); none unless a test adds some."""
        return self._rest.faults

    # ------------------------------------------------------------------ gateway control

    def disconnect_all(self, code: int = 4000) -> None:
        """Drop every websocket (sessions stay resumable). discord.py reconnects and RESUMEs."""
        self._gateway.disconnect_all(code)

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and RESUMEs (Discord does this on deploys)."""
        self._gateway.request_reconnect()

    def invalidate_sessions(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable): the client must IDENTIFY again."""
        self._gateway.invalidate_sessions()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        """Bind 127.0.0.1 on a free port and start serving."""
        if self._runner is not None:
            raise RuntimeError("FakeDiscord already started")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn)
        app.router.add_route("*", "/{tail:.*}", self._rest.handle)
        # No access log: it would drown test output; requests are in ``self.requests``.
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        self._runner = runner
        log.debug("fake discord listening on %s", self.http_base)
        return self

    async def stop(self) -> None:
        """Close bots still running (a failed test may not have), every gateway
        connection, and shut the server down."""
        for handle in self.bots:
            if not handle.task.done():
                try:
                    await handle.stop()
                except Exception as exc:
                    self._internal_error("stopping a leftover bot", exc)
        for conn in list(self.connections):
            conn.close(1001)
        for session in self.sessions:
            session.ended = True
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for conn in list(self.connections):
            await conn.aclose()
        self.connections.clear()
        self.cancel_waiters()

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def configure_client(self) -> Iterator[FakeDiscord]:
        """Point discord.py at this fake for the duration of the ``with`` block.

        Both are class attributes, so this affects every client in the process;
        the previous values are restored on exit (nesting is safe).
        """
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield self
        finally:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    async def _cdn(self, request: web.Request) -> web.Response:
        attachment = self.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )

