"""The game services, one per capability: ``inviting`` (challenges, open tables), ``playing``
(moves, turns, the computer, claims), ``finishing`` (results, money, rematches), around the state
they share (``live_games``); ``game_service`` builds them together. ``history`` and ``replay``:
finished games."""
