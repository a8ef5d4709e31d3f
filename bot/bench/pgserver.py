"""A PostgreSQL server of one's own, to stop and start: for the tests and the chaos run that
take the database away while the bot plays. Never the shared server: another process's tests
would see it down.

The server lives in a temporary folder, on a free port of 127.0.0.1, started with the
PostgreSQL binaries of the machine (``PG_BIN``, else ``/usr/lib/postgresql/15/bin`` or the
first ``pg_ctl`` on the ``PATH``). PostgreSQL refuses to run as root: as root, it runs as the
``postgres`` user (through ``runuser``), in a folder given to that user.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["PrivatePostgres", "missing"]


def _bin_dir() -> Path | None:
    for candidate in (os.environ.get("PG_BIN"), "/usr/lib/postgresql/15/bin"):
        if candidate and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


def missing() -> str | None:
    """Why no private server can be started here (``None``: it can)."""
    bins = _bin_dir()
    if bins is None or not (bins / "initdb").exists():
        return "no PostgreSQL binaries (initdb, pg_ctl): set PG_BIN to their folder"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root without runuser to start PostgreSQL as another user"
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no postgres user to run PostgreSQL as"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrivatePostgres:
    """``start()``, ``stop()`` (as a restart or an outage would), ``start()`` again, and
    ``remove()`` at the end. ``url`` names its ``postgres`` database."""

    def __init__(self) -> None:
        reason = missing()
        if reason is not None:
            raise RuntimeError(reason)
        bins = _bin_dir()
        assert bins is not None
        self.bins = bins
        self.root = Path(tempfile.mkdtemp(prefix="pg-private-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.running = False
        self._as_root = os.geteuid() == 0
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bins / tool), *args]
        if self._as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        """Start the server (creating it the first time); returns once it takes connections."""
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                      "--no-sync", "-E", "UTF8")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: connections cut, as a restart does; ``immediate``: as a
        crash)."""
        if self.running:
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")
            self.running = False

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
