"""The computer opponent's thinking, behind ``engine.players``.

- ``knowledge``: what a view tells about the hidden cards (which cards are unseen) and how to
  deal them into a hypothetical full game consistent with the view (a determinization), or
  only the opponent's hand and the top of the stock, cheaply (a glimpse); and what each
  opponent's last turn tells about the hand he kept;
- ``planner``: the turn planner of the ``normal`` player, a bounded search over the plays of
  one turn with a heuristic evaluation of where the turn ends;
- ``search``: the ``hard`` player, which plans its turn with the planner against how often the
  opponent reaches his pay-off card in sampled determinizations of the hidden cards.

Everything here works from a ``View`` alone; nothing imports or receives a ``Game`` except the
determinizations it builds itself from a view.
"""

from __future__ import annotations
