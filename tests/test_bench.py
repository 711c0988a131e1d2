"""The benchmark module."""

from __future__ import annotations

import pytest


def test_the_policy_benchmark_times_both_paths_and_they_agree(capsys: pytest.CaptureFixture[str]) -> None:
    from tranquility_env import bench

    bench.main(["--policy", "--games", "1", "--runs", "1"])
    printed = capsys.readouterr().out
    assert "ratio, dense to PolicyBot.act" in printed
    agree, positions = map(int, printed.split("same move on ")[1].split()[::2][:2])
    assert agree == positions > 20
