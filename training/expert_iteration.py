"""Expert iteration: ``tranquility expert-iteration [--config FILE] [key=value ...]``.

A search that plays better than the policy labels decisions, the policy learns the labels, and
the stronger policy makes the next search stronger (ExIt, Anthony et al., 2017; the policy
target of AlphaZero). Each iteration ``i``:

1. **The expert plays.** ``games`` deals (seeds ``first_seed + i * games`` on; apart from the
   tuning deals 500,000+ and the evaluation deals 1,000,000+), every seat the current policy
   with its own search at every decision (``policy+expert``: ``EarlySearch`` with this run's
   ``candidates``, ``rollouts`` and ``margin`` before the end game, the end-game search of
   ``policy+own-search`` after). The hidden cards of each rollout come from the project's one
   sampler (``views.sample_hidden``), so the expert never peeks. Every decision with more than
   one legal move is kept with the candidates' mean rollout scores and the expert's choice, in
   ``<logs_dir>/<run>/iter_<i>/decisions.npz`` (reused by a resumed run).
2. **The apprentice learns.** From the current weights, ``distill.fit`` on the decisions of the
   last ``buffer`` iterations (a replay buffer across iterations): cross-entropy to the
   expert's choices (``temperature`` 0) or to the starting policy's odds shifted by the
   candidates' scores (``temperature`` > 0, ``distill.targets``); with ``labels=departures``
   only where the expert left the policy's move, the other decisions anchors (``anchor_weight``
   times the KL divergence from the starting policy). The last ``valid_games`` deals
   of each iteration are held out; the agreement of the policy with the expert there before the
   fit is logged (``charts/agreement_before_fit``).
3. **Measured.** ``checkpoints/<run>/iter_<i>`` (the bot format), the apprentice alone on
   ``eval_games`` tuning deals, one line of ``checkpoints/<run>/iterations.jsonl``, and
   TensorBoard ``charts/*``: the expert's and the apprentice's win rates and cards.

``checkpoints/<run>/final`` is the last iteration's bot. A run stopped between iterations goes on
with ``--resume`` from the last one finished (each iteration starts from the weights its
checkpoint stores, resumed or not); without ``--resume`` a run starts over. It starts from
``init_actor`` (the shipped bot of the table when there is one) or, given ``hidden`` and no
``init_actor``, from a fresh network: any ``Config`` is a table it can train for.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

from tranquility_env import Config, checkpoint
from tranquility_env.bots import SHIPPED_BOTS, EarlySearch, HeuristicBot, PolicyWithSearchBot, load_policy, shipped_bot
from tranquility_env.tasks import TUNING_DEALS
from tranquility_env.training.common import (
    TableConfig,
    check_fields,
    check_resume,
    run_trainer,
    save_actor,
    save_config,
    trainer_parser,
)
from tranquility_env.training.distill import agreement, collect, fit
from tranquility_env.training.evaluate import evaluate
from tranquility_env.training.mappo import Actor

__all__ = ["ExpertIterationConfig", "expert_iteration", "expert_team", "labelled", "main"]

LABELS = ("all", "departures")
CHARTS = ("expert_win_rate", "expert_cards", "agreement_before_fit", "apprentice_win_rate", "apprentice_cards")


@dataclass
class ExpertIterationConfig(TableConfig):
    config: Config = field(default_factory=Config)  # the table (any Config field)
    run: str = ""  # names checkpoints/<run>/ and <logs_dir>/<run>/; empty: p<players>_exit
    init_actor: str = ""  # the policy to start from; empty: the table's shipped bot, else a fresh one
    hidden: list[int] = field(default_factory=lambda: [256, 64])  # a fresh network's layers (no init_actor)
    activation: str = "relu"  # a fresh network's activation
    iterations: int = 10
    games: int = 200  # deals the expert plays per iteration
    first_seed: int = 3_000_000
    valid_games: int = 16  # the last deals of each iteration, held out from the fit
    buffer: int = 3  # iterations whose decisions each fit reads (the last ones)
    candidates: int = 4  # the expert's search before the end game: EarlySearch
    rollouts: int = 16
    margin: float = 3.0
    workers: int = 2  # processes that play the deals
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-5  # chosen on tuning deals: docs/training.md
    anchor_weight: float = 0.0  # KL to the starting policy on the decisions not labelled (labels=departures)
    temperature: float = 0.0  # of the candidates' scores; 0: the expert's choice
    augment: bool = False  # fit each decision under a colour symmetry of the table drawn afresh (symmetry.py)
    labels: str = "all"  # or "departures": only where the expert left the policy's move, the rest anchors
    eval_games: int = 500  # tuning deals (seeds 500,000+) per iteration
    seed: int = 0
    checkpoints_dir: str = "checkpoints"
    logs_dir: str = "runs"

    AT_LEAST_ONE = ("iterations", "games", "buffer", "rollouts", "workers", "epochs", "batch_size", "eval_games")

    def __post_init__(self) -> None:
        check_fields(self)
        self.run = self.run or f"p{self.players}_exit"
        shipped = self.config == Config(players=self.players) and self.players in SHIPPED_BOTS
        self.init_actor = self.init_actor or (shipped_bot(self.players) if shipped else "")
        try:
            EarlySearch(self.candidates, self.rollouts, self.margin)
        except ValueError as err:
            raise ValueError(f"train config 'candidates', 'rollouts', 'margin': {err}") from None
        if not 1 <= self.valid_games < self.games:
            raise ValueError(f"train config 'valid_games' must be at least 1 and below 'games' ({self.games})")
        if self.labels not in LABELS:
            raise ValueError(f"train config 'labels' must be one of {list(LABELS)}, got {self.labels!r}")
        if self.anchor_weight < 0 or self.temperature < 0 or self.learning_rate <= 0:
            raise ValueError(
                "train config 'anchor_weight' and 'temperature' must be at least 0, 'learning_rate' above 0"
            )
        if self.activation not in checkpoint.ACTIVATIONS:
            raise ValueError(
                f"train config 'activation' must be one of {sorted(checkpoint.ACTIVATIONS)}, got {self.activation!r}"
            )
        if self.init_actor:  # read here: a missing, damaged or mismatched one fails before any game
            table = load_policy(self.init_actor).config
            if table != self.config:
                raise ValueError(
                    f"train config 'init_actor' {self.init_actor} was made for {table.to_dict()}, "
                    f"not this run's table {self.config.to_dict()}"
                )

    @property
    def early(self) -> EarlySearch:
        """The expert's search before the end game."""
        return EarlySearch(self.candidates, self.rollouts, self.margin)


def expert_team(policy: str, early: EarlySearch, config: Config, seed: int = 0) -> list[PolicyWithSearchBot]:
    """The expert in every seat of ``config``'s table: the policy at ``policy`` with its own
    search at every decision, seeded as ``evaluate.seat_team`` seeds its bots."""
    return [
        PolicyWithSearchBot(load_policy(policy, seed + s), HeuristicBot(seed=seed + s), own_search=True, early=early)
        for s in range(config.players)
    ]


def starting_actor(cfg: ExpertIterationConfig) -> tuple[Actor, list[int], str]:
    """The network of iteration 0, its hidden layers and activation."""
    if not cfg.init_actor:
        return Actor(cfg.hidden, cfg.activation), cfg.hidden, cfg.activation
    about, layers, head = checkpoint.load(cfg.init_actor)
    actor = Actor(about["hidden"], about["activation"])
    actor.load_pairs([*layers, head])
    return actor, about["hidden"], about["activation"]


def expert_iteration(cfg: ExpertIterationConfig, resume: bool = False) -> Path:
    torch.manual_seed(cfg.seed)
    run_dir, logs = Path(cfg.checkpoints_dir) / cfg.run, Path(cfg.logs_dir) / cfg.run
    record = run_dir / "iterations.jsonl"
    if resume:
        check_resume(cfg, run_dir, grows=("iterations",))
    run_dir.mkdir(parents=True, exist_ok=True)
    done = [json.loads(line) for line in record.read_text().splitlines()] if resume and record.is_file() else []
    if not resume:
        record.unlink(missing_ok=True)
    save_config(cfg, run_dir)  # type: ignore[arg-type]  # any config dataclass
    actor, hidden, activation = starting_actor(cfg)
    current = cfg.init_actor
    if done:
        current = str(run_dir / f"iter_{len(done) - 1}")
        _, layers, head = checkpoint.load(current)
        actor.load_pairs([*layers, head])
    elif not current:  # a fresh network: its weights as a bot, for the first expert to play
        current = str(export(actor, hidden, activation, run_dir / "start", cfg, "a fresh network"))
    writer = SummaryWriter(logs)
    for i in range(len(done), cfg.iterations):
        started = time.time()
        about = checkpoint.load(current)[0]
        first = cfg.first_seed + i * cfg.games
        end_game = HeuristicBot()  # the end-game search's settings, as expert_team makes it
        settings = {
            "policy": about["weights_sha256"],
            "early": dataclasses.asdict(cfg.early),
            "end_game": [end_game.candidates, *(end_game.setting(k, cfg.players) for k in ("search_from", "rollouts"))],
            "first": first,
        }
        data = collect(
            functools.partial(expert_team, current, cfg.early),
            f"expert {i}",
            cfg.config,
            range(first, first + cfg.games),
            cfg.workers,
            logs / f"iter_{i}" / "decisions.npz",
            settings | {"games": cfg.games, "config": cfg.config.to_dict()},
        )
        collected = time.time() - started
        buffer = [data] + [read(logs / f"iter_{j}" / "decisions.npz") for j in range(max(0, i - cfg.buffer + 1), i)]
        held_out = np.concatenate([d["deal"] >= cfg.games - cfg.valid_games for d in buffer])
        merged = {k: np.concatenate([d[k] for d in buffer]) for k in ("obs", "masks", "chosen", "candidates", "scores")}
        merged["searched"] = labelled(merged, cfg.labels)
        agree = agreement(actor, data, np.flatnonzero(held_out[: len(data["chosen"])]))  # this iteration's first
        fit(cfg, actor, merged, held_out, writer, step=i * (cfg.epochs + 1))
        current = str(export(actor, hidden, activation, run_dir / f"iter_{i}", cfg, f"expert iteration {i}"))
        _, layers, head = checkpoint.load(current)  # go on from the stored weights, as a resumed run does
        actor.load_pairs([*layers, head])
        result = evaluate(f"policy:{current}", cfg.config, cfg.eval_games, TUNING_DEALS, cfg.workers)
        line = {
            "iteration": i,
            "decisions": len(data["chosen"]),
            "expert_win_rate": float(data["won"].mean()),
            "expert_cards": float(data["cards"].mean()),
            "agreement_before_fit": agree,
            "apprentice_win_rate": result.win_rate,
            "apprentice_cards": result.mean_cards,
            "eval_games": cfg.eval_games,
            "collect_s": round(collected),
            "total_s": round(time.time() - started),
        }
        for name in CHARTS:
            writer.add_scalar(f"charts/{name}", line[name], i)
        if collected >= 1:  # not read back from an earlier run's file
            writer.add_scalar("charts/decisions_per_hour", line["decisions"] * 3600 / collected, i)
        with record.open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(
            f"iteration {i}: the expert won {line['expert_win_rate']:.1%} of {cfg.games} deals "
            f"({line['decisions']} decisions in {collected:.0f} s); the apprentice alone "
            f"{result.win_rate:.1%}, {result.mean_cards:.1f} cards on {cfg.eval_games} tuning deals"
        )
    writer.close()
    return replace_folder(Path(current), run_dir / "final")


def replace_folder(source: Path, target: Path) -> Path:
    """``target`` made a copy of ``source``: copied beside it, then renamed into place, so that a
    kill leaves the old copy or the new one whole."""
    new, old = target.with_name(f".{target.name}.new"), target.with_name(f".{target.name}.old")
    for leftover in (new, old):
        shutil.rmtree(leftover, ignore_errors=True)
    shutil.copytree(source, new)
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return target


def labelled(data: dict[str, np.ndarray], labels: str) -> np.ndarray:
    """The decisions ``fit`` labels (the others are its anchors): every one, or with
    ``departures`` those where the expert's move is not the policy's likeliest (its first
    candidate)."""
    if labels == "all":
        return np.ones(len(data["chosen"]), dtype=bool)
    return data["chosen"] != data["candidates"][:, 0]


def read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as saved:
        return {k: saved[k] for k in saved.files}


def export(
    actor: Actor, hidden: list[int], activation: str, folder: Path, cfg: ExpertIterationConfig, what: str
) -> Path:
    return save_actor(
        list(actor.body[::2]),
        actor.head,
        folder,
        cfg.config,
        hidden,
        activation,
        0,
        f"{what} of tranquility expert-iteration (run {cfg.run}, from {cfg.init_actor or 'a fresh network'})",
    )


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility expert-iteration", __doc__, resume_file="iterations.jsonl")
    args = parser.parse_intermixed_args(argv)
    run_trainer(
        parser,
        args.config,
        args.overrides,
        ExpertIterationConfig,
        functools.partial(expert_iteration, resume=args.resume),
    )


if __name__ == "__main__":
    main()
