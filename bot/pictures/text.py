"""Words for the game: labels for moves and stacks, the board and hand as text, the rules in short.

Pure functions of engine values (views, moves, results), so they are easy to test and can never
see more than a view shows. Everything public goes through ``public_*`` functions that take the
public view only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from bot.user_errors import DB_DOWN, SAVED_DB_AWAY
from engine import Card, Event, Left, Move, Result, Source, Target, View
from engine import describe as engine_describe
from engine.cards import rank_name

__all__ = [
    "DB_DOWN",
    "EXPIRED",
    "RESTARTING",
    "HELP_TEXT",
    "MAX_MESSAGE",
    "NO_PICTURE_NOW",
    "PASS_HINT",
    "SAVED_DB_AWAY",
    "SORRY",
    "board_fields",
    "clip",
    "describe_events",
    "describe_history",
    "describe_move",
    "hand_text",
    "newer_control",
    "outdated_control",
    "plural",
    "quote",
    "result_text",
    "rules_text",
    "source_label",
    "target_label",
]

RESTARTING = "I'm restarting: try again in a minute. Nothing was changed."
"""The answer to a command or click that arrives while the bot is stopping."""

EXPIRED = "⌛ This challenge expired."
"""What an expired challenge's message says."""


MAX_MESSAGE = 2000
"""Discord refuses a message longer than this (in characters)."""

MAX_FIELD = 1024
"""Discord refuses an embed field whose text is longer than this."""

MAX_FIELDS_TEXT = 4000
"""What ``board_fields`` gives at most in all (headings and texts) at a table of three or four:
an embed holds 6,000 characters, and the board's title, status, last moves and footer need the
rest."""

SORRY = "Sorry, something went wrong on my side. Nothing was changed."

SAVED_NOT_SHOWN = ("✅ That was saved, but I couldn't show it here just now (Discord didn't "
                   "answer). The board shows it; press **Show my hand** or use `/hand` to go "
                   "on.")
"""The apology for a failure after a move (or a new game) was saved: it did happen."""

NO_PICTURE_NOW = "-# A busy moment: no picture this time. Your hand is written above."
"""The line under a hand sent without its picture: the drawing process was too busy to draw it
within ``ui.HAND_PICTURE_WAIT`` (the load benchmark counts these replies)."""

PASS_HINT = "No card can move: /pass ends your turn."


def outdated_control(what: str, instead: str) -> str:
    """The answer to a click on a ``what`` (button, menu) whose id no version of the bot since
    the one that posted it reads any more; ``instead`` names the commands that do its work."""
    return f"This {what} is from an older version of the game and no longer works: use {instead}."


def newer_control(what: str) -> str:
    """The answer to a click on a ``what`` posted by a newer version of the bot than the one
    answering (a moment while a new version is rolled out over several processes)."""
    return (f"This {what} is from a newer version of the game than the one answering right now: "
            "try again in a minute. Nothing was changed.")


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis), so Discord accepts it."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def quote(text: str, limit: int = 24) -> str:
    """What the user typed, for a message: at most a short prefix, in code style."""
    text = " ".join(str(text).split())
    shown = text if len(text) <= limit else text[:limit] + "…"
    return "`" + shown.replace("`", "ˋ") + "`"


def plural(n: int, word: str) -> str:
    """``1 point``, ``2 points``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _rank_short(rank: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))


def card_text(card: Card | None) -> str:
    """A card for messages: ``7♥``, ``🃏``, or ``–`` for none."""
    return "–" if card is None else card.display


def source_label(move: Move, view: View) -> str:
    """A friendly name for a move's source, as the mover sees it: ``7♥ from hand``."""
    seat = view.viewer if view.viewer is not None else view.turn
    if move.source is Source.HAND:
        return f"{card_text(move.card)} from hand"
    if move.source is Source.PAYOFF:
        return f"{card_text(view.payoff_tops[seat])} from pay-off pile"
    pile = view.sides[seat][move.source_index]
    return f"{card_text(pile[-1] if pile else None)} from side stack {move.source_index + 1}"


def target_label(move: Move, view: View) -> str:
    """A friendly name for a move's target: ``Centre 2 (needs 7)``,
    ``Side 1 (on 9♣, ends your turn)``."""
    seat = view.viewer if view.viewer is not None else view.turn
    i = move.target_index
    if move.target is Target.CENTRE:
        stack = view.centre[i]
        if stack.is_empty:
            return f"Centre {i + 1} (empty: start a stack)"
        return f"Centre {i + 1} (needs {rank_name(stack.needs)})"
    pile = view.sides[seat][i]
    if not pile:
        return f"Side {i + 1} (empty, ends your turn)"
    return f"Side {i + 1} (on {card_text(pile[-1])}, ends your turn)"


def describe_move(name: str, move: Move, card: Card | None, as_rank: int | None = None) -> str:
    """A public line about a move already made: ``Ann: 7♥ from hand → centre 2``.

    ``card`` is the card that moved (public once played); ``as_rank`` what a wild card became.
    The words are the engine's (``engine.describe``), as the board lists them.
    """
    described = dataclasses.replace(engine_describe.describe_move(0, move, card, as_rank),
                                    card=card)
    line = described.line((name,))
    assert line is not None  # a move always has its line
    return line


def describe_events(names: Sequence[str], events: Sequence[Event]) -> list[str]:
    """Public lines for the moves among ``events`` (draws are never described), and at a table
    of three or four for each player who left (rule 26): ``Carol left the game (12 cards in
    their pay-off pile)``. (At a table of two the end of the game says it.)"""
    return engine_describe.public_lines(events, names)


def left_line(name: str, margin: int) -> str:
    """``Carol left the game (12 cards in their pay-off pile)``: rule 26, his margin."""
    return engine_describe.describe_event(Left(0, margin, None)).sentence((name,))


def describe_history(names: Sequence[str], history: Sequence[tuple[int, Move]]) -> list[str]:
    """Public lines for saved moves (after a restart); hand cards are named, others not."""
    return engine_describe.history_lines(history, names)


def result_text(result: Result, names: Sequence[str]) -> str:
    """How a game ended, in a sentence (at a table of three or four: a few, naming every
    loser's margin and the leavers): the engine's words (``engine.describe``)."""
    return engine_describe.describe_result(result, names)


def _ranks_text(ranks: tuple[int, ...]) -> str:
    """``7``, ``7/8``, or a run as ``2–K``."""
    if len(ranks) > 2 and list(ranks) == list(range(ranks[0], ranks[-1] + 1)):
        return f"{_rank_short(ranks[0])}–{_rank_short(ranks[-1])}"
    return "/".join(_rank_short(r) for r in ranks)


def board_fields(view: View, names: Sequence[str]) -> list[tuple[str, str]]:
    """The public board as (heading, text) pairs, for an embed beside the image.

    Uses public facts only, whatever view it is given. At a table of three or four every seat
    has its field (who is on turn, who left, and once the game is over each margin), each text
    fits an embed field and all of them ``MAX_FIELDS_TEXT``: the longest side stacks are cut
    to their top cards (``S1 (24): … 9♣ 8♦ 7♠``) when they would not.
    """
    if view.players > 2:
        return _group_fields(view, names)
    centre = []
    for i, stack in enumerate(view.centre):
        if stack.is_empty:
            centre.append(f"C{i + 1}: empty")
        else:
            centre.append(f"C{i + 1}: {_rank_short(len(stack.cards))} "
                          f"({plural(len(stack.cards), 'card')}), needs {rank_name(stack.needs)}")
    fields = [("Centre stacks", "\n".join(centre))]
    for seat in (0, 1):
        sides = []
        for i, pile in enumerate(view.sides[seat]):
            # A joker on a side stack stands for the ranks it was placed as (rule 13): public.
            shown = [card.display + (f"(as {_ranks_text(ranks)})" if ranks else "")
                     for card, ranks in zip(pile, view.joker_ranks(seat, i), strict=True)]
            sides.append(f"S{i + 1}: " + (" ".join(shown) if pile else "empty"))
        marker = " ▶ on turn" if view.turn == seat and view.result is None else ""
        fields.append((
            f"{names[seat]}{marker}",
            f"Pay-off: {card_text(view.payoff_tops[seat])} ({view.payoff_counts[seat]} left)\n"
            f"Hand: {plural(view.hand_sizes[seat], 'card')}\n" + "\n".join(sides),
        ))
    fields.append(("Stock", f"{plural(view.stock_size, 'card')} · turn {view.turn_number + 1}"))
    return fields


def _centre_field(view: View) -> tuple[str, str]:
    centre = []
    for i, stack in enumerate(view.centre):
        if stack.is_empty:
            centre.append(f"C{i + 1}: empty")
        else:
            centre.append(f"C{i + 1}: {_rank_short(len(stack.cards))} "
                          f"({plural(len(stack.cards), 'card')}), needs {rank_name(stack.needs)}")
    return ("Centre stacks", "\n".join(centre))


def _side_line(view: View, seat: int, i: int, keep: int | None) -> str:
    pile = view.sides[seat][i]
    if not pile:
        return f"S{i + 1}: empty"
    shown = [card.display + (f"(as {_ranks_text(ranks)})" if ranks else "")
             for card, ranks in zip(pile, view.joker_ranks(seat, i), strict=True)]
    if keep is not None and len(shown) > keep:
        return f"S{i + 1} ({len(shown)}): … " + " ".join(shown[-keep:])
    return f"S{i + 1}: " + " ".join(shown)


def _seat_heading(view: View, names: Sequence[str], seat: int) -> str:
    result = view.result
    name = names[seat] if seat < len(names) else f"Seat {seat + 1}"
    if seat in view.absent:
        return f"{name} (not in this game)"
    if result is None:
        if seat in view.left:
            return f"{name} (left the game)"
        return name + (" ▶ on turn" if view.turn == seat else "")
    if result.winner == seat:
        return f"{name} 🏆 wins {plural(result.score, 'point')}"
    margin = result.margins[seat] if seat < len(result.margins) else None
    left = " (left the game)" if seat in result.left else ""
    return f"{name} · lost by {margin}{left}" if margin is not None else name


def _group_fields(view: View, names: Sequence[str]) -> list[tuple[str, str]]:
    seats = [s for s in range(view.players) if s not in view.absent]
    stock = ("Stock", f"{plural(view.stock_size, 'card')} · turn {view.turn_number + 1}")
    fields: list[tuple[str, str]] = []
    # All of every side stack if it fits, else fewer cards of each until it does.
    for keep in (None, 12, 8, 5, 3, 1):
        fields = [_centre_field(view)]
        for seat in seats:
            head = [f"Pay-off: {card_text(view.payoff_tops[seat])} "
                    f"({view.payoff_counts[seat]} left)",
                    f"Hand: {plural(view.hand_sizes[seat], 'card')}"]
            sides = [_side_line(view, seat, i, keep) for i in range(len(view.sides[seat]))]
            fields.append((clip(_seat_heading(view, names, seat), 256),
                           clip("\n".join(head + sides), MAX_FIELD)))
        fields.append(stock)
        if sum(len(a) + len(b) for a, b in fields) <= MAX_FIELDS_TEXT:
            break
    return fields


def hand_text(view: View, names: Sequence[str] = ()) -> str:
    """The viewer's hand and moves as text (private: only for the viewer).

    At a table of three or four, with ``names``, it says whose turn it is and gives the others'
    pay-off counts in the order they play after the viewer."""
    if view.hand is None or view.viewer is None:
        raise ValueError("The public view has no hand.")
    cards = " ".join(f"`{c.display}`" for c in sorted(view.hand)) or "(empty)"
    lines = [f"**Your hand:** {cards}",
             f"**Your pay-off card:** {card_text(view.payoff_tops[view.viewer])} "
             f"({view.payoff_counts[view.viewer]} left)"]
    if view.result is not None:
        lines.append("The game is over.")
    elif not view.my_turn:
        if view.players == 2:
            lines.append("It's your opponent's turn.")
        elif view.turn < len(names):
            lines.append(f"It's {names[view.turn]}'s turn.")
        else:
            lines.append("It's another player's turn.")
    elif view.compulsory:
        lines.append("You **must** play an Ace or 2 first (marked ❗).")
    if view.players > 2 and len(names) >= view.players:
        others = [f"{names[o.seat]} left the game" if o.has_left
                  else f"{names[o.seat]} {o.payoff_count} left" for o in view.opponents]
        lines.append("**Next, in order:** " + " · ".join(others))
    return clip("\n".join(lines))


_RULES_COMMON = (
    "**Goal:** be first to play out your pay-off pile.\n"
    "**Your turn:** draw up to 5 cards, then play as often as you can to the centre stacks: "
    "your pay-off top, your side-stack tops and your hand. Centre stacks start with an Ace and go "
    "up one rank at a time, suits ignored. End your turn by putting one hand card on one of your "
    "four side stacks.\n"
    "**Score:** the winner scores the cards left in the loser's pay-off pile.\n"
)

RULES_TEXT = {
    "kings": _RULES_COMMON + (
        "**Kings rules:** two packs, no jokers; 20-card pay-off piles; three centre stacks, Ace "
        "to Queen. **Kings are wild** in the centre (even as the Ace). Any card may go on any of "
        "your side stacks. No passing. If a player must draw and the stock is empty, the game is "
        "a tie. First to 50 points wins the match."
    ),
    "classic": _RULES_COMMON + (
        "**Classic rules:** two packs and four jokers; 26-card pay-off piles; up to four centre "
        "stacks, Ace to King. **Jokers are wild** but never an Ace. An available Ace must be "
        "played at once, and a 2 on a centre Ace. Side stacks go down one rank or stay the same "
        "(a 5 on a 6 or a 5). You may pass instead of discarding. If both players pass without "
        "playing, the fewer pay-off cards wins the difference."
    ),
}


def rules_text(name: str) -> str:
    """The rules of ``classic`` or ``kings`` in short."""
    return RULES_TEXT[name]


HELP_TEXT = (
    "**Spite & Malice**: everything you can do\n"
    "**Play**\n"
    "`/challenge opponent` challenge someone, or me to practise against the computer. "
    "Options: `rules` kings or classic · `stake` the loser pays the winner, e.g. 0.50 · "
    "`per_card` per card of the winning margin, e.g. 0.05 · `target` a match to this many "
    "points · `level` easy, normal or hard (against me)\n"
    "`/hand` your hand, privately, with buttons to move (or **Show my hand** on the board)\n"
    "`/play card to` type a move: `card` a hand card (7H), `P` (pay-off) or `S1`–`S4`; `to` "
    "a centre stack (`C1`…) or `S1`–`S4` (your side stack, ends your turn)\n"
    "`/pass` end your turn without a discard (classic)\n"
    "`/board` post the board again · `/games` your open games · `/resign` give up\n"
    "`/history user` finished games · `/replay game` step through one turn by turn, and get "
    "its moves as a file\n"
    "**Money and standings**\n"
    "`/ledger` who owes whom · `/ledger user` your notebook with them\n"
    "`/ledger-plan` the fewest payments that settle a group (or `members`), once all agree\n"
    "`/settle user amount` record a payment between you (`forgive`: let them off that much)\n"
    "`/leaderboard` who leads (net money, wins, win rate or rating; per rule set)\n"
    "`/stats` a player's record, rating and money\n"
    "`/void game reason` admins: reverse a game's ledger entry\n"
    "**More**\n"
    "`/rules` the rules in short · `/settings` this server's settings (admins may change "
    "them) · `/help` this screen\n"
    "**Ratings:** an OpenSkill skill estimate shown on a scale where a new player starts at "
    "1000; provisional until 5 games."
)


def turn_summary(view: View, names: Sequence[str]) -> str:
    """What the turn before ``view``'s did, for the closed board of that turn (public moves
    only): ``✔ Turn 7 · Ann: 7♥ from hand → centre 2; Ann: 9♦ from hand → side 1``."""
    recent = list(view.recent)
    while recent and recent[-1][0] == view.turn:  # the new turn has begun: leave its moves
        recent.pop()
    done: list[tuple[int, Move]] = []
    # The moves of the seat that played last (at a table of two: every move not the new turn's).
    mover = recent[-1][0] if recent else None
    while recent and recent[-1][0] == mover:
        done.append(recent.pop())
    done.reverse()
    head = f"✔ Turn {max(1, view.turn_number)}"
    if not done:
        return head + " is over."
    lines = describe_history(names, done)
    if not recent and len(view.recent) == len(done) and view.turn_number > 1:
        # The turn began before the moves a view remembers (the first turn began with them).
        lines.insert(0, "…")
    return clip(head + " · " + "; ".join(lines), 1900)


def result_announcement(
    *, game_id: int, players: Sequence[int], names: Sequence[str], rules: str,
    result: Result | None, claimed: bool, match_winner: int | None,
    scores: Sequence[int] | None, target: int | None, money: str | None,
) -> str:
    """The message that tells every player, in the channel, how their game ended.

    ``scores`` and ``target`` are given only for a match of several games (the word "match"
    appears only then); ``money`` is a sentence about what the losers owe and the balances.
    At a table of three or four a claim is a player leaving (rule 26), which the result
    already names.
    """
    mentions = " ".join(f"<@{p}>" for p in players)
    lines = [f"🏁 {mentions} · game #{game_id} ({rules}) is over."]
    if result is not None:
        if claimed and result.winner is not None and len(names) == 2:
            winner, loser = names[result.winner], names[1 - result.winner]
            lines.append(f"**{winner}** wins by claim: {loser} didn't move in time "
                         f"({plural(result.score, 'point')}).")
        else:
            lines.append(result_text(result, names))
    if scores is not None:
        standing = (f"{names[0]} {scores[0]} – {scores[1]} {names[1]}" if len(names) == 2
                    else ", ".join(f"{n} {v}" for n, v in zip(names, scores, strict=False)))
        if target is not None:
            standing += f" (first to {plural(target, 'point')})"
        if match_winner is not None:
            lines.append(f"🏆 **{names[match_winner]}** wins the match: {standing}.")
        else:
            lines.append(f"The match ends level: {standing}.")
    if money:
        lines.append(money)
    return clip("\n".join(lines))
