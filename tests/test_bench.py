"""The speed benchmark's policy table: both paths timed, and they choose the same moves."""

from __future__ import annotations

from tranquility_env import bench


def test_the_policy_benchmark_times_both_paths_and_they_agree() -> None:
    figures = bench.bench_policy(games=1, runs=1)
    assert figures["PolicyBot.act"] > 0 and figures["dense forward pass"] > 0
    assert figures["same move"] == figures["positions"] > 20
