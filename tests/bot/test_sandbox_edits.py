"""The fake Discord's message edits (``MessageStore.edit_message``): checked against the
message edited as Discord does (an edit may not leave it empty, a Components-V2 message takes
no content), and its components numbered in a copy, the bot's request left as it sent it."""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox import FakeDiscord
from bot.sandbox.discord_state import UploadedFile
from bot.sandbox.fake_errors import ApiError
from bot.sandbox.models import FakeMessage, MessageFlags

# A PNG's signature and the start of its header: its size is all the fake reads of it.
PNG = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + (3).to_bytes(4, "big") + (2).to_bytes(4, "big")


def _post(fake: FakeDiscord, payload: dict[str, Any],
          files: list[UploadedFile] | None = None) -> FakeMessage:
    channel = fake.add_guild("Guild", channels=("general",)).channel("general")
    return fake.store.create_message(channel, fake.state.bot_user, payload, files or [])


async def test_an_edit_may_not_leave_the_message_empty() -> None:
    async with FakeDiscord() as fake:
        msg = _post(fake, {"content": "hello"})
        with pytest.raises(ApiError) as refused:
            fake.store.edit_message(msg, {"content": ""})
    assert refused.value.code == 50006
    assert msg.content == "hello"


@pytest.mark.parametrize("kept", ["embeds", "components", "attachments"])
async def test_an_edit_that_keeps_something_is_taken(kept: str) -> None:
    payload: dict[str, Any] = {"content": "hello"}
    files = []
    if kept == "embeds":
        payload["embeds"] = [{"title": "a board"}]
    elif kept == "components":
        payload["components"] = [{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}]
    else:
        files = [UploadedFile(index=0, filename="board.png", data=PNG, content_type=None)]
    async with FakeDiscord() as fake:
        msg = _post(fake, payload, files)
        fake.store.edit_message(msg, {"content": ""})
    assert msg.content == "" and msg.edited


async def test_a_components_v2_message_takes_no_content() -> None:
    async with FakeDiscord() as fake:
        msg = _post(fake, {"flags": int(MessageFlags.IS_COMPONENTS_V2),
                           "components": [{"type": 10, "content": "text"}]})
        with pytest.raises(ApiError) as refused:
            fake.store.edit_message(msg, {"content": "more"})
    assert refused.value.code == 50035
    assert "IS_COMPONENTS_V2" in str(refused.value.body())


async def test_components_are_numbered_in_a_copy() -> None:
    buttons = {"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Go", "custom_id": "go", "id": 1}]}
    menu = {"type": 1, "components": [
        {"type": 3, "custom_id": "pick", "options": [{"label": "A", "value": "a"}]}]}
    async with FakeDiscord() as fake:
        msg = _post(fake, {"content": "x"})
        fake.store.edit_message(msg, {"content": "x", "components": [buttons, menu]})
    assert [(c.get("custom_id"), c["id"]) for c in msg.iter_components()] == [
        (None, 2), ("go", 1), (None, 3), ("pick", 4)]
    assert "id" not in buttons and "id" not in menu["components"][0]  # the request as sent
    options = menu["components"][0]["options"]
    assert msg.components[1]["components"][0]["options"] == options
    assert msg.components[1]["components"][0]["options"] is not options
