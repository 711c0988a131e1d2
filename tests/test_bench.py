"""The speed benchmarks: the policy table's both paths timed and choosing the same moves, the
batched engine's count, and how the training benchmark reads its runs' charts."""

from __future__ import annotations

from typing import NamedTuple

import pytest

import engine_speed as bench
import training_speed as speed


def test_the_policy_benchmark_times_both_paths_and_they_agree() -> None:
    figures = bench.bench_policy(games=1, runs=1)
    assert figures["PolicyBot.act"] > 0 and figures["dense forward pass"] > 0
    assert figures["same move"] == figures["positions"] > 20


def test_the_batched_engine_benchmark_plays_and_counts() -> None:
    pytest.importorskip("numba")
    decisions, seconds = bench.time_batch(games=64, threads=1, decisions=2_000, seed=0)
    assert decisions == 64 * (2_000 // 64) and seconds > 0


class Point(NamedTuple):
    step: int
    wall_time: float
    value: float


class Charts:
    """What ``speed`` reads of a run's TensorBoard charts: ``Scalars(name)``."""

    def __init__(self, series: dict[str, list[Point]]) -> None:
        self.series = series

    def Scalars(self, name: str) -> list[Point]:  # EventAccumulator's name
        return self.series[name]


def test_training_speed_is_counted_after_the_first_update() -> None:
    """Three updates of 2,048 steps: the first spends 0.4 s in the update loop and 0.6 s in the
    rollout (warming up), each later one 0.4 s and 0.1 s; the trainer charts from its start."""
    steps, update_seconds, rollout_seconds = [2048, 4096, 6144], [0.4, 0.8, 1.2], [0.6, 0.7, 0.8]
    walls = [u + r for u, r in zip(update_seconds, rollout_seconds, strict=True)]
    charts = Charts(
        {
            "charts/SPS": [Point(s, 100 + w, s / w) for s, w in zip(steps, walls, strict=True)],
            "charts/SPS_update_only": [Point(s, 0, s / u) for s, u in zip(steps, update_seconds, strict=True)],
            "charts/rollout_share": [Point(s, 0, r / w) for s, r, w in zip(steps, rollout_seconds, walls, strict=True)],
        }
    )
    assert speed.steady_rate(charts) == pytest.approx(4096 / 1.0)
    split = speed.steady_split(charts)
    assert split["update loop alone"] == pytest.approx(4096 / 0.8)
    assert split["rollout share"] == pytest.approx(0.2 / 1.0)
    with pytest.raises(ValueError, match="at least 2 updates"):
        speed.steady_rate(Charts({"charts/SPS": charts.series["charts/SPS"][:1]}))


def test_the_decision_time_benchmark_times_each_choice_of_a_bot(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--decision-time", "heuristic-no-search", "--games", "1"])
    printed = capsys.readouterr().out
    assert "heuristic-no-search, 3 players, one core:" in printed and "p95_s" in printed
    figures = bench.bench_decisions("random", 1)
    assert 0 < figures["median_s"] <= figures["p95_s"] <= figures["max_s"]
    bench.main(["--decision-time", "heuristic-no-search", "--games", "1", "--goats"])
    assert "heuristic-no-search, 3 players, goats=True, one core:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["--decision-time", "random", "--panoramas", "9"])
    assert "panoramas" in capsys.readouterr().err
