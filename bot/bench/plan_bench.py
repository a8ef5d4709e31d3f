"""``python -m bot.bench plan [--people 16,200] [--runs 15] [--seed 1]``: the time to
work out a settle-up plan (``bot.money.settle_plan.plan_settlement``, issue 34).

For each group size and each kind of stakes, ``--runs`` random notebooks (a fixed seed): the
people play ``GAMES_PER_PERSON`` games each at tables of two to four (every loser owes the
winner), with a payment now and then. ``round`` stakes are $1.00 a game and nothing a card,
so many people end on equal positions (the search pairs them off or finds many groups);
``per_card`` stakes are $0.50 a game and $0.05 a card of the margin, so positions are all
different, few subsets of them sum to 0, and the exact search walks those only. ``dollars``
is the search's worst case, made up rather than played: a quarter of the people owe $4 to $9,
the others are owed $1, $2 or $3, so no two cancel and thousands of subsets sum to 0 (the
search visits every subset). Each notebook is handed
to the planner as the storage keeps it, one balance per pair, and the plan is timed whole:
net positions, the payments, each person's before and after, the netting entries. Prints one
JSON line per size and kind: the median, best and worst time per plan, how many plans were
exact, how many people were left for the subset search once the cancelling pairs were off
(``searched``: above 16, the plan is greedy instead), and the median number of open pairs
and of planned payments. ``cpu_median_ms`` is the median CPU time of this thread over the
same plans: on a busy machine the wall-clock times include waiting for a core, the CPU time
does not.

What it leaves out: reading the balances from the database, Discord, the picture of the plan,
and anything else competing for the CPU (a busy machine shows in the worst time). The exact
search is pure Python on the calling thread; the bot should run it off the event loop.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from bot.money.settle_plan import greedy_payments, pair_balances, plan_settlement

__all__ = ["GAMES_PER_PERSON", "STAKES", "dollars", "notebook", "run_plan"]

GAMES_PER_PERSON = 20
STAKES = {"round": (100, 0), "per_card": (50, 5)}
"""Kind of stakes → (cents a game, cents a card of the margin)."""


def notebook(people: int, stakes: str, rng: random.Random) -> list[tuple[int, int, int]]:
    """The pair balances, as ``(low, high, cents low owes high)``, of ``people`` friends after
    ``GAMES_PER_PERSON`` games each at tables of two to four (one payment in ten games)."""
    stake, per_card = STAKES[stakes]
    ids = list(range(10_000, 10_000 + people))
    lines: list[tuple[int, int, int]] = []
    for _ in range(people * GAMES_PER_PERSON // 3):
        table = rng.sample(ids, min(people, rng.choice((2, 3, 3, 4))))
        winner, losers = table[0], table[1:]
        for loser in losers:
            lines.append((loser, winner, stake + per_card * rng.randrange(1, 30)))
        if rng.random() < 0.1:
            payer, payee = rng.sample(ids, 2)
            lines.append((payee, payer, rng.randrange(1, 10) * 100))
    return [(low, high, cents) for (low, high), cents in pair_balances(lines).items()]


def dollars(people: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """Balances whose positions are whole dollars with no pair cancelling: a quarter of the
    people owe $4 to $9 each, the others are owed $1 to $3 each, as the greedy plan's
    payments."""
    ids = list(range(10_000, 10_000 + people))
    debtors = max(1, people // 4)
    creditors = people - debtors
    while True:
        owing = [rng.randrange(4, 10) for _ in range(debtors)]
        if creditors <= sum(owing) <= 3 * creditors:
            break
    owed = [1] * creditors
    for _ in range(sum(owing) - creditors):
        owed[rng.choice([i for i, dollars in enumerate(owed) if dollars < 3])] += 1
    values = [-100 * dollars for dollars in owing] + [100 * dollars for dollars in owed]
    positions = dict(zip(ids, values, strict=True))
    return [(p.payer, p.payee, p.cents) for p in greedy_payments(positions)]


def run_plan(people: int, stakes: str, runs: int, seed: int) -> dict[str, object]:
    """Times ``runs`` plans for ``people`` people; one result row."""
    rng = random.Random(f"{seed}-{people}-{stakes}")
    times, cpu, searched, pairs, payments, exact = [], [], [], [], [], 0
    for _ in range(runs):
        balances = dollars(people, rng) if stakes == "dollars" else notebook(people, stakes, rng)
        start, start_cpu = time.perf_counter(), time.thread_time()
        plan = plan_settlement(balances)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        exact += plan.exact
        left = [cents for cents in plan.positions.values() if cents]
        searched.append(len(left) - 2 * _cancelling(left))
        pairs.append(plan.open_pairs)
        payments.append(len(plan.payments))
    return {"name": "plan", "people": people, "stakes": stakes, "runs": runs,
            "exact_plans": exact, "searched_median": statistics.median(searched),
            "searched_max": max(searched), "median_ms": round(statistics.median(times), 2),
            "best_ms": round(min(times), 2), "worst_ms": round(max(times), 2),
            "cpu_median_ms": round(statistics.median(cpu), 2),
            "open_pairs_median": statistics.median(pairs),
            "payments_median": statistics.median(payments)}


def _cancelling(values: list[int]) -> int:
    """How many pairs of equal and opposite positions there are (settled outside the search:
    the same count as ``settle_plan``'s pairing off, whichever pairs it picks)."""
    count = 0
    waiting: dict[int, int] = {}
    for value in values:
        if waiting.get(-value):
            waiting[-value] -= 1
            count += 1
        else:
            waiting[value] = waiting.get(value, 0) + 1
    return count


if __name__ == "__main__":
    sys.exit("run it as: python -m bot.bench plan [--people 16,200] [--runs 15] [--seed 1]")
