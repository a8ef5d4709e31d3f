"""A plan that settles a whole group in the fewest payments (``/ledger plan``, issue 34).

Pure arithmetic on whole cents: no storage, no Discord. The input is the notebook's pairwise
balances, as ledger lines read them: ``(debtor, creditor, cents)``, ``debtor`` owes
``creditor`` ``cents`` (several lines of one pair add up; a negative amount is owed the other
way). The output (``SettlePlan``) is:

- each person's **net position**: what the others owe him in all, less what he owes them
  (positive: he is owed; negative: he owes), to the cent;
- the **payments** that clear every net position: the fewest possible for up to
  ``EXACT_LIMIT`` people who still have something to pay or receive once the pairs whose
  positions cancel are off (see ``fewest_payments``), a greedy plan of at most n - 1
  payments beyond, and ``exact`` saying which;
- **per person** his balances before and after (``PersonChange``), so a message can say
  "your $4.00 to Bob becomes $1.00 to Carol", and who has to agree to the plan;
- the **netting entries**, one per changed pair, that turn the current pairwise balances into
  exactly the plan's: ledger lines that leave every net position unchanged, to the cent.

The minimum: a plan is a graph of payments whose connected parts each sum to 0, and a part
of k people needs at least k - 1 payments, so the fewest payments for n people is n minus the
largest number of disjoint groups, each summing to 0, that they can be split into. That
number is found over the subsets (``zero_sum_groups``: at most 2^16 of them). CPU work on
the calling thread, from a few milliseconds to a few tenths of a second for 16 people
(``python -m bot.bench plan`` has the figures): the bot should run it off the event
loop.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["EXACT_LIMIT", "Debt", "NettingEntry", "Owed", "Payment", "PersonChange",
           "SettlePlan", "exact_payments", "fewest_payments", "greedy_payments",
           "net_positions", "netting_entries", "pair_balances", "person_changes",
           "plan_settlement", "zero_sum_groups"]

EXACT_LIMIT = 16
"""The most people the exact search takes at once (2^16 subsets); beyond, the plan is greedy."""


class Debt(NamedTuple):
    """One balance as a ledger line reads it: ``debtor`` owes ``creditor`` ``cents``."""

    debtor: int
    creditor: int
    cents: int


@dataclass(frozen=True, slots=True)
class Payment:
    """One payment of the plan: ``payer`` gives ``payee`` ``cents`` (always more than 0)."""

    payer: int
    payee: int
    cents: int


@dataclass(frozen=True, slots=True)
class NettingEntry:
    """A ledger line that nets a pair to its planned balance: after it, ``debtor`` owes
    ``creditor`` ``cents`` more (always more than 0), like every ``LedgerRow``."""

    debtor: int
    creditor: int
    cents: int


@dataclass(frozen=True, slots=True)
class Owed:
    """One of a person's balances: he owes ``other`` ``cents`` (negative: ``other`` owes him)."""

    other: int
    cents: int


@dataclass(frozen=True, slots=True)
class PersonChange:
    """What the plan changes for one person."""

    user: int
    net_cents: int
    """His net position: positive, the others owe him that much in all; the plan keeps it."""
    before: tuple[Owed, ...]
    """His current balances with the other people of the plan, largest first."""
    after: tuple[Owed, ...]
    """His balances once the plan is netted: the payments he makes or receives, largest
    first."""

    @property
    def changed(self) -> bool:
        """Whether any of his balances would change (then the plan needs his agreement)."""
        return sorted(self.before, key=_by_other) != sorted(self.after, key=_by_other)


@dataclass(frozen=True, slots=True)
class SettlePlan:
    """The fewest payments that clear a group's balances, and what netting them changes."""

    members: tuple[int, ...]
    """The people in the plan: those with an open balance among the people asked for."""
    without_balance: tuple[int, ...]
    """People asked for who have no open balance with any other of them (left out)."""
    positions: Mapping[int, int]
    """Each member's net position in cents (positive: he is owed), summing to 0."""
    payments: tuple[Payment, ...]
    exact: bool
    """True: no plan has fewer payments. False: too many people for the exact search
    (``EXACT_LIMIT``), the plan is greedy (largest debtor pays largest creditor), at most one
    payment fewer than the number of people who pay or are paid."""
    people: tuple[PersonChange, ...]
    """One per member, in the order of ``members``."""
    netting: tuple[NettingEntry, ...]
    """One ledger line per pair whose balance the plan changes (none when the balances are
    already the plan)."""
    open_pairs: int
    """How many pairs of members owe each other something now (payments to clear it as is)."""

    @property
    def must_agree(self) -> tuple[int, ...]:
        """The members whose balances would change: each must accept the plan."""
        return tuple(person.user for person in self.people if person.changed)


def _by_other(owed: Owed) -> int:
    return owed.other


# ---------------------------------------------------------------------------- balances


def pair_balances(lines: Iterable[tuple[int, int, int]]) -> dict[tuple[int, int], int]:
    """The balance of each pair, as the notebook keeps it: ``(low, high)`` → cents the lower
    id owes the higher (negative: the higher owes the lower). Pairs that come to 0 are left
    out. Raises ``ValueError`` for a line from someone to himself."""
    pairs: dict[tuple[int, int], int] = {}
    for debtor, creditor, cents in lines:
        if debtor == creditor:
            raise ValueError(f"a balance of {debtor} with himself")
        if debtor < creditor:
            key, signed = (debtor, creditor), cents
        else:
            key, signed = (creditor, debtor), -cents
        pairs[key] = pairs.get(key, 0) + signed
    return {key: cents for key, cents in pairs.items() if cents}


def net_positions(lines: Iterable[tuple[int, int, int]]) -> dict[int, int]:
    """Each person's net position in cents: what he is owed less what he owes (positive: he
    is owed). Everyone with an open balance is in it, also when it nets to 0."""
    net: dict[int, int] = {}
    for (low, high), cents in pair_balances(lines).items():
        net[low] = net.get(low, 0) - cents
        net[high] = net.get(high, 0) + cents
    return net


def netting_entries(before: Mapping[tuple[int, int], int],
                    after: Mapping[tuple[int, int], int]) -> tuple[NettingEntry, ...]:
    """The ledger lines, one per pair that differs, that turn the pair balances ``before``
    into ``after`` (both as ``pair_balances`` gives them), in pair order."""
    out = []
    for low, high in sorted(set(before) | set(after)):
        change = after.get((low, high), 0) - before.get((low, high), 0)
        if change > 0:
            out.append(NettingEntry(low, high, change))
        elif change < 0:
            out.append(NettingEntry(high, low, -change))
    return tuple(out)


# ---------------------------------------------------------------------------- payments


def greedy_payments(positions: Mapping[int, int]) -> tuple[Payment, ...]:
    """Largest debtor pays largest creditor the smaller of the two amounts, until everyone is
    clear (ties: the lower id first). Each payment clears at least one of the two, the last
    one both: at most n - 1 payments for n people with a nonzero position, and nobody both
    pays and receives. ``positions`` must sum to 0."""
    _check_sum(positions)
    debtors = [(cents, user) for user, cents in positions.items() if cents < 0]
    creditors = [(-cents, user) for user, cents in positions.items() if cents > 0]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    out = []
    while debtors:
        owes, payer = heapq.heappop(debtors)
        owed, payee = heapq.heappop(creditors)
        cents = min(-owes, -owed)
        out.append(Payment(payer, payee, cents))
        if -owes > cents:
            heapq.heappush(debtors, (owes + cents, payer))
        if -owed > cents:
            heapq.heappush(creditors, (owed + cents, payee))
    return tuple(out)


def exact_payments(positions: Mapping[int, int],
                   current: Mapping[tuple[int, int], int] | None = None,
                   ) -> tuple[Payment, ...]:
    """The fewest payments that clear ``positions`` (summing to 0), exactly.

    Raises ``ValueError`` when more than ``EXACT_LIMIT`` people are left once the people
    whose positions cancel exactly (one owes what the other is owed) are paired off: such a
    pair is a group of its own in some best plan. The people are split into the most groups
    that each sum to 0 (dynamic programming over subsets); each group of k is settled in
    k - 1 payments, greedily. When the ``current`` pair balances (as ``pair_balances`` gives
    them) come to these positions in as few payments already, they are the plan; otherwise
    a group whose balances among themselves already take k - 1 payments and who have no
    balance with anyone outside the group keeps them as they are. (Other plans as short
    may keep more balances; these are the two cases looked for.)
    """
    _check_sum(positions)
    current = current or {}
    groups, rest = _split(positions, current)
    if len(rest) > EXACT_LIMIT:
        raise ValueError(f"{len(rest)} people is more than the exact search takes "
                         f"({EXACT_LIMIT})")
    values = [positions[user] for user in rest]
    groups.extend([rest[i] for i in group] for group in zero_sum_groups(values))
    fewest = sum(len(group) - 1 for group in groups)
    if len(current) == fewest and _open_nets(current) == _open_nets_of(positions):
        # The balances already take as few payments as any plan (and go through nobody
        # whose position is 0, or they would take more): they are the plan.
        return _in_order(_as_payments(current))
    neighbours: dict[int, set[int]] = {}
    for low, high in current:
        neighbours.setdefault(low, set()).add(high)
        neighbours.setdefault(high, set()).add(low)
    out: list[Payment] = []
    for group in groups:
        members = set(group)
        inside = {pair: cents for pair, cents in current.items()
                  if pair[0] in members and pair[1] in members}
        closed = all(neighbours.get(user, set()) <= members for user in group)
        if closed and len(inside) == len(group) - 1:
            out.extend(_as_payments(inside))
        else:
            out.extend(greedy_payments({user: positions[user] for user in group}))
    return _in_order(out)


def fewest_payments(positions: Mapping[int, int],
                    current: Mapping[tuple[int, int], int] | None = None,
                    ) -> tuple[tuple[Payment, ...], bool]:
    """The payments that clear ``positions`` and whether they are the fewest possible: exact
    (``exact_payments``) when it can be, greedy (``greedy_payments``) beyond."""
    _check_sum(positions)
    if len(_split(positions, current or {})[1]) > EXACT_LIMIT:
        return _in_order(greedy_payments(positions)), False
    return exact_payments(positions, current), True


def _open_nets(pairs: Mapping[tuple[int, int], int]) -> dict[int, int]:
    return _open_nets_of(net_positions((low, high, cents) for (low, high), cents in pairs.items()))


def _open_nets_of(positions: Mapping[int, int]) -> dict[int, int]:
    return {user: cents for user, cents in positions.items() if cents}


def _in_order(payments: Iterable[Payment]) -> tuple[Payment, ...]:
    return tuple(sorted(payments, key=lambda p: (p.payer, p.payee)))


def _split(positions: Mapping[int, int], current: Mapping[tuple[int, int], int]
           ) -> tuple[list[list[int]], list[int]]:
    """The pairs whose positions cancel (``_pair_off``) and the others left to search."""
    pairs = _pair_off(positions, current)
    paired = {user for pair in pairs for user in pair}
    return pairs, sorted(user for user, cents in positions.items()
                         if cents and user not in paired)


def _check_sum(positions: Mapping[int, int]) -> None:
    total = sum(positions.values())
    if total:
        raise ValueError(f"net positions must sum to 0, not {total}")


def _pair_off(positions: Mapping[int, int], current: Mapping[tuple[int, int], int]
              ) -> list[list[int]]:
    """Pairs whose positions cancel exactly, those who already owe each other just that
    first. Any best plan can be rearranged to settle such a pair on its own: if the two are
    in different groups, swapping makes {a, b} and the rest of both groups, as many groups;
    if in one, splitting it gives one more."""
    paired: set[int] = set()
    groups: list[list[int]] = []
    for (low, high), cents in sorted(current.items()):
        if low in paired or high in paired:
            continue
        if positions.get(low) == -cents and positions.get(high) == cents:
            groups.append([low, high])
            paired.update((low, high))
    waiting: dict[int, list[int]] = {}
    for user in sorted(positions):
        cents = positions[user]
        if not cents or user in paired:
            continue
        partners = waiting.get(-cents)
        if partners:
            groups.append([partners.pop(0), user])
        else:
            waiting.setdefault(cents, []).append(user)
    return groups


def zero_sum_groups(values: Sequence[int], method: str = "auto") -> list[list[int]]:
    """The most disjoint groups (as indices into ``values``, which sum to 0 and hold no 0)
    that each sum to 0 and together hold everyone; at most ``EXACT_LIMIT`` values.

    Two ways to the same count, both over the subsets of ``values``:

    - ``"subsets"``: ``best[mask]``, the most disjoint zero-sum groups inside the subset
      ``mask``, is the best of the subset less one person, plus one if the subset itself sums
      to 0. Every subset is visited: n * 2^n steps at worst.
    - ``"chain"``: only the subsets that sum to 0 are visited; the groups are the steps of the
      longest chain of them, each inside the next, from nobody to everyone (the difference of
      two zero-sum subsets sums to 0). Steps: the square of their number.

    ``"auto"`` takes the chain when the zero-sum subsets are few (positions to the cent make
    few of them; round stakes, many, and the pairs cancelling are already off).
    """
    n = len(values)
    if n > EXACT_LIMIT:
        raise ValueError(f"{n} people is more than the exact search takes ({EXACT_LIMIT})")
    if sum(values) or not all(values):
        raise ValueError("the values must sum to 0 and hold no 0")
    if n == 0:
        return []
    sums = [0]
    for value in values:  # sums[mask] for every mask, bit i standing for values[i]
        sums += [total + value for total in sums]
    zeros = [mask for mask, total in enumerate(sums) if total == 0]
    if method == "auto":
        method = "chain" if len(zeros) <= CHAIN_LIMIT else "subsets"
    if method == "chain":
        masks = _longest_chain(zeros)
    elif method == "subsets":
        masks = _best_subsets(sums)
    else:
        raise ValueError(f"no method {method!r}")
    return [[i for i in range(n) if mask >> i & 1] for mask in masks]


CHAIN_LIMIT = 512
"""Up to this many zero-sum subsets, the chain is quicker than visiting every subset:
512² / 2 subset tests against 16 × 2^16 / 2 steps."""


def _longest_chain(zeros: list[int]) -> list[int]:
    # ``zeros`` is in increasing order, so a subset comes before every set that holds it.
    longest = {0: 0}
    below: dict[int, int] = {}
    for mask in zeros[1:]:
        inner, length = 0, 0
        for other, count in longest.items():
            if count > length and other & mask == other:
                inner, length = other, count
        longest[mask] = length + 1
        below[mask] = inner
    groups = []
    mask = zeros[-1]
    while mask:
        groups.append(mask ^ below[mask])
        mask = below[mask]
    return groups[::-1]


def _best_subsets(sums: list[int]) -> list[int]:
    size = len(sums)
    best = [0] * size
    for mask in range(1, size):
        # A group holds at least two people (nobody's position is 0), so the subset less one
        # person holds at most (count - 1) // 2 groups: reaching that, stop looking.
        bound = (mask.bit_count() - 1) >> 1
        found = 0
        rest = mask
        while rest:
            low = rest & -rest
            count = best[mask ^ low]
            if count > found:
                found = count
                if found == bound:
                    break
            rest ^= low
        best[mask] = found + (sums[mask] == 0)
    # Walking back from everyone, one person at a time along the best counts: each time the
    # people left sum to 0, a group has been peeled off.
    groups = []
    group = 0
    mask = size - 1
    while mask:
        want = best[mask] - (sums[mask] == 0)
        rest = mask
        while rest:
            low = rest & -rest
            if best[mask ^ low] == want:
                break
            rest ^= low
        group |= low
        mask ^= low
        if sums[mask] == 0:
            groups.append(group)
            group = 0
    return groups


def _as_payments(pairs: Mapping[tuple[int, int], int]) -> list[Payment]:
    return [Payment(low, high, cents) if cents > 0 else Payment(high, low, -cents)
            for (low, high), cents in pairs.items()]


# ---------------------------------------------------------------------------- the plan


def plan_settlement(lines: Iterable[tuple[int, int, int]],
                    members: Collection[int] | None = None) -> SettlePlan:
    """The plan that settles the balances ``lines`` (``(debtor, creditor, cents)``).

    With ``members``, the plan is for those people only: it counts and nets the balances
    among them, and leaves their balances with anyone outside as they are (in neither the
    net positions nor the netting entries). People asked for who have no open balance with
    another of them are listed in ``without_balance``. Nobody, or nobody with a balance,
    gives a plan with no members and no payments.
    """
    lines = list(lines)
    if members is not None:
        chosen = set(members)
        lines = [line for line in lines if line[0] in chosen and line[1] in chosen]
    before = pair_balances(lines)
    positions = net_positions(lines)
    plan_members = tuple(sorted(positions))
    without = tuple(sorted(set(members or ()) - set(positions)))
    payments, exact = fewest_payments(positions, before)
    after = pair_balances((p.payer, p.payee, p.cents) for p in payments)
    netting = netting_entries(before, after)
    was, will = _views(before), _views(after)
    people = tuple(PersonChange(user, positions[user], was.get(user, ()), will.get(user, ()))
                   for user in plan_members)
    return SettlePlan(plan_members, without, positions, payments, exact, people, netting,
                      len(before))


def _views(pairs: Mapping[tuple[int, int], int]) -> dict[int, tuple[Owed, ...]]:
    owed: dict[int, list[Owed]] = {}
    for (low, high), cents in pairs.items():
        owed.setdefault(low, []).append(Owed(high, cents))
        owed.setdefault(high, []).append(Owed(low, -cents))
    return {user: tuple(sorted(lines, key=lambda o: (-abs(o.cents), o.other)))
            for user, lines in owed.items()}


def person_changes(before: Mapping[tuple[int, int], int],
                   payments: Iterable[tuple[int, int, int]]) -> tuple[PersonChange, ...]:
    """What a plan changes for each person, from the pair balances it was made from (as
    ``pair_balances`` gives them) and its payments (``(payer, payee, cents)``): the same
    ``PersonChange`` as ``plan_settlement`` gave, for a plan read back from storage."""
    after = pair_balances(payments)
    positions = net_positions((low, high, cents) for (low, high), cents in before.items())
    was, will = _views(before), _views(after)
    return tuple(PersonChange(user, positions[user], was.get(user, ()), will.get(user, ()))
                 for user in sorted(positions))
