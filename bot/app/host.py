"""What the Discord-side pieces (board publisher, buttons, cogs) need of the bot that hosts them.

They are handed the bot, but know it only through this protocol: the client imports them, and
they never import the client back, so the imports run one way (client → cogs, buttons, board →
services).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import discord

if TYPE_CHECKING:
    from bot.games.game_service import GameService, LiveGame
    from bot.money.ledger_service import LedgerService

__all__ = ["BoardRequests", "ChallengeHandler", "Host"]


class BoardRequests(Protocol):
    """The public board publisher, as the commands use it."""

    def request(self, game_id: int, note: str | None = None) -> None:
        """Bring the game's board up to date soon."""

    async def publish(self, game_id: int, *, new_message: bool = False) -> Any:
        """Draw the board now."""


class ChallengeHandler(Protocol):
    """Where the challenge buttons send their clicks."""

    async def on_challenge_button(self, interaction: discord.Interaction[Any],
                                  challenge_id: int, action: str) -> None:
        """Accept, decline or cancel."""

    async def on_rematch(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """A player of a finished game offers the same terms again."""


class Host(Protocol):
    """The bot, as seen by the pieces it hosts."""

    service: GameService
    ledger: LedgerService

    @property
    def boards(self) -> BoardRequests:
        """The board publisher."""

    @property
    def stopping(self) -> bool:
        """True once the bot has begun to stop (new work is turned away politely)."""

    @property
    def computer_id(self) -> int:
        """The computer opponent's user id (the bot's own)."""

    @property
    def games_cog(self) -> ChallengeHandler:
        """The cog the challenge buttons call."""

    async def game_started(self, live: LiveGame, origin_message_id: int | None = None
                           ) -> int | None:
        """A new game: open its thread from the origin message, post its board, let the
        computer move if it starts; returns the thread's id (``None``: played in the
        channel)."""

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None,
                                type: discord.ChannelType | None = None
                                ) -> discord.PartialMessageable:
        """A channel by id alone (no fetch)."""

    def get_user(self, id: int, /) -> discord.User | None:
        """A cached user."""
