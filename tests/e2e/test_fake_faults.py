"""The fake Discord's fault injection itself: route kinds, scripts, rates (repeatable with a
seed), Discord-shaped 429s, slow answers, and ``enforce_nonce``."""

from __future__ import annotations

import time

import aiohttp

from bot.sandbox import OK, FakeDiscord, Fault, FaultPlan, route_kind


def test_route_kinds() -> None:
    assert route_kind("POST", "/interactions/1/tok/callback") == "callback"
    assert route_kind("POST", "/webhooks/1/tok") == "followup"
    assert route_kind("PATCH", "/webhooks/1/tok/messages/@original") == "followup_edit"
    assert route_kind("POST", "/channels/1/messages") == "post"
    assert route_kind("PATCH", "/channels/1/messages/2") == "edit"
    assert route_kind("POST", "/channels/1/messages/2/threads") == "thread"
    assert route_kind("PATCH", "/channels/1") == "channel_edit"
    assert route_kind("GET", "/channels/1/messages/2") == "fetch"
    assert route_kind("PUT", "/applications/1/commands") == "commands"


def test_random_faults_repeat_with_the_seed() -> None:
    from bot.sandbox.discord_state import RequestRecord

    def run(seed: int) -> list[str]:
        plan = FaultPlan(seed=seed).rate("post", 0.3, Fault.error(502), Fault.rate_limited(1))
        out = []
        for n in range(200):
            record = RequestRecord("POST", f"/channels/{n}/messages", {}, None, [], 0.0)
            out.append(str(plan.pick("post", record)))
        return out

    assert run(7) == run(7) != run(8)
    assert 30 < sum(f != "None" for f in run(7)) < 90


async def test_scripted_faults_then_normal_answers(fake_discord: FakeDiscord) -> None:
    channel = fake_discord.guild.channel("general")
    url = f"{fake_discord.api_base}/channels/{channel.id}/messages"
    headers = {"Authorization": f"Bot {fake_discord.token}"}
    fake_discord.faults.script("post", Fault.error(503), Fault.rate_limited(2.5), OK,
                               Fault.slow(0.3), Fault.error(500, applied=True))
    async with aiohttp.ClientSession(headers=headers) as http:
        statuses = []
        for n in range(6):
            started = time.monotonic()
            async with http.post(url, json={"content": f"m{n}"}) as response:
                statuses.append(response.status)
                if response.status == 429:
                    assert response.headers["Via"] and response.headers["Retry-After"] == "3"
                    assert (await response.json())["retry_after"] == 2.5
                if n == 3:
                    assert time.monotonic() - started >= 0.3
        assert statuses == [503, 429, 200, 200, 500, 200]
        # m0 and m1 failed before anything was done; m4 was carried out, its answer lost.
        contents = [m.content for m in fake_discord.messages(channel)]
        assert contents == ["m2", "m3", "m4", "m5"]
        # A retry with the same nonce gives back the same message.
        body = {"content": "once", "nonce": "r42", "enforce_nonce": True}
        async with http.post(url, json=body) as first, http.post(url, json=body) as second:
            assert (await first.json())["id"] == (await second.json())["id"]
    assert [str(f.fault) for f in fake_discord.faults.injected] == [
        "503", "429 retry_after=2.5", "slow 0.3s", "500 (applied)"]
