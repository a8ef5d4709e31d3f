"""Benchmarks of the bot (``python -m bot.bench --help``); never imported by the bot itself."""
