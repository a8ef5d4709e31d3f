"""discord.py's rate-limit buckets: idle ones are still forgotten, without a scan of every
bucket at every new one (``rate_limits.sweep_buckets_less_often``)."""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.app.rate_limits import sweep_buckets_less_often


def _looked_at(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen = [0]
    real = discord.http.Ratelimit.is_inactive

    def counted(self: discord.http.Ratelimit) -> bool:
        seen[0] += 1
        return real(self)

    monkeypatch.setattr(discord.http.Ratelimit, "is_inactive", counted)
    return seen


async def test_a_thousand_threads_cost_no_scan_of_every_bucket_at_each_new_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    looked_at = _looked_at(monkeypatch)
    plain = discord.http.HTTPClient(asyncio.get_running_loop())
    for n in range(1500):
        plain.get_ratelimit(f"channel {n}")
    assert looked_at[0] > 1_000_000, "discord.py's own way: every bucket, at every new one"

    looked_at[0] = 0
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    sweep_buckets_less_often(http)
    for n in range(1500):
        http.get_ratelimit(f"channel {n}")
    assert len(http._buckets) == 1500  # none idle yet: all kept
    assert looked_at[0] < 2 * 1500, "scans only once the buckets have doubled"


async def test_idle_buckets_are_still_forgotten() -> None:
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    sweep_buckets_less_often(http)
    for n in range(600):
        http.get_ratelimit(f"old {n}")
    for bucket in http._buckets.values():  # as if unused for over 5 minutes
        bucket._last_request -= 301
    for n in range(1200):
        http.get_ratelimit(f"new {n}")
    assert not any(key.startswith("old") for key in http._buckets)
    assert len(http._buckets) <= 1200
    busy = http.get_ratelimit("new 5")
    assert http.get_ratelimit("new 5") is busy  # a live bucket is the same one each time
