"""spite-malice-bot: the Discord side of the game. The rooms, and which way imports run:

- ``bot.app``: the Discord adapters: the client and its lifecycle, the cogs (slash commands),
  buttons and menus, the board publisher, the ``Host`` protocol the pieces know the client by.
- ``bot.games``: the game service (locks, saving, the engine), history, replays.
- ``bot.money``: the ledger service (balances, settlements, ratings), stakes, amounts of money.
- ``bot.pictures``: the pictures (board, hand, tables, charts: a view in, PNG bytes out), the
  drawing workers that draw them off the event loop, and the words (``text``).
- ``bot.storage``: the database interface, its rows and records, one driver per backend.
- ``bot.ops``: settings, backups and restore, migration, the database lock.
- ``bot.sandbox``: a local stand-in for Discord (REST and gateway) that the real bot runs
  against unchanged: the end-to-end tests and the load benchmark use it.
- ``bot.bench``: benchmarks; never imported by the bot itself.
- ``bot.shards``: which shard owns a guild; ``bot.user_errors``: ``UserError``, the refusal every
  service raises (both used by every room).

Imports run one way: app → ops → games → pictures → money → storage → engine (a room may skip
rooms below it, never import one above; ``tests/bot/test_layers.py`` checks it); nothing
shipped imports ``tests``.
"""
