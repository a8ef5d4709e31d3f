"""A tournament run from the sandbox's page (issue 33): Alice posts it with ``/tournament
create`` (a subcommand, typed as two words), four people sign up with the Join button, Alice
presses Start, and each game is ended in its own thread with ``/resign`` until the final
result shows in ``#general``. The bot's state is read only to choose who resigns."""

from __future__ import annotations

from .conftest import Run
from .test_sandbox_page import ask


async def test_a_four_player_knockout_from_the_page(sandbox_run: Run) -> None:
    run = sandbox_run
    people = {name: await run.person(name) for name in ("Alice", "Bob", "Carol", "Dave")}
    alice = people["Alice"]
    made = await ask(alice, "/tournament create name:Page cup format:knockout")
    await made.get_by_text("open for sign-up").wait_for()
    for person in people.values():
        signup = person.message("Organised by")
        await signup.get_by_role("button", name="Join").click()
        await person.page.get_by_text("You're in").first.wait_for()
    await alice.message("Organised by").get_by_text("Players (4)").wait_for()
    await alice.message("Organised by").get_by_role("button", name="Start").click()
    await alice.message("Organised by").get_by_text("Started.").wait_for()
    by_id = {m.id: m.user.global_name for m in run.sandbox.world.guild.members.values()}
    (tournament,) = await run.bot.service.tournaments.listed(run.sandbox.world.guild.id)
    for round_number in (1, 2):
        # The round's games have begun once their threads show in the side list.
        await alice.page.locator(".channel", has_text=f"Page cup · round {round_number}"
                                 ).first.wait_for()
        links = [g for g in await run.bot.storage.tournaments.table_games(tournament.id)
                 if g.round == round_number]
        assert len(links) == (2 if round_number == 1 else 1)
        for link in links:
            live = await run.bot.service.live.game(link.game_id)
            loser = people[by_id[live.players[1]] or ""]
            await loser.open(f"Page cup · round {round_number} · table {link.table_no + 1}")
            confirm = await ask(loser, "/resign")
            await confirm.get_by_role("button", name="Yes, resign").click()
            await confirm.get_by_text("You resigned").wait_for()
    for person in people.values():
        await person.open("general")
        result = person.message("is over!")
        await result.wait_for()
        text = await result.inner_text()
        assert "Winner:" in text and "Places:" in text, text
    bracket = alice.message("final standings")
    await bracket.locator("img").first.wait_for()
