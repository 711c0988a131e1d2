"""Training speed: ``python benchmarks/training_speed.py [--runs 3]`` (``make bench`` runs it; not
part of the installed package).

- MAPPO, 3 players, the default network and update settings: env steps/s of the trainer on the
  batched engine and on the one-game path (``engine=game``: the same loop over ``Game`` objects
  stepped in Python); the update loop alone (``charts/SPS_update_only``, the ceiling with free
  games and inference) and the share of the time games and the rollout's inference take. Each is
  counted from the end of a run's first update (``steady_rate``, ``steady_split``). (The trainer
  before the batched engine is history now: its figure stays in ``docs/speed.md``.)
- MaskablePPO with ``tranquility train``'s network and update settings (no imitation): on
  ``TeamVecEnv`` (64 games in-process), and as the trainer ran before the batched engine, SB3's
  ``SubprocVecEnv`` over 2 ``TeamEnv`` copies with 1,024 steps each per update, sb3-contrib's
  own policy (not ``sb3_policy.MaskedOncePolicy``) and torch checking every distribution's
  arguments (which ``train.new_model`` turns off).

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
from typing import Any

MAPPO_STEPS = 2048 * 12  # 12 updates of the default 2,048 samples


def steady_rate(charts: Any) -> float:
    """Env steps/s from the first update's ``charts/SPS`` point to the last: the first update
    also pays once for warming up (compiled kernels loaded, torch's first calls), which a run of
    hours pays once too."""
    points = charts.Scalars("charts/SPS")
    if len(points) < 2:
        raise ValueError("steady_rate needs a run of at least 2 updates")
    return (points[-1].step - points[0].step) / (points[-1].wall_time - points[0].wall_time)


def read_charts(folder: Path) -> Any:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    charts = EventAccumulator(str(folder))
    charts.Reload()
    return charts


def mappo_run(engine: str, steps: int) -> dict[str, float]:
    """One short MAPPO run; its speed (``steady_rate``) and last charts."""
    from tranquility_env.training.mappo import MappoConfig, train

    with tempfile.TemporaryDirectory() as folder:
        cfg = MappoConfig.make(
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
        return {"SPS": steady_rate(charts := read_charts(Path(folder) / "runs" / "speed"))} | steady_split(charts)


def steady_split(charts: Any) -> dict[str, float]:
    """The update loop's speed alone and the rollout's share of the time (games and inference),
    from the end of the first update to the last, as ``steady_rate``: the trainer charts both
    from its start (``charts/SPS_update_only``, ``charts/rollout_share``), so each is turned
    back into seconds at the first update and the last, and the first taken from the last."""
    updates, shares = charts.Scalars("charts/SPS_update_only"), charts.Scalars("charts/rollout_share")
    seconds = []  # (in the update loop, in the rollout) up to the first update, and up to the last
    for update, share in ((updates[0], shares[0]), (updates[-1], shares[-1])):
        in_updates = update.step / update.value
        seconds.append((in_updates, in_updates * share.value / (1 - share.value)))
    (u0, r0), (u1, r1) = seconds
    return {
        "update loop alone": (updates[-1].step - updates[0].step) / (u1 - u0),
        "rollout share": (r1 - r0) / (u1 - u0 + r1 - r0),
    }


def maskable_ppo_rate(batched: bool, updates: int) -> float:
    """Env steps/s of MaskablePPO.learn with ``tranquility train``'s settings."""
    import dataclasses

    import torch
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from tranquility_env import TeamEnv
    from tranquility_env.training.train import TrainConfig, make_envs, new_model

    cfg = TrainConfig.make(players=3, pretrain_games=0)
    if batched:
        model = new_model(cfg, make_envs(cfg))
    else:  # the trainer before the batched engine: 2 processes, one core each for torch and the games
        torch.set_num_threads(1)
        table = cfg.config.to_dict()
        envs = SubprocVecEnv([lambda: TeamEnv(reward_shaping=cfg.reward_shaping, **table) for _ in range(2)])
        model = new_model(dataclasses.replace(cfg, n_steps=cfg.n_steps * cfg.n_envs // 2), envs, policy="MlpPolicy")
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
        runs["batch"].append(mappo_run("batch", MAPPO_STEPS))
        runs["game"].append(mappo_run("game", MAPPO_STEPS))

    def median(engine: str, name: str) -> float:
        return statistics.median(r[name] for r in runs[engine])

    print(f"MAPPO, 3 players, default network and update settings, 2 cores; median of {args.runs} runs")
    print(f"{'trainer':<46} | {'SPS':>6} | {'update loop alone':>17} | {'games + inference':>17}")
    for engine, label in (("batch", "batched engine (default)"), ("game", "one-game path (engine=game)")):
        print(
            f"{label:<46} | {median(engine, 'SPS'):>6,.0f} | {median(engine, 'update loop alone'):>17,.0f}"
            f" | {median(engine, 'rollout share'):>16.1%}"
        )
    print(f"ratio, batched engine to the one-game path: {median('batch', 'SPS') / median('game', 'SPS'):.2f}")

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
