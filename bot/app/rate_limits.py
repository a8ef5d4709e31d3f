"""discord.py's rate-limit buckets, forgotten when idle in amortised constant time."""

from __future__ import annotations

import discord


def sweep_buckets_less_often(http: discord.http.HTTPClient) -> None:
    """Make discord.py forget idle rate-limit buckets in amortised constant time.

    discord.py 2.x keeps a bucket per route and channel. Once it holds 256, it scans every
    one of them (``_try_clear_expired_ratelimits``) each time it makes a new one, to drop
    those idle for 5 minutes. A game's thread brings buckets of its own, so with a thousand
    live games every new bucket cost a scan of some thousands. That was 8% of the event
    loop in the first seconds of play at paced 1,000, and 2% after.

    With this, the scan runs only once the buckets have doubled since the last one. The same
    idle buckets go, and the buckets are never more than twice those left after a scan (or
    512). discord.py's own scan does the work; a version of discord.py without it is left
    alone."""
    scan = getattr(http, "_try_clear_expired_ratelimits", None)
    buckets = getattr(http, "_buckets", None)
    if scan is None or not isinstance(buckets, dict):
        return
    after_last = 256

    def less_often() -> None:
        nonlocal after_last
        if len(buckets) >= 2 * after_last:
            scan()
            after_last = max(256, len(buckets))

    http._try_clear_expired_ratelimits = less_often  # type: ignore[method-assign]
