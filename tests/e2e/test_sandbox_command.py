"""``python -m bot sandbox`` as a newcomer runs it: no token, the page served on 127.0.0.1,
a clean stop on Ctrl-C (SIGINT) with status 0, and games kept in ``--data`` across runs."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[2]
READY = re.compile(r"Sandbox ready: open (http://127\.0\.0\.1:(\d+)/)")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DISCORD_") and k not in ("DATABASE", "SHARD_COUNT", "SHARD_IDS")}
    env["PYTHONPATH"] = str(ROOT)
    return env


class Running:
    def __init__(self, proc: asyncio.subprocess.Process, url: str, out: list[str]) -> None:
        self.proc = proc
        self.url = url
        self.out = out

    async def stop(self) -> tuple[int, str, str]:
        """Ctrl-C, then what it printed and its exit status."""
        self.proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(self.proc.communicate(), timeout=30)
        assert self.proc.returncode is not None
        return self.proc.returncode, "".join(self.out) + out.decode(), err.decode()


@asynccontextmanager
async def sandbox(cwd: Path, *args: str) -> AsyncIterator[Running]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sandbox", "--port", "0", *args, cwd=cwd, env=_env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(60):
            while True:
                line = (await proc.stdout.readline()).decode()
                assert line, f"the sandbox ended early: {lines}"
                lines.append(line)
                match = READY.search(line)
                if match:
                    break
        yield Running(proc, match.group(1), lines)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def hello(session: aiohttp.ClientSession, url: str, who: str) -> tuple[Any, dict[str, Any]]:
    ws = await session.ws_connect(f"{url}ws?as={who}")
    frame = await ws.receive_json(timeout=10)
    assert frame["op"] == "hello"
    return ws, frame


async def until(ws: Any, test: Any, timeout: float = 20) -> dict[str, Any]:
    """Read frames until one passes ``test``."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await ws.receive_json()
            if test(frame):
                return dict(frame)


def general(frame: dict[str, Any]) -> str:
    return next(c["id"] for c in frame["channels"] if c["name"] == "general")


async def test_it_serves_the_page_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    async with sandbox(tmp_path, "--fresh") as running:
        assert "Starting the bot" in "".join(running.out)
        async with aiohttp.ClientSession() as session:
            async with session.get(running.url) as page:
                assert page.status == 200 and "sandbox.js" in await page.text()
            for name in ("sandbox.js", "sandbox.css"):
                async with session.get(f"{running.url}static/{name}") as static:
                    assert static.status == 200
            async with session.get(f"{running.url}static/..%2Fweb.py") as sneaky:
                assert sneaky.status == 404
            # Another web site open in the same browser can't act in the sandbox.
            try:
                await session.ws_connect(f"{running.url}ws?as=bob", origin="http://evil.test")
                raise AssertionError("a websocket from another site was accepted")
            except aiohttp.WSServerHandshakeError as exc:
                assert exc.status == 403
            async with session.get(running.url, headers={"Host": "evil.test"}) as rebound:
                assert rebound.status == 403
            ws, frame = await hello(session, running.url, "bob")
            assert frame["me"]["name"] == "Bob"
            assert [p["name"] for p in frame["people"]] == ["Alice", "Bob", "Carol", "Dave"]
            assert {"challenge", "play", "hand"} <= {c["name"] for c in frame["commands"]}
            await ws.close()
        status, out, err = await running.stop()
    assert status == 0, err[-3000:]
    assert "Sandbox stopped." in out
    assert "stopped" in err and " ERROR " not in err and "Traceback" not in err
    assert not (tmp_path / "sandbox-data").exists()  # --fresh keeps nothing


async def test_games_are_kept_in_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    async with sandbox(tmp_path, "--data", str(data)) as running:
        async with aiohttp.ClientSession() as session:
            ws, frame = await hello(session, running.url, "alice")
            channel = general(frame)
            await ws.send_json({"op": "slash", "req": 1, "channel": channel,
                                "command": "challenge", "options": {"opponent": "Bob"}})
            done = await until(ws, lambda f: f["op"] == "done")
            assert "error" not in done
            await until(ws, lambda f: f["op"] == "messages" and any(
                "A challenge!" in json.dumps(m.get("embeds")) for m in f["messages"]))
            await ws.send_json({"op": "slash", "req": 2, "channel": channel,
                                "command": "help", "options": {}})
            await until(ws, lambda f: f["op"] == "messages" and any(
                m["ephemeral"] and not m["loading"] for m in f["messages"]))
            await ws.close()
        # A second sandbox on the same folder is refused, and changes nothing.
        second = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "sandbox", "--port", "0", "--data", str(data),
            cwd=tmp_path, env=_env(), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        _, err2 = await asyncio.wait_for(second.communicate(), timeout=60)
        assert second.returncode == 2 and "already running" in err2.decode()
        status, _, err = await running.stop()
    assert status == 0, err[-3000:]

    # The next run shows the challenge again, and its Accept button works.
    async with sandbox(tmp_path, "--data", str(data)) as running:
        async with aiohttp.ClientSession() as session:
            ws, frame = await hello(session, running.url, "bob")
            challenge = next(m for m in frame["messages"]
                             if "A challenge!" in json.dumps(m["embeds"]))
            alice, alices = await hello(session, running.url, "alice")
            # As in Discord, Alice's private answer didn't outlive the session.
            assert not any(m["ephemeral"] for m in alices["messages"])
            await alice.close()
            accept = next(c["custom_id"] for row in challenge["components"]
                          for c in row["components"] if c.get("label") == "Accept")
            await ws.send_json({"op": "click", "req": 2, "message": challenge["id"],
                                "custom_id": accept})
            assert "error" not in await until(ws, lambda f: f["op"] == "done")
            await until(ws, lambda f: f["op"] == "channels" and any(
                c["thread"] for c in f["channels"]))
            await ws.close()
        status, _, err = await running.stop()
    assert status == 0, err[-3000:]
    assert " ERROR " not in err and "Traceback" not in err, err[-3000:]


async def test_a_taken_port_is_said_plainly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "sandbox", "--fresh", "--port", str(port),
            cwd=tmp_path, env=_env(), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 2
    assert f"port {port} is taken" in err.decode() and "--port" in err.decode()
