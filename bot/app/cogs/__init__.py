"""Slash commands, one cog per feature: games, history, money."""
