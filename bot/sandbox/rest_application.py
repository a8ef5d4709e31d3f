"""REST routes of the application: login, its commands, and its answers to interactions
(the callback and the webhook follow-ups, authenticated by their token).
"""

from __future__ import annotations

from typing import Any

from .fake_errors import ApiError
from .models import JSON
from .rest_resource import ApiRequest, RestResource


class ApplicationRoutes(RestResource):
    """``/gateway``, ``/users``, ``/applications/…/commands``, ``/interactions``, ``/webhooks``."""

    # ------------------------------------------------------------------ meta / login

    async def get_gateway(self, req: ApiRequest) -> JSON:
        return {"url": self.state.gateway_url}

    async def get_gateway_bot(self, req: ApiRequest) -> JSON:
        return {
            "url": self.state.gateway_url,
            "shards": self.state.recommended_shards,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    async def get_me(self, req: ApiRequest) -> JSON:
        state = self.state
        return {**state.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0}

    async def get_application(self, req: ApiRequest) -> JSON:
        state = self.state
        return {
            "id": str(state.application_id),
            "name": state.bot_user.username,
            "description": "",
            "icon": None,
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": state.owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": state._application_flags(),
            "bot": state.bot_user.payload(),
            "tags": [],
            "redirect_uris": [],
            "rpc_origins": [],
            "interactions_endpoint_url": None,  # non-null makes discord.py warn
            "approximate_guild_count": len(state.guilds),
            "integration_types_config": {"0": {}},
        }

    async def get_user(self, req: ApiRequest) -> JSON:
        user = self.state.users.get(req.int_param("user_id"))
        if user is None:
            raise ApiError.unknown_user()
        return user.payload()

    async def create_dm(self, req: ApiRequest) -> JSON:
        user = self.state.users.get(int(req.body().get("recipient_id", 0)))
        if user is None:
            raise ApiError.unknown_user()
        if user.bot:
            raise ApiError(400, 50007, "Cannot send messages to this user")
        return self.state.dm_channel(user).payload()

    # ------------------------------------------------------------------ application commands

    def _scope(self, req: ApiRequest) -> int | None:
        self._check_app(req)
        if "guild_id" in req.params:
            return self._guild(req).id
        return None

    async def list_commands(self, req: ApiRequest) -> list[JSON]:
        scope = self._scope(req)
        return [c.payload() for (g, _, _), c in self.state.registered.items() if g == scope]

    async def put_commands(self, req: ApiRequest) -> list[JSON]:
        scope = self._scope(req)
        if not isinstance(req.json, list):
            raise ApiError.form([("_", "Expected an array of commands")])
        return [c.payload() for c in self.store.upsert_commands(scope, req.json, replace=True)]

    async def post_command(self, req: ApiRequest) -> JSON:
        scope = self._scope(req)
        return self.store.upsert_commands(scope, [req.body()], replace=False)[0].payload()

    def _command_key(self, req: ApiRequest) -> tuple[int | None, str, int]:
        scope = self._scope(req)
        cid = req.int_param("command_id")
        for key, cmd in self.state.registered.items():
            if key[0] == scope and cmd.id == cid:
                return key
        raise ApiError.unknown_command()

    async def get_command(self, req: ApiRequest) -> JSON:
        return self.state.registered[self._command_key(req)].payload()

    async def patch_command(self, req: ApiRequest) -> JSON:
        key = self._command_key(req)
        merged = {**self.state.registered[key].payload(), **req.body()}
        del self.state.registered[key]
        return self.store.upsert_commands(key[0], [merged], replace=False)[0].payload()

    async def delete_command(self, req: ApiRequest) -> None:
        del self.state.registered[self._command_key(req)]
        self.state.notify()

    async def get_command_permissions(self, req: ApiRequest) -> list[JSON]:
        self._scope(req)
        return []

    # ------------------------------------------------------------------ interactions / webhooks

    async def callback(self, req: ApiRequest) -> JSON:
        record = self.state.interaction(req.int_param("interaction_id"))
        if record is None or record.token != req.params["token"]:
            raise ApiError.unknown_interaction()
        return self.store.accept_callback(record, req.body(), req.files)

    def _webhook_record(self, req: ApiRequest) -> Any:
        self._check_app(req)
        record = self.state.interaction_by_token(req.params["token"])
        if record is None:
            raise ApiError.unknown_webhook()
        return record

    async def followup(self, req: ApiRequest) -> JSON | None:
        record = self._webhook_record(req)
        message = self.store.create_followup(record, req.body(), req.files)
        if req.query.get("wait") in ("1", "true", "True"):
            return self.store.message_payload(message)
        return None

    async def get_webhook_message(self, req: ApiRequest) -> JSON:
        record = self._webhook_record(req)
        return self.store.message_payload(
            self.store.webhook_message(record, req.params["message_id"])
        )

    async def edit_webhook_message(self, req: ApiRequest) -> JSON:
        record = self._webhook_record(req)
        if record.callback is None:
            raise ApiError.unknown_webhook()
        msg = self.store.webhook_message(record, req.params["message_id"])
        body = {k: v for k, v in req.body().items() if k != "flags"} if msg.loading else req.body()
        return self.store.message_payload(self.store.edit_message(msg, body, req.files))

    async def delete_webhook_message(self, req: ApiRequest) -> None:
        record = self._webhook_record(req)
        self.store.delete_message(self.store.webhook_message(record, req.params["message_id"]))
