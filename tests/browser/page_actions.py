"""What the browser tests and the whole-game script both do on the sandbox's page.

Shared by ``conftest.py`` / ``test_sandbox_page.py`` (imported as part of the test package) and
``whole_game.py`` (a script, which imports this module from its own folder).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any


async def send_command(page: Any, text: str) -> None:
    """Type a whole command into the page's command box and press Enter; returns once the box
    is empty (sent) or the page shows a refusal."""
    box = page.locator("#command")
    await box.fill(text)
    await box.press("Enter")
    await page.wait_for_function(
        "() => document.getElementById('command').value === '' || "
        "!document.getElementById('refusal').hidden")


async def private_after(page: Any, action: Awaitable[Any]) -> Any:
    """Do ``action``; return the private answer it brings (a message of its own), once the bot
    has finished thinking."""
    count = await page.locator(".message.ephemeral").count()
    await action
    await page.wait_for_function(
        "(n) => document.querySelectorAll('.message.ephemeral').length > n", arg=count)
    message_id = await page.locator(".message.ephemeral").last.get_attribute("data-id")
    message = page.locator(f'.message[data-id="{message_id}"]')
    await message.locator(".ephemeral-note").wait_for()
    await message.locator(".loading").wait_for(state="detached")
    return message
