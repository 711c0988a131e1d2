"""The package's shape: layers without cycles, and an engine that needs nothing but numpy.

Layers, lowest first: the rules core, the views of a game (readable, vector, picture), the
batched engine and the checkpoint format, the bots, the environments, then the apps and trainers. A module imports
only from its own layer or lower ones, not even inside a function, and no two modules import
each other, however indirectly.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {
    "rules": 0,
    "views": 1,
    "batch": 1,
    "tasks": 1,
    "describe": 1,
    "table_args": 1,
    "safe_json": 0,
    "encoding": 1,
    "symmetry": 1,
    "render": 1,
    "checkpoint": 1,
    "bots": 2,
    "arena": 2,
    "checkpoints": 2,
    "envs": 3,
    "replay": 4,
    "play": 4,
    "web": 4,
    "bench": 4,
    "cli": 4,
    "training": 5,
}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (``training/`` is ``tranquility_env.training``)."""
    found = {}
    roots = {ROOT / "tranquility_env": "tranquility_env", ROOT / "training": "tranquility_env.training"}
    for base, prefix in roots.items():
        for path in base.rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join((prefix, *parts)).removesuffix(".__init__")
            found[name] = path
    return found


def imports(path: Path, name: str) -> set[str]:
    """The ``tranquility_env`` modules ``path`` imports anywhere in it (relative imports resolved)."""
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            out.add(base)
            out |= {f"{base}.{alias.name}" for alias in node.names}
    return {m for m in out if m.startswith("tranquility_env")}


def layer(name: str) -> int | None:
    parts = name.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {m for m in imports(path, name) if m in known and m != name} for name, path in known.items()}


def test_every_module_has_a_layer() -> None:
    assert [name for name in modules() if name != "tranquility_env" and layer(name) is None] == []


def test_no_module_imports_a_higher_layer() -> None:
    upward = [
        f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)})"
        for name, targets in graph().items()
        for target in targets
        if name != "tranquility_env" and layer(target) is not None and layer(target) > layer(name)
    ]
    assert upward == []


def test_no_import_cycles() -> None:
    edges = graph()
    # a package's __init__ re-exports its modules: importing the package is importing them, not a cycle
    for name in edges:
        edges[name] = {t for t in edges[name] if not name.startswith(t + ".")}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_engine_and_bots_import_without_the_env_play_or_train_packages() -> None:
    script = """
import sys
for name in ("gymnasium", "pettingzoo", "rich", "PIL", "torch", "yaml"):
    sys.modules[name] = None  # importing any of them now fails
import tranquility_env
from tranquility_env import Config, Game
from tranquility_env.arena import play_until
from tranquility_env.bots import make_bot, shipped_bot
game = Game.new(Config(players=3), 1)
play_until(game, [make_bot("policy:" + shipped_bot(3)) for _ in range(3)])
assert game.is_over and Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
from tranquility_env.batch import GameBatch
batch = GameBatch(Config(players=3), 2)
batch.reset_many([0, 1], [1, 2])
batch.step([batch.legal_actions(0)[0], batch.legal_actions(1)[0]])
try:
    tranquility_env.TeamEnv
except ImportError:
    print("envs need gymnasium")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "envs need gymnasium"


def test_a_command_whose_extra_is_missing_says_which_extra_to_install() -> None:
    script = "import sys; sys.modules['rich'] = None\nfrom tranquility_env.cli import main\nmain(sys.argv[1:])"
    done = subprocess.run([sys.executable, "-c", script, "play"], capture_output=True, text=True, cwd=ROOT / "tests")
    assert done.returncode == 2 and "tranquility play needs the play extra (pip install '.[play]'" in done.stderr
    unknown = subprocess.run([sys.executable, "-c", script, "fly"], capture_output=True, text=True, cwd=ROOT / "tests")
    assert unknown.returncode == 2 and "usage: tranquility {train,mappo,ippo" in unknown.stderr


def test_every_module_says_what_it_offers_and_nothing_else_is_used_from_outside() -> None:
    """Each module's ``__all__`` names what others may use; a name used from outside (imported, read
    as an attribute, named by an entry point) that is not in it is an internal leaking out."""
    from public_names import package_modules, used_names

    used = used_names()
    problems = []
    for name, path in package_modules().items():
        tree = ast.parse(path.read_text())
        declared = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        if not declared:
            problems.append(f"{name}: no __all__")
            continue
        offered = set(ast.literal_eval(declared[0]))
        problems += [f"{name}: __all__ offers the private {n!r}" for n in sorted(offered) if n.startswith("_")]
        defined = module_level_names(tree)
        lazy = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
        problems += [f"{name}: __all__ names {n!r}, which it does not define" for n in offered - defined if not lazy]
        problems += [f"{name}: {n!r} is used from outside but not in __all__" for n in sorted(used[name] - offered)]
    assert problems == []


def module_level_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (in top-level ``if`` and ``try`` blocks too)."""
    names: set[str] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.If, ast.Try, ast.For, ast.With)):
            statements += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            statements += [s for handler in getattr(node, "handlers", []) for s in handler.body]
    return names
