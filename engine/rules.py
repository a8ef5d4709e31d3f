"""Rule sets as frozen values: the two presets of RULES.md and their house-rule options."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = ["CLASSIC", "KINGS", "PRESETS", "RuleSet", "RuleSetError"]


class RuleSetError(ValueError):
    """Raised for an unknown rule set or an option a rule set does not allow."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Everything that differs between rule sets, fixed for the life of a game.

    Use the presets ``CLASSIC`` and ``KINGS`` and change only the options RULES.md marks
    (``refill_empty_hand``, ``king_starts_stack``) and the match target, through
    ``with_options``, which refuses combinations the rules forbid.
    """

    name: str
    """``classic`` or ``kings``."""
    jokers: int
    """Jokers in the game: 4 in pack B for classic, none for kings."""
    payoff_size: int
    """Cards in each pay-off pile at the deal (26 classic, 20 kings)."""
    payoff_from_pack_a: bool
    """Classic deals the pay-off piles from pack A only; kings from the shuffled 104."""
    hand_size: int
    """Cards a hand is filled up to (5)."""
    side_stacks: int
    """Side stacks per player (4)."""
    centre_stacks: int
    """Centre stacks that may exist at once (4 classic, 3 kings)."""
    top_rank: int
    """The rank that completes a centre stack (13: King in classic, 12: Queen in kings)."""
    wild_rank: int
    """Rank of the wild card: 0 (joker) in classic, 13 (King) in kings."""
    side_down_or_same: bool
    """Classic side stacks take the same rank or one lower (rule 12); kings take anything."""
    compulsory_aces_twos: bool
    """Classic rules 10 and 11: available aces and twos must be played first."""
    may_pass: bool
    """Classic rule 14: a turn may end without a discard."""
    stock_out_tie: bool
    """Kings rule 20: a draw from an empty stock ends the game as a tie."""
    stalemate: bool
    """Classic rule 16: two idle turns in a row end the game, scored on pay-off sizes."""
    turn_limit: int
    """A game ends when this many turns have been completed (1,000)."""
    refill_empty_hand: bool = True
    """(option) Rule 6: an emptied hand draws 5 at once mid-turn. Always on in kings."""
    king_starts_stack: bool = True
    """(option, kings) Rule 17: a King may start an empty centre stack as its Ace."""
    match_target: int | None = None
    """Points that win a match; ``None`` means the match is a single game."""
    stalemate_round: int = 2
    """Which reading of rule 25's stalemate round a game follows, kept for its whole life.
    2: as clarified, the round counts the players still seated, and a player leaving neither
    counts as an idle turn nor breaks it. 1: the rule as it read before the clarification, under
    which any leave began a new round. Only classic at a table of three or four tells them
    apart, and only there is 2 saved (``"stalemate_round": 2``): a game saved without it was
    played under 1 and keeps it (``from_dict``). Elsewhere (kings, which has no stalemate, and
    a table of two, where a leave ends the game) a game keeps 1 and is saved as it always was
    (``for_table``)."""

    @property
    def deck_size(self) -> int:
        """Cards in the whole game: 108 classic, 104 kings."""
        return 104 + self.jokers

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with house-rule options changed, checked against what the rule set allows.

        Accepts ``refill_empty_hand``, ``king_starts_stack`` and ``match_target``.
        """
        allowed = {"refill_empty_hand", "king_starts_stack", "match_target"}
        unknown = set(options) - allowed
        if unknown:
            raise RuleSetError(f"Unknown rule option(s): {', '.join(sorted(unknown))}.")
        new = dataclasses.replace(self, **options)
        new.validate()
        return new

    def for_table(self, players: int) -> RuleSet:
        """The rule set a game of ``players`` seats keeps: this one, or where the readings of
        the stalemate round can't differ (see ``stalemate_round``) the one saved as always."""
        if self.stalemate_round == 1 or (self.stalemate and players > 2):
            return self
        found = _ONE_READING.get(self)
        if found is None:
            found = _ONE_READING[self] = dataclasses.replace(self, stalemate_round=1)
        return found

    def validate(self) -> None:
        """Raise ``RuleSetError`` if the options contradict the rule set."""
        if self.name not in PRESET_NAMES:
            raise RuleSetError(f"Unknown rule set {self.name!r}: choose classic or kings.")
        if self.stalemate_round not in (1, 2) or isinstance(self.stalemate_round, bool) \
                or (self.stalemate_round == 2 and not self.stalemate):
            raise RuleSetError("The stalemate round's reading is 1 or 2, and 2 only in classic.")
        if not self.may_pass and not self.refill_empty_hand:
            raise RuleSetError(
                "In kings the empty-hand refill can't be switched off: a turn there can only end "
                "with a discard."
            )
        if self.wild_rank != 13 and not self.king_starts_stack:
            # Harmless, but a classic rule set should not pretend to have a kings option set.
            raise RuleSetError("king_starts_stack is a kings option.")
        target = self.match_target
        if target is not None and (
            not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 10_000
        ):
            raise RuleSetError("A match target must be a whole number of points from 1 to 10000.")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe description: the preset name plus the options, and the marker of the
        clarified stalemate round where a game follows it (``stalemate_round``)."""
        data: dict[str, Any] = {
            "name": self.name,
            "refill_empty_hand": self.refill_empty_hand,
            "king_starts_stack": self.king_starts_stack,
            "match_target": self.match_target,
        }
        if self.stalemate_round != 1:
            data["stalemate_round"] = self.stalemate_round
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """Rebuild a rule set from ``to_dict`` output. Without the ``stalemate_round`` marker it
        is the reading a game saved before the clarification was played under (1)."""
        base = cls.preset(str(data.get("name")))
        opts = {k: data[k] for k in ("refill_empty_hand", "king_starts_stack", "match_target")
                if k in data}
        rules = base.with_options(**opts)
        reading = data.get("stalemate_round", 1)
        if reading != rules.stalemate_round:
            rules = dataclasses.replace(rules, stalemate_round=reading)
            rules.validate()
        return rules

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """The preset called ``classic`` or ``kings`` (case-insensitive)."""
        try:
            return PRESETS[name.strip().lower()]
        except (KeyError, AttributeError):
            raise RuleSetError(f"Unknown rule set {name!r}: choose classic or kings.") from None


CLASSIC = RuleSet(
    name="classic",
    jokers=4,
    payoff_size=26,
    payoff_from_pack_a=True,
    hand_size=5,
    side_stacks=4,
    centre_stacks=4,
    top_rank=13,
    wild_rank=0,
    side_down_or_same=True,
    compulsory_aces_twos=True,
    may_pass=True,
    stock_out_tie=False,
    stalemate=True,
    turn_limit=1000,
    match_target=None,
)
"""The card-book rules (seed 000): jokers wild, compulsory aces and twos, passing allowed."""

KINGS = RuleSet(
    name="kings",
    jokers=0,
    payoff_size=20,
    payoff_from_pack_a=False,
    hand_size=5,
    side_stacks=4,
    centre_stacks=3,
    top_rank=12,
    wild_rank=13,
    side_down_or_same=False,
    compulsory_aces_twos=False,
    may_pass=False,
    stock_out_tie=True,
    stalemate=False,
    turn_limit=1000,
    match_target=50,
    stalemate_round=1,  # no stalemate in kings: the readings are one, saved as always
)
"""Kings wild (seeds 002/003): three centre stacks to the Queen, stock-out tie, match to 50."""

PRESET_NAMES = ("classic", "kings")
PRESETS: dict[str, RuleSet] = {"classic": CLASSIC, "kings": KINGS}
"""The presets by name."""

_ONE_READING: dict[RuleSet, RuleSet] = {}
"""``for_table``'s copies with ``stalemate_round`` 1, one per rule set (a game keeps the same
object, which the engine's tables are looked up by)."""
