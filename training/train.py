"""Train a team with MaskablePPO: ``tranquility train [--config configs/NAME.yaml] [key=value ...]``.

Readable top to bottom, CleanRL style: the config (a dataclass, read from YAML and checked key by
key), the environments (``TeamEnv`` copies in subprocesses, one shared policy for every seat
without a teammate bot), the model, an optional imitation warm start (the policy first learns to
choose what HeuristicBot chooses, and the critic the returns of those games), a callback that
logs the charts and saves checkpoints, then the loop and a final evaluation.

- TensorBoard (``runs/<run>/``): ``charts/win_rate``, ``charts/cards_on_mountain``,
  ``charts/episode_length``, ``charts/penalty_discards``, ``charts/SPS``, ``eval/win_rate`` and
  SB3's losses.
- Checkpoints (``checkpoints/<run>/``): a bot checkpoint (``checkpoint.py``: weights and JSON, no
  pickle) every ``checkpoint_every`` steps as ``step_<n>/`` and at the end as ``final/``; beside
  them ``resume.zip`` (SB3's full trainer state, for ``--resume`` on your own machine only: it is
  not a bot format and holds pickled objects) and ``train_config.yaml``.
- ``--resume`` continues a killed run from its last checkpoint; only the steps since are lost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.common import (
    RunConfig,
    check_resume,
    evaluate_checkpoint,
    export_actor,
    final_table,
    run_trainer,
    save_config,
    trainer_parser,
)
from tranquility_env import TeamEnv
from tranquility_env.bots import make_bot


# ------------------------------------------------------------------------------ the config
@dataclass
class TrainConfig(RunConfig):
    """The shared run fields (``common.RunConfig``) and MaskablePPO's own."""

    n_steps: int = 1024  # per env copy and update
    batch_size: int = 256
    n_epochs: int = 4
    n_envs: int = 2  # env copies, each in its own process
    pretrain_games: int = 0  # HeuristicBot games to imitate before PPO (0: start from scratch)
    pretrain_epochs: int = 4

    AT_LEAST_ONE = (*RunConfig.AT_LEAST_ONE, "n_steps", "batch_size", "n_epochs", "n_envs", "pretrain_epochs")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.pretrain_games < 0:
            raise ValueError("train config 'pretrain_games' must be >= 0")


# ------------------------------------------------------------------------------ the environments
def make_env(cfg: TrainConfig, rank: int):
    def build() -> TeamEnv:
        teammates = {seat: make_bot(spec, cfg.seed + 100 * rank + seat) for seat, spec in cfg.teammates.items()}
        env = TeamEnv(teammates=teammates, reward_shaping=cfg.reward_shaping, **cfg.game_config().to_dict())
        env.reset(seed=cfg.seed + 10_000 * rank)
        return env

    return build


# ------------------------------------------------------------------------------ imitation warm start
def heuristic_games(cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, actions, returns) of the policy seats' decisions in games where
    HeuristicBot plays those seats (teammate seats keep their bots). Returns are the discounted
    team rewards that TeamEnv would give, from each decision to the end."""
    from tranquility_env import Game, encoding
    from tranquility_env.views import LazySeatView

    config = cfg.game_config()
    obs, masks, chosen, returns = [], [], [], []
    for i in range(cfg.pretrain_games):
        game = Game.new(config, 7_000_000 + cfg.seed * 10_000 + i)
        bots = {s: make_bot(cfg.teammates.get(s, "heuristic"), i + s) for s in range(config.players)}
        rewards: list[float] = []
        while game.status == "ongoing":
            seat, before = game.current, game.cards_on_mountain()
            o, m = encoding.observation(game, seat), encoding.action_mask(game, seat)
            action = bots[seat].act(o, m, LazySeatView(game, seat))
            game.apply_action(action)
            reward = (game.status == "won") + cfg.reward_shaping * (game.cards_on_mountain() - before) / 44
            if seat in cfg.teammates:
                if rewards:
                    rewards[-1] += reward  # a teammate's step counts for the policy's last decision
                continue
            obs.append(o)
            masks.append(m)
            chosen.append(action)
            rewards.append(reward)
        backwards, g = [], 0.0
        for r in reversed(rewards):
            g = r + cfg.gamma * g
            backwards.append(g)
        returns += backwards[::-1]
    return np.array(obs), np.array(masks, dtype=bool), np.array(chosen), np.array(returns, dtype=np.float32)


def imitate(model: Any, cfg: TrainConfig) -> None:
    """Behaviour cloning before PPO: cross-entropy on HeuristicBot's choices (masked), and the
    critic regressed on the returns of those games."""
    import torch

    obs, masks, chosen, returns = heuristic_games(cfg)
    policy, rng = model.policy, np.random.default_rng(cfg.seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    obs_t, chosen_t, returns_t = (torch.as_tensor(x) for x in (obs, chosen, returns))
    for epoch in range(cfg.pretrain_epochs):
        order, agree = rng.permutation(len(obs)), 0.0
        for start in range(0, len(obs), 256):
            idx = order[start : start + 256]
            values, log_prob, _ = policy.evaluate_actions(obs_t[idx], chosen_t[idx], action_masks=masks[idx])
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), returns_t[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            agree += float((log_prob > np.log(0.5)).float().sum())
        print(f"imitation epoch {epoch + 1}/{cfg.pretrain_epochs}: {len(obs)} decisions, "
              f"{agree / len(obs):.0%} chosen with p > 0.5")  # fmt: skip


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
def train(cfg: TrainConfig, resume: bool = False, progress_bar: bool = True) -> Path:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    run_dir = Path(cfg.checkpoints_dir) / cfg.run
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:
        if not (run_dir / "resume.zip").is_file():
            raise FileNotFoundError(f"--resume: no {run_dir / 'resume.zip'} (has this run saved a checkpoint yet?)")
        check_resume(cfg, run_dir)
    save_config(cfg, run_dir)

    torch.set_num_threads(1)  # the env copies use the other core
    env_fns = [make_env(cfg, rank) for rank in range(cfg.n_envs)]
    envs = SubprocVecEnv(env_fns) if cfg.n_envs > 1 else DummyVecEnv(env_fns)
    if resume:
        model = MaskablePPO.load(run_dir / "resume.zip", env=envs, tensorboard_log=cfg.logs_dir)
        print(f"resuming {cfg.run} at step {model.num_timesteps}")
    else:
        model = MaskablePPO(
            "MlpPolicy", envs, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef, seed=cfg.seed, tensorboard_log=cfg.logs_dir, verbose=0,
            policy_kwargs={"net_arch": {"pi": cfg.hidden, "vf": cfg.hidden}, "activation_fn": torch.nn.Tanh},
        )  # fmt: skip
        if cfg.pretrain_games:
            imitate(model, cfg)
    remaining = cfg.total_steps - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=make_callback(cfg, run_dir), tb_log_name=cfg.run,
                    reset_num_timesteps=not resume, progress_bar=progress_bar)  # fmt: skip
    final = export_bot(model, cfg, run_dir / "final")
    save_resume(model, cfg, run_dir)
    envs.close()

    final_table(cfg, final)
    return final


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility train", __doc__, resume_file="resume.zip")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_intermixed_args(argv)
    run_trainer(parser, args.config, args.overrides, TrainConfig,
                lambda cfg: train(cfg, resume=args.resume, progress_bar=not args.no_progress))  # fmt: skip


if __name__ == "__main__":
    main()
