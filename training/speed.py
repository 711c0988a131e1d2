"""Training speed: ``python -m tranquility_env.training.speed [--runs 3]`` (``make bench`` runs it).

- MAPPO, 3 players, the default network and update settings: env steps/s (``charts/SPS``) of
  the trainer on the batched engine and on the one-game path (``engine=game``: the same loop
  over ``Game`` objects stepped in Python), the update loop alone (``charts/SPS_update_only``,
  the ceiling with free games and inference) and the share of the time games and the
  rollout's inference take.
- MaskablePPO with ``tranquility train``'s network and update settings (no imitation): on
  ``TeamVecEnv`` (64 games in-process), and as the trainer ran before the batched engine, SB3's
  ``SubprocVecEnv`` over 2 ``TeamEnv`` copies with 1,024 steps each per update (and torch
  checking every distribution's arguments, which ``train.new_model`` turns off).

Each figure is the median of ``--runs`` runs, the two sides alternating.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import tempfile
import time
from pathlib import Path


def mappo_run(engine: str, steps: int) -> dict[str, float]:
    """One short MAPPO run; its last charts."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from tranquility_env.training.mappo import MappoConfig, train

    with tempfile.TemporaryDirectory() as folder:
        cfg = MappoConfig(
            players=3,
            engine=engine,
            total_steps=steps,
            checkpoints_dir=str(Path(folder) / "checkpoints"),
            logs_dir=str(Path(folder) / "runs"),
            checkpoint_every=10**9,
            eval_every=10**9,
            final_eval_games=1,
            run="speed",
        )
        with contextlib.redirect_stdout(io.StringIO()):  # the run's own table: not what is timed
            train(cfg)
        charts = EventAccumulator(str(Path(folder) / "runs" / "speed"))
        charts.Reload()
        names = ("charts/SPS", "charts/SPS_update_only", "charts/rollout_share")
        return {name: charts.Scalars(name)[-1].value for name in names}


def maskable_ppo_rate(batched: bool, updates: int) -> float:
    """Env steps/s of MaskablePPO.learn with ``tranquility train``'s settings."""
    import dataclasses

    import torch
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from tranquility_env import TeamEnv
    from tranquility_env.training.train import TrainConfig, make_envs, new_model

    cfg = TrainConfig(players=3, pretrain_games=0)
    if batched:
        model = new_model(cfg, make_envs(cfg))
    else:  # the trainer before the batched engine: 2 processes, one core each for torch and the games
        torch.set_num_threads(1)
        envs = SubprocVecEnv([lambda: TeamEnv(reward_shaping=cfg.reward_shaping, players=3) for _ in range(2)])
        model = new_model(dataclasses.replace(cfg, n_steps=cfg.n_steps * cfg.n_envs // 2), envs)
        torch.distributions.Distribution.set_default_validate_args(True)  # as torch checked then
    steps = updates * model.n_steps * model.env.num_envs
    start = time.perf_counter()
    model.learn(steps)
    seconds = time.perf_counter() - start
    model.env.close()
    torch.set_num_threads(2)
    return steps / seconds


def main(argv: list[str] | None = None) -> None:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    torch.set_num_threads(2)

    runs: dict[str, list[dict[str, float]]] = {"batch": [], "game": []}
    for _ in range(args.runs):
        for engine in runs:
            runs[engine].append(mappo_run(engine, steps=2048 * 6))

    def median(engine: str, name: str) -> float:
        return statistics.median(r[name] for r in runs[engine])

    print(f"MAPPO, 3 players, default network and update settings, 2 cores; median of {args.runs} runs")
    print(f"{'engine':<28} | {'SPS':>6} | {'update loop alone':>17} | {'games + inference':>17}")
    for engine, label in (("batch", "batched engine (default)"), ("game", "one-game path (engine=game)")):
        print(
            f"{label:<28} | {median(engine, 'charts/SPS'):>6,.0f} | {median(engine, 'charts/SPS_update_only'):>17,.0f}"
            f" | {median(engine, 'charts/rollout_share'):>16.0%}"
        )
    ratio = median("batch", "charts/SPS") / median("game", "charts/SPS")
    print(f"ratio, batched engine to the one-game path: {ratio:.2f}")

    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.runs):
        for batched in rates:
            rates[batched].append(maskable_ppo_rate(batched, updates=3))
    new, old = statistics.median(rates[True]), statistics.median(rates[False])
    print(f"\nMaskablePPO, tranquility train's settings (no imitation), 3 players; median of {args.runs} runs")
    print(f"TeamVecEnv, 64 games in-process: {new:,.0f} steps/s")
    print(f"SubprocVecEnv, 2 TeamEnv copies (the trainer before the batched engine): {old:,.0f} steps/s")
    print(f"ratio: {new / old:.2f}")


if __name__ == "__main__":
    main()
