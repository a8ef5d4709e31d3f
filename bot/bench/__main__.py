"""``python -m bot.bench``: see :mod:`bot.bench.commands`."""

from __future__ import annotations

from .commands import main

main()
