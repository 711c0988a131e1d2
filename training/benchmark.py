"""The benchmark: ``tranquility benchmark [--tier quick] [--tasks T,..] [--algorithms A,..] [--seeds 3] [--out DIR]``.

Every algorithm on every named task (``tranquility_env.tasks``) with every seed: a learning
algorithm trains from scratch within its tier's budget of env steps (``TIERS``; ``--scale``
multiplies it for a reduced run), then its bot, like a fixed bot's, plays the task's evaluation
deals. Each cell is kept as ``DIR/<task>/<algorithm>/seed_<s>/result.json`` the moment it is
done, so an interrupted run resumes where it stopped; ``DIR/protocol.json`` pins the protocol, the
tier and the task versions, and a run directory of another is refused. At the end the report
(``benchmark_report``): ``results.json``, ``results.csv``, ``results.md`` and ``curves_<task>.png``.
With ``--teamwork-games N`` (default 200) the tables also give each algorithm's ad-hoc score
beside every test partner of the pool and the cross-play of its seeds' bots (``teamwork``).

A new method enters as ``--algorithms my_package.module:function``: ``function(task, seed,
budget, folder)`` trains within ``budget`` env steps (files under ``folder``) and returns a bot
name for ``make_bot`` (say ``policy:PATH``) that plays every seat.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import platform
import resource
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
from tranquility_env.training.benchmark_report import curves, summarise, write_tables

__all__ = ["ALGORITHMS", "PROTOCOL_VERSION", "TIERS", "main", "run", "trainer"]

# 3: budgets in tiers, every learner's curve with its cards, CPU-hours, losses and a warm start's
# step 0 in each cell; 2: smaller fixed budgets (docs/benchmark.md says why)
PROTOCOL_VERSION = 3
TIERS = {"quick": 1_000_000, "standard": 10_000_000}  # env steps of every learning algorithm
CURVE_POINTS = 10  # periodic evaluations of a training run: the curves and the steps to a score
CURVE_GAMES = 100  # tuning deals a periodic evaluation plays (fewer in a reduced run: one per 1,000 steps)
CARDS_TAG = "eval/cards_on_mountain"  # what the trainers log beside eval/win_rate
CUSTOM = "custom"  # the task name of a table given with --custom
Train = Callable[[Task, int, int, Path], str]


@dataclass(frozen=True)
class Algorithm:
    """A row of the benchmark: a fixed bot or a trainer (``learns``: it gets the tier's budget).
    ``teacher``: what a warm-started trainer starts from (its rows are reported apart), and
    ``start`` the bot it starts as (made under the cell's folder), whose step-0 result is kept
    beside the trained one; ``fits``: the tasks it can run on (a warm start needs a teacher for
    the table); ``limit``: why a row measures the game rather than a method (it cheats, or
    searches at play time), reported apart; ``games``: at most this many evaluation deals (0:
    the run's), for the dear rows."""

    name: str
    about: str
    train: Train
    learns: bool = True
    teacher: str = ""
    start: Callable[[Task, Path], str] | None = None
    fits: Callable[[Task], bool] = lambda task: True
    limit: str = ""
    games: int = 0


def bot(name: str) -> Train:
    return lambda task, seed, budget, folder: name


RESUME_STATE = {"mappo": "resume.pt", "train": "resume.zip", "rllib_train": "rllib_state/steps.json"}


def trainer(module: str, config_class: str, **settings: object) -> Train:
    """One of this package's trainers on the task's table, with ``budget`` steps; its
    ``CURVE_POINTS`` periodic evaluations (on tuning deals) draw the time-to-score curve. A cell
    killed after a checkpoint goes on from it (the trainer's ``--resume``, ``RESUME_STATE`` the
    file it reads)."""

    def train(task: Task, seed: int, budget: int, folder: Path) -> str:
        trainers = importlib.import_module(f"tranquility_env.training.{module}")
        cfg = getattr(trainers, config_class)(
            config=task.config,
            seed=seed,
            total_steps=budget,
            checkpoint_every=max(1, budget // CURVE_POINTS),
            eval_every=max(1, budget // CURVE_POINTS),
            eval_games=min(CURVE_GAMES, max(1, budget // 1000)),
            final_eval_games=1,
            checkpoints_dir=str(folder / "checkpoints"),
            logs_dir=str(folder / "runs"),
            run="run",
            **settings,
        )
        resume = (folder / "checkpoints" / "run" / RESUME_STATE[module]).exists()
        return f"policy:{trainers.train(cfg, resume=resume)}"

    return train


# The fine-tune recipe the shipped bots were made with (the Makefile's FINETUNE and OTHER_PLAY):
# a low learning rate, no entropy bonus, the critic trained alone first, Other-Play.
FINE_TUNE = {"learning_rate": 5e-5, "ent_coef": 0.0, "critic_warmup": 25, "other_play": True}


def warm_start(task: Task, folder: Path) -> str:
    """The network of the shipped bot of the task's table, played as one network (the shipped bot
    plays it over its colour symmetries): what ``warm_mappo`` trains, as a bot name."""
    return f"policy:{_start_network(task, folder)}"


def _start_network(task: Task, folder: Path) -> Path:
    """``warm_start``'s checkpoint, copied from the shipped bot to ``folder/start`` once."""
    from tranquility_env import checkpoint
    from tranquility_env.bots import shipped_bot

    start = folder / "start"
    if not start.is_dir():  # checkpoint.copy writes the folder whole or not at all
        checkpoint.copy(shipped_bot(task.config.players), start, symmetrised=False)
    return start


def warm_mappo(task: Task, seed: int, budget: int, folder: Path) -> str:
    """MAPPO from the shipped bot's network (``warm_start``) with the fine-tune recipe."""
    from tranquility_env import checkpoint

    start = _start_network(task, folder)
    about = checkpoint.load(start)[0]
    network = {"hidden": about["hidden"], "activation": about["activation"]}
    return trainer("mappo", "MappoConfig", init_actor=str(start), **FINE_TUNE, **network)(task, seed, budget, folder)


def has_shipped_bot(task: Task) -> bool:
    from tranquility_env.bots.shipped import SHIPPED_BOTS

    return task.config == Config(players=task.config.players) and task.config.players in SHIPPED_BOTS


# From scratch: no imitation, no teacher, no hand-written value or partner in training, no
# checkpoint to start from, no shaping beyond cards placed; each learner with the settings its
# trainer uses from scratch (MaskablePPO: the shared RunConfig defaults, not the fine-tune
# settings its imitation recipe keeps).
ALGORITHMS = {
    a.name: a
    for a in (
        Algorithm("random", "uniform over the legal moves", bot("random"), learns=False),
        Algorithm("heuristic-no-search", "the hand-written value model alone", bot("heuristic-no-search"), False),
        Algorithm("heuristic", "the value model with its end-game search", bot("heuristic"), learns=False),
        Algorithm("mappo", "MAPPO from scratch (tranquility mappo's defaults)", trainer("mappo", "MappoConfig")),
        Algorithm("ippo", "IPPO from scratch (tranquility ippo's defaults)", trainer("mappo", "IppoConfig")),
        Algorithm(
            "maskable-ppo",
            "MaskablePPO from scratch (tranquility train without imitation, learning rate 3e-4, entropy 0.01)",
            trainer("train", "TrainConfig", pretrain_games=0, learning_rate=3e-4, ent_coef=0.01),
        ),
        Algorithm(
            "mappo-warm",
            "MAPPO from the shipped bot's network with the fine-tune recipe (base game only)",
            warm_mappo,
            teacher="the shipped bot's network",
            start=warm_start,
            fits=has_shipped_bot,
        ),
        Algorithm(
            "rllib-ppo",
            "Ray RLlib PPO from scratch (tranquility rllib's defaults, sampling in the driver)",
            trainer("rllib_train", "RllibConfig", num_env_runners=0),
        ),
        Algorithm(
            "omniscient",
            "the omniscient solver's winning line where it finds one, else the value model",
            bot("omniscient"),
            learns=False,
            limit="cheats: sees every hand and deck; a lower bound of the deal's ceiling",
            games=200,
        ),
        Algorithm(
            "pimc",
            "Perfect-Information Monte Carlo: the solver on sampled deals in the end game",
            bot("pimc"),
            learns=False,
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
        return Algorithm(name, f"{module}.{function}", train)
    raise ValueError(f"unknown algorithm {name!r}; the algorithms are {', '.join(ALGORITHMS)} or module:function")


def custom_task(config: Config) -> Task:
    """A table given on the command line: run as a task called ``custom`` (its results carry the
    config), on the running rules and observations."""
    return Task(CUSTOM, config, "a table given on the command line", 0, rules.RULES_VERSION, encoding.VERSION)


def protocol(chosen: list[Task], tier: str) -> dict:
    """What a run directory is pinned to: the protocol, the tier, each task's versions (a custom
    task's config too)."""
    pins = {}
    for t in chosen:
        custom = [t.config.to_dict()] if t.name == CUSTOM else []
        pins[t.name] = [t.version, t.rules_version, t.observation_version, *custom]
    return {"protocol": PROTOCOL_VERSION, "tier": tier, "tasks": pins}


def check_run_dir(out: Path, chosen: list[Task], tier: str) -> None:
    """Create ``out`` for this protocol and tier, or accept it if it was made for them; refuse another."""
    task_names = [t.name for t in chosen]
    want = protocol(chosen, tier)
    pinned = out / "protocol.json"
    if pinned.exists():
        have = json.loads(pinned.read_text())
        if (
            have.get("protocol") != PROTOCOL_VERSION
            or have.get("tier") != tier
            or any(have.get("tasks", {}).get(name, want["tasks"][name]) != want["tasks"][name] for name in task_names)
        ):
            raise ValueError(f"{out} holds a benchmark of another version or tier ({have}); use another --out")
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
    task: Task,
    algo: Algorithm,
    seed: int,
    budget: int,
    games: int,
    folder: Path,
    workers: int,
    same: dict | None,
    step_zero: dict | None = None,
) -> dict:
    """Train (if a learning algorithm) and evaluate one cell; its result, also written to ``folder``.
    ``same``: a cell of this fixed bot already played on these deals (its bots are seeded by the
    deal, so another seed plays every game alike), whose outcome is taken instead of playing again;
    ``step_zero``: a warm start's step-0 result from an earlier seed (every seed starts from one bot)."""
    result_file = folder / "result.json"
    if result_file.exists():
        return json.loads(result_file.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    start, cpu = time.time(), cpu_seconds()
    with (folder / "train.log").open("w") as log, contextlib.redirect_stdout(log):  # the trainer's own tables
        spec = algo.train(task, seed, budget, folder)
    trained, trained_cpu = time.time() - start, cpu_seconds() - cpu
    first = task.evaluation_deals(games)[0]
    if same is not None and same["bot"] == spec and same["games"] == games:
        outcome = {key: same[key] for key in ("win_rate", "ci95", "mean_cards", "losses")}
    else:
        outcome = played(spec, task, games, first, workers)
    result = {
        "task": task.name,
        "config": task.config.to_dict(),
        "algorithm": algo.name,
        "seed": seed,
        "budget_steps": budget,
        "train_seconds": round(trained, 1),
        "train_cpu_seconds": round(trained_cpu, 1),
        "seconds": round(time.time() - start, 1),
        "curve": learning_curve(folder / "runs"),
        "bot": spec,
        "teacher": algo.teacher,
        "start": step_zero or (played(algo.start(task, folder), task, games, first, workers) if algo.start else None),
        "limit": algo.limit,
        "games": games,
        **outcome,
        "hardware": hardware(),
        "commit": commit(),
        "protocol": PROTOCOL_VERSION,
    }
    return kept(result_file, lambda: result)  # a cell is done only once its whole result is on disk


def played(spec: str, task: Task, games: int, first: int, workers: int) -> dict:
    """``spec``'s team on ``games`` evaluation deals from ``first``: what a cell keeps of it."""
    from tranquility_env.training.evaluate import evaluate

    team = evaluate(spec, task.config, games, first, workers)
    return {"win_rate": team.win_rate, "ci95": list(team.ci95), "mean_cards": team.mean_cards, "losses": team.losses}


def cpu_seconds() -> float:
    """CPU time used so far by this process (every thread) and its finished child processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def learning_curve(runs: Path) -> list[list[float]]:
    """A trainer's periodic evaluations (``eval/win_rate`` and ``eval/cards_on_mountain`` in its
    TensorBoard logs under ``runs``, a resumed run's included) as [env steps, wall-clock minutes
    from the first log's start, win rate, cards on the mountain] rows; none for a fixed bot or a
    method that logs none. Kept in the cell's result, so the curves need no logs."""
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
        tags = charts.Tags()["scalars"]
        if "eval/win_rate" in tags:
            cards = {p.step: p.value for p in charts.Scalars(CARDS_TAG)} if CARDS_TAG in tags else {}
            for p in charts.Scalars("eval/win_rate"):
                points[p.step] = [p.step, round((p.wall_time - start) / 60, 3), p.value, cards.get(p.step, math.nan)]
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
    tier: str = "quick",
) -> list[dict]:
    """The whole protocol at one tier of ``TIERS`` (times ``scale``); returns the summary rows.
    ``teamwork_games`` > 0 adds the ad-hoc and cross-play evaluation (``teamwork``) on that many deals."""
    if tier not in TIERS:
        raise ValueError(f"--tier must be one of {', '.join(TIERS)}, got {tier!r}")
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
    check_run_dir(out, chosen, tier)
    results, teams = [], []
    for task in chosen:
        for algo in algos:
            if not algo.fits(task):
                print(f"{task.name} {algo.name}: not run ({algo.about})", flush=True)
                continue
            budget = max(1, round(TIERS[tier] * scale)) if algo.learns else 0
            deals = min(games, algo.games) if algo.games else games
            cells = []
            for seed in range(seeds):
                folder = out / task.name / algo.name.replace(":", "_") / f"seed_{seed}"
                same = cells[0] if cells and not algo.learns else None  # a fixed bot: seeds play alike
                step_zero = cells[0]["start"] if cells else None
                cells.append(run_cell(task, algo, seed, budget, deals, folder, workers, same, step_zero))
                print(f"{task.name} {algo.name} seed {seed}: {cells[-1]['win_rate']:.1%}", flush=True)
            results += cells
            partnered = teamwork_games and not algo.limit  # a limit is never a partner
            if partnered and (team := teamwork(task, algo.name, cells, teamwork_games, out, workers)):
                teams.append(team)
    rows = summarise(results)
    write_tables(out, results, rows, teams, protocol=PROTOCOL_VERSION, tier=tier)
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
    parser.add_argument(
        "--tier",
        choices=list(TIERS),
        default="quick",
        help="every learner's budget: " + ", ".join(f"{k} {v:,} env steps" for k, v in TIERS.items()),
    )
    parser.add_argument("--seeds", type=int, default=3, help="seeds per algorithm and task (default 3)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the tier's budget (default 1)")
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
            args.tier,
        )
    except ValueError as err:
        parser.error(str(err))


if __name__ == "__main__":
    main()
