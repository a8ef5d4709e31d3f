"""The bot's modules import one way: no circle, not even one made only for type checking
(the pieces the client hosts know it through ``bot.host.Host``)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"


def _module(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in BOT.rglob("*.py"):
        name = _module(path)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.startswith("bot"):
                    deps.add(target)
                    deps.update(f"{target}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.startswith("bot"))
        graph[name] = deps
    return {name: {d for d in deps if d in graph and d != name} for name, deps in graph.items()}


def test_no_import_circles_in_bot() -> None:
    graph = _imports()
    assert "bot.client" in graph and "bot.ui" in graph["bot.cogs.games"]

    def reaches(start: str) -> set[str]:
        seen: set[str] = set()
        stack = [start]
        while stack:
            for dep in graph[stack.pop()]:
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    circles = sorted(name for name in graph if name in reaches(name))
    assert circles == [], f"modules in an import circle: {circles}"


def test_the_discord_side_never_touches_the_engines_game() -> None:
    # The board, buttons, commands and client get views (``GameService.facts``/``view``),
    # never ``LiveGame.match``: a hidden card can't reach a message or a picture by accident.
    presentation = [BOT / "ui.py", BOT / "board.py", BOT / "client.py",
                    *sorted((BOT / "cogs").glob("*.py"))]
    touching = []
    for path in presentation:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "match":
                touching.append(f"{path.name}:{node.lineno}")
    assert touching == []
