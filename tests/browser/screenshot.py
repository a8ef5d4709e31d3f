"""Take the README's pictures of the sandbox page: ``python -m tests.browser.screenshot``.

Alice challenges Bob, Bob accepts; in the game's thread the player on turn shows their hand
and starts typing ``/play card:``, with the bot's suggestions open. Writes ``docs/sandbox.png``
(a desktop window) and, with ``--phone``, ``docs/sandbox-phone.png`` (a phone, 390×844: the
player on turn shows their hand and has chosen a card in its menu).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import tempfile
from pathlib import Path

from bot.app.client import SpiteBot
from bot.ops.config import Config
from bot.sandbox import start_bot
from bot.sandbox.session import Sandbox

from .conftest import CHROMIUM, PHONE, Run
from .test_sandbox_page import show_hand, start_game

DOCS = Path(__file__).resolve().parents[2] / "docs"


async def desktop(run: Run, out: Path) -> None:
    await start_game(run)
    player = run.on_turn()
    await player.page.set_viewport_size({"width": 1360, "height": 1040})
    await show_hand(player)
    await player.page.locator("#command").fill("/play card:")
    await player.page.locator("#popup .popup-title", has_text="card: suggestions").wait_for()
    await player.page.wait_for_timeout(300)  # the pictures finish drawing
    await player.page.screenshot(path=str(out))


async def phone(run: Run, out: Path) -> None:
    alice = await run.person("Alice", phone=True, scale=2)
    bob = await run.person("Bob", phone=True, scale=2)
    await alice.command("/challenge opponent:Bob stake:1")
    await bob.message("A challenge!").get_by_role("button", name="Accept").tap()
    await bob.message("accepted").wait_for()
    for person in (alice, bob):
        await person.page.locator(".channel.thread").first.wait_for(state="attached")
        await person.open("Alice vs Bob")
        await person.page.locator(".embed-image img").last.wait_for()
    player = run.on_turn()
    hand = await show_hand(player)
    menu = hand.locator("select.select-menu")
    values = await menu.locator("option").evaluate_all(
        "els => els.map(e => e.value).filter(v => v)")
    await menu.select_option(values[0])
    await hand.locator('button[data-custom-id^="sm:mv:"]').first.wait_for()
    await player.page.wait_for_function(
        "() => [...document.querySelectorAll('img')].every(i => i.complete)")
    await player.page.locator("#messages").evaluate("el => el.scrollTop = el.scrollHeight")
    await player.page.screenshot(path=str(out))


async def main(out: Path, on_phone: bool) -> None:
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
                await (phone(run, out) if on_phone else desktop(run, out))
                await browser.close()
        finally:
            await handle.stop()
            await sandbox.stop()
    print(f"wrote {out} ({'a phone, ' + str(PHONE['viewport']) if on_phone else 'a desktop'})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="where to write the picture")
    parser.add_argument("--phone", action="store_true", help="the page on a phone")
    args = parser.parse_args()
    default = DOCS / ("sandbox-phone.png" if args.phone else "sandbox.png")
    asyncio.run(main(args.out or default, args.phone))
