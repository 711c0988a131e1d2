"""Train with Ray RLlib's PPO on its new API stack: ``tranquility rllib [--config FILE] [--address ADDR]
[--num-env-runners N] [key=value ...]``.

The AEC environment becomes an RLlib ``MultiAgentEnv`` (``TranquilityMultiAgentEnv``): only the
seat to act receives an observation, a dict of ``observations`` and ``action_mask``; the team
reward goes to the seat that acted, and to every seat at the end. One shared policy plays every
seat, and RLlib's ``ActionMaskingTorchRLModule`` adds the mask to the logits, so only legal
actions are sampled. Runs on a local Ray by default, or on an existing cluster with
``--address``; ``--num-env-runners`` sets how many actors collect experience. The actor is
exported to the bot checkpoint format, so an RLlib bot plays like any other.

Writes the same TensorBoard charts as the other trainers (``charts/win_rate``,
``charts/cards_on_mountain``, ``charts/episode_length``, ``charts/penalty_discards``,
``charts/SPS``, ``eval/win_rate``) and, beside each bot checkpoint, RLlib's own state of the
whole algorithm (``rllib_state/``), from which ``--resume`` continues a killed run.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tranquility_env import checkpoint, encoding, raw_env
from tranquility_env.rules import actions
from tranquility_env.tasks import training_deal
from tranquility_env.training.common import (
    RunConfig,
    check_resume,
    final_table,
    log_evaluation,
    run_trainer,
    save_config,
    trainer_parser,
)

__all__ = ["RllibConfig", "main"]


@dataclass
class RllibConfig(RunConfig):
    """The shared run fields (``common.RunConfig``) and RLlib's own."""

    RUN_SUFFIX = "_rllib"
    num_env_runners: int = 1  # Ray actors collecting experience (0: in the driver)
    train_batch_size: int = 4000  # env steps per training iteration
    minibatch_size: int = 256
    num_epochs: int = 4
    address: str = ""  # an existing Ray cluster ("auto", "ray://host:10001"); empty: a local Ray

    AT_LEAST_ONE = (*RunConfig.AT_LEAST_ONE, "train_batch_size", "minibatch_size", "num_epochs")


def multi_agent_env_class() -> type:
    """The MultiAgentEnv adapter (defined on first use: the module imports without Ray)."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class TranquilityMultiAgentEnv(MultiAgentEnv):
        def __init__(self, config: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.env = raw_env(**(config or {}))
            self.agents = self.possible_agents = list(self.env.possible_agents)
            space = gym.spaces.Dict(
                {
                    "observations": gym.spaces.Box(0.0, encoding.OBSERVATION_HIGH, dtype=np.float32),
                    "action_mask": gym.spaces.Box(0.0, 1.0, (actions.N_ACTIONS,), dtype=np.float32),
                }
            )
            self.observation_spaces = dict.fromkeys(self.agents, space)
            self.action_spaces = dict.fromkeys(self.agents, gym.spaces.Discrete(actions.N_ACTIONS))

        def _observe(self, agent: str) -> dict[str, np.ndarray]:
            seen = self.env.observe(agent)
            return {"observations": seen["observation"], "action_mask": seen["action_mask"].astype(np.float32)}

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            # RLlib seeds each runner's env with small numbers: moved to the training deals, apart
            # from the tuning and evaluation deals; later games follow the env's own generator.
            self.env.reset(seed=None if seed is None else training_deal(seed, 0), options=options)
            self.decisions = self.paid = 0
            return {self.env.agent_selection: self._observe(self.env.agent_selection)}, {}

        def step(self, action_dict: dict[str, int]):
            agent = self.env.agent_selection
            action = int(action_dict[agent])
            self.decisions += 1
            self.paid += actions.DECODE[action][0] == actions.PAY
            self.env.step(action)
            if all(self.env.terminations.values()):  # the team's reward to every seat
                every = {a: self._observe(a) for a in self.agents}
                game = self.env.game
                stats = {
                    "won": float(game.status == "won"),
                    "cards_on_mountain": float(game.cards_on_mountain()),
                    "episode_length": float(self.decisions),
                    "penalty_discards": float(self.paid),
                }
                infos = {a: {"episode_stats": stats} for a in self.agents}  # read by Charts.on_episode_end
                return every, dict(self.env.rewards), {"__all__": True}, {"__all__": False}, infos
            following = self.env.agent_selection
            reward = {agent: self.env.rewards[agent]}
            return {following: self._observe(following)}, reward, {"__all__": False}, {"__all__": False}, {}

    return TranquilityMultiAgentEnv


def charts_callback() -> type:
    """The callback that logs each finished game's statistics for the charts (defined on first use)."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class Charts(RLlibCallback):
        def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
            for info in episode.get_infos(-1).values():
                for name, value in info.get("episode_stats", {}).items():
                    metrics_logger.log_value(name, value, reduce="mean", window=100)
                return

    return Charts


def build(cfg: RllibConfig) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_config = {**cfg.config.to_dict(), "reward_shaping": cfg.reward_shaping}
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": cfg.hidden, "fcnet_activation": cfg.activation, "head_fcnet_hiddens": []},
    )
    config = (
        PPOConfig()
        # RLlib's env check steps with unmasked random actions, which the env refuses by design;
        # the masking module keeps training to legal actions.
        .environment(multi_agent_env_class(), env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent, *args, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .env_runners(num_env_runners=cfg.num_env_runners)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            entropy_coeff=cfg.ent_coef,
        )
        .callbacks(charts_callback())
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def export(algo: Any, cfg: RllibConfig, folder: Path, steps: int) -> Path:
    """The shared module's actor (its encoder's layers and the policy head) as a bot checkpoint."""
    state = {k: v.detach().cpu().numpy() for k, v in algo.get_module("shared").state_dict().items()}
    tensors = {}
    for i in range(len(cfg.hidden)):
        tensors[f"layers.{i}.weight"] = state[f"encoder.actor_encoder.net.mlp.{2 * i}.weight"]
        tensors[f"layers.{i}.bias"] = state[f"encoder.actor_encoder.net.mlp.{2 * i}.bias"]
    tensors["head.weight"], tensors["head.bias"] = state["pi.net.mlp.0.weight"], state["pi.net.mlp.0.bias"]
    return checkpoint.save(
        folder,
        tensors,
        cfg.config,
        cfg.hidden,
        cfg.activation,
        trainer="Ray RLlib PPO",
        steps=int(steps),
        teammates={},
    )


def train(cfg: RllibConfig, resume: bool = False) -> Path:
    import ray
    from torch.utils.tensorboard import SummaryWriter

    if cfg.teammates:
        raise ValueError("the RLlib trainer plays every seat with the shared policy; 'teammates' is not supported")
    run_dir = Path(cfg.checkpoints_dir) / cfg.run
    state_dir = run_dir / "rllib_state"  # RLlib's whole algorithm, for --resume on this machine
    if resume:
        if not state_dir.is_dir():
            raise FileNotFoundError(f"--resume: no {state_dir} (has this run saved a checkpoint yet?)")
        check_resume(cfg, run_dir)
    ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        save_config(cfg, run_dir)
        algo = build(cfg)
        if resume:
            algo.restore_from_path(str(state_dir.resolve()))
        writer = SummaryWriter(Path(cfg.logs_dir) / cfg.run)
        steps = json.loads((state_dir / "steps.json").read_text())["steps"] if resume else 0
        if resume:
            print(f"resuming {cfg.run} at step {steps}")

        def save_state() -> None:
            algo.save_to_path(str(state_dir.resolve()))
            (state_dir / "steps.json").write_text(json.dumps({"steps": steps}))

        next_checkpoint = (steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        next_eval = (steps // cfg.eval_every + 1) * cfg.eval_every
        start, start_steps = time.time(), steps
        while steps < cfg.total_steps:
            result = algo.train()
            runners = result.get("env_runners", {})  # absent when no runner returned samples in time
            steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
            for name in ("won", "cards_on_mountain", "episode_length", "penalty_discards"):
                if name in runners:
                    writer.add_scalar(f"charts/{'win_rate' if name == 'won' else name}", runners[name], steps)
            writer.add_scalar("charts/SPS", (steps - start_steps) / max(time.time() - start, 1e-9), steps)
            print(f"step {steps}: mean team return {runners.get('episode_return_mean')}")
            if steps >= next_checkpoint:
                next_checkpoint += cfg.checkpoint_every
                folder = export(algo, cfg, run_dir / f"step_{steps}", steps)
                save_state()
                if steps >= next_eval:
                    next_eval += cfg.eval_every
                    log_evaluation(cfg, folder, writer, steps)
        final = export(algo, cfg, run_dir / "final", steps)
        save_state()
        writer.close()
        algo.stop()
    finally:
        ray.shutdown()
    final_table(cfg, final)
    return final


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility rllib", __doc__, resume_file="rllib_state/")
    parser.add_argument("--address", help="an existing Ray cluster to run on (default: a local Ray)")
    parser.add_argument("--num-env-runners", type=int, help="Ray actors collecting experience (0: in the driver)")
    args = parser.parse_intermixed_args(argv)
    overrides = list(args.overrides)
    if args.address is not None:
        overrides.append(f"address={args.address}")
    if args.num_env_runners is not None:
        if args.num_env_runners < 0:
            parser.error("--num-env-runners must be >= 0")
        overrides.append(f"num_env_runners={args.num_env_runners}")
    run_trainer(parser, args.config, overrides, RllibConfig, lambda cfg: train(cfg, resume=args.resume))


if __name__ == "__main__":
    main()
