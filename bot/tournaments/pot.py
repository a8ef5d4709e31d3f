"""A buy-in's pot paid out to the places, as who owes whom (pure, in cents).

The rules chosen:

- Every entrant puts the buy-in in the pot (one who left too: he forfeited, not withdrew his
  money). With fewer than 4 entrants the winner takes it all; with 4 to 7, first 70 % and
  second 30 %; with 8 or more, 50 %, 30 % and 20 %.
- Players who share a place share the shares of the places they cover (two third places in a
  knockout of eight share third's 20 %, there being no fourth paid): equal parts, the odd
  cents to the better seed (the order the standings list them).
- What a player is paid less his buy-in is his net. The lines: those below zero owe those above
  it, matched in standings order, the fewest lines that way; they sum to each net exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pot_lines", "pot_payouts", "pot_shares"]


def pot_shares(entrants: int) -> tuple[int, ...]:
    """The percentages of the pot each place takes, first place first."""
    if entrants < 4:
        return (100,)
    if entrants < 8:
        return (70, 30)
    return (50, 30, 20)


def pot_payouts(places: Sequence[tuple[int, int | None]], buy_in: int) -> dict[int, int]:
    """What each player is paid from the pot, by his place (``(player, place)`` best first;
    a place ``None`` is paid nothing)."""
    pot = buy_in * len(places)
    shares = pot_shares(len(places))
    paid = dict.fromkeys((p for p, _ in places), 0)
    by_place: dict[int, list[int]] = {}
    for player, place in places:
        if place is not None:
            by_place.setdefault(place, []).append(player)
    for place, players in sorted(by_place.items()):
        covered = shares[place - 1:place - 1 + len(players)]
        total = pot * sum(covered) // 100
        each, odd = divmod(total, len(players))
        for i, player in enumerate(players):
            paid[player] = each + (1 if i < odd else 0)
    # Rounding down leaves a few cents: they go to the best placed.
    rest = pot - sum(paid.values())
    if rest and places:
        paid[places[0][0]] += rest
    return paid


def pot_lines(places: Sequence[tuple[int, int | None]], buy_in: int
              ) -> list[tuple[int, int, int]]:
    """The pot as ``(debtor, creditor, cents)``: each net loser owes net winners."""
    paid = pot_payouts(places, buy_in)
    net = [(p, paid[p] - buy_in) for p, _ in places]
    owing = [[p, -n] for p, n in net if n < 0]
    owed = [[p, n] for p, n in net if n > 0]
    lines = []
    i = j = 0
    while i < len(owing) and j < len(owed):
        amount = min(owing[i][1], owed[j][1])
        lines.append((owing[i][0], owed[j][0], amount))
        owing[i][1] -= amount
        owed[j][1] -= amount
        if owing[i][1] == 0:
            i += 1
        if owed[j][1] == 0:
            j += 1
    return lines
