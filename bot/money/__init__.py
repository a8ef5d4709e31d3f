"""Money between players: ``ledger_service`` (each pair's notebook, settlements, voids,
leaderboards, OpenSkill ratings), ``stakes`` (the ledger line a finished game writes) and
``amounts`` (parsing and formatting sums)."""
