"""The bot's modules import one way: no circle, not even one made only for type checking
(the pieces the client hosts know it through ``bot.app.host.Host``)."""

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
    assert "bot.app.client" in graph and "bot.app.ui" in graph["bot.app.cogs.game_commands"]
    assert "bot.sandbox.discord_state" in graph["bot.sandbox.rest"]  # the sandbox is covered too

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
    # The board, buttons, commands and client get views (``LiveGames.facts``/``view``),
    # never ``LiveGame.match``: a hidden card can't reach a message or a picture by accident.
    presentation = sorted((BOT / "app").rglob("*.py"))
    touching = []
    for path in presentation:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "match":
                touching.append(f"{path.name}:{node.lineno}")
    assert touching == []


# Which rooms each room may import (besides itself, ``engine``, ``bot.shards``,
# ``bot.user_errors`` and ``bot.failures``). The adapters sit on top; services below them;
# storage, pictures and ops below those. The sandbox and the benchmarks are tools: the bot never
# imports them.
MAY_IMPORT = {
    "bot": {"app", "ops", "storage", "sandbox"},  # __main__: the command line starts them
    "app": {"games", "money", "pictures", "storage", "ops", "tournaments"},
    "ops": {"games", "money", "pictures", "storage"},  # migrate checks copies by replaying
    # words come from the engine; pictures and messages format them; tournaments: the pure core
    "games": {"money", "storage", "tournaments"},
    "pictures": {"money"},  # amounts, for the tables
    "money": {"storage"},
    "storage": set(),
    "sandbox": set(),
    "tournaments": set(),  # pairing and standings: pure, like the engine
    "bench": {"app", "games", "money", "pictures", "storage", "ops", "sandbox", "tournaments"},
}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (BOT / parts[1]).is_dir()) \
        else "bot"


def test_rooms_import_downward_only() -> None:
    graph = _imports()
    assert set(MAY_IMPORT) == {"bot"} | {p.name for p in BOT.iterdir()
                                         if (p / "__init__.py").exists()}
    wrong = sorted(f"{name} -> {dep}" for name, deps in graph.items() for dep in deps
                   if dep not in ("bot.shards", "bot.user_errors", "bot.failures")
                   and _room(dep) != _room(name)
                   and _room(dep) not in MAY_IMPORT[_room(name)])
    assert wrong == []


def test_the_games_import_nothing_from_the_pictures() -> None:
    # The engine says how a move reads (``engine.describe``); the services store or pass on
    # what it says, and the pictures and messages above them decide how it looks.
    graph = _imports()
    games = [name for name in graph if name.startswith("bot.games")]
    assert "bot.games.replay" in games and "bot.games.game_service" in games
    wrong = sorted(f"{name} -> {dep}" for name in games for dep in graph[name]
                   if dep.startswith("bot.pictures"))
    assert wrong == []


def test_nothing_shipped_imports_the_tests() -> None:
    found = []
    for path in BOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            found += [f"{path.relative_to(BOT)}: {n}" for n in names
                      if n == "tests" or n.startswith("tests.")]
    assert found == []


def test_no_two_modules_share_a_name() -> None:
    names = [p.name for p in BOT.rglob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_no_interaction_of_any_client() -> None:
    # One typed interaction (``bot.app.host.Interaction``), never ``Interaction[Any]``.
    found = [f"{p.relative_to(BOT)}:{n}" for p in BOT.rglob("*.py")
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if "Interaction[Any]" in line]
    assert found == []
