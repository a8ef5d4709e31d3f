"""Operations: ``config`` (settings from the environment), ``backup`` (backup and restore),
``migrate`` (SQLite to PostgreSQL), ``dblock`` (one process per SQLite database)."""
