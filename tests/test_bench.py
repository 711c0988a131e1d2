"""The speed benchmark's policy table: both paths timed, and they choose the same moves."""

from __future__ import annotations

import pytest

from tranquility_env import bench


def test_the_policy_benchmark_times_both_paths_and_they_agree() -> None:
    figures = bench.bench_policy(games=1, runs=1)
    assert figures["PolicyBot.act"] > 0 and figures["dense forward pass"] > 0
    assert figures["same move"] == figures["positions"] > 20


def test_the_batched_engine_benchmark_plays_and_counts() -> None:
    pytest.importorskip("numba")
    decisions, seconds = bench.time_batch(games=64, threads=1, decisions=2_000, seed=0)
    assert decisions == 64 * (2_000 // 64) and seconds > 0
