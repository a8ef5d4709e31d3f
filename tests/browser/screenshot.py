"""Take the README's picture of the sandbox page: ``python -m tests.browser.screenshot``.

Alice challenges Bob, Bob accepts; in the game's thread the player on turn shows their hand
and starts typing ``/play card:``, with the bot's suggestions open. Writes ``docs/sandbox.png``.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import tempfile
from pathlib import Path

from bot.app.client import SpiteBot
from bot.ops.config import Config
from bot.sandbox import start_bot
from bot.sandbox.session import Sandbox

from .conftest import CHROMIUM, Run
from .test_sandbox_page import show_hand, start_game

OUT = Path(__file__).resolve().parents[2] / "docs" / "sandbox.png"


async def main(out: Path) -> None:
    from playwright.async_api import async_playwright

    sandbox = Sandbox(None)
    await sandbox.start(0)
    seeds = itertools.count(11)
    with tempfile.TemporaryDirectory() as folder, sandbox.fake.configure_client():
        config = Config(token=sandbox.fake.token, database=f"{folder}/bot.sqlite3",
                        board_delay=0.05, computer_delay=0.0, tick=3600, backup_keep=0)
        handle = await start_bot(sandbox.fake, SpiteBot(config, seed_source=lambda: next(seeds)))
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(executable_path=CHROMIUM)
                run = Run(sandbox, handle.bot, browser)
                await start_game(run)
                player = run.on_turn()
                await player.page.set_viewport_size({"width": 1360, "height": 1040})
                await show_hand(player)
                await player.page.locator("#command").fill("/play card:")
                await player.page.locator("#popup .popup-title",
                                          has_text="card: suggestions").wait_for()
                await player.page.wait_for_timeout(300)  # the pictures finish drawing
                await player.page.screenshot(path=str(out))
                await browser.close()
        finally:
            await handle.stop()
            await sandbox.stop()
    print(f"wrote {out}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
