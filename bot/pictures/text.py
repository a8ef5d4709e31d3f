"""Words for the game: labels for moves and stacks, the board and hand as text, the rules in short.

Pure functions of engine values (views, moves, results), so they are easy to test and can never
see more than a view shows. Everything public goes through ``public_*`` functions that take the
public view only.
"""

from __future__ import annotations

from engine import (
    Card,
    Discarded,
    EndReason,
    Event,
    GameOver,
    Move,
    Passed,
    Played,
    Result,
    Source,
    Target,
    View,
)
from engine.cards import rank_name

__all__ = [
    "EXPIRED",
    "RESTARTING",
    "HELP_TEXT",
    "MAX_MESSAGE",
    "PASS_HINT",
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

SORRY = "Sorry, something went wrong on my side. Nothing was changed."

SAVED_NOT_SHOWN = ("✅ That was saved, but I couldn't show it here just now (Discord didn't "
                   "answer). The board shows it; press **Show my hand** or use `/hand` to go "
                   "on.")
"""The apology for a failure after a move (or a new game) was saved: it did happen."""

DB_DOWN = ("⏳ The database is not answering, so nothing was changed. Please try again in a "
           "moment.")
"""The answer while the database is down, unreachable, full or read-only."""

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
    """A friendly name for a move's target: ``Centre 2 (needs 7)``, ``Side 1 (on 9♣)``."""
    seat = view.viewer if view.viewer is not None else view.turn
    i = move.target_index
    if move.target is Target.CENTRE:
        stack = view.centre[i]
        if stack.is_empty:
            return f"Centre {i + 1} (empty: start a stack)"
        return f"Centre {i + 1} (needs {rank_name(stack.needs)})"
    pile = view.sides[seat][i]
    if not pile:
        return f"Side {i + 1} (empty)"
    return f"Side {i + 1} (on {card_text(pile[-1])}, ends your turn)"


def describe_move(name: str, move: Move, card: Card | None, as_rank: int | None = None) -> str:
    """A public line about a move already made: ``Ann: 7♥ from hand → centre 2``.

    ``card`` is the card that moved (public once played); ``as_rank`` what a wild card became.
    """
    if move.is_pass:
        return f"{name} passed"
    where = {Source.HAND: "hand", Source.PAYOFF: "pay-off"}.get(
        move.source, f"side {move.source_index + 1}"  # type: ignore[arg-type]
    )
    shown = "" if card is None else card_text(card) + " "
    if as_rank is not None and card is not None and (card.is_joker or card.rank != as_rank):
        shown += f"as {_rank_short(as_rank)} "
    kind = "centre" if move.target is Target.CENTRE else "side"
    return f"{name}: {shown}from {where} → {kind} {move.target_index + 1}"


def describe_events(names: tuple[str, ...], events: list[Event]) -> list[str]:
    """Public lines for the moves among ``events`` (draws are never described)."""
    lines = []
    for event in events:
        if isinstance(event, Played):
            lines.append(describe_move(names[event.player], event.move, event.card,
                                       event.as_rank))
        elif isinstance(event, Discarded):
            lines.append(describe_move(names[event.player], event.move, event.card))
        elif isinstance(event, Passed):
            lines.append(f"{names[event.player]} passed")
        elif isinstance(event, GameOver):
            lines.append("Game over: " + result_text(event.result, names))
    return lines


def describe_history(names: tuple[str, ...], history: list[tuple[int, Move]]) -> list[str]:
    """Public lines for saved moves (after a restart); hand cards are named, others not."""
    return [describe_move(names[seat], move, move.card) for seat, move in history]


def result_text(result: Result, names: tuple[str, ...]) -> str:
    """How a game ended, in a sentence."""
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
    points = plural(result.score, "point")
    if result.reason is EndReason.PAYOFF_EMPTIED:
        return f"{winner} wins, scoring {points}: {winner} played the last pay-off card."
    if result.reason is EndReason.RESIGNED:
        return f"{winner} wins, scoring {points}: {loser} gave the game up."
    return f"{winner} wins, scoring {points} ({reasons[result.reason]})."


def _ranks_text(ranks: tuple[int, ...]) -> str:
    """``7``, ``7/8``, or a run as ``2–K``."""
    if len(ranks) > 2 and list(ranks) == list(range(ranks[0], ranks[-1] + 1)):
        return f"{_rank_short(ranks[0])}–{_rank_short(ranks[-1])}"
    return "/".join(_rank_short(r) for r in ranks)


def board_fields(view: View, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The public board as (heading, text) pairs, for an embed beside the image.

    Uses public facts only, whatever view it is given.
    """
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


def hand_text(view: View) -> str:
    """The viewer's hand and moves as text (private: only for the viewer)."""
    if view.hand is None or view.viewer is None:
        raise ValueError("The public view has no hand.")
    cards = " ".join(f"`{c.display}`" for c in sorted(view.hand)) or "(empty)"
    lines = [f"**Your hand:** {cards}",
             f"**Your pay-off card:** {card_text(view.payoff_tops[view.viewer])} "
             f"({view.payoff_counts[view.viewer]} left)"]
    if view.result is not None:
        lines.append("The game is over.")
    elif not view.my_turn:
        lines.append("It's your opponent's turn.")
    elif view.compulsory:
        lines.append("You **must** play an Ace or 2 first (marked ❗).")
    return "\n".join(lines)


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
    "Options: `rules` kings or classic · `stake` paid by the loser to the winner, e.g. 0.50 · "
    "`per_card` paid per card of the winning margin, e.g. 0.05 · `target` play a match to this "
    "many points · `level` easy, normal or hard (against me)\n"
    "`/hand` your hand, privately, with buttons to move (or press **Show my hand** on the "
    "board)\n"
    "`/play card to` type a move: `card` is a hand card (7H), `P` (pay-off) or `S1`–`S4`; `to` "
    "is a centre stack (`C1`…) or `S1`–`S4` (your side stack, ends your turn)\n"
    "`/pass` end your turn without discarding (classic)\n"
    "`/board` post the board again · `/games` your open games · `/resign` give up\n"
    "`/history user` finished games and results · `/replay game` step through a finished "
    "game turn by turn (players: your own hand at each turn), and get its moves as a file\n"
    "**Money and standings**\n"
    "`/ledger` who owes whom · `/ledger user` your notebook with them\n"
    "`/settle user amount` record a payment between you (`forgive`: let them off that much of "
    "what they owe you)\n"
    "`/leaderboard` who leads, by net money, wins, win rate or rating, per rule set\n"
    "`/stats` a player's record, rating and money\n"
    "`/void game reason` admins: reverse a game's ledger entry\n"
    "**More**\n"
    "`/rules` the rules in short · `/settings` this server's settings (Manage Server may change "
    "them) · `/help` this screen\n"
    "**Ratings:** an OpenSkill skill estimate shown on a scale where a new player starts at "
    "1000; provisional until 5 games."
)


def turn_summary(view: View, names: tuple[str, ...]) -> str:
    """What the turn before ``view``'s did, for the closed board of that turn (public moves
    only): ``✔ Turn 7 · Ann: 7♥ from hand → centre 2; Ann: 9♦ from hand → side 1``."""
    recent = list(view.recent)
    while recent and recent[-1][0] == view.turn:  # the new turn has begun: leave its moves
        recent.pop()
    done: list[tuple[int, Move]] = []
    while recent and recent[-1][0] != view.turn:
        done.append(recent.pop())
    done.reverse()
    head = f"✔ Turn {max(1, view.turn_number)}"
    if not done:
        return head + " is over."
    lines = describe_history(names, done)
    if not recent and len(view.recent) == len(done):
        lines.insert(0, "…")  # the turn began before the moves a view remembers
    return clip(head + " · " + "; ".join(lines), 1900)


def result_announcement(
    *, game_id: int, players: tuple[int, ...], names: tuple[str, ...], rules: str,
    result: Result | None, claimed: bool, match_winner: int | None,
    scores: tuple[int, ...] | None, target: int | None, money: str | None,
) -> str:
    """The message that tells both players, in the channel, how their game ended.

    ``scores`` and ``target`` are given only for a match of several games (the word "match"
    appears only then); ``money`` is a sentence about what the loser owes and the balance.
    """
    mentions = f"<@{players[0]}> <@{players[1]}>"
    lines = [f"🏁 {mentions} · game #{game_id} ({rules}) is over."]
    if result is not None:
        if claimed and result.winner is not None:
            winner, loser = names[result.winner], names[1 - result.winner]
            lines.append(f"**{winner}** wins by claim: {loser} didn't move in time "
                         f"({plural(result.score, 'point')}).")
        else:
            lines.append(result_text(result, names))
    if scores is not None:
        standing = f"{names[0]} {scores[0]} – {scores[1]} {names[1]}"
        if target is not None:
            standing += f" (first to {plural(target, 'point')})"
        if match_winner is not None:
            lines.append(f"🏆 **{names[match_winner]}** wins the match: {standing}.")
        else:
            lines.append(f"The match ends level: {standing}.")
    if money:
        lines.append(money)
    return clip("\n".join(lines))
