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
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p.name for p in (ROOT / "checkpoints" / "shipped").iterdir() if p.is_dir())


def source_files() -> list[str]:
    """The checkout's files as git sees them (tracked, or new and not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], capture_output=True, text=True, cwd=ROOT)
    assert listed.returncode == 0, listed.stderr
    return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy of the checkout's files, so no build folder or stray file can slip in."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    for name in source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    build = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(out),
        str(source),
    ]
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
    modules = {n for n in names if n.endswith(".py")}
    ours = {
        f"tranquility_env/{n.removeprefix('tranquility_env/')}"
        for n in source_files()
        if n.endswith(".py") and n.split("/")[0] in ("tranquility_env", "training", "checkpoints")
    }
    assert modules == ours  # every module of the checkout, training/ and checkpoints/ inside the package
    assert not [n for n in names if n.endswith(("/bench.py", "/speed.py", "_speed.py"))]  # benchmarks/ stays out
    assert not [
        n
        for n in names
        if n.startswith("tranquility_env/checkpoints/") and "/shipped/" not in n and not n.endswith("__init__.py")
    ]
    assert {f"tranquility_env/web/static/{f}" for f in ("index.html", "app.js", "style.css")} <= set(names)
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("/METADATA"))).decode()
    assert re.search(r"^License-Expression: MIT$", metadata, flags=re.M)
    assert any(n.endswith("/licenses/LICENSE") for n in names)


def test_the_installed_wheel_plays_evaluates_and_trains_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    for extra in ("rich", "sb3_contrib", "yaml"):  # the play and train extras, reached from this environment
        pytest.importorskip(extra)
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

    # training compiled the batched engine; a new process loads the kernels from the installed
    # package's compile cache instead of compiling them again
    script = (
        "from tranquility_env.batch import GameBatch; b = GameBatch({'players': 2}, 2); b.reset_many([0, 1], [0, 1])"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    done = subprocess.run(
        [str(installed / "python"), "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "NUMBA_DEBUG_CACHE": "1"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    loaded = re.findall(r"data loaded from '?([^'\s]+)", done.stdout + done.stderr)
    assert loaded and all(path.startswith(str(installed.parent)) for path in loaded)
    assert "data saved to" not in done.stdout + done.stderr


def test_the_installed_wheel_serves_the_browser_table(installed: Path, tmp_path: Path) -> None:
    import urllib.request

    for extra in ("starlette", "uvicorn"):
        pytest.importorskip(extra)
    server = subprocess.Popen(
        [str(installed / "tranquility"), "serve"], cwd=tmp_path, stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().strip().rsplit(" ", 1)[-1]
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        script = urllib.request.urlopen(url + "static/app.js", timeout=10).read().decode()
        assert "<title>Tranquility: The Ascent</title>" in page and "function drawMountain" in script
    finally:
        server.terminate()
        server.wait(timeout=10)
