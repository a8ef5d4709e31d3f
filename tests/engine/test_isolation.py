"""The engine is a plain library: importing it loads no Discord, Pillow, SQLite or asyncio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_importing_engine_loads_no_io_libraries() -> None:
    code = (
        "import sys, engine, engine.bench\n"
        "bad = [m for m in ('discord', 'PIL', 'aiosqlite', 'asyncio', 'bot', 'sqlite3')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_engine_sources_import_nothing_from_the_bot() -> None:
    for path in ENGINE.glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                assert not any(
                    stripped.startswith(f"{kw} {mod}")
                    for kw in ("import", "from")
                    for mod in ("bot", "discord", "PIL", "aiosqlite", "asyncio")
                ), f"{path.name}: {stripped}"


def test_every_public_name_has_a_docstring() -> None:
    import inspect

    import engine

    missing = []
    for name in engine.__all__:
        obj = getattr(engine, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not inspect.getdoc(obj):
                missing.append(name)
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    documentable = inspect.isfunction(member) or isinstance(
                        member, property | classmethod | staticmethod)
                    if documentable and not inspect.getdoc(member):
                        missing.append(f"{name}.{attr}")
    assert missing == []
