"""Pictures and words: ``board_picture`` and ``hand_picture`` (drawn from ``board_layout``,
``cards_and_fans``, ``fonts``, ``picture_palette``), ``render_tables`` (leaderboards and
charts), each a pure function from what a player may see to PNG bytes; ``drawing`` runs them in
worker processes (``drawing_worker``) so the event loop never draws; ``text`` says the same
facts in words."""
