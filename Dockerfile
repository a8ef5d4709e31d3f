FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DATABASE=/app/data/spite-malice.sqlite3
WORKDIR /app
RUN useradd --create-home --uid 10001 spite
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY bot ./bot
RUN pip install --no-cache-dir . && mkdir -p /app/data && chown spite:spite /app/data
USER spite
VOLUME ["/app/data"]
CMD ["python", "-m", "bot"]
