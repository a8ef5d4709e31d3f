"""The engine is a plain library: importing it loads no Discord, Pillow, SQLite or asyncio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_engine_sources_import_nothing_from_the_bot() -> None:
    for path in ENGINE.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                assert not any(
                    stripped.startswith(f"{kw} {mod}")
                    for kw in ("import", "from")
                    for mod in ("bot", "discord", "PIL", "aiosqlite", "asyncio")
                ), f"{path.name}: {stripped}"


def _engine_modules() -> list[str]:
    import pkgutil

    import engine

    return ["engine"] + [m.name for m in pkgutil.walk_packages(engine.__path__, "engine.")]


def test_every_public_name_has_a_docstring() -> None:
    import importlib
    import inspect

    missing = []
    for name in _engine_modules():
        module = importlib.import_module(name)
        if not inspect.getdoc(module):
            missing.append(name)
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not inspect.getdoc(obj):
                missing.append(f"{name}.{attr}")
            if inspect.isclass(obj):
                for member_name, member in vars(obj).items():
                    if member_name.startswith("_"):
                        continue
                    documentable = inspect.isfunction(member) or isinstance(
                        member, property | classmethod | staticmethod)
                    if documentable and not inspect.getdoc(member):
                        missing.append(f"{name}.{attr}.{member_name}")
    assert missing == []


def test_importing_engine_loads_no_io_libraries() -> None:
    """``engine`` and every module in it: no discord, PIL, aiosqlite, asyncio, bot or sqlite3."""
    modules = ", ".join(repr(m) for m in _engine_modules())
    code = (
        "import importlib, sys\n"
        f"for name in [{modules}]:\n"
        "    importlib.import_module(name)\n"
        "bad = [m for m in ('discord', 'PIL', 'aiosqlite', 'asyncio', 'bot', 'sqlite3')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
