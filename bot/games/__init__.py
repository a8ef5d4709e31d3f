"""The game services: ``game_service`` (challenges and live games, their locks, saving, the
engine behind them), ``history`` and ``replay`` (finished games)."""
