"""The sandbox's page in a real browser: a game played from it, privacy, and bad input.

People act only through the page (typing commands, picking suggestions, clicking buttons,
choosing in menus); the bot's state is read only to check, or to know whose turn it is.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any

from .conftest import Person, Run
from .page_actions import private_after as page_private_after


async def board_pictures(person: Person) -> set[str]:
    """The addresses of the board pictures the person's page shows now."""
    srcs: list[str] = await person.page.locator(".embed-image img").evaluate_all(
        "els => els.map(e => e.getAttribute('src'))")
    return set(srcs)


async def new_board_picture(person: Person, before: set[str]) -> None:
    await person.page.wait_for_function(
        "(old) => [...document.querySelectorAll('.embed-image img')]"
        ".some(e => !old.includes(e.getAttribute('src')) && e.complete && e.naturalWidth > 0)",
        arg=sorted(before))


async def private_after(person: Person, action: Awaitable[Any]) -> Any:
    """Do ``action``; return the private answer it brings."""
    return await page_private_after(person.page, action)


async def ask(person: Person, command: str) -> Any:
    """Send a command; return its private answer."""
    return await private_after(person, person.command(command))


async def show_hand(person: Person) -> Any:
    hand = await ask(person, "/hand")
    await hand.locator(".attachment img").wait_for()
    return hand


async def pick(person: Person, option: str, prefer: str = "") -> str:
    """Wait for the bot's suggestions for ``option`` and click one (one starting with
    ``prefer`` if there is one); returns its value."""
    page = person.page
    await page.locator("#popup .popup-title", has_text=f"{option}: suggestions").wait_for()
    choices = page.locator("#popup .choice")
    values: list[str] = await choices.evaluate_all("els => els.map(e => e.dataset.value)")
    assert values, f"no suggestions for {option}"
    value = next((v for v in values if prefer and v.startswith(prefer)), values[0])
    await page.locator(f'#popup .choice[data-value="{value}"]').click()
    return value


async def start_game(run: Run) -> tuple[Person, Person]:
    """Alice challenges Bob (a stake of 1), Bob accepts with the button; both open the
    game's thread."""
    alice, bob = await run.person("Alice"), await run.person("Bob")
    await alice.command("/challenge opponent:Bob stake:1")
    challenge = bob.message("A challenge!")
    await challenge.get_by_role("button", name="Accept").click()
    await bob.message("accepted").wait_for()
    for person in (alice, bob):
        await person.page.locator(".channel.thread").first.wait_for()
        await person.open("Alice vs Bob")
        await person.page.locator(".embed-image img").first.wait_for()
    return alice, bob


async def test_a_short_game_from_the_page(sandbox_run: Run) -> None:
    run = sandbox_run
    alice, bob = await start_game(run)

    # Each shows their hand, privately: the other's page doesn't have it.
    hands = {}
    for person, other in ((alice, bob), (bob, alice)):
        hand = await show_hand(person)
        hands[person.name] = hand_id = await hand.get_attribute("data-id")
        assert "Only you can see this" in await hand.inner_text()
        assert await other.page.locator(f'.message[data-id="{hand_id}"]').count() == 0

    # A move through autocomplete, by whoever is on turn: the bot's own suggestions.
    player = run.on_turn()
    before = await board_pictures(alice)
    moves = len(run.live().last_moves)
    box = player.page.locator("#command")
    await box.fill("/play card:")
    card = await pick(player, "card")
    await box.press_sequentially("to:")
    target = await pick(player, "to", prefer="C")
    assert await box.input_value() == f"/play card:{card} to:{target} "
    answer = await private_after(player, box.press("Enter"))
    await answer.get_by_text("✅").first.wait_for()
    assert len(run.live().last_moves) > moves
    await new_board_picture(alice, before)  # the board picture is drawn again, live

    # A move through the hand's menu: a card, then where it goes.
    player = run.on_turn()
    before = await board_pictures(player)
    moves = len(run.live().last_moves)
    hand = await show_hand(player)
    menu = hand.locator("select.select-menu")
    values = await menu.locator("option").evaluate_all(
        "els => els.map(e => e.value).filter(v => v)")
    await menu.select_option(values[0])
    target_button = hand.locator('button[data-custom-id^="sm:mv:"]').first
    await target_button.click()
    await hand.get_by_text("✅").first.wait_for()
    assert len(run.live().last_moves) > moves
    await new_board_picture(player, before)

    # Alice resigns (and confirms); the result shows in the channel, and the ledger.
    confirm = await ask(alice, "/resign")
    await confirm.get_by_role("button", name="Yes, resign").click()
    await confirm.get_by_text("You resigned: the").wait_for()
    for person in (alice, bob):
        await person.open("general")
        result = person.message("is over")
        await result.wait_for()
        text = await result.inner_text()
        assert "Bob wins" in text and "Alice gave the game up" in text
        assert "Alice owes Bob $1.00" in text
        assert await result.get_by_role("button", name="Rematch").count() == 1
    ledger = await ask(alice, "/ledger")
    await ledger.get_by_text("you owe").wait_for()
    assert "@Bob" in await ledger.inner_text()
    # One debt is already the fewest payments: the plan says so, with its picture.
    plan = await ask(alice, "/ledger-plan")
    await plan.get_by_text("This one payment settles everyone").wait_for()
    await plan.locator(".attachment img").wait_for()


async def test_no_hand_card_reaches_anyone_elses_page(sandbox_run: Run) -> None:
    run = sandbox_run
    alice, bob = await start_game(run)
    carol = await run.person("Carol")
    dave = await run.person("Dave")
    # Carol plays the computer at the same time (it moves by itself).
    await carol.command("/challenge opponent:Spite & Malice")
    await carol.message("playing against the computer").wait_for()
    await carol.open("Carol vs")
    for person in (alice, bob, carol):
        await show_hand(person)

    fake = run.sandbox.fake
    people = {p.name: p for p in (alice, bob, carol, dave)}
    ids = {m.user.global_name: m.id for m in run.sandbox.world.people}
    private = [m for m in fake.state.messages_by_id.values() if m.visible_to is not None]
    assert {m.visible_to for m in private} >= {ids["Alice"], ids["Bob"], ids["Carol"]}
    for name, person in people.items():
        page_text = await person.text()
        received = "\n".join(person.frames)
        for message in private:
            if message.visible_to == ids[name]:
                continue
            # Not the message, not its picture, not the hand written out.
            assert f'"id": "{message.id}"' not in received
            for attachment in message.attachments:
                assert str(attachment.id) not in received
            hand_line = next((line for line in message.content.splitlines()
                              if "hand" in line.lower()), None)
            if hand_line:
                assert hand_line not in page_text
    # And the owner of each hand does see it.
    for name in ("Alice", "Bob", "Carol"):
        mine = [m for m in private if m.visible_to == ids[name]]
        assert any(f'"id": "{m.id}"' in "\n".join(people[name].frames) for m in mine)


async def test_bad_input_gets_the_bots_own_answer(sandbox_run: Run) -> None:
    run = sandbox_run
    alice = await run.person("Alice")

    # A command the bot doesn't have.
    answer = await ask(alice, "/foo bar:1")
    await answer.get_by_text("I have no /foo command").wait_for()

    # A wrong option value: the bot's own refusal.
    answer = await ask(alice, "/challenge opponent:Bob stake:lots")
    assert "lots" in await answer.inner_text()

    # What Discord's client itself refuses is refused by the page, with the reason.
    box = alice.page.locator("#command")
    await box.fill("/challenge opponent:Bob target:many")
    await box.press("Enter")
    await alice.page.locator("#refusal", has_text="whole number").wait_for()
    await box.fill("")

    # A stale button: two confirmations of /resign; the second is clicked after the game is
    # over (against the computer, which needs no acceptance).
    await alice.command("/challenge opponent:Spite & Malice")
    await alice.message("playing against the computer").wait_for()
    await alice.open("Alice vs")
    first = await ask(alice, "/resign")
    second = await ask(alice, "/resign")
    assert await first.get_attribute("data-id") != await second.get_attribute("data-id")
    await first.get_by_role("button", name="Yes, resign").click()
    await first.get_by_text("You resigned: the").wait_for()
    answer = await private_after(
        alice, second.get_by_role("button", name="Yes, resign").click())
    assert re.search(r"over|finished|ended", await answer.inner_text())


async def test_challenging_the_bot_plays_the_computer(sandbox_run: Run) -> None:
    run = sandbox_run
    alice = await run.person("Alice")
    await alice.command("/challenge opponent:Spite & Malice rules:kings level:easy")
    await alice.message("playing against the computer").wait_for()
    await alice.open("Alice vs Computer")
    await alice.page.locator(".embed-image img").first.wait_for()
    computer = run.bot.computer_id
    turns = run.live().match.game.turn_number
    before = await board_pictures(alice)
    if run.live().on_turn != computer:
        # Alice ends her turn with a discard from the hand's menu.
        turns += 1
        hand = await show_hand(alice)
        menu = hand.locator("select.select-menu")
        options = await menu.locator("option").evaluate_all(
            "els => els.filter(e => / S\\d/.test(e.textContent)).map(e => e.value)")
        await menu.select_option(options[-1])
        await hand.locator('button[data-custom-id*=">S"]').first.click()
        await hand.get_by_text("✅").first.wait_for()
    # The computer moves by itself, and the page shows its moves on the board.
    await run.sandbox.fake.wait_for(
        lambda: run.live().on_turn != computer and run.live().match.game.turn_number > turns,
        timeout=15, description="the computer's turn to be over")
    await new_board_picture(alice, before)
    await alice.page.locator(".message", has_text="Computer:").last.wait_for()


async def test_suggestions_stay_when_the_box_has_its_focus_back_at_once(sandbox_run: Run) -> None:
    """The suggestions go a moment after the command box loses focus; if it has it back by
    then (a click away and back, quickly), they stay."""
    alice = await sandbox_run.person("Alice")
    box = alice.page.locator("#command")
    await box.focus()
    await alice.page.evaluate("() => { const box = document.getElementById('command');"
                              " box.blur(); box.focus(); }")
    await box.fill("/challenge opponent:")
    popup = alice.page.locator("#popup")
    await popup.wait_for(state="visible")
    await alice.page.wait_for_timeout(400)
    assert await popup.is_visible()


async def test_an_open_table_filled_from_the_page_with_the_computer(sandbox_run: Run) -> None:
    """Alice opens a table of three, Bob joins with its button, and Alice seats the computer
    from her private level menu: the table starts, and the game's thread shows every seat."""
    run = sandbox_run
    alice, bob = await run.person("Alice"), await run.person("Bob")
    await alice.command("/table seats:3")
    table = bob.message("looking for players")
    await table.get_by_role("button", name="Join").click()
    await alice.message("looking for players").get_by_text("Bob").first.wait_for()
    menu = await private_after(
        alice, alice.message("looking for players").get_by_role("button", name="Add computer")
        .click())
    assert "Only you can see this" in await menu.inner_text()
    assert await bob.page.locator(
        f'.message[data-id="{await menu.get_attribute("data-id")}"]').count() == 0
    options = await menu.locator("select.select-menu option").evaluate_all(
        "els => els.map(e => e.value).filter(v => v)")
    assert options == ["easy", "normal", "hard"], options
    await menu.locator("select.select-menu").select_option("easy")
    await menu.get_by_text("has taken a seat").wait_for()  # the menu's answer, in its place
    for person in (alice, bob):
        await person.message("Started").wait_for()
        await person.page.locator(".channel.thread").first.wait_for()
        await person.page.locator(".channel.thread").first.click()
        await person.page.locator(".embed-image img").first.wait_for()
        board = await person.page.locator(".message", has=person.page.locator(
            ".embed-image")).last.inner_text()
        assert all(name in board for name in ("Alice", "Bob", "Computer")), board
    assert len(run.live().names) == 3
    assert run.live().players[2] == run.bot.computer_id  # seated after Bob, who joined first


async def test_the_channel_list_keeps_its_buttons_while_messages_arrive(sandbox_run: Run) -> None:
    # Messages arrive all the time; a channel's button replaced between a press and its release
    # loses the click (a test clicking #general under load timed out that way).
    alice, _ = await start_game(sandbox_run)
    channels = alice.page.locator(".channel")
    await channels.evaluate_all("els => els.forEach(e => { e.dataset.probe = 'kept'; })")
    count = await channels.count()
    await show_hand(alice)  # new messages, on this page
    assert await alice.page.locator('.channel[data-probe="kept"]').count() == count
    await alice.open("general")
    assert await alice.page.locator(".channel.current").inner_text() == "#general"
