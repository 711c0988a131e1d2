"""The wheel, as a user installs it: built from the checkout, installed in a fresh environment
outside it, then used for a game at the terminal, an evaluation and a tiny training run.

The fresh environment reaches the dependencies of the one running the tests through a plain
path entry (so none of that environment's own ``.pth`` hooks, such as the editable install of
this checkout, take part); the package itself comes from the wheel alone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.name for p in (ROOT / "checkpoints" / "shipped").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)]
    done = subprocess.run(build, capture_output=True, text=True, cwd=out)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("tranquility_env-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh environment with the wheel installed."""
    env = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env)
    site = next(env.glob("lib/python*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q", "--no-deps"]
    done = subprocess.run([*install, str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return env / "bin"


def run(bin_dir: Path, *args: str, cwd: Path, stdin: str = "") -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(
        args,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env={**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"},
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def test_the_wheel_holds_one_package_the_shipped_bots_the_trainers_and_the_license(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"tranquility_env"}
    for bot in SHIPPED:
        for file in ("final/bot.json", "final/policy.safetensors"):
            assert f"tranquility_env/checkpoints/shipped/{bot}/{file}" in names
    assert "tranquility_env/training/mappo.py" in names
    assert not [
        n
        for n in names
        if n.startswith("tranquility_env/checkpoints/") and "/shipped/" not in n and not n.endswith("__init__.py")
    ]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert re.search(r"^License-Expression: MIT$", metadata, flags=re.M)
    assert any(n.endswith("/licenses/LICENSE") for n in names)


def test_the_installed_wheel_plays_evaluates_and_trains_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    where = run(installed, "python", "-c", "import tranquility_env, sys; print(tranquility_env.__file__)", cwd=tmp_path)
    assert where.startswith(str(installed.parent)) and not where.startswith(str(ROOT))

    # a whole game at the terminal beside the shipped bots, answering "1" to every question
    screen = run(
        installed,
        "tranquility",
        "play",
        "--players",
        "3",
        "--seed",
        "5",
        "--delay",
        "0",
        "--no-color",
        cwd=tmp_path,
        stdin="1\n" * 400,
    )
    assert re.search(r"The team (WON|lost) after \d+ turns", screen)
    assert len(list((tmp_path / "replays").glob("*.jsonl"))) == 1

    table = run(
        installed,
        "tranquility",
        "evaluate",
        "--players",
        "2",
        "--games",
        "4",
        "--workers",
        "1",
        "--team",
        "policy",
        "--team",
        "heuristic-no-search",
        cwd=tmp_path,
    )
    assert "| policy |" in table and "| heuristic-no-search |" in table

    run(
        installed,
        "tranquility",
        "train",
        "players=2",
        "total_steps=64",
        "n_steps=32",
        "batch_size=32",
        "n_epochs=1",
        "n_envs=1",
        "pretrain_games=2",
        "pretrain_epochs=1",
        "hidden=[16]",
        "eval_games=2",
        "final_eval_games=2",
        "checkpoint_every=64",
        "eval_every=64",
        "run=tiny",
        "--no-progress",
        cwd=tmp_path,
    )
    about = json.loads((tmp_path / "checkpoints" / "tiny" / "final" / "bot.json").read_text())
    assert about["config"]["players"] == 2 and about["hidden"] == [16]
