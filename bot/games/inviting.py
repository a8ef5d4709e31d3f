"""Inviting: challenges (of two, three or four), open tables, and the server settings they use.

An invitation is a challenge or an open table; whatever way it was made and answered, it
becomes a game one way only (``_begin``): its seats, dealt by the engine for that many, saved
with the challenge closed in one transaction. A game against the computer alone needs no
answer and begins at once, the same way. The limits of a table are the engine's, checked here,
once, where an invitation is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.storage import ChallengeRow, GuildSettings
from bot.user_errors import UserError
from engine import MAX_PLAYERS, MIN_PLAYERS, Match, RuleSet

from .live_game import ChallengeExpired, LiveGame
from .live_games import LiveGames

__all__ = ["COMPUTER_LEVELS", "Invitee", "Inviting", "check_seats"]

COMPUTER_LEVELS = ("easy", "normal", "hard")
"""The computer opponent's levels offered on Discord."""

Invitee = tuple[int, str, bool]
"""Someone invited: (user id, name, is a bot)."""

_WORDS = {2: "two", 3: "three", 4: "four"}


def check_seats(seats: int) -> None:
    """Refuse a table the engine can't deal (its limits: ``MIN_PLAYERS`` to ``MAX_PLAYERS``)."""
    if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        low, high = (_WORDS.get(n, str(n)) for n in (MIN_PLAYERS, MAX_PLAYERS))
        raise UserError(f"A table seats {low} to {high} players.")


def _check_level(level: str) -> None:
    if level not in COMPUTER_LEVELS:
        raise UserError(f"Unknown level {level!r}: choose easy, normal or hard.")


class Inviting:
    """Challenges and open tables, from the invitation to the game it becomes; every method may
    raise ``UserError``."""

    def __init__(self, games: LiveGames) -> None:
        self.games = games
        self.storage = games.storage

    # ------------------------------------------------------------------ settings

    async def settings(self, guild_id: int) -> GuildSettings:
        """The server's settings."""
        return await self.storage.settings.get_settings(guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change server settings (the caller checks the permission)."""
        if "default_rules" in changes:
            RuleSet.preset(changes["default_rules"])
        return await self.storage.settings.update_settings(guild_id, **changes)

    def rules_for(self, settings: GuildSettings, name: str | None,
                  target: int | None = None) -> RuleSet:
        """The rule set a new game gets: the preset plus the server's house rules, and the
        match ``target`` when one is asked for."""
        try:
            base = RuleSet.preset(name or settings.default_rules)
        except ValueError as exc:
            raise UserError(str(exc)) from None
        options: dict[str, Any] = {"king_starts_stack": settings.king_starts_stack}
        if base.may_pass:  # refill can only be switched off where a turn may end with a pass
            options["refill_empty_hand"] = settings.refill_empty_hand
        if base.name == "classic":
            options.pop("king_starts_stack")
        rules = base.with_options(**options)
        if target is not None:
            if not 1 <= target <= 1000:
                raise UserError("A match target must be between 1 and 1000 points.")
            rules = rules.with_options(match_target=target)
        return rules

    # ------------------------------------------------------------------ invitations

    async def challenge(
        self, *, guild_id: int, channel_id: int, challenger_id: int, opponent_id: int,
        opponent_is_bot: bool, rules_name: str | None,
        names: tuple[str, str] = ("Player 1", "Player 2"), stakes: tuple[int, int] = (0, 0),
        target: int | None = None, level: str = "normal",
    ) -> ChallengeRow | LiveGame:
        """``invite`` for two, as (challenger, opponent)."""
        return await self.invite(
            guild_id=guild_id, channel_id=channel_id, host=(challenger_id, names[0]),
            invited=[(opponent_id, names[1], opponent_is_bot)], rules_name=rules_name,
            stakes=stakes, target=target, level=level)

    async def invite(
        self, *, guild_id: int, channel_id: int, host: tuple[int, str],
        invited: Sequence[Invitee], rules_name: str | None, stakes: tuple[int, int] = (0, 0),
        target: int | None = None, level: str = "normal", rules: RuleSet | None = None,
        currency: str | None = None,
    ) -> ChallengeRow | LiveGame:
        """Challenge one to three people (``invited``); each must accept. The computer among
        them takes its seat at once (at ``level``); the computer alone is a game begun at
        once. ``stakes`` (flat, per card) in cents and the match ``target`` are fixed now (a
        rematch gives its game's ``rules`` and ``currency`` instead)."""
        users = [host[0]] + [user for user, _, _ in invited]
        two = len(users) == 2
        if len(set(users)) != len(users):
            raise UserError("You can't challenge yourself. Challenge a friend, or me for practice."
                            if two else "Name each player once (and not yourself): a table "
                            "seats each person once.")
        computer = self.games.computer_id
        if any(is_bot and user != computer for user, _, is_bot in invited):
            raise UserError("Other bots can't play. Challenge a person, or me for practice."
                            if two else "Other bots can't play. Challenge people, or me for a "
                            "computer seat.")
        check_seats(len(users))
        _check_level(level)
        settings = await self.storage.settings.get_settings(guild_id)
        if rules is None:
            rules = self.rules_for(settings, rules_name, target)
        currency = currency or settings.currency
        expires_at = self.games.clock() + settings.challenge_expiry_s
        if not two:
            if await self.storage.challenges.open_among(channel_id, users):
                raise UserError("You already have a challenge or a game going with exactly "
                                "these players in this channel.")
            return await self.storage.challenges.create_group(
                kind="challenge", guild_id=guild_id, channel_id=channel_id, seats=len(users),
                host=host, invited=[(user, "Computer" if user == computer else name,
                                     user == computer) for user, name, _ in invited],
                rules=rules.to_dict(), expires_at=expires_at, stake_cents=stakes[0],
                per_card_cents=stakes[1], currency=currency, computer_level=level)
        opponent, name, _ = invited[0]
        existing = await self.storage.challenges.open_between(channel_id, host[0], opponent)
        if existing == "game":
            raise UserError("You already have a game going with them in this channel. "
                            "Finish it (or `/resign`) before starting another.")
        if existing == "challenge":
            raise UserError("There's already an open challenge between you two in this channel.")
        if opponent == computer:
            if any(stakes):
                raise UserError("The computer doesn't play for money: challenge it without "
                                "stakes.")
            live = await self.games.start(rules, 2, lambda match: self.storage.games.create_game(
                guild_id=guild_id, channel_id=channel_id, players=(host[0], opponent),
                names=(host[1], name), rules=match.rules.to_dict(), state=match.to_dict(),
                vs_computer=True, computer_level=level))
            assert live is not None  # a new game is always saved
            return live
        return await self.storage.challenges.create_challenge(
            guild_id=guild_id, channel_id=channel_id, challenger_id=host[0],
            opponent_id=opponent, names=(host[1], name), rules=rules.to_dict(),
            expires_at=expires_at, stake_cents=stakes[0], per_card_cents=stakes[1],
            currency=currency)

    async def open_table(
        self, *, guild_id: int, channel_id: int, host: tuple[int, str], seats: int,
        rules_name: str | None, stakes: tuple[int, int] = (0, 0), target: int | None = None,
    ) -> ChallengeRow:
        """An open table of ``seats`` anyone may join; the host sits first."""
        check_seats(seats)
        settings = await self.storage.settings.get_settings(guild_id)
        rules = self.rules_for(settings, rules_name, target)
        return await self.storage.challenges.create_group(
            kind="table", guild_id=guild_id, channel_id=channel_id, seats=seats, host=host,
            rules=rules.to_dict(), expires_at=self.games.clock() + settings.challenge_expiry_s,
            stake_cents=stakes[0], per_card_cents=stakes[1], currency=settings.currency)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember where the challenge was posted."""
        await self.storage.challenges.set_challenge_message(challenge_id, message_id)

    async def get_challenge(self, challenge_id: int) -> ChallengeRow:
        """A challenge, or a ``UserError`` if it doesn't exist."""
        row = await self.storage.challenges.get_challenge(challenge_id)
        if row is None:
            raise UserError("That challenge no longer exists.")
        return row

    # ------------------------------------------------------------------ answers

    async def accept(self, challenge_id: int, user_id: int) -> tuple[ChallengeRow, LiveGame]:
        """An invited player accepts and the game starts. (Of a challenge of three or four,
        see ``accept_seat``: this raises unless his yes was the last one missing.)"""
        row, live = await self.accept_seat(challenge_id, user_id)
        if live is None:
            raise UserError("You accepted: the game starts when everyone has.")
        return row, live

    async def accept_seat(self, challenge_id: int, user_id: int
                          ) -> tuple[ChallengeRow, LiveGame | None]:
        """An invited player accepts; the game starts (and is returned) when the last one
        has."""
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_challenge(challenge_id)
            if not row.group:
                if user_id != row.opponent_id:
                    raise UserError("Only the challenged player can accept this challenge.")
                return await self._begin(row)
            if row.kind == "table":
                raise UserError("This is an open table: press Join to sit down.")
            seat = row.seat_of(user_id)
            if seat is None:
                raise UserError("Only the players invited to this challenge can accept it.")
            if seat.accepted:
                raise UserError("You have already accepted: the game starts when everyone has.")
            await self.storage.challenges.accept_seat(row.id, user_id)
            row = await self.get_challenge(row.id)
            if all(s.accepted for s in row.seated):
                return await self._begin(row)
            return row, None

    async def decline(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """An invited player declines (even after accepting): the challenge is off."""
        return await self._settle(challenge_id, user_id, "declined")

    async def cancel(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """The challenger withdraws."""
        return await self._settle(challenge_id, user_id, "cancelled")

    async def _settle(self, challenge_id: int, user_id: int, status: str) -> ChallengeRow:
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_challenge(challenge_id)
            allowed = row.opponent_id if status == "declined" else row.challenger_id
            if row.group and status == "declined":
                seat = row.seat_of(user_id)
                allowed = user_id if seat is not None and user_id != row.challenger_id \
                    and row.kind == "challenge" else -1
                if allowed == -1:
                    raise UserError("Only a player invited to this challenge can decline it.")
            if user_id != allowed:
                who = "challenged player" if status == "declined" else "challenger"
                verb = "decline" if status == "declined" else "cancel"
                raise UserError(f"Only the {who} can {verb} this challenge.")
            if not await self.storage.challenges.settle_challenge(challenge_id, status):
                raise UserError("This challenge is no longer open.")
            return await self.get_challenge(challenge_id)

    async def _open_challenge(self, challenge_id: int) -> ChallengeRow:
        row = await self.get_challenge(challenge_id)
        if row.status != "open":
            raise UserError(f"This challenge is no longer open (it was {row.status}).")
        if row.expires_at <= self.games.clock():
            await self.storage.challenges.settle_challenge(challenge_id, "expired")
            raise ChallengeExpired("This challenge has expired. Challenge again if you like.")
        return row

    # ------------------------------------------------------------------ open tables

    async def join_table(self, challenge_id: int, user_id: int, name: str
                         ) -> tuple[ChallengeRow, LiveGame | None]:
        """Sit down at an open table; the game starts (and is returned) when it is full. A
        second join, a full table or one that has started is a polite ``UserError`` and
        changes nothing."""
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            return await self._join(row, user_id, name)

    async def add_computer(self, challenge_id: int, user_id: int, level: str
                           ) -> tuple[ChallengeRow, LiveGame | None]:
        """The host gives the computer (at ``level``) a seat at his open table."""
        _check_level(level)
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id != row.challenger_id:
                raise UserError("Only the host of the table can add the computer.")
            return await self._join(row, self.games.computer_id, "Computer", level=level)

    async def _join(self, row: ChallengeRow, user_id: int, name: str, level: str | None = None
                    ) -> tuple[ChallengeRow, LiveGame | None]:
        said = await self.storage.challenges.join_table(row.id, user_id, name, level=level)
        if said == "seated":
            raise UserError("The computer already has a seat at this table."
                            if user_id == self.games.computer_id else
                            "You already have a seat at this table.")
        if said == "full":
            raise UserError("Sorry, this table is full. Post one of your own with `/table`.")
        if said != "joined":
            raise UserError("This table is no longer open.")
        row = await self.get_challenge(row.id)
        if len(row.seated) >= row.seats:
            return await self._begin(row)
        return row, None

    async def leave_table(self, challenge_id: int, user_id: int) -> ChallengeRow:
        """Get up from an open table; the host leaving closes it (cancelled)."""
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id == row.challenger_id:
                if not await self.storage.challenges.settle_challenge(challenge_id, "cancelled"):
                    raise UserError("This table is no longer open.")
            elif not await self.storage.challenges.leave_table(challenge_id, user_id):
                raise UserError("You don't have a seat at this table.")
            return await self.get_challenge(challenge_id)

    async def start_table(self, challenge_id: int, user_id: int
                          ) -> tuple[ChallengeRow, LiveGame]:
        """The host starts his open table with those seated (at least two)."""
        async with self.games.challenge_lock(challenge_id):
            row = await self._open_table(challenge_id)
            if user_id != row.challenger_id:
                raise UserError("Only the host of the table can start it.")
            if len(row.seated) < MIN_PLAYERS:
                raise UserError("Nobody has joined yet: a game needs at least two players.")
            row, live = await self._begin(row)
            assert live is not None
            return row, live

    async def _open_table(self, challenge_id: int) -> ChallengeRow:
        row = await self.get_challenge(challenge_id)
        if row.kind != "table":
            raise UserError("That is not an open table.")
        if row.status == "accepted":
            raise UserError("This table has already started.")
        return await self._open_challenge(challenge_id)

    async def expire_due(self) -> list[ChallengeRow]:
        """Mark every open challenge past its time (in this process's servers) as expired;
        returns them."""
        now = self.games.clock()
        expired = []
        for row in await self.storage.challenges.open_challenges(shards=self.games.shards):
            if row.expires_at <= now:
                async with self.games.challenge_lock(row.id):
                    if await self.storage.challenges.settle_challenge(row.id, "expired"):
                        expired.append(await self.get_challenge(row.id))
        return expired

    # ------------------------------------------------------------------ the one way to a game

    async def _begin(self, row: ChallengeRow) -> tuple[ChallengeRow, LiveGame]:
        """Deal the game of an accepted challenge or a table, seats in the order taken (rule
        24), and close the invitation with it (called under its lock)."""
        try:
            rules = RuleSet.from_dict(row.rules)
        except ValueError:
            raise UserError("This challenge's terms are damaged; please challenge again.") \
                from None
        if row.group:
            players = tuple(s.user_id for s in row.seated)
            names = tuple(s.name for s in row.seated)
        else:
            players, names = (row.challenger_id, row.opponent_id), row.names

        async def save(match: Match) -> int | None:
            return await self.storage.challenges.accept_challenge(
                row.id, players=players, names=names, rules=match.rules.to_dict(),
                state=match.to_dict(), vs_computer=self.games.computer_id in players)

        live = await self.games.start(rules, len(players), save)
        if live is None:
            raise UserError("This challenge is no longer open.")
        return await self.get_challenge(row.id), live
