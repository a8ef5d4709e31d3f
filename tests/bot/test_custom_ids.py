"""The ids of the bot's buttons and menus: at most 100 characters, each read by its own template
alone, in the current layout and in the one posted before ids had a version."""

from __future__ import annotations

import random
import re
from typing import Any

import discord
import pytest

from bot.app import custom_ids, invitations, tournament_flow, ui
from bot.app.cogs import history_commands as history
from bot.app.cogs import money_commands as money
from bot.app.cogs import plan_commands as plan

BIG = custom_ids.INT64
"""The largest id a game, challenge, payment or user can have."""

FACTORIES = (*ui.DYNAMIC_ITEMS, *invitations.DYNAMIC_ITEMS, *money.DYNAMIC_ITEMS,
             *history.DYNAMIC_ITEMS, *plan.DYNAMIC_ITEMS, *tournament_flow.DYNAMIC_ITEMS)


def longest() -> list[discord.ui.DynamicItem[Any]]:
    """One item of each kind, with the longest parts the bot can write."""
    return [
        invitations.ChallengeButton(BIG, "decline"), invitations.TableButton(BIG, "computer"),
        invitations.TableLevelSelect.build(BIG),
        ui.ShowHandButton(BIG), ui.ClaimButton(BIG), invitations.RematchButton(BIG),
        ui.BackButton(BIG), ui.ResignButton(BIG),
        ui.SourceSelect.build(BIG, BIG, []),
        ui.MoveButton(BIG, BIG, "10H>C1".ljust(12, "x")),
        money.PageButton(BIG, BIG, 10**9), money.CsvButton(BIG, BIG),
        money.SettleButton(BIG, "yes"),
        history.ReplayStep(BIG, BIG, "first"), history.ReplayJump.build(BIG, []),
        history.ReplayHand(BIG, BIG), history.ReplayMoves(BIG),
        history.HistoryPageButton(BIG, 10**9, "older"), history.HistoryReplaySelect.build([]),
        plan.PlanButton(BIG, "withdraw"),
        tournament_flow.TournamentButton(BIG, "computer"),
    ]


def readers(custom_id: str) -> list[str]:
    return [f.__name__ for f in FACTORIES
            if f.__discord_ui_compiled_template__.fullmatch(custom_id)]


def test_every_kind_has_an_example() -> None:
    assert sorted(type(item).__name__ for item in longest()) == sorted(
        f.__name__ for f in FACTORIES)


@pytest.mark.parametrize("item", longest(), ids=lambda item: type(item).__name__)
def test_the_longest_id_of_each_kind_fits_and_only_its_template_reads_it(
        item: discord.ui.DynamicItem[Any]) -> None:
    custom_id = item.custom_id
    assert len(custom_id) <= custom_ids.MAX_LENGTH, custom_id
    assert re.match(rf"sm:[a-z0-9]+:v{custom_ids.CURRENT}(:|$)", custom_id), custom_id
    assert readers(custom_id) == [type(item).__name__]
    # The same id as the bot posted it before ids had a version: still read, by the same one.
    bare = re.sub(r"^(sm:[a-z0-9]+):v1", r"\1", custom_id)
    assert readers(bare) == [type(item).__name__]
    # Anything else: by no one.
    others = [custom_id.upper(), custom_id + " ", custom_id + ":1", bare + "0",
              re.sub(r"^(sm:[a-z0-9]+):v1", r"\1:v2", custom_id)]
    if str(BIG) in custom_id:
        others.append(custom_id.replace(str(BIG), str(BIG + 1), 1))  # beyond any row
    for other in others:
        assert readers(other) == [], other


async def test_an_id_is_read_back_as_it_was_made() -> None:
    item = ui.MoveButton(12, 3, "P>C1")
    match = ui.MoveButton.__discord_ui_compiled_template__.fullmatch(item.custom_id)
    assert match is not None
    button = discord.ui.Button[Any](custom_id=item.custom_id)
    read = await ui.MoveButton.from_custom_id(None, button, match)  # type: ignore[arg-type]
    assert (read.game_id, read.version, read.move) == (12, 3, "P>C1")
    assert item.custom_id == "sm:mv:v1:12:3:P>C1"


def test_every_kind_knows_its_newest_version_and_where_to_go_instead() -> None:
    kinds = {re.match(r"sm:([a-z0-9]+)", item.custom_id)[1]  # type: ignore[index]
             for item in longest()}
    assert kinds == set(custom_ids.KINDS)
    assert {k.newest for k in custom_ids.KINDS.values()} == {custom_ids.CURRENT}
    assert custom_ids.KINDS["pay"].instead == "/ledger"
    assert custom_ids.read_head("sm:ch:3:accept") == ("ch", 0)
    assert custom_ids.read_head("sm:ch:v7:3:whatever") == ("ch", 7)
    assert custom_ids.read_head("junk") == (None, None)


def test_an_id_too_long_is_not_made() -> None:
    with pytest.raises(ValueError, match="at most 100"):
        custom_ids.make("mv", "x" * 100)


@pytest.mark.parametrize("limit", [0, 1, 9, 10, 99, 100, 1000, 10**9, BIG])
def test_at_most_reads_exactly_the_numbers_up_to_its_limit(limit: int) -> None:
    pattern = re.compile(custom_ids.at_most(limit))
    rng = random.Random(limit)
    for n in [*range(120), limit - 1, limit, limit + 1, *(rng.randrange(3 * limit + 9)
                                                           for _ in range(500))]:
        if n >= 0:
            assert bool(pattern.fullmatch(str(n))) == (n <= limit), n
    for text in ("01", "-1", "+1", " 1", "1 ", "١", "１", ""):
        assert not pattern.fullmatch(text), text
