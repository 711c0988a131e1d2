"""Train a team with MaskablePPO: ``tranquility train [--config configs/train.yaml] [key=value ...]``.

Readable top to bottom, CleanRL style: the config (a dataclass, read from YAML and checked key by
key), the environments (``TeamVecEnv``: many games stepped together by the batched engine, one
shared policy for every seat without a teammate bot), the model, the imitation warm start (the
policy first learns to choose what a teacher bot chooses, by default the heuristic's value
model, and the critic the returns of those games; optionally DAgger rounds, in which the
teacher labels the policy's own games),
a callback that logs the charts and saves checkpoints, then the PPO loop and a final evaluation.

- TensorBoard (``runs/<run>/``): ``charts/win_rate``, ``charts/cards_on_mountain``,
  ``charts/episode_length``, ``charts/penalty_discards``, ``charts/SPS``, ``eval/win_rate`` and
  SB3's losses.
- Checkpoints (``checkpoints/<run>/``): a bot checkpoint (``checkpoint.py``: weights and JSON, no
  pickle) after the warm start as ``imitation/`` (the policy that played each DAgger round as
  ``dagger_<r>/``), every ``checkpoint_every`` steps as ``step_<n>/`` and at the end as
  ``final/``; beside them ``resume.zip`` (SB3's full trainer state, for ``--resume`` on your own
  machine only: it is not a bot format and holds pickled objects) and ``train_config.yaml``.
- ``--resume`` continues a killed run from its last checkpoint (the warm start's included); only
  the steps since are lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tranquility_env.bots import make_bot
from tranquility_env.tasks import training_deal
from tranquility_env.training.common import (
    RunConfig,
    check_resume,
    evaluate_checkpoint,
    export_actor,
    final_table,
    legal_head_logits,
    run_trainer,
    save_config,
    torch_activation,
    trainer_parser,
)

__all__ = [
    "TrainConfig",
    "compiled_teachers",
    "decision_rows",
    "gather",
    "imitate",
    "main",
    "make_envs",
    "new_model",
    "person_decisions",
    "teacher_games",
    "teacher_games_compiled",
    "train",
    "value_and_log_prob",
]


# ------------------------------------------------------------------------------ the config
@dataclass
class TrainConfig(RunConfig):
    """The shared run fields (``common.RunConfig``) and MaskablePPO's own. The defaults are the
    recipe of the shipped bots: imitate the heuristic's value model, then fine-tune with PPO at a
    low learning rate and no entropy bonus (from scratch, PPO never wins within these budgets;
    a high rate or an entropy bonus undoes the imitation; ``docs/training.md``)."""

    hidden: list[int] = field(default_factory=lambda: [256, 64])
    activation: str = "relu"  # imitation learns much faster than with tanh
    learning_rate: float = 3e-5
    ent_coef: float = 0.0
    total_steps: int = 100_000  # PPO's, after the imitation; 0: the imitation alone
    n_steps: int = 32  # per game and update (n_envs x n_steps = 2,048 decisions an update)
    batch_size: int = 256
    n_epochs: int = 4
    n_envs: int = 64  # games stepped together by the batched engine (TeamVecEnv), in this process
    pretrain_games: int = 10_000  # teacher games to imitate before PPO (0: start from scratch)
    pretrain_teacher: str = "heuristic-no-search"  # a bot name (bots.make_bot)
    pretrain_replays: str = ""  # a folder of replay files (browser games): the person's moves are imitated too
    pretrain_epochs: int = 6
    pretrain_lr: float = 1e-3
    pretrain_symmetries: bool = False  # each imitated decision seen under a random colour symmetry of the table
    dagger_rounds: int = 0  # after imitation: rounds in which the policy plays and the teacher labels
    dagger_games: int = 5_000  # games a round
    dagger_epochs: int = 2  # epochs on all the data gathered so far, after each round

    AT_LEAST_ONE = (
        *(name for name in RunConfig.AT_LEAST_ONE if name != "total_steps"),  # 0: the imitation alone
        "n_steps",
        "batch_size",
        "n_epochs",
        "n_envs",
        "pretrain_epochs",
        "dagger_games",
        "dagger_epochs",
    )
    AT_LEAST_ZERO = (*RunConfig.AT_LEAST_ZERO, "total_steps", "pretrain_games", "dagger_rounds")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (self.total_steps or self.pretrain_games or self.pretrain_replays):
            raise ValueError("train config 'total_steps' is 0 and there is no imitation: nothing to train")
        if self.pretrain_replays and not Path(self.pretrain_replays).is_dir():
            raise ValueError(f"train config 'pretrain_replays': {self.pretrain_replays} is not a folder")
        if self.dagger_rounds and not self.pretrain_games:
            raise ValueError("train config 'dagger_rounds' needs 'pretrain_games' > 0 (DAgger starts from imitation)")
        make_bot(self.pretrain_teacher, table=self.config)  # validates the name; a policy must fit


# ------------------------------------------------------------------------------ the environments
def make_envs(cfg: TrainConfig) -> Any:
    """The games, stepped together in compiled code; one bot per teammate seat plays in all of them."""
    from tranquility_env.envs.sb3 import TeamVecEnv

    teammates = {seat: make_bot(spec, cfg.seed + seat) for seat, spec in cfg.teammates.items()}
    envs = TeamVecEnv(cfg.n_envs, teammates, reward_shaping=cfg.reward_shaping, **cfg.config.to_dict())
    return envs


# ------------------------------------------------------------------------------ imitation warm start
def teacher_games(cfg: TrainConfig, first: int, count: int, player: str | None = None) -> tuple[np.ndarray, ...]:
    """(observations as float16, masks packed to bits, teacher's actions, returns) of the policy
    seats' decisions with more than one legal action, in ``count`` games (deals ``first``, ...).
    Teammate seats keep their bots. ``pretrain_teacher`` labels every decision; it also plays
    them, unless ``player`` (a bot name, for DAgger the policy so far) plays them instead, so the
    teacher labels the states the policy itself reaches. Returns are the discounted team rewards
    that TeamEnv would give, from each decision to the end of the game played."""
    from tranquility_env import Game, encoding
    from tranquility_env.views import LazySeatView

    config = cfg.config
    obs, masks, chosen, returns = [], [], [], []
    for i in range(first, first + count):
        game = Game.new(config, 7_000_000 + cfg.seed * 100_000 + i)
        teachers = {s: make_bot(cfg.teammates.get(s, cfg.pretrain_teacher), i * 10 + s) for s in range(config.players)}
        own = [s for s in range(config.players) if s not in cfg.teammates]
        players = {s: make_bot(player, i * 10 + s) for s in own} if player else {}
        rewards: list[float] = []
        while game.status == "ongoing":
            seat, before = game.current, game.cards_on_mountain()
            o, m = encoding.observation(game, seat), encoding.action_mask(game, seat)
            view = LazySeatView(game, seat)
            label = teachers[seat].act(o, m, view)
            game.apply_action(players[seat].act(o, m, view) if seat in players else label)
            reward = (game.status == "won") + cfg.reward_shaping * (game.cards_on_mountain() - before) / 44
            if seat in cfg.teammates or m.sum() == 1:
                if rewards:
                    rewards[-1] += reward  # a step the policy does not choose counts for its last decision
                continue
            obs.append(o.astype(np.float16))
            masks.append(np.packbits(m))
            chosen.append(label)
            rewards.append(reward)
        returns += discounted(rewards, cfg.gamma)
    return np.array(obs), np.array(masks), np.array(chosen), np.array(returns, dtype=np.float32)


def compiled_teachers(cfg: TrainConfig) -> dict[int, Any] | None:
    """Every seat's bot in ``teacher_games`` when each is the heuristic's value model alone with
    settings the compiled value model repeats exactly (``batch.value_model.exact``); else None."""
    from tranquility_env.batch import value_model
    from tranquility_env.bots.heuristic import HeuristicBot

    players = cfg.config.players
    bots = {s: make_bot(cfg.teammates.get(s, cfg.pretrain_teacher), s) for s in range(players)}
    fast = all(isinstance(b, HeuristicBot) and b.rollouts == 0 and value_model.exact(b) for b in bots.values())
    return bots if fast else None


def teacher_games_compiled(cfg: TrainConfig, first: int, count: int) -> tuple[np.ndarray, ...]:
    """``teacher_games`` (no ``player``) on the batched engine, the ``count`` games stepped
    together and every move made by the compiled value model: the same arrays, in the same order,
    for teachers that ``compiled_teachers`` accepts."""
    from tranquility_env.batch import GameBatch, value_model
    from tranquility_env.batch.layout import ONGOING, WON

    bots = compiled_teachers(cfg)
    if bots is None:
        raise ValueError(f"teacher {cfg.pretrain_teacher!r} (or a teammate) has no compiled value model")
    batch = GameBatch(cfg.config, count)
    batch.reset_many(range(count), [7_000_000 + cfg.seed * 100_000 + i for i in range(first, first + count)])
    games: list[tuple[list, list, list, list]] = [([], [], [], []) for _ in range(count)]
    own = np.array([s not in cfg.teammates for s in range(len(bots))])
    while (ongoing := np.flatnonzero(batch.status == ONGOING)).size:
        seats, before = batch.current, batch.cards_on_mountain()
        labels = np.full(count, -1, dtype=np.int64)
        for seat, bot in bots.items():
            if (here := ongoing[seats[ongoing] == seat]).size:
                labels[here] = value_model.choices(batch, bot, here)
        kept = ongoing[own[seats[ongoing]] & (batch.legal_ids()[1][ongoing] > 1)]
        obs, masks = batch.observations(seats)[kept].astype(np.float16), np.packbits(batch.action_masks()[kept], axis=1)
        batch.apply(labels, where=batch.status == ONGOING)
        rewards = (batch.status == WON) + cfg.reward_shaping * (batch.cards_on_mountain() - before) / 44
        recorded = dict(zip(kept.tolist(), range(len(kept)), strict=True))
        for i in ongoing.tolist():
            o, m, chosen, game_rewards = games[i]
            if i in recorded:
                o.append(obs[recorded[i]])
                m.append(masks[recorded[i]])
                chosen.append(labels[i])
                game_rewards.append(rewards[i])
            elif game_rewards:
                game_rewards[-1] += rewards[i]  # a step the policy does not choose counts for its last decision
    returns = [r for _, _, _, game_rewards in games for r in discounted(game_rewards, cfg.gamma)]
    return (
        np.array([o for g in games for o in g[0]]),
        np.array([m for g in games for m in g[1]]),
        np.array([a for g in games for a in g[2]]),
        np.array(returns, dtype=np.float32),
    )


def discounted(rewards: list[float], gamma: float) -> list[float]:
    """The discounted return from each step to the end."""
    backwards, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        backwards.append(g)
    return backwards[::-1]


def person_decisions(cfg: TrainConfig) -> tuple[np.ndarray, ...]:
    """``teacher_games``' arrays for the decisions a person made in the replays under
    ``pretrain_replays`` (``*.jsonl`` with a ``human`` seat, played at the run's table), labelled
    with the person's own moves. A damaged replay stops the run with its name and line."""
    from tranquility_env import Config, Game, encoding
    from tranquility_env.replay import read
    from tranquility_env.rules import actions

    config = cfg.config
    obs, masks, chosen, returns = [], [], [], []
    for path in sorted(Path(cfg.pretrain_replays).glob("*.jsonl")):
        replay = read(path)
        human = replay.header.get("human")
        if human is None or Config.from_dict(replay.header["config"]) != config:
            continue
        game, rewards = Game.new(config, replay.header["seed"]), []
        for seat, move, _ in replay.moves:
            o, m, before = encoding.observation(game, seat), encoding.action_mask(game, seat), game.cards_on_mountain()
            game.apply(move)
            reward = (game.status == "won") + cfg.reward_shaping * (game.cards_on_mountain() - before) / 44
            if seat != human or m.sum() == 1:
                if rewards:
                    rewards[-1] += reward
                continue
            obs.append(o.astype(np.float16))
            masks.append(np.packbits(m))
            chosen.append(actions.from_string(move, config.goats))
            rewards.append(reward)
        returns += discounted(rewards, cfg.gamma)
    if not obs:
        raise ValueError(
            f"train config 'pretrain_replays': no replay in {cfg.pretrain_replays} has a person's "
            f"decisions at this table ({config.to_dict()})"
        )
    return np.array(obs), np.array(masks), np.array(chosen), np.array(returns, dtype=np.float32)


def gather(cfg: TrainConfig, first: int, games: int, player: str | None = None) -> list[np.ndarray]:
    """``teacher_games`` of ``games`` deals from ``first``: on the batched engine in chunks of
    1,000 games where the teacher's moves are compiled, else in chunks of 50 on one process a core."""
    import os
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    compiled = player is None and compiled_teachers(cfg) is not None
    firsts = range(first, first + games, 1000 if compiled else 50)
    counts = [min(firsts.step, first + games - f) for f in firsts]
    if compiled:
        parts = [teacher_games_compiled(cfg, f, n) for f, n in zip(firsts, counts, strict=True)]
        return [np.concatenate([part[i] for part in parts]) for i in range(4)]
    with ProcessPoolExecutor(min(len(counts), os.cpu_count() or 1), mp_context=get_context("spawn")) as pool:
        n = len(counts)
        parts = list(pool.map(teacher_games, [cfg] * n, firsts, counts, [player] * n))
    return [np.concatenate([part[i] for part in parts]) for i in range(4)]


def decision_rows(masks: np.ndarray, chosen: np.ndarray, actions: int) -> tuple[np.ndarray, np.ndarray]:
    """Decisions as the imitation's fit reads them: packed action masks (``np.packbits`` rows of
    ``actions`` bits) as rows of legal ids, ascending and padded with -1 to the longest row
    (int16), and where ``chosen`` is in its row. Unpacked in chunks, so a million decisions never
    need their 3,962-wide masks at once."""
    parts, at = [], np.zeros(len(masks), np.int64)
    for first in range(0, len(masks), 50_000):
        mask = np.unpackbits(masks[first : first + 50_000], axis=1, count=actions)
        size = mask.sum(1, dtype=np.int64)
        r, ids = np.nonzero(mask)  # row-major: each row's ids ascending
        place = np.arange(len(r)) - np.repeat(np.cumsum(size) - size, size)
        part = np.full((len(mask), int(size.max(initial=1))), -1, dtype=np.int16)
        part[r, place] = ids
        hit = ids == chosen[first + r]
        at[first + r[hit]] = place[hit]
        parts.append(part)
    legal = np.full((len(masks), max(p.shape[1] for p in parts)), -1, dtype=np.int16)
    for first, part in zip(range(0, len(masks), 50_000), parts, strict=True):
        legal[first : first + len(part), : part.shape[1]] = part
    return legal, at


def value_and_log_prob(policy: Any, obs: Any, legal: Any, at: Any, critic: bool = True) -> tuple[Any, Any]:
    """The critic's values (None without ``critic``) and the log-probability of each row's choice
    under the masked policy, from rows of legal ids padded with -1 and the choice's place in its
    row (``decision_rows``): what ``policy.evaluate_actions`` gives, without SB3's masked 3,962-way
    distribution: the head scores each row's legal actions only (``legal_head_logits``)."""
    features = policy.extract_features(obs)
    latent_pi = policy.mlp_extractor.forward_actor(features)
    logits = legal_head_logits(policy.action_net, latent_pi, legal.clamp(min=0), legal >= 0)
    values = policy.value_net(policy.mlp_extractor.forward_critic(features)).flatten() if critic else None
    return values, logits.log_softmax(-1).gather(1, at[:, None]).squeeze(1)


def fit(model: Any, cfg: TrainConfig, data: list[np.ndarray], epochs: int, label: str) -> None:
    """Cross-entropy on the teacher's choices (masked) and, when PPO follows (``total_steps``),
    the critic regressed on the returns: a run that stops after the imitation never uses it."""
    import torch

    from tranquility_env import symmetry

    obs, masks, chosen, returns = data
    legal, at = decision_rows(masks, chosen, model.policy.action_space.n)
    policy, rng, start = model.policy, np.random.default_rng(cfg.seed), time.time()
    renamings = len(symmetry.colour_symmetries(cfg.config)) if cfg.pretrain_symmetries else 1
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.pretrain_lr, fused=True)  # one kernel for all tensors
    batches = -(-len(obs) // 512)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs * batches)
    for epoch in range(epochs):
        order, agree = rng.permutation(len(obs)), 0
        for b in range(batches):
            idx = order[b * 512 : (b + 1) * 512]
            seen, ids = obs[idx], legal[idx].astype(np.int64)
            if renamings > 1:  # colour renamings as data augmentation; a choice keeps its place
                which = rng.integers(renamings, size=len(idx))
                seen, ids = symmetry.rename_decisions(cfg.config, seen, ids, which)
            values, log_prob = value_and_log_prob(
                policy,
                torch.as_tensor(seen, dtype=torch.float32),
                torch.as_tensor(ids),
                torch.as_tensor(at[idx]),
                cfg.total_steps > 0,
            )
            loss = -log_prob.mean()
            if values is not None:
                loss = loss + 0.5 * torch.nn.functional.mse_loss(values, torch.as_tensor(returns[idx]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            agree += int((log_prob > np.log(0.5)).sum())
        print(
            f"{label} epoch {epoch + 1}/{epochs}: {agree / len(obs):.0%} of the teacher's "
            f"choices with p > 0.5 ({time.time() - start:.0f} s)"
        )


def imitate(model: Any, cfg: TrainConfig, run_dir: Path) -> None:
    """Behaviour cloning before PPO: ``pretrain_games`` games of the teacher and the people's
    decisions in ``pretrain_replays``, then ``dagger_rounds``
    of DAgger (Ross et al., 2011): the policy so far (saved as ``dagger_<r>/``, so ``dagger_0/``
    is plain cloning) plays ``dagger_games`` games, the teacher labels each of its decisions, and
    the policy is fitted again on everything gathered. Plain cloning only sees the teacher's
    states, so the policy's own mistakes lead it where it never learned what to do."""
    start = time.time()
    parts = []
    if cfg.pretrain_games:
        parts.append(gather(cfg, 0, cfg.pretrain_games))
        print(
            f"imitation: {len(parts[-1][0])} decisions of {cfg.pretrain_teacher} in {cfg.pretrain_games} games "
            f"({time.time() - start:.0f} s)"
        )
    if cfg.pretrain_replays:
        parts.append(person_decisions(cfg))
        print(f"imitation: {len(parts[-1][0])} decisions of people in the replays of {cfg.pretrain_replays}")
    data = [np.concatenate([part[i] for part in parts]) for i in range(4)]
    fit(model, cfg, data, cfg.pretrain_epochs, "imitation")
    for r in range(cfg.dagger_rounds):
        player = export_bot(model, cfg, run_dir / f"dagger_{r}")  # the policy that plays round r
        first = cfg.pretrain_games + r * cfg.dagger_games  # new deals every round
        more = gather(cfg, first, cfg.dagger_games, f"policy:{player}")
        data = [np.concatenate([old, new]) for old, new in zip(data, more, strict=True)]
        print(
            f"DAgger round {r + 1}/{cfg.dagger_rounds}: {len(more[0])} decisions of the policy, labelled "
            f"by {cfg.pretrain_teacher} ({time.time() - start:.0f} s)"
        )
        fit(model, cfg, data, cfg.dagger_epochs, f"DAgger round {r + 1}")


# ------------------------------------------------------------------------------ checkpoints
def export_bot(model: Any, cfg: TrainConfig, folder: Path) -> Path:
    """The actor of an SB3 policy as a bot checkpoint: its hidden layers and action head."""
    import torch

    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    return export_actor(linears, model.policy.action_net, cfg, folder, model.num_timesteps, "sb3-contrib MaskablePPO")


def save_resume(model: Any, cfg: TrainConfig, run_dir: Path) -> None:
    tmp = run_dir / "resume.tmp.zip"
    model.save(tmp)
    tmp.replace(run_dir / "resume.zip")  # atomic: a kill mid-save keeps the previous one


# ------------------------------------------------------------------------------ logging
def make_callback(cfg: TrainConfig, run_dir: Path):
    from stable_baselines3.common.callbacks import BaseCallback

    class Charts(BaseCallback):
        """Team charts from finished games, checkpoints and evaluations at their cadence."""

        def __init__(self) -> None:
            super().__init__()
            self.games: list[dict] = []
            self.start = time.time()
            self.start_steps = 0
            self.next_checkpoint = self.next_eval = 0

        def _on_training_start(self) -> None:
            self.start_steps = self.num_timesteps
            self.next_checkpoint = self.num_timesteps + cfg.checkpoint_every
            self.next_eval = self.num_timesteps + cfg.eval_every

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
                if done and "episode_stats" in info:
                    self.games.append(info["episode_stats"])
            if self.num_timesteps >= self.next_checkpoint:
                self.next_checkpoint += cfg.checkpoint_every
                folder = export_bot(self.model, cfg, run_dir / f"step_{self.num_timesteps}")
                save_resume(self.model, cfg, run_dir)
                if self.num_timesteps >= self.next_eval:
                    self.next_eval += cfg.eval_every
                    result = evaluate_checkpoint(cfg, folder)
                    self.logger.record("eval/win_rate", result.win_rate)
                    self.logger.record("eval/cards_on_mountain", result.mean_cards)
            return True

        def _on_rollout_end(self) -> None:
            recent = self.games[-100:]
            if recent:
                self.logger.record("charts/win_rate", float(np.mean([g["won"] for g in recent])))
                self.logger.record("charts/cards_on_mountain", float(np.mean([g["cards_on_mountain"] for g in recent])))
                self.logger.record("charts/episode_length", float(np.mean([g["decisions"] for g in recent])))
                self.logger.record("charts/penalty_discards", float(np.mean([g["penalty_discards"] for g in recent])))
            self.logger.record(
                "charts/SPS", (self.num_timesteps - self.start_steps) / max(time.time() - self.start, 1e-9)
            )

    return Charts()


# ------------------------------------------------------------------------------ the loop
def new_model(cfg: TrainConfig, envs: Any, logs_dir: str | None = None, policy: Any = None) -> Any:
    """A ``MaskablePPO`` with the config's network and update settings on ``envs``, its policy
    ``sb3_policy.MaskedOncePolicy`` (the masked distribution normalised once; ``policy``: another
    policy class or name, as the speed benchmark's baseline passes sb3-contrib's). torch stops
    checking its distributions' arguments: the masked 3,962-way distribution of every minibatch
    would be checked to be a simplex (``docs/speed.md`` says what that costs), and the engine's
    masks are exact."""
    import torch
    from sb3_contrib import MaskablePPO

    from tranquility_env.training.sb3_policy import MaskedOncePolicy

    torch.distributions.Distribution.set_default_validate_args(False)
    return MaskablePPO(
        policy or MaskedOncePolicy,
        envs,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        seed=cfg.seed,
        tensorboard_log=logs_dir,
        verbose=0,
        policy_kwargs={
            "net_arch": {"pi": cfg.hidden, "vf": cfg.hidden},
            "activation_fn": torch_activation(cfg.activation),
        },
    )


def train(cfg: TrainConfig, resume: bool = False, progress_bar: bool = True) -> Path:
    from sb3_contrib import MaskablePPO

    run_dir = Path(cfg.checkpoints_dir) / cfg.run
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:
        if not (run_dir / "resume.zip").is_file():
            raise FileNotFoundError(f"--resume: no {run_dir / 'resume.zip'} (has this run saved a checkpoint yet?)")
        check_resume(cfg, run_dir)
    save_config(cfg, run_dir)

    envs = make_envs(cfg)
    if resume:
        model = MaskablePPO.load(run_dir / "resume.zip", env=envs, tensorboard_log=cfg.logs_dir)
        print(f"resuming {cfg.run} at step {model.num_timesteps}")
    else:
        model = new_model(cfg, envs, cfg.logs_dir)
        if cfg.pretrain_games or cfg.pretrain_replays:
            imitate(model, cfg, run_dir)
            export_bot(model, cfg, run_dir / "imitation")  # the warm start alone, to compare with
            save_resume(model, cfg, run_dir)  # a kill from here on keeps the imitation
    # After the model, which seeds the envs with its own seed: game i starts on training_deal(seed,
    # steps + i), never an evaluation deal.
    envs.seed(training_deal(cfg.seed, model.num_timesteps))
    remaining = cfg.total_steps - model.num_timesteps
    if remaining > 0:
        model.learn(
            remaining,
            callback=make_callback(cfg, run_dir),
            tb_log_name=cfg.run,
            reset_num_timesteps=not resume,
            progress_bar=progress_bar,
        )
    final = export_bot(model, cfg, run_dir / "final")
    save_resume(model, cfg, run_dir)
    envs.close()

    final_table(cfg, final)
    return final


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility train", __doc__, resume_file="resume.zip")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_intermixed_args(argv)
    run_trainer(
        parser,
        args.config,
        args.overrides,
        TrainConfig,
        lambda cfg: train(cfg, resume=args.resume, progress_bar=not args.no_progress),
    )


if __name__ == "__main__":
    main()
