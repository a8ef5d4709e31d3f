"""How moves and events read: a plain description of each, for one viewer.

python-chess keeps its notation in the core (``Move.uci()``, ``Board.san()``) and its SVG and
PGN modules format what the core says; so does this engine. A move's notation is ``str(move)``
(``7H>C2``, read back by ``Move.parse``); an event's is ``event.notation`` (``0 7H>C2``, see
``engine.events``). A ``Description`` says the rest as data (who, which card, from where to
where, what it caused), and in words once the caller gives the players' names, which the
engine does not know: it knows seats.

    >>> from engine import Card, Move
    >>> d = describe_move(0, Move.parse("7H>C2"), Card.parse("7H"), completed=True)
    >>> d.sentence(("Alice", "Bob"))
    'Alice played 7♥ from their hand to centre stack 2, completing it'
    >>> d.line(("Alice", "Bob"))
    'Alice: 7♥ from hand → centre 2'

A description is made for a viewer, like a view: ``describe_event(event, viewer)`` hides what the
viewer may not see (the cards another player drew) before it says anything, and a spectator
(``viewer=None``, the default) sees the public form only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import Card, rank_name, rank_text
from .errors import InvalidMoveError, quote
from .events import (
    Dealt,
    Discarded,
    Drew,
    EndReason,
    Event,
    GameOver,
    Left,
    Passed,
    Played,
    Result,
    StackCompleted,
    TurnEnded,
)
from .moves import PASS, Move, Source, Target

__all__ = [
    "Description",
    "describe_event",
    "describe_events",
    "describe_move",
    "describe_result",
    "history_lines",
    "parse_move_notation",
    "public_lines",
]


@dataclass(frozen=True, slots=True)
class Description:
    """One move or event as plain data, as one viewer may know it.

    Fields that do not apply to its kind keep their defaults (``None``, ``-1``, ``0``)."""

    kind: str
    """The event's kind (``played``, ``discarded``, ``passed``, ``drew``, ``dealt``,
    ``stack_completed``, ``turn_ended``, ``left``, ``game_over``)."""
    notation: str
    """The short notation: ``0 7H>C2`` for an event, as ``Event.notation``."""
    seat: int | None = None
    """Who acted (the mover, the drawer, the leaver; the player whose turn ended); ``None`` for
    the deal, a completed stack and the end of the game."""
    move: Move | None = None
    """The move, for a play, a discard or a pass."""
    card: Card | None = None
    """The card that moved, or ``None`` when the viewer cannot know it (a pay-off or side
    stack card in a bare move history)."""
    source: Source | None = None
    """Where the card came from."""
    source_index: int = -1
    """0-based side stack it came from (``Source.SIDE``)."""
    target: Target | None = None
    """Where the card went."""
    target_index: int = -1
    """0-based centre or side stack it went to; for a completed stack, that centre stack."""
    as_rank: int | None = None
    """The rank a wild card stood for, when it stood for another than its own."""
    revealed: Card | None = None
    """The pay-off card turned up by a play from the pay-off pile."""
    emptied_payoff: bool = False
    """True when a play from the pay-off pile was its last card."""
    completed: bool = False
    """True when the play completed its centre stack (rule 5)."""
    cards: tuple[Card, ...] | None = None
    """The cards drawn, for the drawer only; the pay-off tops turned up at the deal."""
    tops: tuple[Card | None, ...] = ()
    """At the deal: each seat's pay-off top (``None``: an absent seat)."""
    count: int = 0
    """Cards drawn, or the cards of a completed stack that went into the stock."""
    reshuffles: int = 0
    """At the deal: how often tied pay-off piles were reshuffled (rule 24)."""
    turn_number: int = 0
    """At the end of a turn: the turns completed so far in the game."""
    margin: int | None = None
    """A leaver's margin: the cards in his pay-off pile as he left (rule 26)."""
    stock: int = -1
    """Cards in the stock afterwards (a draw, a completed stack); -1 where not said."""
    next_seat: int | None = None
    """Who is on turn next (after a turn, the deal or a player leaving)."""
    idle: bool = False
    """A turn without a play or discard (rule 16)."""
    result: Result | None = None
    """How the game ended."""

    def sentence(self, names: Sequence[str]) -> str:
        """The description in a plain English sentence, ``names[seat]`` naming each seat:
        ``Alice played 7♥ from their hand to centre stack 2, completing it``."""
        return _SENTENCES[self.kind](self, names)

    def line(self, names: Sequence[str]) -> str | None:
        """The short public line a board lists under its last moves (``Ann: 7♥ from hand →
        centre 2``, ``Ann passed``, ``Game over: …``), or ``None`` for an event a board does
        not list: a draw, the deal, a completed stack, the end of a turn, and at a table of two
        a player leaving (the end of the game says it)."""
        if self.kind in ("played", "discarded", "passed"):
            assert self.move is not None
            return _move_line(names[self.seat if self.seat is not None else 0], self.move,
                              self.card, self.as_rank)
        if self.kind == "left" and len(names) > 2:
            assert self.seat is not None
            return _left_sentence(self, names)
        if self.kind == "game_over":
            return "Game over: " + self.sentence(names)
        return None


def describe_move(seat: int, move: Move, card: Card | None = None, as_rank: int | None = None,
                  *, completed: bool = False) -> Description:
    """A move made by ``seat``, from the move alone (a saved history): ``card`` is the card that
    moved when known (a hand move names its own), ``as_rank`` what a wild card became."""
    return _move(seat, move, card, as_rank, f"{seat} {move.text}", completed)


def _move(seat: int, move: Move, card: Card | None, as_rank: int | None, notation: str,
          completed: bool = False, revealed: Card | None = None,
          emptied_payoff: bool = False) -> Description:
    if card is None:
        card = move.card
    kind = "passed" if move.is_pass else "played" if move.is_play else "discarded"
    shown_rank = _shown_rank(card, as_rank)
    return Description(
        kind=kind, notation=notation, seat=seat, move=move, card=card, source=move.source,
        source_index=move.source_index, target=move.target, target_index=move.target_index,
        as_rank=shown_rank, completed=completed, revealed=revealed,
        emptied_payoff=emptied_payoff)


def describe_event(event: Event, viewer: int | None = None, *,
                   completed: bool = False) -> Description:
    """``event`` as ``viewer`` may know it (``None``: a spectator); ``completed`` says a play
    completed its centre stack (the ``StackCompleted`` that follows it; ``describe_events``
    finds it)."""
    event = event.visible_to(viewer)
    if isinstance(event, Played):
        return _move(event.player, event.move, event.card, event.as_rank, event.notation,
                     completed, event.revealed,
                     event.move.source is Source.PAYOFF and event.revealed is None)
    if isinstance(event, Discarded):
        return _move(event.player, event.move, event.card, None, event.notation)
    if isinstance(event, Passed):
        return _move(event.player, PASS, None, None, event.notation)
    if isinstance(event, Drew):
        return Description(kind="drew", notation=event.notation, seat=event.player,
                           cards=event.cards, count=event.count, stock=event.stock_left)
    if isinstance(event, Dealt):
        return Description(kind="dealt", notation=event.notation, tops=event.payoff_tops,
                           reshuffles=event.reshuffles, next_seat=event.first_player)
    if isinstance(event, StackCompleted):
        return Description(kind="stack_completed", notation=event.notation,
                           target=Target.CENTRE, target_index=event.centre, count=event.cards,
                           stock=event.stock_size)
    if isinstance(event, TurnEnded):
        return Description(kind="turn_ended", notation=event.notation, seat=event.player,
                           turn_number=event.turn_number, idle=event.idle,
                           next_seat=event.next_player)
    if isinstance(event, Left):
        return Description(kind="left", notation=event.notation, seat=event.player,
                           margin=event.margin, next_seat=event.next_player)
    if isinstance(event, GameOver):
        return Description(kind="game_over", notation=event.notation, result=event.result)
    raise TypeError(f"not an event: {event!r}")


def describe_events(events: Iterable[Event], viewer: int | None = None) -> list[Description]:
    """Every event of ``events`` (what one move caused, or a longer stretch) described for
    ``viewer``, in order; a play followed by the completion of its centre stack says it
    completed it."""
    listed = list(events)
    out = []
    for i, event in enumerate(listed):
        completed = False
        if isinstance(event, Played):
            # The completion is the next centre event (the next play starts a new stack).
            for j in range(i + 1, len(listed)):
                later = listed[j]
                if isinstance(later, StackCompleted | Played):
                    completed = isinstance(later, StackCompleted) and later.centre == event.centre
                    break
        out.append(describe_event(event, viewer, completed=completed))
    return out


def public_lines(events: Iterable[Event], names: Sequence[str]) -> list[str]:
    """The public lines a board lists for ``events`` (``Description.line``), in order: the
    moves, a player leaving at a table of three or four, the end of the game."""
    # The same words as ``describe_event(e).line(names)``, without making a description of
    # every event: a replay asks this for every move of a match.
    lines = []
    for e in events:
        if isinstance(e, Played):
            lines.append(_move_line(names[e.player], e.move, e.card, e.as_rank))
        elif isinstance(e, Discarded):
            lines.append(_move_line(names[e.player], e.move, e.card, None))
        elif isinstance(e, Passed):
            lines.append(_move_line(names[e.player], PASS, None, None))
        elif isinstance(e, Left | GameOver):
            line = describe_event(e).line(names)
            if line is not None:
                lines.append(line)
    return lines


def history_lines(history: Iterable[tuple[int, Move]], names: Sequence[str]) -> list[str]:
    """The public lines for saved ``(seat, move)`` pairs (a game's history): hand cards are
    named, the cards of the pay-off pile and the side stacks are not (the moves do not say)."""
    return [_move_line(names[seat], move, move.card, None) for seat, move in history]


def parse_move_notation(text: str) -> tuple[int, Move]:
    """The seat and the move of a play, a discard or a pass from its notation (``0 7H>C2``,
    ``1 JK>C3 as 7``, ``0 pass``); raises ``InvalidMoveError`` if it is not one."""
    parts = text.split()
    if len(parts) < 2 or not parts[0].isascii() or not parts[0].isdigit():
        raise InvalidMoveError(f"{quote(text)} is not a seat and a move, like 0 7H>C2.")
    return int(parts[0]), Move.parse(parts[1])


def describe_result(result: Result, names: Sequence[str]) -> str:
    """How a game ended, in a sentence (at a table of three or four: a few, naming every
    loser's margin and the leavers)."""
    if len(names) > 2:
        return _group_result(result, names)
    reasons = {
        EndReason.PAYOFF_EMPTIED: "played the last pay-off card",
        EndReason.STALEMATE: "stalemate: neither player could or would play",
        EndReason.TURN_LIMIT: "the game reached its turn limit",
        EndReason.STOCK_OUT: "the stock ran out",
        EndReason.RESIGNED: "resigned",
    }
    if result.winner is None:
        return f"Tied game, no points ({reasons[result.reason]})."
    winner = names[result.winner]
    loser = names[1 - result.winner]
    points = _plural(result.score, "point")
    if result.reason is EndReason.PAYOFF_EMPTIED:
        return f"{winner} wins, scoring {points}: {winner} played the last pay-off card."
    if result.reason is EndReason.RESIGNED:
        return f"{winner} wins, scoring {points}: {loser} gave the game up."
    return f"{winner} wins, scoring {points} ({reasons[result.reason]})."


# ------------------------------------------------------------------------------ the words

def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _and(words: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "Nobody"
    return names[seat] if seat < len(names) else f"Seat {seat + 1}"


def _shown_rank(card: Card | None, as_rank: int | None) -> int | None:
    """The rank a wild card stood for, when it is worth saying (not the card's own)."""
    if as_rank is None or card is None or (not card.is_joker and card.rank == as_rank):
        return None
    return as_rank


def _move_line(name: str, move: Move, card: Card | None, as_rank: int | None) -> str:
    """``Ann: 7♥ from hand → centre 2`` (the board's short line); plain values, not a
    ``Description``, so that ``public_lines`` (every move of a replay) need not make one."""
    if move.is_pass:
        return f"{name} passed"
    where = {Source.HAND: "hand", Source.PAYOFF: "pay-off"}.get(
        move.source, f"side {move.source_index + 1}")  # type: ignore[arg-type]
    shown = "" if card is None else card.display + " "
    rank = _shown_rank(card, as_rank)
    if rank is not None:
        shown += f"as {rank_text(rank)} "
    kind = "centre" if move.target is Target.CENTRE else "side"
    return f"{name}: {shown}from {where} → {kind} {move.target_index + 1}"


def _from_where(d: Description) -> str:
    if d.source is Source.HAND:
        return "from their hand"
    if d.source is Source.PAYOFF:
        return "from their pay-off pile"
    return f"from their side stack {d.source_index + 1}"


def _moved_card(d: Description) -> str:
    if d.card is None:
        return ("the top card" if d.source is Source.PAYOFF or d.source is Source.SIDE
                else "a card")
    shown = d.card.display
    if d.as_rank is not None:
        shown += f" as {rank_name(d.as_rank)}"
    return shown


def _played_sentence(d: Description, names: Sequence[str]) -> str:
    out = (f"{_name(names, d.seat)} played {_moved_card(d)} {_from_where(d)} "
           f"to centre stack {d.target_index + 1}")
    caused = []
    if d.completed:
        caused.append("completing it")
    if d.revealed is not None:
        caused.append(f"turning up {d.revealed.display}")
    elif d.emptied_payoff:
        caused.append("emptying their pay-off pile")
    return out + "".join(", " + c for c in caused)


def _discarded_sentence(d: Description, names: Sequence[str]) -> str:
    return (f"{_name(names, d.seat)} discarded {_moved_card(d)} {_from_where(d)} to side stack "
            f"{d.target_index + 1}, ending their turn")


def _passed_sentence(d: Description, names: Sequence[str]) -> str:
    return f"{_name(names, d.seat)} passed, ending their turn without a discard"


def _drew_sentence(d: Description, names: Sequence[str]) -> str:
    what = (_plural(d.count, "card") if d.cards is None
            else _and([card.display for card in d.cards]) if d.cards else "no cards")
    return f"{_name(names, d.seat)} drew {what} ({_plural(d.stock, 'card')} left in the stock)"


def _dealt_sentence(d: Description, names: Sequence[str]) -> str:
    tops = _and([f"{_name(names, seat)} {card.display}" for seat, card in enumerate(d.tops)
                 if card is not None])
    n = d.reshuffles
    again = "" if not n else (
        f" after the tied piles were reshuffled {'once' if n == 1 else f'{n} times'}")
    return f"The deal turned up {tops}{again}; {_name(names, d.next_seat)} plays first"


def _completed_sentence(d: Description, names: Sequence[str]) -> str:
    return (f"Centre stack {d.target_index + 1} was completed: its {_plural(d.count, 'card')} "
            f"went into the stock ({_plural(d.stock, 'card')} now)")


def _turn_sentence(d: Description, names: Sequence[str]) -> str:
    idle = " without a play or a discard" if d.idle else ""
    return (f"{_name(names, d.seat)}'s turn ended{idle} (turn {d.turn_number}); "
            f"{_name(names, d.next_seat)} is on turn")


def _left_sentence(d: Description, names: Sequence[str]) -> str:
    return (f"{_name(names, d.seat)} left the game ({_plural(d.margin or 0, 'card')} in their "
            "pay-off pile)")


def _over_sentence(d: Description, names: Sequence[str]) -> str:
    assert d.result is not None
    return describe_result(d.result, names)


_SENTENCES = {
    "played": _played_sentence,
    "discarded": _discarded_sentence,
    "passed": _passed_sentence,
    "drew": _drew_sentence,
    "dealt": _dealt_sentence,
    "stack_completed": _completed_sentence,
    "turn_ended": _turn_sentence,
    "left": _left_sentence,
    "game_over": _over_sentence,
}


def _group_result(result: Result, names: Sequence[str]) -> str:
    """Rules 25 and 26: the winner scores the sum of the losers' margins; a drawn game none."""
    leavers = set(result.left)

    def margin(k: int, seat: int, m: int) -> str:
        return (f"{names[seat]} {'loses ' if k == 0 else ''}by {m}"
                + (" (left the game)" if seat in leavers else ""))

    losers = list(result.losers)
    if result.winner is None:
        stayed = [s for s in range(len(names))
                  if s not in leavers and s not in result.absent]
        if result.reason is EndReason.STALEMATE:
            fewest = min(result.payoff_left[s] for s in stayed)
            shared = [names[s] for s in stayed if result.payoff_left[s] == fewest]
            why = (f"stalemate: a whole round without a play, and {_and(shared)} share the "
                   f"fewest pay-off cards ({fewest})")
        elif result.reason is EndReason.STOCK_OUT:
            why = "the stock ran out"
        else:
            why = "the game reached its turn limit"
        text = f"Drawn game, no points: {why}."
        if losers:
            text += " " + _and([f"{names[s]} ({_plural(m, 'card')})" for s, m in losers]) + \
                (" left the game and lose" if len(losers) > 1 else " left the game and loses") \
                + " nothing to anyone."
        return text
    winner = names[result.winner]
    points = _plural(result.score, "point")
    if len(losers) > 1:
        points += " (" + " + ".join(str(m) for _, m in losers) + ")"
    if result.reason is EndReason.PAYOFF_EMPTIED:
        why = f": {winner} played the last pay-off card."
    elif result.reason is EndReason.RESIGNED:
        why = ": everyone else left the game."
    elif result.reason is EndReason.STALEMATE:
        # Rule 26: a leaver's margin is his pay-off count when he left, not a difference.
        why = (f" (stalemate: a whole round without a play; {winner} has the fewest pay-off "
               "cards, and each margin is the difference"
               + (", a leaver's his pay-off cards when he left"
                  if any(s in leavers for s, _ in losers) else "") + ").")
    else:
        why = "."
    lost = ", ".join(margin(k, s, m) for k, (s, m) in enumerate(losers)) + "."
    return f"{winner} wins, scoring {points}{why} {lost}"
