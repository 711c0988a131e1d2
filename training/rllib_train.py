"""Train with Ray RLlib's PPO on its new API stack: ``tranquility rllib [--config FILE] [--address ADDR]
[--num-env-runners N] [key=value ...]``.

The AEC environment becomes an RLlib ``MultiAgentEnv`` (``TranquilityMultiAgentEnv``): only the
seat to act receives an observation, a dict of ``observations`` and ``action_mask``; the team
reward goes to the seat that acted, and to every seat at the end. One shared policy plays every
seat, and RLlib's ``ActionMaskingTorchRLModule`` adds the mask to the logits, so only legal
actions are sampled. Runs on a local Ray by default, or on an existing cluster with
``--address``; ``--num-env-runners`` sets how many actors collect experience. The actor is
exported to the bot checkpoint format, so an RLlib bot plays like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from tranquility_env import checkpoint, encoding, raw_env
from tranquility_env.rules import actions
from tranquility_env.training.common import RunConfig, final_table, run_trainer, save_config, trainer_parser


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
            self.env.reset(seed=seed, options=options)
            return {self.env.agent_selection: self._observe(self.env.agent_selection)}, {}

        def step(self, action_dict: dict[str, int]):
            agent = self.env.agent_selection
            self.env.step(int(action_dict[agent]))
            if all(self.env.terminations.values()):  # the team's reward to every seat
                every = {a: self._observe(a) for a in self.agents}
                return every, dict(self.env.rewards), {"__all__": True}, {"__all__": False}, {}
            following = self.env.agent_selection
            reward = {agent: self.env.rewards[agent]}
            return {following: self._observe(following)}, reward, {"__all__": False}, {"__all__": False}, {}

    return TranquilityMultiAgentEnv


def build(cfg: RllibConfig) -> Any:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_config = {**cfg.game_config().to_dict(), "reward_shaping": cfg.reward_shaping}
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
        cfg.game_config(),
        cfg.hidden,
        cfg.activation,
        trainer="Ray RLlib PPO",
        steps=int(steps),
        teammates={},
    )


def train(cfg: RllibConfig) -> Path:
    import ray

    if cfg.teammates:
        raise ValueError("the RLlib trainer plays every seat with the shared policy; 'teammates' is not supported")
    ray.init(address=cfg.address or None, include_dashboard=False, log_to_driver=False)
    try:
        run_dir = Path(cfg.checkpoints_dir) / cfg.run
        run_dir.mkdir(parents=True, exist_ok=True)
        save_config(cfg, run_dir)
        algo = build(cfg)
        steps, next_checkpoint = 0, cfg.checkpoint_every
        while steps < cfg.total_steps:
            result = algo.train()
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            episodes = result["env_runners"].get("episode_return_mean")
            print(f"step {steps}: mean team return {episodes}")
            if steps >= next_checkpoint:
                next_checkpoint += cfg.checkpoint_every
                export(algo, cfg, run_dir / f"step_{steps}", steps)
        final = export(algo, cfg, run_dir / "final", steps)
        algo.stop()
    finally:
        ray.shutdown()
    final_table(cfg, final)
    return final


def main(argv: list[str] | None = None) -> None:
    parser = trainer_parser("tranquility rllib", __doc__)
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
    run_trainer(parser, args.config, overrides, RllibConfig, train)


if __name__ == "__main__":
    main()
