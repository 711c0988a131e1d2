"""Which names of each module of the package are used from outside it: imported or read as an
attribute (``layout.CONFIG_FIELDS``) by another module, a test, a benchmark, a docs script or a
Python block of the docs, or named by a string entry point (``"tranquility_env.envs.aec:env"``,
the ``tranquility`` command's table). ``tests/test_layers.py`` holds every module's ``__all__`` to
this."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENTRY = re.compile(r"[\"'](tranquility_env(?:\.\w+)+):(\w+)[\"']")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[0] == "training":
        parts = ("tranquility_env", *parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for base in ("tranquility_env", "training") for p in (ROOT / base).rglob("*.py")}


def _sources() -> list[tuple[str | None, str]]:
    """(the module a source is, or None) and its text: the package, tests, benchmarks, docs."""
    out: list[tuple[str | None, str]] = [(module_name(p), p.read_text()) for p in package_modules().values()]
    for base in ("tests", "benchmarks", "docs"):
        out += [(None, p.read_text()) for p in (ROOT / base).rglob("*.py")]
    out.append((None, (ROOT / "pyproject.toml").read_text()))  # its script entry points
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        out += [(None, block) for block in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)]
    return out


def used_names() -> dict[str, set[str]]:
    """Module -> the names of it used from outside (dunder names aside)."""
    modules = package_modules()
    used: dict[str, set[str]] = {m: set() for m in modules}
    commands = next(  # the tranquility command's table: command -> (module, function, extra)
        node.value
        for node in ast.parse((ROOT / "tranquility_env/cli.py").read_text()).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMMANDS"
    )
    for module, function, _ in ast.literal_eval(commands).values():
        used[module].add(function)
    for me, text in _sources():
        for module, name in ENTRY.findall(text):
            if module in used and module != me:
                used[module].add(name)
        try:
            tree = ast.parse(text)
        except SyntaxError:  # a docs block that is not a whole program
            continue
        alias: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in modules:
                for a in node.names:
                    if f"{node.module}.{a.name}" in modules:
                        alias[a.asname or a.name] = f"{node.module}.{a.name}"
                    elif node.module != me:
                        used[node.module].add(a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        alias[a.asname] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in alias:
                if alias[node.value.id] != me:
                    used[alias[node.value.id]].add(node.attr)
            elif isinstance(node, ast.Attribute) and me is None:  # tranquility_env.envs.aec.env in a test
                dotted = ast.unparse(node.value)
                if dotted in modules and f"{dotted}.{node.attr}" not in modules:
                    used[dotted].add(node.attr)
    return {m: {n for n in names if not n.startswith("__")} for m, names in used.items()}
