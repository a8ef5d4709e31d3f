"""Pictures and words: ``render`` (board and hand), ``render_tables`` (leaderboards and
charts), each a pure function from what a player may see to PNG bytes; ``drawing`` runs them in
worker processes (``drawing_worker``) so the event loop never draws; ``text`` says the same
facts in words."""
