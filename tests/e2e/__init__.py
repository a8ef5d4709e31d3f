"""End-to-end tests: real discord.py bots against the in-process fake Discord."""
