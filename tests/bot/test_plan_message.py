"""The plan's message stays under Discord's 2,000 characters and keeps what matters: its state
(who must still accept, when it expires, or why it closed) and any note after it, however many
people and payments it has; the lists say how many they leave out."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from bot.app.cogs.plan_commands import plan_text
from bot.money.plans import Proposal, describe_change
from bot.money.settle_plan import pair_balances, plan_settlement
from bot.storage.plan_records import PlanRow


def _people(n: int) -> list[int]:
    return [1_100_000_000_000_000_000 + 7919 * i for i in range(n)]


def _web(n: int, seed: int = 3) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    people = _people(n)
    return [(people[i], people[j], rng.choice((-1, 1)) * rng.randrange(100_000, 999_999))
            for i in range(n) for j in range(i + 1, n) if rng.random() < 0.5]


def _row(lines: list[tuple[int, int, int]]) -> tuple[PlanRow, Proposal]:
    plan = plan_settlement(lines, None)
    row = PlanRow(123456, 1, 2, 3, plan.members[0], "open", 0.0, 1.8e9, None, None,
                  tuple(plan.members), pair_balances(lines),
                  tuple((p.payer, p.payee, p.cents) for p in plan.payments), plan.exact,
                  {u: None for u in plan.must_agree})
    return row, Proposal(plan, row)


def _whole_mentions(text: str) -> bool:
    return text.count("<@") == len(re.findall(r"<@[0-9]+>", text))


@pytest.mark.parametrize("people", [5, 16, 20, 25, 40, 200])
def test_an_open_plan_says_who_must_accept_and_when_it_expires(people: int) -> None:
    row, proposal = _row(_web(people))
    text = plan_text(row, proposal, "$")
    assert len(text) <= 2000 and _whole_mentions(text)
    assert "Waiting for" in text and f"<t:{int(row.expires_at)}:R>" in text
    listed = text.count("• <@")
    if listed < len(row.payments):
        assert f"… and {len(row.payments) - listed} more (see the picture)." in text
    else:
        assert people == 5  # a small plan is listed whole


@pytest.mark.parametrize("people", [16, 25, 200])
def test_a_closed_plan_says_why_however_long(people: int) -> None:
    row, proposal = _row(_web(people))
    void = dataclasses.replace(row, status="void")
    text = plan_text(void, None, "$")
    assert len(text) <= 2000 and "is void" in text and "Nothing was changed." in text
    done = dataclasses.replace(row, status="done", accepted={u: 1.0 for u in row.accepted})
    assert "netted in the notebook" in plan_text(done, None, "$")


@pytest.mark.parametrize("people", [20, 25])
def test_balances_that_already_are_the_plan_fit_with_the_people_left_out(people: int) -> None:
    # Everyone owes the first person: the balances are the plan (nothing to agree).
    first, *others = _people(people)
    plan = plan_settlement([(first, other, -99_999) for other in others], None)
    assert not plan.netting and len(plan.payments) == people - 1
    note = "Left out, with no balance between them: " + ", ".join(
        f"<@{u}>" for u in _people(40)[20:]) + "."
    text = plan_text(None, Proposal(plan, None), "$", note)
    assert len(text) <= 2000 and _whole_mentions(text)
    assert text.startswith(f"These {people - 1} payments settle everyone")
    assert text.endswith(note)


def test_what_changes_for_someone_with_a_balance_with_everyone_fits_a_message() -> None:
    # The first person owes each of 120 others; the plan changes all of it.
    first, *others = _people(121)
    lines = [(first, o, 1000 + i) for i, o in enumerate(others)]
    lines += [(others[i], others[i + 1], 700) for i in range(0, 120, 2)]
    plan = plan_settlement(lines, None)
    change = {c.user: c for c in plan.people}[first]
    assert change.changed and len(change.before) == 120
    words = describe_change(change, "$")
    assert len(words) < 1900 and _whole_mentions(words)
    assert words.count("<@") <= 2 * 15
    assert "105 smaller balances ($" in words and "you owe in all)" in words
    owed = sum(1000 + i for i in range(120))
    assert words.endswith(f"(in all you owe ${owed // 100:,}.{owed % 100:02d}, as before).")
