"""What the Discord-side pieces (board publisher, buttons, cogs) need of the bot that hosts them.

They are handed the bot, but know it only through :class:`Host`, the base class of the client
(``SpiteBot``): the client imports them, and they never import the client back, so the imports
run one way (client → cogs, buttons, board → services). :data:`Interaction` is every
interaction they receive, its ``client`` typed as the ``Host`` it is.
"""

from __future__ import annotations

from abc import abstractmethod
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol, cast

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.failures import FailureLog
    from bot.games.game_service import GameService, LiveGame
    from bot.games.history import HistoryService
    from bot.money.ledger_service import LedgerService
    from bot.money.plans import PlanService
    from bot.money.seasons import SeasonService

__all__ = ["BoardRequests", "Host", "Interaction", "hosted"]


class BoardRequests(Protocol):
    """The public board publisher, as the commands use it."""

    def request(self, game_id: int, note: str | None = None) -> None:
        """Bring the game's board up to date soon."""

    async def publish(self, game_id: int, *, new_message: bool = False) -> Any:
        """Draw the board now."""

    def held(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """No drawing of the game's board meanwhile (while its thread is opened)."""


class Host(commands.Bot):
    """The bot, as seen by the pieces it hosts (``SpiteBot`` is the one)."""

    service: GameService
    ledger: LedgerService
    seasons: SeasonService
    plans: PlanService
    """Plans that settle a group in the fewest payments (``/ledger-plan``)."""
    failures: FailureLog
    """What failed around the bot (Discord, the database), logged once per kind a minute."""
    retry_base = 1.0
    """Seconds before what failed to reach Discord (a board, a result) is tried again, doubling
    each time up to a minute, and never sooner than Discord's ``retry_after``."""

    @property
    @abstractmethod
    def boards(self) -> BoardRequests:
        """The board publisher."""

    @property
    @abstractmethod
    def stopping(self) -> bool:
        """True once the bot has begun to stop (new work is turned away politely)."""

    @property
    @abstractmethod
    def computer_id(self) -> int:
        """The computer opponent's user id (the bot's own)."""

    @property
    @abstractmethod
    def history(self) -> HistoryService:
        """Finished games: ``/history`` and ``/replay``."""

    @abstractmethod
    async def balances_moved(self, guild_id: int) -> None:
        """A payment or a void changed balances in the server: the settle-up plans it turned
        void are closed and their messages say so (a failure waits for the housekeeping)."""

    @abstractmethod
    async def boards_repaired(self) -> None:
        """Return once the boards a restart left behind show their saved games (or after a
        bounded wait): an interaction answered before would show a board a move behind."""

    @abstractmethod
    async def game_started(self, live: LiveGame, origin_message_id: int | None = None,
                           thread_name: str | None = None) -> int | None:
        """A new game: open its thread from the origin message (named ``thread_name``, or by
        its players), post its board, let the computer move if it starts; returns the
        thread's id (``None``: played in the channel)."""


Interaction = discord.Interaction[Host]
"""What every command, button and menu receives."""


def hosted(interaction: discord.Interaction[discord.Client]) -> Interaction:
    """The same interaction, its client known as the :class:`Host` it is (checked).

    For discord.py's overridable methods (an item's ``callback``, a dynamic item's
    ``from_custom_id``), whose signatures take an interaction of any client.
    """
    if not isinstance(interaction.client, Host):
        raise TypeError(f"an interaction of {type(interaction.client).__name__}, not of the bot")
    return cast(Interaction, interaction)
