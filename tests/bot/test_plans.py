"""Plans that settle a group (issue 34) as a service, on both backends: proposing, accepting
(the last acceptance nets, once), refusing, withdrawing, expiry, void, and what each refusal
says; the netting lines leave every net position as it was, to the cent."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from bot.money.ledger_service import LedgerService, describe_line
from bot.money.plans import PlanService, describe_change, parse_members
from bot.money.settle_plan import net_positions
from bot.storage import LedgerRow, Storage
from bot.user_errors import UserError
from tests.dbtools import run_sql
from tests.support import Clock

A, B, C, D, E = 101, 202, 303, 404, 505
G = 7


@pytest.fixture
async def env(database: str):
    clock = Clock(1_700_000_000.0)
    storage = await Storage.open(database, clock)
    yield storage, PlanService(storage), LedgerService(storage), clock
    await storage.close()


async def owe(storage: Storage, *lines: tuple[int, int, int], guild: int = G) -> None:
    """Game lines: ``debtor`` lost ``cents`` to ``creditor``."""
    await storage.ledger.import_ledger_lines(
        LedgerRow(0, guild, "game", d, c, cents, None, "kings", c, 1, None, None, None,
                  storage.clock()) for d, c, cents in lines)


async def positions(storage: Storage, guild: int = G) -> dict[int, int]:
    return {u: v for u, v in net_positions(await storage.ledger.open_balances(guild)).items()
            if v}


async def chain(storage: Storage) -> None:
    # B owes A $4, C owes B $4, D owes C $4: D pays A $4 settles everyone.
    await owe(storage, (B, A, 400), (C, B, 400), (D, C, 400))


async def test_a_plan_accepted_by_all_is_netted_once_and_keeps_every_net_position(env) -> None:
    storage, plans, ledger, _ = env
    await chain(storage)
    before = await positions(storage)
    proposal = await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)
    row = proposal.row
    assert row is not None and [(p.payer, p.payee, p.cents) for p in proposal.plan.payments] \
        == [(D, A, 400)]
    assert set(row.waiting) == {A, B, C, D}
    change = plans.changes(row)[B]
    assert describe_change(change, "$") == (
        f"Your $4.00 to <@{A}> and $4.00 from <@{C}> become nothing: you are square with all "
        "of them (in all you are square, as before).")
    assert describe_change(plans.changes(row)[D], "$") == (
        f"Your $4.00 to <@{C}> becomes $4.00 to <@{A}> (in all you owe $4.00, as before).")
    for user in (A, B, C):
        done = await plans.accept(row.id, user)
        assert done.outcome == "accepted" and await positions(storage) == before
    with pytest.raises(UserError, match="already accepted"):
        await plans.accept(row.id, B)
    with pytest.raises(UserError, match="doesn't change your balances"):
        await plans.accept(row.id, E)
    done = await plans.accept(row.id, D)
    assert done.outcome == "done" and done.plan.status == "done" and len(done.ledger_ids) == 4
    assert await positions(storage) == before
    assert await storage.ledger.open_balances(G) == [(A, D, -400)]
    with pytest.raises(UserError, match="accepted by everyone"):
        await plans.accept(row.id, D)
    assert len(await storage.ledger.open_balances(G)) == 1
    # The notebook of a pair shows the plan's line.
    rows, _, balance = await ledger.head_to_head(G, B, A, 0)
    assert balance == 0 and describe_line(rows[0][0], B, "$") == \
        f"Netted by plan #{row.id}: $4.00 more owed to you"
    rows, _, balance = await ledger.head_to_head(G, D, A, 0)
    assert balance == 400 and describe_line(rows[0][0], D, "$") == \
        f"Netted by plan #{row.id}: you owe $4.00 more"
    # Then the payment is settled as any other.
    settled = await ledger.settle(guild_id=G, channel_id=1, caller=A, other=D, amount_text="4")
    assert settled.kind == "payment" and await storage.ledger.open_balances(G) == []


async def test_a_refusal_ends_the_plan_and_changes_nothing(env) -> None:
    storage, plans, _, _ = env
    await chain(storage)
    lines = await storage.ledger.open_balances(G)
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=B, members=None)).row
    assert row is not None
    await plans.accept(row.id, A)
    with pytest.raises(UserError, match="only the people whose balances"):
        await plans.refuse(row.id, E)
    refused = await plans.refuse(row.id, C)
    assert refused.status == "refused" and refused.closed_by == C
    with pytest.raises(UserError, match="refused by"):
        await plans.accept(row.id, D)
    with pytest.raises(UserError, match="refused by"):
        await plans.withdraw(row.id, B)
    assert await storage.ledger.open_balances(G) == lines


async def test_withdraw_by_the_proposer_only(env) -> None:
    storage, plans, _, _ = env
    await chain(storage)
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=E, members=None)).row
    assert row is not None
    with pytest.raises(UserError, match=f"Plan #{row.id} for these people is still waiting"):
        await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)
    with pytest.raises(UserError, match="Only <@505>"):
        await plans.withdraw(row.id, A)
    assert (await plans.withdraw(row.id, E)).status == "withdrawn"
    again = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert again is not None and again.id != row.id


async def test_a_balance_changed_before_all_accepted_voids_the_plan(env) -> None:
    storage, plans, ledger, _ = env
    await chain(storage)
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert row is not None
    await plans.accept(row.id, A)
    await ledger.settle(guild_id=G, channel_id=1, caller=A, other=B, amount_text="1")
    lines = await storage.ledger.open_balances(G)
    done = await plans.accept(row.id, B)  # a void after accepting: nothing netted
    assert done.outcome == "void" and done.plan.status == "void"
    assert await storage.ledger.open_balances(G) == lines
    with pytest.raises(UserError, match="is void"):
        await plans.accept(row.id, C)


async def test_housekeeping_closes_expired_and_void_plans(env) -> None:
    storage, plans, ledger, clock = env
    await chain(storage)
    await owe(storage, (A, E, 100), (E, B, 300))
    settings = await storage.settings.update_settings(G, plan_expiry_s=3600)
    assert settings.plan_expiry_s == 3600
    first = (await plans.propose(guild_id=G, channel_id=1, proposer=A,
                                 members=[A, B, C, D])).row
    second = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=[A, B, E])).row
    assert first is not None and second is not None
    assert await plans.close_due() == []
    await ledger.settle(guild_id=G, channel_id=1, caller=B, other=E, amount_text="1")
    assert [(p.id, p.status) for p in await plans.close_due([G])] == [(second.id, "void")]
    clock.now += 3600
    assert [(p.id, p.status) for p in await plans.close_due([G])] == [(first.id, "expired")]
    with pytest.raises(UserError, match="expired"):
        await plans.accept(first.id, A)


async def test_an_expired_plan_found_on_a_click_is_closed(env) -> None:
    storage, plans, _, clock = env
    await chain(storage)
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert row is not None
    clock.now += 86_400
    done = await plans.accept(row.id, A)
    assert done.outcome == "expired" and (await plans.get(row.id)).status == "expired"


async def test_bad_requests_are_refused(env) -> None:
    storage, plans, _, _ = env
    with pytest.raises(UserError, match="Nobody in this server owes"):
        await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)
    await chain(storage)
    with pytest.raises(UserError, match="at least two"):
        await plans.propose(guild_id=G, channel_id=1, proposer=A, members=[A])
    with pytest.raises(UserError, match="None of these members"):
        await plans.propose(guild_id=G, channel_id=1, proposer=A, members=[A, C, E])
    with pytest.raises(UserError, match="no longer exists"):
        await plans.accept(999, A)
    # Balances already the plan: shown, nothing to agree.
    proposal = await plans.propose(guild_id=G, channel_id=1, proposer=A, members=[A, B])
    assert proposal.row is None and len(proposal.plan.payments) == 1
    await storage.settings.update_settings(G, points_only=True)
    with pytest.raises(UserError, match="points only"):
        await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)
    assert await storage.plans.still_open() == []


async def test_two_last_acceptances_at_once_net_once(env) -> None:
    storage, plans, _, _ = env
    await owe(storage, (B, A, 400), (C, B, 400))  # B must accept too: A and C alone can't
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert row is not None and set(row.waiting) == {A, B, C}
    await plans.accept(row.id, A)
    results = await asyncio.gather(plans.accept(row.id, B), plans.accept(row.id, C),
                                   plans.accept(row.id, C), return_exceptions=True)
    outcomes = sorted(r.outcome if not isinstance(r, BaseException) else "refused"
                      for r in results)
    assert outcomes == ["accepted", "done", "refused"]
    assert await storage.ledger.open_balances(G) == [(A, C, -400)]


@pytest.mark.parametrize(("text", "ids"), [
    ("<@101> <@!202>,<@303>", [101, 202, 303]),
    ("<@101><@202>", [101, 202]),
    ("123456789012345678 <@101> <@101>", [123456789012345678, 101]),
])
def test_members_are_read_from_mentions_and_ids(text: str, ids: list[int]) -> None:
    assert parse_members(text) == ids


def test_members_may_be_named_when_the_bot_knows_them() -> None:
    known = {"alice": 101, "bob": 202}
    assert parse_members("@alice bob <@303>", known.get) == [101, 202, 303]
    with pytest.raises(UserError, match="`carol` isn't a member"):
        parse_members("alice carol", known.get)


@pytest.mark.parametrize(("text", "says"), [
    ("alice bob", "`alice` isn't a member"),
    ("<@101> <@&55>", "Roles"),
    ("@everyone", "Roles"),
    ("   ", "Name the members"),
    ("<@101>x", "isn't a member"),
])
def test_malformed_members_are_refused_politely(text: str, says: str) -> None:
    with pytest.raises(UserError, match=says):
        parse_members(text)


async def test_two_processes_accepting_last_at_once_net_once(database: str) -> None:
    # Two bot processes (shards) on one database: each its own storage and connections.
    clock = Clock(1_700_000_000.0)
    one, two = await Storage.open(database, clock), await Storage.open(database, clock)
    try:
        await owe(one, (B, A, 400), (C, B, 400))
        row = (await PlanService(one).propose(guild_id=G, channel_id=1, proposer=A,
                                              members=None)).row
        assert row is not None
        await PlanService(two).accept(row.id, A)
        results = await asyncio.gather(PlanService(one).accept(row.id, B),
                                       PlanService(two).accept(row.id, C))
        assert sorted(r.outcome for r in results) == ["accepted", "done"]
        assert await two.ledger.open_balances(G) == [(A, C, -400)]
        assert len([r for r in await one.ledger.pair_entries(G, A, C)][0]) == 1
    finally:
        await one.close()
        await two.close()


async def test_a_database_from_before_plans_nets_a_plan_after_its_upgrade(tmp_path: Path
                                                                          ) -> None:
    # A SQLite file made at schema 6: upgraded along the migrations, its ledger's CHECK now
    # takes the netting kind (SQLite keeps a CHECK as text: migration 8 edits it), and still
    # refuses a kind it doesn't know.
    path = tmp_path / "old.sqlite3"
    shutil.copy(Path(__file__).parent / "fixtures" / "two_player_v6.sqlite", path)
    storage = await Storage.open(path, Clock(1_900_000_000.0))
    try:
        await chain(storage)
        plans = PlanService(storage)
        row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
        assert row is not None
        for user in (A, B, C):
            await plans.accept(row.id, user)
        assert (await plans.accept(row.id, D)).outcome == "done"
        assert await storage.ledger.open_balances(G) == [(A, D, -400)]
    finally:
        await storage.close()
    with pytest.raises(Exception, match="CHECK"):
        await run_sql(str(path), "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, "
                      "amount_cents, created_at) VALUES (1, 'gift', 1, 2, 3, 0)")


async def test_a_refusal_and_the_last_acceptance_at_once_one_wins_whole(database: str) -> None:
    clock = Clock(1_700_000_000.0)
    one, two = await Storage.open(database, clock), await Storage.open(database, clock)
    try:
        await owe(one, (B, A, 400), (C, B, 400))
        row = (await PlanService(one).propose(guild_id=G, channel_id=1, proposer=A,
                                              members=None)).row
        assert row is not None
        for user in (A, B):
            await PlanService(one).accept(row.id, user)
        accepted, refused = await asyncio.gather(PlanService(one).accept(row.id, C),
                                                 PlanService(two).refuse(row.id, A),
                                                 return_exceptions=True)
        status = (await one.plans.get_plan(row.id)).status  # type: ignore[union-attr]
        netted = await one.ledger.open_balances(G) == [(A, C, -400)]
        if status == "done":
            assert isinstance(refused, UserError) and not isinstance(accepted, BaseException)
            assert netted
        else:
            assert status == "refused" and isinstance(accepted, UserError) and not netted
            assert await one.ledger.open_balances(G) == [(A, B, -400), (B, C, -400)]
    finally:
        await one.close()
        await two.close()


async def test_the_balances_a_plan_reads_are_only_those_among_its_members(env) -> None:
    storage, plans, _, _ = env
    await chain(storage)  # B owes A, C owes B, D owes C (4 $ each)
    await owe(storage, (E, A, 150), (A, E, 150))  # square again: not open
    await owe(storage, (E, D, 25), guild=G + 1)  # another server
    assert await storage.ledger.open_balances(G, [A, B, C]) == [(A, B, -400), (B, C, -400)]
    assert await storage.ledger.open_balances(G, [C, A]) == []
    assert await storage.ledger.open_balances(G, []) == []
    everyone = await storage.ledger.open_balances(G)
    assert everyone == [(A, B, -400), (B, C, -400), (C, D, -400)]
    assert all(type(v) is int for line in everyone for v in line)
    assert await storage.ledger.people_with_balances(G) == [A, B, C, D]
    assert await plans.people_with_balances(G) == [A, B, C, D]
    assert await storage.ledger.people_with_balances(G + 1) == [D, E]
    # A plan for some members is the same whether the others' balances were read or not.
    proposal = await plans.propose(guild_id=G, channel_id=1, proposer=A, members=[A, B, C, E])
    assert proposal.row is not None and proposal.plan.without_balance == (E,)
    assert proposal.row.balances == {(A, B): -400, (B, C): -400}
    assert [(p.payer, p.payee, p.cents) for p in proposal.plan.payments] == [(C, A, 400)]


async def test_accepting_twice_in_a_big_plan_names_only_the_first_twenty_waiting(env) -> None:
    storage, plans, _, _ = env
    people = list(range(1000, 1041))
    # A chain among 41 people: everyone but the ends is square after the plan.
    await owe(storage, *[(people[i + 1], people[i], 100) for i in range(40)])
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert row is not None and len(row.waiting) == 41
    await plans.accept(row.id, people[0])
    with pytest.raises(UserError) as refused:
        await plans.accept(row.id, people[0])
    text = str(refused.value)
    assert len(text) < 1000 and text.count("<@") == 20 and text.endswith(" and 20 more.")


async def test_the_round_closes_due_plans_of_a_process_with_forty_thousand_servers(env) -> None:
    storage, plans, _, clock = env
    await chain(storage)
    row = (await plans.propose(guild_id=G, channel_id=1, proposer=A, members=None)).row
    assert row is not None
    servers = [G, *range(10_000, 50_000)]  # more than a query's parameters
    assert [p.id for p in await storage.plans.still_open(servers)] == [row.id]
    assert await storage.plans.still_open(servers[1:]) == []
    clock.now = row.expires_at + 1
    assert [(p.id, p.status) for p in await plans.close_due(servers)] == [(row.id, "expired")]
