"""Every room of ``bot/`` stays readable in one sitting: no module over 800 lines, no class
with more than 20 public methods (its own and those it inherits from the bot's classes; what
discord.py, asyncio or the standard library give a class doesn't count)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
MAX_LINES = 800
MAX_PUBLIC_METHODS = 20


def _modules() -> list[str]:
    names = []
    for path in sorted(BOT.rglob("*.py")):
        parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_no_module_in_bot_is_over_800_lines() -> None:
    long = sorted(f"{p.relative_to(BOT.parent)}: {n}" for p in BOT.rglob("*.py")
                  if (n := len(p.read_text().splitlines())) > MAX_LINES)
    assert long == []


def _public_methods(cls: type) -> list[str]:
    found = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        value = inspect.getattr_static(cls, name)
        function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
        if isinstance(function, property):
            continue  # a value to read, not something to do
        if inspect.isfunction(function) and function.__module__.startswith("bot."):
            found.append(name)
    return found


def test_no_class_in_bot_has_more_than_20_public_methods() -> None:
    big = []
    for module_name in _modules():
        module = importlib.import_module(module_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module_name:
                continue
            methods = _public_methods(cls)
            if len(methods) > MAX_PUBLIC_METHODS:
                big.append(f"{module_name}.{cls.__qualname__}: {len(methods)}")
    assert big == []
