"""What every trainer shares: the run config (a dataclass read from YAML and ``key=value``
overrides, checked key by key, the game's table among them as a ``Config``), exporting an actor
as a bot checkpoint, and the final table."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import yaml

from tranquility_env import Config, checkpoint
from tranquility_env.bots import make_bot
from tranquility_env.tasks import EVALUATION_DEALS, EVALUATION_GAMES, TUNING_DEALS

__all__ = [
    "RunConfig",
    "TableConfig",
    "check_fields",
    "check_resume",
    "evaluate_checkpoint",
    "export_actor",
    "final_table",
    "legal_head_logits",
    "load_config",
    "log_evaluation",
    "run_trainer",
    "run_values",
    "save_actor",
    "save_config",
    "torch_activation",
    "trainer_parser",
    "weight_pairs",
]

C = TypeVar("C", bound="TableConfig")


class TableConfig:
    """A run config whose ``config`` field is the game's table (``RunConfig``, the distillation's):
    its player count, and ``make`` from keyword values with the table's fields among them."""

    config: Config

    @property
    def players(self) -> int:
        return self.config.players

    @classmethod
    def make(cls: type[C], **values: Any) -> C:
        """A config from keyword values, the table's fields among them (``make(players=2, hidden=[64])``)."""
        return cls(**run_values(cls, values))


@dataclass
class RunConfig(TableConfig):
    run: str = ""  # names runs/<run>/ and checkpoints/<run>/; empty: p<players> and the trainer's RUN_SUFFIX
    config: Config = field(default_factory=Config)  # the table: any Config field (players=4 hand_size=4 ...)
    teammates: dict[int, str] = field(default_factory=dict)  # seat -> a bot name (bots.make_bot)
    reward_shaping: float = 1.0  # see TeamEnv: a full mountain is worth this much on top of a win
    hidden: list[int] = field(default_factory=lambda: [128, 64])  # the actor; small: shipped bots stay a few MB
    activation: str = "tanh"  # between the hidden layers: "tanh" or "relu" (checkpoint.ACTIVATIONS)
    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    total_steps: int = 450_000
    seed: int = 0
    checkpoint_every: int = 100_000
    eval_every: int = 100_000
    eval_games: int = 100
    final_eval_games: int = EVALUATION_GAMES  # the closing table: the evaluation deals from the first; 0: none
    checkpoints_dir: str = "checkpoints"
    logs_dir: str = "runs"

    AT_LEAST_ONE = ("total_steps", "checkpoint_every", "eval_every", "eval_games")
    AT_LEAST_ZERO = ("final_eval_games",)
    RUN_SUFFIX = ""

    def __post_init__(self) -> None:
        check_fields(self)
        self.run = self.run or f"p{self.players}{self.RUN_SUFFIX}"
        if self.activation not in checkpoint.ACTIVATIONS:
            raise ValueError(
                f"train config 'activation' must be one of {sorted(checkpoint.ACTIVATIONS)}, got {self.activation!r}"
            )
        for seat, spec in self.teammates.items():
            if not 0 <= seat < self.players:
                raise ValueError(f"train config 'teammates': seat {seat} is not a seat of {self.players} players")
            make_bot(spec, table=self.config)  # validates the name; a policy must fit this table
        if len(self.teammates) >= self.players:
            raise ValueError("train config 'teammates' fills every seat: the policy would never play")


def torch_activation(name: str) -> Any:
    """The torch module class of an ``activation`` name."""
    import torch

    return {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[name]


def legal_head_logits(head: Any, x: Any, legal: Any, valid: Any) -> Any:
    """The logits of an action head (a torch ``Linear`` over every action) at each row's legal ids
    ``legal[i, :]`` only, from the last hidden layer's rows ``x``; padding (not ``valid``) at -1e8.
    A few dozen of the head's 3,962 rows a decision, each against its own row of ``x``."""
    head_rows = head.weight.index_select(0, legal.flatten()).view(*legal.shape, -1)  # (batch, legal, hidden)
    logits = (head_rows * x[:, None, :]).sum(2) + head.bias[legal]  # a batched matmul is slower
    return logits.masked_fill(~valid, -1e8)


def check_fields(cfg: Any) -> None:
    """Every field of a config dataclass has its annotated type, those named in its
    ``AT_LEAST_ONE`` are at least 1 and those in its ``AT_LEAST_ZERO`` (if it has one) at least 0."""
    for f in dataclasses.fields(cfg):
        check_type(f.name, getattr(cfg, f.name), f.type)
    for name in cfg.AT_LEAST_ONE:
        if getattr(cfg, name) < 1:
            raise ValueError(f"train config {name!r} must be at least 1")
    for name in getattr(cfg, "AT_LEAST_ZERO", ()):
        if getattr(cfg, name) < 0:
            raise ValueError(f"train config {name!r} must be >= 0")


def check_type(name: str, value: Any, annotation: str) -> None:
    kinds = {"int": int, "float": (int, float), "bool": bool, "str": str, "Config": Config}
    ok = {
        "list[int]": isinstance(value, list) and all(type(v) is int for v in value),
        "dict[int, str]": isinstance(value, dict)
        and all(type(k) is int and isinstance(v, str) for k, v in value.items()),
    }.get(annotation)
    if ok is None:
        expected = kinds[annotation]
        ok = isinstance(value, expected) and (annotation == "bool" or not isinstance(value, bool))
    if not ok:
        raise ValueError(f"train config {name!r} must be {annotation}, got {value!r}")


def load_config(cls: type[C], path: str | None, overrides: list[str]) -> C:
    """The embedded default, then the YAML file, then ``key=value`` overrides; unknown keys fail.
    The table is the YAML's ``config:`` mapping, and any field of ``Config`` given as a key of its
    own (``players=4``, ``hand_size: 4``) goes into it."""
    values: dict[str, Any] = {}
    if path:
        loaded = yaml.safe_load(Path(path).read_text())
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: a train config must be a YAML mapping")
        values.update(loaded)
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"override {item!r} must be key=value")
        values[key] = yaml.safe_load(text)
    return cls.make(**values)


def run_values(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the table gathered into one ``Config``, checked by ``Config.from_dict``."""
    values = dict(values)
    table = values.pop("config", None) or {}
    table = table.to_dict() if isinstance(table, Config) else table
    if not isinstance(table, dict):
        raise ValueError(f"train config 'config' must be a mapping of game fields ({', '.join(Config.fields())})")
    table = {**table, **{key: values.pop(key) for key in list(values) if key in Config.fields()}}
    allowed = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in values if k not in allowed]
    if unknown:
        raise ValueError(
            f"unknown train config key {unknown[0]!r}; allowed: {', '.join(allowed)}, "
            f"and the game's fields {', '.join(Config.fields())}"
        )
    try:
        values["config"] = Config.from_dict(table)
    except (ValueError, TypeError) as err:
        raise ValueError(f"train config 'config': {err}") from None
    return values


def save_config(cfg: RunConfig, run_dir: Path) -> None:
    """The run's config beside its checkpoints, so that a resume can be checked against it."""
    (run_dir / "train_config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))


def check_resume(cfg: Any, run_dir: Path, grows: tuple[str, ...] = ("total_steps", "max_minutes")) -> None:
    """A resumed run must have the config it was started with (a config dataclass; its fields
    ``grows`` may differ: a run goes on for longer)."""
    saved = run_dir / "train_config.yaml"
    if not saved.is_file():
        raise ValueError(f"--resume: {saved} is missing: there is no run to go on with")
    before = {k: v for k, v in run_values(type(cfg), yaml.safe_load(saved.read_text())).items() if k not in grows}
    now = {k: v for k, v in dataclasses.asdict(cfg).items() if k not in grows}
    before["config"] = before["config"].to_dict()
    if before != now:
        changed = sorted(k for k in now if before.get(k) != now[k])
        raise ValueError(f"--resume: the config differs from the run's {saved} in {changed}")


def team_spec(cfg: RunConfig, policy: str) -> str:
    """A team for evaluation: ``policy`` (a bot name) in the policy seats, the teammates in theirs."""
    if not cfg.teammates:
        return policy
    return ",".join(cfg.teammates.get(s, policy) for s in range(cfg.players))


def export_actor(linears: list[Any], head: Any, cfg: RunConfig, folder: Path, steps: int, trainer: str) -> Path:
    """torch ``Linear`` layers (``cfg.activation`` between them) and the action head, as a bot checkpoint."""
    return save_actor(
        linears,
        head,
        folder,
        cfg.config,
        cfg.hidden,
        cfg.activation,
        steps,
        trainer,
        {str(k): v for k, v in cfg.teammates.items()},
    )


def weight_pairs(linears: list[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) of each torch ``Linear`` as numpy arrays: views of them on the CPU,
    copies from a GPU."""
    return [(linear.weight.detach().cpu().numpy(), linear.bias.detach().cpu().numpy()) for linear in linears]


def save_actor(
    linears: list[Any],
    head: Any,
    folder: Path,
    config: Config,
    hidden: list[int],
    activation: str,
    steps: int,
    trainer: str,
    teammates: dict[str, str] | None = None,
) -> Path:
    """torch ``Linear`` layers and the action head, as a bot checkpoint of that table and network."""
    *layers, (head_weight, head_bias) = weight_pairs([*linears, head])
    tensors = {"head.weight": head_weight, "head.bias": head_bias}
    for i, (weight, bias) in enumerate(layers):
        tensors[f"layers.{i}.weight"], tensors[f"layers.{i}.bias"] = weight, bias
    return checkpoint.save(
        folder,
        tensors,
        config,
        hidden,
        activation,
        trainer=trainer,
        steps=int(steps),
        teammates=teammates or {},
        made_by="tranquility " + " ".join(sys.argv[1:]),
    )


def evaluate_checkpoint(cfg: RunConfig, folder: Path) -> Any:
    """The periodic evaluation during training: ``eval_games`` deals apart from the final ones."""
    from tranquility_env.training.evaluate import evaluate

    return evaluate(team_spec(cfg, f"policy:{folder}"), cfg.config, cfg.eval_games, seed=TUNING_DEALS)


def log_evaluation(cfg: RunConfig, folder: Path, writer: Any, step: int) -> None:
    """``evaluate_checkpoint`` of ``folder``, as ``eval/win_rate`` and ``eval/cards_on_mountain``."""
    result = evaluate_checkpoint(cfg, folder)
    writer.add_scalar("eval/win_rate", result.win_rate, step)
    writer.add_scalar("eval/cards_on_mountain", result.mean_cards, step)


def final_table(cfg: RunConfig, final: Path) -> None:
    """The trained team beside the heuristic and random teams, on the same deals (none if
    ``final_eval_games`` is 0: a step of a longer recipe)."""
    if not cfg.final_eval_games:
        return
    from tranquility_env.training.evaluate import evaluate, markdown

    config = cfg.config
    teams = [team_spec(cfg, f"policy:{final}"), team_spec(cfg, "heuristic"), team_spec(cfg, "random")]
    workers = os.cpu_count() or 1
    print(markdown([evaluate(spec, config, cfg.final_eval_games, EVALUATION_DEALS, workers) for spec in teams], config))


def trainer_parser(prog: str, doc: str, resume_file: str | None = None) -> argparse.ArgumentParser:
    """The command line every trainer shares: ``--config``, ``--resume`` and ``key=value`` overrides."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("--config", help="a YAML file under configs/ (default: the embedded default config)")
    if resume_file:
        parser.add_argument(
            "--resume", action="store_true", help=f"continue the run from checkpoints/<run>/{resume_file}"
        )
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    return parser


def run_trainer(
    parser: argparse.ArgumentParser, config: str | None, overrides: list[str], cls: type[C], train: Callable[[C], Path]
) -> None:
    """Load the config and train; a bad config, file or resume is a clean command-line error."""
    try:
        final = train(load_config(cls, config, overrides))
    except (ValueError, OSError, yaml.YAMLError) as err:
        parser.error(str(err))
    print(f"\nbot checkpoint: {final}   (load it with PolicyBot.load or --team policy:{final})")
