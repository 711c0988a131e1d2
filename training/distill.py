"""Search distillation: ``tranquility distill [--config FILE] [key=value ...]``.

One step of expert iteration (as in AlphaZero's policy target, or ExIt, Anthony et al., 2017):
a learned bot with an end-game search plays, and the bot alone is then fitted to the search's
choices, so that it plays its own end game better without the search.

1. **Collect.** ``games`` deals (seeds ``first_seed``, ...; apart from the tuning deals 500,000+
   and the evaluation deals 1,000,000+), every seat ``policy+<teacher>:<init_actor>``, seeded as
   ``tranquility evaluate`` seeds its bots. Every decision with more than one legal action is
   kept: the searched ones (from the search's ``search_from`` cards on) with every candidate's
   mean rollout score and the search's choice, the others as anchors. Kept in
   ``<logs_dir>/<run>/decisions.npz`` and reused by a rerun with the same ``teacher``,
   ``games``, ``first_seed`` and starting weights (collecting is most of the time).
2. **Fit.** From ``init_actor``'s weights: cross-entropy on ``targets`` over the search's
   candidates (the starting policy's odds times exp(score / ``temperature``): rollouts' scores
   of near-equal moves are mostly noise, and fitting the search's bare choice alone did worse,
   see ``docs/training.md``), plus ``anchor_weight`` times the KL divergence from the starting
   policy on the anchors, so that the policy keeps the opening and middle game it learned with
   RL. The last ``valid_games`` deals are held out; each epoch prints how often the policy's
   own choice is the search's there (``distill/agreement``) and is the starting policy's on
   the anchors.
3. **Export and measure.** ``checkpoints/<run>/final`` (the bot format), then the new and the
   starting policy alone on ``eval_games`` tuning deals (seeds 500,000+), one table.

``teacher`` is ``own-search`` (the policy's own candidates and rollouts: no hand-written move
enters) or ``search`` (the heuristic's search, ``policy+search``). The hidden layers and activation
are the starting checkpoint's; it starts from the shipped bot of ``players`` unless told otherwise.
"""

from __future__ import annotations

import copy
import functools
import json
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from tranquility_env import Config, Game, checkpoint, encoding, symmetry
from tranquility_env.bots import SHIPPED_BOTS, shipped_bot
from tranquility_env.rules import actions
from tranquility_env.rules.game import ONGOING
from tranquility_env.training.common import (
    TableConfig,
    check_fields,
    run_trainer,
    save_actor,
    save_config,
    trainer_parser,
)
from tranquility_env.training.evaluate import evaluate, imap_jobs, markdown, seat_team
from tranquility_env.training.mappo import Actor
from tranquility_env.views import LazySeatView

__all__ = [
    "MAX_CANDIDATES",
    "DistillConfig",
    "FitSettings",
    "agreement",
    "collect",
    "fit",
    "likeliest",
    "main",
    "relabelled",
    "targets",
]

TEACHERS = ("own-search", "search")
MAX_CANDIDATES = 16  # candidates kept of a search (the heuristic's default: 6)


class FitSettings(Protocol):
    """What ``fit`` reads of a run's config (``DistillConfig``, ``ExpertIterationConfig``)."""

    epochs: int
    batch_size: int
    learning_rate: float
    anchor_weight: float
    temperature: float
    augment: bool
    seed: int
    config: Config


@dataclass
class DistillConfig(TableConfig):
    config: Config = field(default_factory=Config)  # the table (any Config field); init_actor must be made for it
    run: str = ""  # names checkpoints/<run>/ and <logs_dir>/<run>/; empty: p<players>_distill
    init_actor: str = ""  # the policy that plays, searches and is fitted; empty: the shipped bot
    teacher: str = "own-search"  # or "search": see the module docstring
    games: int = 320  # deals the policy with its search plays
    first_seed: int = 2_000_000
    workers: int = 2  # processes that play the deals
    valid_games: int = 32  # the last deals, held out from the fit
    epochs: int = 8
    batch_size: int = 256
    learning_rate: float = 1e-4
    anchor_weight: float = 1.0
    temperature: float = 0.1  # of the search's scores (cards + 10 a win); 0: the search's choice alone
    augment: bool = False  # fit each decision under a colour symmetry of the table drawn afresh (symmetry.py)
    eval_games: int = 600  # tuning deals (seeds 500,000+) for the table at the end
    seed: int = 0
    checkpoints_dir: str = "checkpoints"
    logs_dir: str = "runs"

    AT_LEAST_ONE = ("games", "workers", "epochs", "batch_size", "eval_games")
    COLLECTION = ("teacher", "games", "first_seed")  # with the starting weights, what the decisions depend on

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.init_actor and (self.config != Config(players=self.players) or self.players not in SHIPPED_BOTS):
            raise ValueError(
                f"train config 'init_actor' is needed: there is no shipped bot of {self.config.to_dict()} to start from"
            )
        self.run = self.run or f"p{self.players}_distill"
        self.init_actor = self.init_actor or shipped_bot(self.players)
        if self.teacher not in TEACHERS:
            raise ValueError(f"train config 'teacher' must be one of {list(TEACHERS)}, got {self.teacher!r}")
        if not 1 <= self.valid_games < self.games:
            raise ValueError(f"train config 'valid_games' must be at least 1 and below 'games' ({self.games})")
        if self.anchor_weight < 0 or self.temperature < 0 or self.learning_rate <= 0:
            raise ValueError(
                "train config 'anchor_weight' and 'temperature' must be at least 0, 'learning_rate' above 0"
            )
        # reading the starting checkpoint here: a missing, damaged or mismatched one fails before any game
        table = Config.from_dict(self.starting[0]["config"])
        if table != self.config:
            raise ValueError(
                f"train config 'init_actor' {self.init_actor} was made for {table.to_dict()}, "
                f"not this run's table {self.config.to_dict()}"
            )

    @functools.cached_property
    def starting(self) -> tuple[dict, list[tuple[np.ndarray, np.ndarray]]]:
        """``init_actor``'s description and its (weight, bias) pairs, hidden layers then head
        (read once: when the config is checked)."""
        about, layers, head = checkpoint.load(self.init_actor)
        return about, [*layers, head]


# ------------------------------------------------------------------------------ 1. collect
def deal_decisions(job: tuple[Callable[..., list[Any]], Config, int]) -> tuple[np.ndarray, ...]:
    """(observations as float16, masks packed to bits, actions, searched?, candidates, their mean
    rollout scores, won?, cards on the mountain) of every decision with more than one legal
    action in one deal played by the team ``make_team(config, seed=deal * 8)``, seeded as
    ``tranquility evaluate`` seeds its bots. Candidates and scores are padded with -1 and 0 to
    ``MAX_CANDIDATES``."""
    make_team, config, deal = job
    game = Game.new(config, deal)
    bots = make_team(config, seed=deal * 8)
    obs, masks, chosen, searched, candidates, scores = [], [], [], [], [], []
    while game.status == ONGOING:
        seat = game.current
        o, m, view = encoding.observation(game, seat), encoding.action_mask(game, seat), LazySeatView(game, seat)
        action = bots[seat].act(o, m, view)
        if m.sum() > 1:
            obs.append(o.astype(np.float16))
            masks.append(np.packbits(m))
            chosen.append(action)
            searched.append(bots[seat].searching(view))
            found = list(bots[seat].last_search.items())[:MAX_CANDIDATES]
            pad = MAX_CANDIDATES - len(found)
            candidates.append([a for a, _ in found] + [-1] * pad)
            scores.append([v for _, v in found] + [0.0] * pad)
        game.apply_action(action)
    return (
        np.array(obs),
        np.array(masks),
        np.array(chosen),
        np.array(searched),
        np.array(candidates, dtype=np.int16),
        np.array(scores, dtype=np.float32),
        game.status == "won",
        game.cards_on_mountain(),
    )


def collect(
    make_team: Callable[..., list[Any]],
    name: str,
    config: Config,
    deals: range,
    workers: int,
    path: Path,
    settings: dict[str, Any],
) -> dict[str, np.ndarray]:
    """The decisions (``deal_decisions``) of the team ``make_team`` (called ``name`` in the
    progress bar) on ``deals`` at the table ``config``; from ``path`` if it holds those of the
    same ``settings`` (whatever the decisions depend on: the team, its weights' hash, the deals),
    else collected and written there whole. ``deal`` numbers each decision's deal from 0, ``won``
    and ``cards`` each deal's outcome."""
    meta = json.dumps(settings, sort_keys=True)
    if path.is_file():
        try:
            with np.load(path) as saved:
                if str(saved["meta"]) == meta:
                    print(f"reusing the decisions in {path}")
                    return {k: saved[k] for k in saved.files}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:  # damaged: it is only a cache
            print(f"{path} is unreadable ({err}); collecting the decisions anew")
    jobs = [(make_team, config, deal) for deal in deals]
    played = imap_jobs(deal_decisions, jobs, workers)
    parts = list(tqdm(played, total=len(jobs), desc=f"collect {name}", unit="deal", disable=None))
    names = ("obs", "masks", "chosen", "searched", "candidates", "scores")
    data = {name: np.concatenate([p[i] for p in parts]) for i, name in enumerate(names)}
    data["deal"] = np.concatenate([np.full(len(p[2]), i) for i, p in enumerate(parts)])
    data["won"] = np.array([p[-2] for p in parts])
    data["cards"] = np.array([p[-1] for p in parts])
    data["meta"] = np.array(meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".tmp.npz"), "wb") as f:  # written whole, then renamed: never half a file
        np.savez(f, **data)
    path.with_suffix(".tmp.npz").replace(path)
    return data


# ------------------------------------------------------------------------------ 2. fit
def batch(data: dict[str, np.ndarray], idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mask = np.unpackbits(data["masks"][idx], axis=1, count=actions.N_ACTIONS).astype(bool)  # drop the padding
    obs = torch.as_tensor(data["obs"][idx], dtype=torch.float32)
    return obs, torch.as_tensor(mask), torch.as_tensor(data["chosen"][idx], dtype=torch.int64)


def relabelled(
    data: dict[str, np.ndarray], idx: np.ndarray, symmetries: tuple, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The decisions ``idx`` (indexed from 0), each seen under a colour symmetry drawn from
    ``symmetries``: observations, masks, chosen moves and candidates relabelled alike, so the
    network learns the same play for every naming of the colours (data augmentation)."""
    part = {k: data[k][idx] for k in ("obs", "masks", "chosen", "candidates", "scores")}
    drawn = rng.integers(len(symmetries), size=len(idx))
    for j in np.unique(drawn):
        sigma, rows = symmetries[j], drawn == j
        if sigma == symmetry.IDENTITY:
            continue
        mask = np.unpackbits(part["masks"][rows], axis=1, count=actions.N_ACTIONS)
        part["masks"][rows] = np.packbits(mask[:, symmetry.action_index(sigma)], axis=1)
        part["obs"][rows] = part["obs"][rows][:, symmetry.observation_index(sigma)]
        image = symmetry.action_image(sigma)
        part["chosen"][rows] = image[part["chosen"][rows]]
        ids = part["candidates"][rows]
        part["candidates"][rows] = np.where(ids >= 0, image[np.maximum(ids, 0)], -1)
    return part


def targets(
    data: dict[str, np.ndarray], idx: np.ndarray, temperature: float, prior: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(action ids, weights), a row per decision: the search's candidates weighted by
    prior(a) x exp(score(a) / ``temperature``), ``prior`` being the starting policy's log-
    probabilities (a row per decision, every action). A KL-regularised policy improvement step,
    as in MPO: the starting policy's odds, shifted toward the moves the rollouts scored higher;
    moves that scored the same keep their odds, so the rollouts' noise among near-equal moves
    moves the policy little. With ``temperature`` 0, or no scores, the chosen move alone."""
    ids = data["candidates"][idx].astype(np.int64)
    hard = ~(ids >= 0).any(1) | (temperature == 0)
    ids[hard] = -1
    ids[hard, 0] = data["chosen"][idx][hard]
    valid = torch.as_tensor(ids >= 0)
    ids = torch.as_tensor(np.maximum(ids, 0))
    gain = np.where(hard[:, None], 0.0, data["scores"][idx] / max(temperature, 1e-9))
    logits = (prior.gather(1, ids) + torch.as_tensor(gain, dtype=torch.float32)).masked_fill(~valid, -torch.inf)
    return ids, torch.softmax(logits, 1)


def likeliest(actor: Actor, data: dict[str, np.ndarray], idx: np.ndarray) -> np.ndarray:
    """``actor``'s likeliest legal action at each of the decisions ``idx``."""
    with torch.no_grad():
        parts = [actor(*batch(data, part)[:2]).argmax(1) for part in np.array_split(idx, max(1, len(idx) // 1024))]
    return torch.cat(parts).numpy()  # array_split gives at least one part, empty when idx is


def agreement(actor: Actor, data: dict[str, np.ndarray], idx: np.ndarray, labels: np.ndarray | None = None) -> float:
    """The share of decisions ``idx`` where ``actor``'s likeliest action is the one chosen (or,
    given ``labels``, a row per decision, the label)."""
    labels = data["chosen"][idx] if labels is None else labels
    return float((likeliest(actor, data, idx) == labels).sum()) / max(1, len(idx))


def fit(
    cfg: FitSettings,
    actor: Actor,
    data: dict[str, np.ndarray],
    held_out: np.ndarray,
    writer: SummaryWriter,
    step: int = 0,
) -> None:
    """Cross-entropy on the ``targets`` of the searched decisions plus ``anchor_weight`` x
    KL(start || actor) on the anchors, the decisions where ``held_out`` is true left out (and
    measured: ``distill/agreement``, logged at ``step`` + epoch)."""
    start = copy.deepcopy(actor).requires_grad_(False)
    labelled = np.flatnonzero(data["searched"] & ~held_out)
    anchors = np.flatnonzero(~data["searched"] & ~held_out)
    valid, valid_anchors = np.flatnonzero(data["searched"] & held_out), np.flatnonzero(~data["searched"] & held_out)
    print(
        f"{len(labelled)} searched decisions and {len(anchors)} anchors to fit; {len(valid)} and "
        f"{len(valid_anchors)} held out"
    )
    start_choices = likeliest(start, data, valid_anchors)  # what keeping the starting policy means there
    rng = np.random.default_rng(cfg.seed)
    symmetries = symmetry.colour_symmetries(cfg.config) if cfg.augment else (symmetry.IDENTITY,)

    def draw(idx: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        return (relabelled(data, idx, symmetries, rng), np.arange(len(idx))) if cfg.augment else (data, idx)

    optimizer = torch.optim.Adam(actor.parameters(), lr=cfg.learning_rate)

    def report(epoch: int) -> None:
        agree, keep = agreement(actor, data, valid), agreement(actor, data, valid_anchors, start_choices)
        writer.add_scalar("distill/agreement", agree, step + epoch)
        writer.add_scalar("distill/anchor_agreement", keep, step + epoch)
        print(
            f"epoch {epoch}/{cfg.epochs}: held out, the search's choice {agree:.1%}, "
            f"the starting policy's on the anchors {keep:.1%}"
        )

    report(0)
    for epoch in range(1, cfg.epochs + 1):
        for chunk in np.array_split(rng.permutation(labelled), max(1, len(labelled) // cfg.batch_size)):
            part, idx = draw(chunk)
            obs, mask, _ = batch(part, idx)
            with torch.no_grad():
                ids, weights = targets(part, idx, cfg.temperature, torch.log_softmax(start(obs, mask), 1))
            loss = -(weights * torch.log_softmax(actor(obs, mask), 1).gather(1, ids)).sum(1).mean()
            if cfg.anchor_weight and len(anchors):
                obs, mask, _ = batch(*draw(rng.choice(anchors, len(chunk))))
                log_p = torch.log_softmax(actor(obs, mask), 1)
                log_q = torch.log_softmax(start(obs, mask), 1)
                loss = loss + cfg.anchor_weight * (log_q.exp() * (log_q - log_p)).sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        writer.add_scalar("losses/loss", loss.item(), step + epoch)
        report(epoch)


# ------------------------------------------------------------------------------ the run
def distill(cfg: DistillConfig) -> Path:
    torch.manual_seed(cfg.seed)
    about, weights = cfg.starting
    config = Config.from_dict(about["config"])
    run_dir, logs = Path(cfg.checkpoints_dir) / cfg.run, Path(cfg.logs_dir) / cfg.run
    started = time.time()
    spec = f"policy+{cfg.teacher}:{cfg.init_actor}"
    settings = {k: getattr(cfg, k) for k in cfg.COLLECTION} | {k: about[k] for k in ("config", "weights_sha256")}
    deals = range(cfg.first_seed, cfg.first_seed + cfg.games)
    data = collect(
        functools.partial(seat_team, spec), spec, config, deals, cfg.workers, logs / "decisions.npz", settings
    )
    print(
        f"{len(data['chosen'])} decisions of {cfg.games} deals, {data['searched'].sum()} searched; "
        f"the team with its search won {data['won'].mean():.1%} of them ({time.time() - started:.0f} s)"
    )

    actor = Actor(about["hidden"], about["activation"])
    actor.load_pairs(weights)
    writer = SummaryWriter(logs)
    fit(cfg, actor, data, data["deal"] >= cfg.games - cfg.valid_games, writer)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir)  # type: ignore[arg-type]  # any dataclass: its fields as YAML
    trainer = f"search distillation ({cfg.teacher}) of {cfg.init_actor}"
    final = save_actor(
        list(actor.body[::2]),
        actor.head,
        run_dir / "final",
        config,
        about["hidden"],
        about["activation"],
        about.get("steps", 0),
        trainer,
    )

    results = [evaluate(f"policy:{p}", config, cfg.eval_games, 500_000, cfg.workers) for p in (final, cfg.init_actor)]
    writer.add_scalar("eval/win_rate", results[0].win_rate, cfg.epochs)
    writer.close()
    print(markdown(results, config))
    return final


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility distill", __doc__)
    args = parser.parse_intermixed_args(argv)
    run_trainer(parser, args.config, args.overrides, DistillConfig, distill)


if __name__ == "__main__":
    main()
