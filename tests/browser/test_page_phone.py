"""The sandbox's page on a phone (390×844, chromium's mobile emulation): Discord's phone
layout, the channels and the person switcher in a drawer, messages full width, and nothing
wider than the screen. And the desktop layout as it was.
"""

from __future__ import annotations

from typing import Any

from .conftest import Person, Run
from .test_sandbox_page import private_after, show_hand

WIDER_THAN_THE_SCREEN = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > width) out.push(
    `the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  for (const el of document.querySelectorAll("body *")) {
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        (typeof el.className === "string" && el.className ? "." + el.className : "");
      out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  return out;
}"""


async def nothing_wider_than_the_screen(person: Person, when: str) -> None:
    wider: list[str] = await person.page.evaluate(WIDER_THAN_THE_SCREEN)
    assert not wider, f"{when}: {wider[:10]}"


async def box(locator: Any) -> dict[str, float]:
    found: dict[str, float] = await locator.bounding_box()
    assert found is not None
    return found


async def test_the_phone_layout(sandbox_run: Run) -> None:
    run = sandbox_run
    alice = await run.person("Alice", phone=True)
    page = alice.page
    assert await page.evaluate("() => document.documentElement.clientWidth") == 390
    # The channels and the person switcher are in a drawer, closed; the messages take the width.
    assert await page.locator("#sidebar").is_hidden()
    assert await page.locator("#user-switch").is_hidden()
    messages = await box(page.locator("#messages"))
    assert messages["x"] == 0 and messages["width"] == 390
    toggle = page.locator("#drawer-toggle")
    assert await toggle.is_visible()
    await toggle.click()
    await page.locator("#sidebar.open").wait_for()
    assert await page.locator("#user-switch").is_visible()
    await nothing_wider_than_the_screen(alice, "the drawer open")
    # A tap outside it closes it, and so does choosing a channel.
    await page.locator("#scrim").click(position={"x": 380, "y": 400})
    await page.locator("#sidebar").wait_for(state="hidden")
    await alice.open("general")
    await page.locator("#sidebar").wait_for(state="hidden")

    # The commands' list and the options' list are inside the screen.
    command = page.locator("#command")
    await command.fill("/")
    await page.locator("#popup .choice").first.wait_for()
    await nothing_wider_than_the_screen(alice, "the commands' list")
    await command.fill("/challenge ")
    await page.locator("#popup .popup-title", has_text="Options of").wait_for()
    await nothing_wider_than_the_screen(alice, "the options' list")
    await command.fill("")
    help_text = await private_after(alice, alice.command("/help"))
    await help_text.get_by_text("/challenge").first.wait_for()
    await nothing_wider_than_the_screen(alice, "/help")

    # The person switcher in the drawer switches to Bob.
    await toggle.click()
    await page.locator('#user-switch button[data-user="bob"]').click()
    await page.wait_for_function("() => document.title.startsWith('Bob')")
    await page.locator("#sidebar").wait_for(state="hidden")


async def test_a_game_played_on_phones(sandbox_run: Run) -> None:
    run = sandbox_run
    alice = await run.person("Alice", phone=True)
    bob = await run.person("Bob", phone=True)
    await alice.command("/challenge opponent:Bob stake:1")
    challenge = bob.message("A challenge!")
    await challenge.wait_for()
    await nothing_wider_than_the_screen(bob, "a challenge")
    await challenge.get_by_role("button", name="Accept").tap()
    await bob.message("accepted").wait_for()
    for person in (alice, bob):
        await person.page.locator(".channel.thread").first.wait_for(state="attached")
        await person.open("Alice vs Bob")
        board = person.page.locator(".embed-image img").last
        await board.wait_for()
        await person.page.wait_for_function(
            "() => [...document.querySelectorAll('.embed-image img')].every("
            "i => i.complete && i.naturalWidth > 0)")
        # The board's picture is scaled to the screen, and as wide as it can be.
        shown = await box(board)
        assert 250 <= shown["width"] <= 390 and shown["x"] >= 0, shown
        await nothing_wider_than_the_screen(person, f"{person.name}'s board")

    people = {"Alice": alice, "Bob": bob}
    first = run.live().match.game.turn_number
    for turn in range(4):
        player = run.on_turn()
        turns = run.live().match.game.turn_number
        if turn == 0:
            # A move typed with the bot's suggestions, which stay inside the screen.
            command = player.page.locator("#command")
            await command.tap()
            await command.fill("/play card:")
            await player.page.locator("#popup .popup-title",
                                      has_text="card: suggestions").wait_for()
            await nothing_wider_than_the_screen(player, "/play's suggestions")
            await command.fill("")
        hand = await show_hand(player)
        await nothing_wider_than_the_screen(player, f"turn {turn + 1}: the hand")
        menu = hand.locator("select.select-menu")
        menu_box = await box(menu)
        assert menu_box["x"] >= 0 and menu_box["x"] + menu_box["width"] <= 390
        # A discard from the hand to a side stack, which ends the turn.
        options = await menu.locator("option").evaluate_all(
            "els => els.filter(e => / S\\d/.test(e.textContent)).map(e => e.value)")
        assert options, "no card of the hand can go to a side stack"
        await menu.select_option(options[-1])
        side = hand.locator('button[data-custom-id*=">S"]').first
        await side.wait_for()
        await nothing_wider_than_the_screen(player, f"turn {turn + 1}: the targets")
        await side.tap()
        await hand.get_by_text("✅").first.wait_for()
        await run.sandbox.fake.wait_for(
            lambda turns=turns: run.live().match.game.turn_number > turns,
            timeout=15, description="the turn to be over")
        for person in people.values():
            await nothing_wider_than_the_screen(person, f"after turn {turn + 1}")
    assert run.live().match.game.turn_number == first + 4


async def test_the_desktop_layout_is_unchanged(sandbox_run: Run) -> None:
    alice = await sandbox_run.person("Alice")
    page = alice.page
    assert await page.locator("#drawer-toggle").is_hidden()
    sidebar = await box(page.locator("#sidebar"))
    assert sidebar["x"] == 0 and sidebar["width"] == 240
    assert await page.locator("#user-switch").is_visible()
    messages = await box(page.locator("#messages"))
    assert messages["x"] == 240 and messages["width"] == 1280 - 240
    await choose_nothing(alice)


async def choose_nothing(person: Person) -> None:
    """The command list opens above the box, within the channel's width, as before."""
    await person.page.locator("#command").fill("/")
    popup = await box(person.page.locator("#popup"))
    assert popup["x"] >= 240 and popup["x"] + popup["width"] <= 1280
    await person.page.locator("#command").fill("")

