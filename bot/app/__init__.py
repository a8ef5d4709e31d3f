"""The Discord adapters: the client and its lifecycle (``client``), the slash commands
(``cogs``), buttons and menus (``ui``), the board publisher (``board``), and ``host``, the
protocol by which these pieces know the client. Thin: they parse what a user sent, call a
service, and turn its errors into private replies."""
