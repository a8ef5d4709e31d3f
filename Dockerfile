FROM python:3.11-slim

# MALLOC_ARENA_MAX: the drawing threads otherwise each get a glibc arena (peak RSS 208 MB ->
# 183 MB in the load benchmark at 10 games).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DATABASE=/app/data/spite-malice.sqlite3 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
RUN useradd --create-home --uid 10001 spite
# Dependencies first, from the lock file with its hashes: a layer that survives code changes,
# and a new release of a dependency can't change what ships.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
RUN pip install --no-cache-dir --no-deps . && mkdir -p /app/data && chown spite:spite /app/data
USER spite
VOLUME ["/app/data"]
# Healthy while the housekeeping loop keeps beating (it writes a heartbeat every round).
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health"]
# docker stop sends SIGTERM: the bot finishes what runs, draws pending boards, exits 0.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
