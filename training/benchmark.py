"""The benchmark: ``tranquility benchmark [--tasks T,..] [--algorithms A,..] [--seeds 3] [--scale 1] [--out DIR]``.

Every algorithm on every named task (``tranquility_env.tasks``) with every seed: a learning
algorithm trains from scratch within a budget of env steps (``--scale`` multiplies the budgets),
then its bot, like a fixed bot's, plays the task's evaluation deals. Each cell is kept as
``DIR/<task>/<algorithm>/seed_<s>/result.json`` the moment it is done, so an interrupted run
resumes where it stopped; ``DIR/protocol.json`` pins the protocol and task versions, and a run
directory of another version is refused. At the end: ``results.json``, ``results.csv`` and
``results.md`` (per task and algorithm, the mean win rate over seeds with its 95% interval) and,
for the learning algorithms, time-to-score curves (``curves_<task>.png``: the win rate on tuning
deals during training against env steps and against wall-clock). With ``--teamwork-games N``
(default 200) the tables also give each algorithm's ad-hoc score beside every test partner of
the pool and the cross-play of its seeds' bots (``teamwork``).

A new method enters as ``--algorithms my_package.module:function``: ``function(task, seed,
budget, folder)`` trains within ``budget`` env steps (files under ``folder``) and returns a bot
name for ``make_bot`` (say ``policy:PATH``) that plays every seat.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import json
import math
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tranquility_env import encoding, rules, tasks
from tranquility_env.rules.config import Config
from tranquility_env.table_args import parse_fields
from tranquility_env.tasks import Task

__all__ = ["ALGORITHMS", "PROTOCOL_VERSION", "main", "run", "score", "summarise", "trainer", "write_tables"]

PROTOCOL_VERSION = 2  # 2: smaller default budgets (docs/benchmark.md says why)
CUSTOM = "custom"  # the task name of a table given with --custom
Train = Callable[[Task, int, int, Path], str]


@dataclass(frozen=True)
class Algorithm:
    """A row of the benchmark: a fixed bot (``budget`` 0) or a trainer with its budget at scale 1.
    ``teacher``: what a warm-started trainer starts from (its rows are reported apart); ``fits``:
    the tasks it can run on (a warm start needs a teacher for the table); ``limit``: why a row
    measures the game rather than a method (it cheats, or searches at play time), reported apart;
    ``games``: at most this many evaluation deals (0: the run's), for the dear rows."""

    name: str
    about: str
    budget: int
    train: Train
    teacher: str = ""
    fits: Callable[[Task], bool] = lambda task: True
    limit: str = ""
    games: int = 0


def bot(name: str) -> Train:
    return lambda task, seed, budget, folder: name


RESUME_STATE = {"mappo": "resume.pt", "train": "resume.zip", "rllib_train": "rllib_state/steps.json"}


def trainer(module: str, config_class: str, **settings: object) -> Train:
    """One of this package's trainers from scratch, on the task's table, with ``budget`` steps;
    its periodic evaluations (on tuning deals) draw the time-to-score curve. A cell killed after a
    checkpoint goes on from it (the trainer's ``--resume``, ``RESUME_STATE`` the file it reads)."""

    def train(task: Task, seed: int, budget: int, folder: Path) -> str:
        trainers = importlib.import_module(f"tranquility_env.training.{module}")
        cfg = getattr(trainers, config_class)(
            config=task.config,
            seed=seed,
            total_steps=budget,
            checkpoint_every=max(1, budget // 5),
            eval_every=max(1, budget // 5),
            final_eval_games=1,
            checkpoints_dir=str(folder / "checkpoints"),
            logs_dir=str(folder / "runs"),
            run="run",
            **settings,
        )
        resume = (folder / "checkpoints" / "run" / RESUME_STATE[module]).exists()
        return f"policy:{trainers.train(cfg, resume=resume)}"

    return train


def warm_mappo(task: Task, seed: int, budget: int, folder: Path) -> str:
    """MAPPO started from the shipped bot of the task's table (its network), the critic trained
    alone for the first updates so that the actor keeps its play."""
    from tranquility_env import checkpoint
    from tranquility_env.bots import shipped_bot

    start = shipped_bot(task.config.players)
    about = checkpoint.load(start)[0]
    network = {"hidden": about["hidden"], "activation": about["activation"]}
    return trainer("mappo", "MappoConfig", init_actor=start, critic_warmup=4, **network)(task, seed, budget, folder)


def has_shipped_bot(task: Task) -> bool:
    from tranquility_env.bots.shipped import SHIPPED_BOTS

    return task.config == Config(players=task.config.players) and task.config.players in SHIPPED_BOTS


ALGORITHMS = {
    a.name: a
    for a in (
        Algorithm("random", "uniform over the legal moves", 0, bot("random")),
        Algorithm("heuristic-no-search", "the hand-written value model alone", 0, bot("heuristic-no-search")),
        Algorithm("heuristic", "the value model with its end-game search", 0, bot("heuristic")),
        Algorithm(
            "mappo", "MAPPO from scratch (tranquility mappo's defaults)", 100_000, trainer("mappo", "MappoConfig")
        ),
        Algorithm("ippo", "IPPO from scratch (tranquility ippo's defaults)", 100_000, trainer("mappo", "IppoConfig")),
        Algorithm(
            "maskable-ppo",
            "MaskablePPO from scratch (tranquility train without imitation)",
            25_000,
            trainer("train", "TrainConfig", pretrain_games=0),
        ),
        Algorithm(
            "mappo-warm",
            "MAPPO from the shipped bot of the table (base game only)",
            100_000,
            warm_mappo,
            teacher="the shipped bot",
            fits=has_shipped_bot,
        ),
        Algorithm(
            "rllib-ppo",
            "Ray RLlib PPO from scratch (tranquility rllib's defaults, sampling in the driver)",
            16_000,
            trainer("rllib_train", "RllibConfig", num_env_runners=0),
        ),
        Algorithm(
            "omniscient",
            "the omniscient solver's winning line where it finds one, else the value model",
            0,
            bot("omniscient"),
            limit="cheats: sees every hand and deck; a lower bound of the deal's ceiling",
            games=200,
        ),
        Algorithm(
            "pimc",
            "Perfect-Information Monte Carlo: the solver on sampled deals in the end game",
            0,
            bot("pimc"),
            limit="searches at play time, never trained",
            games=200,
        ),
    )
}
DEFAULT_ALGORITHMS = tuple(ALGORITHMS)


def algorithm(name: str) -> Algorithm:
    """A named reference algorithm, or ``module:function`` (the entry point for new methods)."""
    if name in ALGORITHMS:
        return ALGORITHMS[name]
    if ":" in name:
        module, _, function = name.partition(":")
        try:
            train = getattr(importlib.import_module(module), function)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"algorithm {name!r}: cannot load {function} from {module} ({err})") from None
        return Algorithm(name, f"{module}.{function}", 100_000, train)
    raise ValueError(f"unknown algorithm {name!r}; the algorithms are {', '.join(ALGORITHMS)} or module:function")


def custom_task(config: Config) -> Task:
    """A table given on the command line: run as a task called ``custom`` (its results carry the
    config), on the running rules and observations."""
    return Task(CUSTOM, config, "a table given on the command line", 0, rules.RULES_VERSION, encoding.VERSION)


def protocol(chosen: list[Task]) -> dict:
    """What a run directory is pinned to: each task's versions (a custom task's config too)."""
    pins = {}
    for t in chosen:
        custom = [t.config.to_dict()] if t.name == CUSTOM else []
        pins[t.name] = [t.version, t.rules_version, t.observation_version, *custom]
    return {"protocol": PROTOCOL_VERSION, "tasks": pins}


def check_run_dir(out: Path, chosen: list[Task]) -> None:
    """Create ``out`` for this protocol, or accept it if it was made for this one; refuse another."""
    task_names = [t.name for t in chosen]
    want = protocol(chosen)
    pinned = out / "protocol.json"
    if pinned.exists():
        have = json.loads(pinned.read_text())
        if have.get("protocol") != PROTOCOL_VERSION or any(
            have.get("tasks", {}).get(name, want["tasks"][name]) != want["tasks"][name] for name in task_names
        ):
            raise ValueError(f"{out} holds a benchmark of another version ({have}); use another --out")
        have["tasks"] = {**have.get("tasks", {}), **want["tasks"]}
        want = have
    out.mkdir(parents=True, exist_ok=True)
    pinned.write_text(json.dumps(want, indent=1))


def hardware() -> str:
    import os

    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}"


def commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    )
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def run_cell(
    task: Task, algo: Algorithm, seed: int, budget: int, games: int, folder: Path, workers: int, same: dict | None
) -> dict:
    """Train (if a learning algorithm) and evaluate one cell; its result, also written to ``folder``.
    ``same``: a cell of this fixed bot already played on these deals (its bots are seeded by the
    deal, so another seed plays every game alike), whose outcome is taken instead of playing again."""
    from tranquility_env.training.evaluate import evaluate

    result_file = folder / "result.json"
    if result_file.exists():
        return json.loads(result_file.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    start = time.time()
    with (folder / "train.log").open("w") as log, contextlib.redirect_stdout(log):  # the trainer's own tables
        spec = algo.train(task, seed, budget, folder)
    trained = time.time() - start
    deals = task.evaluation_deals(games)
    played = ("win_rate", "ci95", "mean_cards")
    if same is not None and same["bot"] == spec and same["games"] == games:
        outcome = {key: same[key] for key in played}
    else:
        team = evaluate(spec, task.config, games, deals[0], workers)
        outcome = {"win_rate": team.win_rate, "ci95": list(team.ci95), "mean_cards": team.mean_cards}
    result = {
        "task": task.name,
        "config": task.config.to_dict(),
        "algorithm": algo.name,
        "seed": seed,
        "budget_steps": budget,
        "train_seconds": round(trained, 1),
        "seconds": round(time.time() - start, 1),
        "curve": learning_curve(folder / "runs"),
        "bot": spec,
        "teacher": algo.teacher,
        "limit": algo.limit,
        "games": games,
        **outcome,
        "hardware": hardware(),
        "commit": commit(),
        "protocol": PROTOCOL_VERSION,
    }
    return kept(result_file, lambda: result)  # a cell is done only once its whole result is on disk


def learning_curve(runs: Path) -> list[list[float]]:
    """A trainer's periodic evaluations (``eval/win_rate`` in its TensorBoard logs under ``runs``,
    a resumed run's included) as [env steps, wall-clock minutes from the first log's start, win
    rate] rows; none for a fixed bot or a method that logs none. Kept in the cell's result, so the
    curves need no logs."""
    logs = sorted(runs.glob("run*"))  # SB3 starts run_1, then run_2 when resumed
    if not logs:
        return []
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    points, start = {}, None
    for log in logs:
        charts = EventAccumulator(str(log))
        charts.Reload()
        try:
            start = charts.FirstEventTimestamp() if start is None else start
        except ValueError:  # a log with no event yet (killed at once)
            continue
        if "eval/win_rate" in charts.Tags()["scalars"]:
            for p in charts.Scalars("eval/win_rate"):
                points[p.step] = [p.step, round((p.wall_time - start) / 60, 3), p.value]
    return [points[step] for step in sorted(points)]


def teamwork(task: Task, algo: str, cells: list[dict], games: int, out: Path, workers: int) -> dict | None:
    """Ad-hoc teamwork and cross-play of one algorithm on one task (2 players or more), from its
    cells (one a seed), on the first ``games`` evaluation deals:

    - ad-hoc: each seed's bot in one seat, a test partner of the pool (``bots.partners``) in the
      others, beside that partner's own team; no reference algorithm trains with a partner;
    - cross-play: the seeds' bots, each pair in every seating (``evaluate.cross_play``), when the
      seeds made different bots.

    Kept as ``teamwork.json`` in the algorithm's folder (a partner's own team under
    ``<task>/partners/``), so a resumed run reads it back."""
    from tranquility_env.bots.partners import names as partner_names
    from tranquility_env.training.evaluate import cross_play, evaluate, with_partner

    if task.config.players < 2:
        return None
    done = out / task.name / algo.replace(":", "_") / "teamwork.json"
    first, bots = task.evaluation_deals(games)[0], [c["bot"] for c in cells]
    if done.exists() and json.loads(done.read_text()).get("bots") == bots:
        return json.loads(done.read_text())
    done.unlink(missing_ok=True)  # made for other bots (a cell trained again)
    start, partners = time.time(), {}
    for name in partner_names("test"):
        partner = f"partner:{name}"
        alone = kept(
            out / task.name / "partners" / f"{name}_{games}.json",
            lambda p=partner: {"win_rate": evaluate(p, task.config, games, first, workers).win_rate},
        )["win_rate"]
        rate = {b: with_partner(b, partner, task.config, games, first, workers).win_rate for b in dict.fromkeys(bots)}
        rates = [rate[b] for b in bots]
        partners[name] = {"alone": alone, "with": rates, "mean": statistics.fmean(rates)}
    distinct = len(set(bots)) > 1
    result = {
        "task": task.name,
        "algorithm": algo,
        "games": games,
        "bots": bots,
        "partners": partners,
        "cross_play": cross_play(bots, task.config, games, first, workers).to_dict() if distinct else None,
    }
    result["seconds"] = round(time.time() - start, 1)
    return kept(done, lambda: result)


def kept(path: Path, make: Callable[[], dict]) -> dict:
    """The JSON at ``path``, or ``make()`` written there whole (never half a file)."""
    if path.exists():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value, indent=1))
    tmp.replace(path)
    return value


def score(cell: dict) -> float:
    """A cell's graded score: the mean over its games of the cards on the mountain (0-44) plus 1
    for a won game, so 0-45. It tells weak methods apart where the win rate is 0 for all."""
    return cell["mean_cards"] + cell["win_rate"]


def summarise(results: list[dict]) -> list[dict]:
    """Per task and algorithm: the mean score and win rate over seeds, each with a 95% interval
    over seeds (t), and the score normalised between random's (0) and the heuristic's (1) on the
    same task when both ran."""
    rows = []
    for task_name in dict.fromkeys(r["task"] for r in results):
        for algo in dict.fromkeys(r["algorithm"] for r in results if r["task"] == task_name):
            cells = [r for r in results if r["task"] == task_name and r["algorithm"] == algo]
            scores, score_half = _mean_and_half_width([score(c) for c in cells])
            rate, half = _mean_and_half_width([c["win_rate"] for c in cells])
            rows.append(
                {
                    "task": task_name,
                    "algorithm": algo,
                    "seeds": len(cells),
                    "budget_steps": cells[0]["budget_steps"],
                    "score": scores,
                    "score_half_width": score_half,
                    "win_rate": rate,
                    "half_width": half,
                    "warm_start": cells[0].get("teacher", ""),
                    "limit": cells[0].get("limit", ""),
                    "games": cells[0].get("games"),
                }
            )
    for row in rows:
        ends = {r["algorithm"]: r["score"] for r in rows if r["task"] == row["task"]}
        low, high = ends.get("random"), ends.get("heuristic")
        useful = low is not None and high is not None and high > low
        row["normalised_score"] = (row["score"] - low) / (high - low) if useful else None
    return rows


def _mean_and_half_width(values: list[float]) -> tuple[float, float]:
    half = _t95(len(values)) * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return statistics.fmean(values), half


def _t95(n: int) -> float:
    """Student's t at 97.5% for ``n - 1`` degrees of freedom (n seeds)."""
    table = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}
    return table.get(n, 1.96)


def write_tables(out: Path, results: list[dict], rows: list[dict], teams: list[dict] | None = None) -> None:
    teams = teams or []
    (out / "results.json").write_text(
        json.dumps({"protocol": PROTOCOL_VERSION, "cells": results, "rows": rows, "teamwork": teams}, indent=1)
    )
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = [
        "score: cards on the mountain plus 1 for a won game (0-45); score and win rate: mean over seeds "
        "± the half-width of a 95% interval over seeds (Student's t); normalised score: (score - random's) / "
        "(heuristic's - random's) on the same task.",
        "",
    ]
    groups = (  # (which rows, the line above their table, the extra column: its title and row key)
        (lambda r: not r["warm_start"] and not r.get("limit"), "", None),
        (
            lambda r: r["warm_start"],
            "Warm-started (not comparable with the rows above: each starts from a teacher):",
            ("starts from", "warm_start"),
        ),
        (
            lambda r: r.get("limit"),
            "The limits of the game (not methods: each cheats or searches at play time; on the first deals only):",
            ("what it is", "limit"),
        ),
    )
    for belongs, title, extra in groups:
        chosen = [r for r in rows if belongs(r)]
        if not chosen:
            continue
        if title:
            lines += ["", title, ""]
        lines += [
            "| task | algorithm | seeds | budget (env steps) | score (0-45) | win rate | normalised score |"
            + (f" {extra[0]} |" if extra else ""),
            "|---|---|---:|---:|---:|---:|---:|" + ("---|" if extra else ""),
        ]
        for r in chosen:
            cells = [
                r["task"],
                r["algorithm"] + (f" ({r['games']} deals)" if r.get("limit") else ""),
                r["seeds"],
                f"{r['budget_steps']:,}",
                f"{r['score']:.1f} ± {_half(r['score_half_width'], '.1f')}",
                f"{r['win_rate']:.1%} ± {_half(r['half_width'], '.1%')}",
                "-" if r["normalised_score"] is None else f"{r['normalised_score']:.2f}",
            ]
            lines.append("| " + " | ".join(str(c) for c in cells + ([r[extra[1]]] if extra else [])) + " |")
    commits = ", ".join(dict.fromkeys(r["commit"] for r in results))
    hours = (sum(r.get("seconds", 0) for r in results) + sum(t.get("seconds", 0) for t in teams)) / 3600
    lines += [
        "",
        f"hardware: {results[0]['hardware']}; commit {commits}; protocol {PROTOCOL_VERSION}; "
        f"wall-clock {hours:.2f} h (training, evaluation and teamwork, summed over cells)",
    ]
    (out / "results.md").write_text("\n".join(lines + teamwork_lines(teams)) + "\n")


def _half(value: float, spec: str) -> str:
    return "-" if math.isnan(value) else format(value, spec)


def teamwork_lines(teams: list[dict]) -> list[str]:
    """The ad-hoc table (per partner: the algorithm's bot with the partner, mean over seeds, and the
    partner's own team) and the cross-play table (self-play against mixed seeds)."""
    if not teams:
        return []
    partners = list(teams[0]["partners"])
    lines = [
        "",
        f"Ad-hoc teamwork ({teams[0]['games']} deals): one seat the algorithm's bot, the others the test",
        "partner; each cell the mixed team's win rate (mean over seeds), the partner's own team in brackets.",
        "",
        "| task | algorithm | " + " | ".join(partners) + " | mean difference |",
        "|---|---|" + "---:|" * (len(partners) + 1),
    ]
    for t in teams:
        cells = [f"{p['mean']:.1%} ({p['alone']:.1%})" for p in t["partners"].values()]
        gap = statistics.fmean(p["mean"] - p["alone"] for p in t["partners"].values())
        lines.append(f"| {t['task']} | {t['algorithm']} | " + " | ".join(cells) + f" | {100 * gap:+.1f} points |")
    crossed = [t for t in teams if t["cross_play"]]
    if crossed:
        lines += [
            "",
            "Cross-play across seeds: each pair of seeds' bots mixed (matrices in results.json), in every seating",
            "where both play (`every`), or with even seats one bot and odd seats the other (`even/odd`, runs made",
            "before every seating was played). The largest gap: the seating furthest from either bot's self-play.",
            "",
            "| task | algorithm | seatings | self-play (diagonal) | cross-play (off the diagonal) | difference "
            "| largest gap |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for t in crossed:
            c = t["cross_play"]
            m = c["win_rate"]
            own = statistics.fmean(m[i][i] for i in range(len(m)))
            mixed = statistics.fmean(m[i][j] for i in range(len(m)) for j in range(len(m)) if i != j)
            largest = "-" if c.get("largest_gap") is None else f"{100 * c['largest_gap']:.1f} points"
            lines.append(
                f"| {t['task']} | {t['algorithm']} | {c['seatings']} | {own:.1%} | {mixed:.1%} "
                f"| {100 * (mixed - own):+.1f} points | {largest} |"
            )
    return lines


def curves(out: Path, results: list[dict]) -> list[Path]:
    """Per task, the learning algorithms' win rate on tuning deals during training (``eval/win_rate``)
    against env steps and against wall-clock: one colour an algorithm, one line (and marker) a seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    colours = plt.get_cmap("tab10").colors
    markers = "osD^v"
    names = list(dict.fromkeys(r["algorithm"] for r in results))
    made = []
    for task_name in dict.fromkeys(r["task"] for r in results):
        fig, (by_steps, by_time) = plt.subplots(1, 2, figsize=(11, 4))
        drawn = False
        named = set()
        for r in results:
            if r["task"] != task_name or not r.get("curve"):
                continue
            steps, minutes, rates = zip(*r["curve"], strict=True)
            style = {
                "color": colours[names.index(r["algorithm"]) % len(colours)],
                "marker": markers[r["seed"] % len(markers)],
                "alpha": 0.8,
            }
            label = r["algorithm"] if r["algorithm"] not in named else None  # one legend entry an algorithm
            named.add(r["algorithm"])
            by_steps.plot(steps, rates, label=label, **style)
            by_time.plot(minutes, rates, **style)
            drawn = True
        if drawn:
            for axis, xlabel in ((by_steps, "env steps"), (by_time, "wall-clock minutes")):
                axis.set_xlabel(xlabel)
                axis.set_ylim(0, 1)
                axis.set_ylabel("win rate (tuning deals)")
                axis.grid(alpha=0.3)
            by_steps.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}k"))
            by_steps.legend(fontsize=7)
            fig.suptitle(f"{task_name}: time to score")
            path = out / f"curves_{task_name}.png"
            fig.savefig(path, dpi=100, bbox_inches="tight")
            made.append(path)
        plt.close(fig)
    return made


def run(
    task_names: list[str],
    algo_names: list[str],
    seeds: int,
    scale: float,
    games: int,
    out: Path,
    workers: int,
    teamwork_games: int = 0,
    custom: Config | None = None,
) -> list[dict]:
    """The whole protocol; returns the summary rows. ``teamwork_games`` > 0 adds the ad-hoc and
    cross-play evaluation (``teamwork``) on that many deals."""
    if seeds < 1:
        raise ValueError(f"--seeds must be at least 1, got {seeds}")
    if not scale > 0 or not math.isfinite(scale):
        raise ValueError(f"--scale must be a positive number, got {scale}")
    if not 1 <= games <= tasks.EVALUATION_GAMES:
        raise ValueError(f"--games must be from 1 to {tasks.EVALUATION_GAMES}, got {games}")
    if not 0 <= teamwork_games <= tasks.EVALUATION_GAMES:
        raise ValueError(f"--teamwork-games must be from 0 (none) to {tasks.EVALUATION_GAMES}, got {teamwork_games}")
    chosen = [tasks.task(name) for name in task_names]  # unknown names fail here, before any training
    chosen += [custom_task(custom)] if custom is not None else []
    algos = [algorithm(name) for name in algo_names]
    check_run_dir(out, chosen)
    results, teams = [], []
    for task in chosen:
        for algo in algos:
            if not algo.fits(task):
                print(f"{task.name} {algo.name}: not run ({algo.about})", flush=True)
                continue
            budget = max(1, round(algo.budget * scale)) if algo.budget else 0
            deals = min(games, algo.games) if algo.games else games
            cells = []
            for seed in range(seeds):
                folder = out / task.name / algo.name.replace(":", "_") / f"seed_{seed}"
                same = cells[0] if cells and not algo.budget else None  # a fixed bot: seeds play alike
                cells.append(run_cell(task, algo, seed, budget, deals, folder, workers, same))
                print(f"{task.name} {algo.name} seed {seed}: {cells[-1]['win_rate']:.1%}", flush=True)
            results += cells
            partnered = teamwork_games and not algo.limit  # a limit is never a partner
            if partnered and (team := teamwork(task, algo.name, cells, teamwork_games, out, workers)):
                teams.append(team)
    rows = summarise(results)
    write_tables(out, results, rows, teams)
    curves(out, results)
    print((out / "results.md").read_text())
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tranquility benchmark", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks", help="comma-separated task names (default: all, or none when --custom names a table)"
    )
    parser.add_argument(
        "--custom",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a table of your own, run as the task 'custom': any Config field, e.g. --custom players=4 "
        "--custom hand_size=4 (repeatable)",
    )
    parser.add_argument(
        "--algorithms", default=",".join(DEFAULT_ALGORITHMS), help="comma-separated names or module:function"
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per algorithm and task (default 3)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every training budget (default 1)")
    parser.add_argument(
        "--games", type=int, default=tasks.EVALUATION_GAMES, help="evaluation deals per cell (default 1000)"
    )
    parser.add_argument(
        "--teamwork-games",
        type=int,
        default=200,
        help="deals for the ad-hoc and cross-play tables (default 200; 0 leaves them out)",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes that play the evaluation deals (default 2)")
    parser.add_argument("--out", default="benchmark", help="the run directory (default benchmark/)")
    args = parser.parse_args(argv)
    try:
        custom = Config.from_dict(parse_fields(args.custom)) if args.custom else None
        named = args.tasks.split(",") if args.tasks else ([] if custom else list(tasks.TASKS))
        run(
            named,
            args.algorithms.split(","),
            args.seeds,
            args.scale,
            args.games,
            Path(args.out),
            args.workers,
            args.teamwork_games,
            custom,
        )
    except ValueError as err:
        parser.error(str(err))


if __name__ == "__main__":
    main()
