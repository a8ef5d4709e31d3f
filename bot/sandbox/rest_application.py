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
