"""``tranquility benchmark``: the protocol run small (as CI runs it), resumed, its outputs, the
entry point for a new method, and bad requests refused before any training."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from tranquility_env.bots.partners import names as partner_names
from tranquility_env.tasks import Task


def custom_method(task: Task, seed: int, budget: int, folder: Path) -> str:
    """A new method as a user would plug it in: it 'trains' by writing a note, and plays random."""
    (folder / "trained.txt").write_text(f"{task.name} {seed} {budget}")
    return "random"


def test_a_reduced_protocol_run_writes_tables_and_curves_and_resumes(tmp_path: Path) -> None:
    from tranquility_env.training import benchmark

    out = tmp_path / "bench"
    algorithms = ["random", "heuristic-no-search", "mappo", "mappo-warm", f"{__name__}:custom_method"]
    rows = benchmark.run(["p2-v1"], algorithms, seeds=2, scale=0.0005, games=4, out=out, workers=1, teamwork_games=2)
    assert [(r["algorithm"], r["seeds"]) for r in rows] == [(a, 2) for a in algorithms]
    assert rows[1]["win_rate"] > rows[0]["win_rate"] == 0.0  # the value model wins some of 4 deals; random none
    cells = json.loads((out / "results.json").read_text())["cells"]
    assert len(cells) == 10 and {c["games"] for c in cells} == {4}
    assert all(c["commit"] and c["hardware"] and c["protocol"] == benchmark.PROTOCOL_VERSION for c in cells)
    mappo = [c for c in cells if c["algorithm"] == "mappo"]
    assert all(c["budget_steps"] == 500 and c["bot"].startswith("policy:") for c in mappo)
    for c in mappo:  # the time-to-score points are kept in the cell: [steps, minutes, win rate, cards]
        steps = [p[0] for p in c["curve"]]
        assert steps == sorted(steps) and steps[-1] <= 2_048 and len(steps) >= 1
        assert all(0 <= p[1] <= c["seconds"] / 60 and 0 <= p[2] <= 1 and 0 <= p[3] <= 44 for p in c["curve"])
        assert c["train_cpu_seconds"] > 0 and sum(c["losses"].values()) == 4 * (1 - c["win_rate"])
    assert all(c["curve"] == [] and c["seconds"] >= 0 for c in cells if c["algorithm"] == "random")
    assert all(c["start"] is None for c in cells if c["algorithm"] != "mappo-warm")
    for c in (c for c in cells if c["algorithm"] == "mappo-warm"):  # its step 0: the shipped bot's network
        assert c["start"]["win_rate"] > 0 and c["start"]["mean_cards"] > 30
    assert (out / "p2-v1" / f"{__name__}_custom_method" / "seed_1" / "trained.txt").read_text() == "p2-v1 1 500"
    with (out / "results.csv").open() as f:
        assert [r["warm_start"] for r in csv.DictReader(f)] == ["", "", "", "the shipped bot's network", ""]
    scratch, warm = (out / "results.md").read_text().split("Warm-started")
    assert "| p2-v1 | heuristic-no-search | 2 |" in scratch and "| p2-v1 | mappo-warm | 2 |" in warm
    assert "the shipped bot's network; " in warm  # its step 0 beside the trained result
    assert "How games were lost" in warm and "Across tasks" not in warm  # no heuristic row: no normalised score
    assert (out / "curves_p2-v1.png").stat().st_size > 10_000

    # ad-hoc teamwork with every test partner, and cross-play where the seeds made different bots
    teams = {t["algorithm"]: t for t in json.loads((out / "results.json").read_text())["teamwork"]}
    assert list(teams) == algorithms and set(teams["mappo"]["partners"]) == set(partner_names("test"))
    careful = teams["heuristic-no-search"]["partners"]["careful"]
    assert len(careful["with"]) == 2 and 0 <= careful["mean"] <= 1 and 0 <= careful["alone"] <= 1
    assert teams["random"]["cross_play"] is None  # one bot, whatever the seed
    crossed = teams["mappo"]["cross_play"]
    assert len(crossed["win_rate"]) == 2 and all(len(row) == 2 for row in crossed["win_rate"])
    assert [set(m["seatings"]) for m in crossed["mixed"]] == [{"AB", "BA"}]  # both seatings of the one pair
    report = (out / "results.md").read_text()
    assert "wall-clock" in report and "Ad-hoc teamwork (2 deals)" in report
    assert "| p2-v1 | mappo | " in report.split("Cross-play")[1]

    # interrupted and run again: done cells are read back, not trained again
    (out / "p2-v1" / "random" / "seed_1" / "result.json").unlink()
    before = (out / "p2-v1" / "mappo" / "seed_0" / "result.json").stat().st_mtime_ns
    teamwork_before = (out / "p2-v1" / "mappo" / "teamwork.json").stat().st_mtime_ns
    again = benchmark.run(["p2-v1"], algorithms, seeds=2, scale=0.0005, games=4, out=out, workers=1, teamwork_games=2)
    assert again == rows
    assert (out / "p2-v1" / "mappo" / "seed_0" / "result.json").stat().st_mtime_ns == before
    assert (out / "p2-v1" / "mappo" / "teamwork.json").stat().st_mtime_ns == teamwork_before
    assert (out / "p2-v1" / "random" / "seed_1" / "result.json").exists()


def test_the_limits_of_the_game_are_rows_of_their_own_on_the_first_deals(tmp_path: Path, monkeypatch) -> None:
    """``omniscient`` (it cheats) and ``pimc`` (it searches at play time) are reported apart from
    the methods, on at most their ``games`` deals, and never seated as partners."""
    import dataclasses

    from tranquility_env.training import benchmark

    monkeypatch.setitem(benchmark.ALGORITHMS, "pimc", dataclasses.replace(benchmark.ALGORITHMS["pimc"], games=2))
    out, algorithms = tmp_path / "bench", ["random", "heuristic-no-search", "omniscient", "pimc"]
    rows = benchmark.run(["p2-v1"], algorithms, seeds=1, scale=1, games=3, out=out, workers=1, teamwork_games=1)
    by_name = {r["algorithm"]: r for r in rows}
    assert by_name["omniscient"]["games"] == 3 and by_name["pimc"]["games"] == 2
    assert by_name["omniscient"]["win_rate"] == 1.0 >= by_name["heuristic-no-search"]["win_rate"]
    methods, limits = (out / "results.md").read_text().split("The limits of the game")
    assert "| p2-v1 | heuristic-no-search | 1 |" in methods and "omniscient" not in methods
    assert "| p2-v1 | omniscient (3 deals) | 1 |" in limits and "| p2-v1 | pimc (2 deals) | 1 |" in limits
    assert "cheats" in limits
    teams = json.loads((out / "results.json").read_text())["teamwork"]
    assert [t["algorithm"] for t in teams] == ["random", "heuristic-no-search"]


def test_a_killed_cell_resumes_its_trainer_from_the_last_checkpoint(tmp_path: Path, monkeypatch) -> None:
    from tranquility_env.training import benchmark, mappo

    calls, real = [], mappo.train

    def spy(cfg: mappo.MappoConfig, resume: bool = False) -> Path:
        calls.append(resume)
        return real(cfg, resume=resume)

    monkeypatch.setattr(mappo, "train", spy)
    out, cell = tmp_path / "bench", tmp_path / "bench" / "p2-v1" / "mappo" / "seed_0"
    benchmark.run(["p2-v1"], ["mappo"], seeds=1, scale=0.0005, games=2, out=out, workers=1)
    first = json.loads((cell / "result.json").read_text())
    (cell / "result.json").unlink()  # killed after its last checkpoint, before its result was kept
    benchmark.run(["p2-v1"], ["mappo"], seeds=1, scale=0.0005, games=2, out=out, workers=1)
    again = json.loads((cell / "result.json").read_text())
    assert calls == [False, True]
    assert again["curve"] == first["curve"] and again["win_rate"] == first["win_rate"]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"task_names": ["p4-v1"]}, "unknown task 'p4-v1'"),
        ({"algo_names": ["dqn"]}, "unknown algorithm 'dqn'"),
        ({"algo_names": ["no_such_module:train"]}, "cannot load train from no_such_module"),
        ({"seeds": 0}, "--seeds must be at least 1"),
        ({"scale": 0.0}, "--scale must be a positive number"),
        ({"games": 0}, "--games must be from 1 to 1000"),
        ({"teamwork_games": -1}, "--teamwork-games must be from 0"),
        ({"tier": "huge"}, "--tier must be one of quick, standard"),
    ],
)
def test_bad_requests_are_refused_before_any_training(tmp_path: Path, kwargs: dict, words: str) -> None:
    from tranquility_env.training import benchmark

    settings = {"task_names": ["p2-v1"], "algo_names": ["random"], "seeds": 1, "scale": 1.0, "games": 1}
    with pytest.raises(ValueError, match=words):
        benchmark.run(**{**settings, **kwargs}, out=tmp_path / "bench", workers=1)
    assert not (tmp_path / "bench").exists()


def test_a_run_directory_of_another_version_is_refused(tmp_path: Path) -> None:
    from tranquility_env.training import benchmark

    out = tmp_path / "bench"
    benchmark.run(["p2-v1"], ["random"], seeds=1, scale=1.0, games=1, out=out, workers=1)
    pinned = json.loads((out / "protocol.json").read_text())
    (out / "protocol.json").write_text(json.dumps({**pinned, "protocol": benchmark.PROTOCOL_VERSION + 1}))
    with pytest.raises(ValueError, match="holds a benchmark of another version or tier"):
        benchmark.run(["p2-v1"], ["random"], seeds=1, scale=1.0, games=1, out=out, workers=1)
    (out / "protocol.json").write_text(json.dumps(pinned))
    with pytest.raises(ValueError, match="holds a benchmark of another version or tier"):
        benchmark.run(["p2-v1"], ["random"], seeds=1, scale=1.0, games=1, out=out, workers=1, tier="standard")


def test_every_row_of_the_protocol_runs_on_one_task_with_tiny_budgets(tmp_path: Path, monkeypatch) -> None:
    """The whole table reduced: every reference algorithm, fixed, learning, warm-started and
    limit, on one task with a tiny budget and a few deals, with the aggregate across tasks."""
    import dataclasses

    from tranquility_env.training import benchmark

    monkeypatch.setitem(benchmark.ALGORITHMS, "pimc", dataclasses.replace(benchmark.ALGORITHMS["pimc"], games=1))
    small = {"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 1, "hidden": [16]}  # as test_rllib's
    rllib = benchmark.trainer("rllib_train", "RllibConfig", num_env_runners=0, **small)
    monkeypatch.setitem(
        benchmark.ALGORITHMS, "rllib-ppo", dataclasses.replace(benchmark.ALGORITHMS["rllib-ppo"], train=rllib)
    )
    out, algorithms = tmp_path / "bench", list(benchmark.ALGORITHMS)
    rows = benchmark.run(["solo-v1"], algorithms, seeds=1, scale=0.0005, games=2, out=out, workers=1)
    assert [r["algorithm"] for r in rows] == algorithms
    assert all(r["budget_steps"] == 500 for r in rows if benchmark.ALGORITHMS[r["algorithm"]].learns)
    assert all(r["normalised_score"] is not None for r in rows)  # random and the heuristic ran on the task
    report = (out / "results.md").read_text()
    assert "Warm-started" in report and "The limits of the game" in report and "Across tasks" in report


def test_a_warm_start_runs_only_where_it_has_a_teacher() -> None:
    from tranquility_env import tasks
    from tranquility_env.training import benchmark

    warm = benchmark.ALGORITHMS["mappo-warm"]
    assert warm.teacher and all(warm.fits(tasks.task(n)) for n in ("solo-v1", "p2-v1", "p3-v1", "p5-v1"))
    assert not any(warm.fits(tasks.task(n)) for n in ("p3-green-path-v1", "p3-panoramas-v1", "p3-goats-v1"))


def cell(task: str, algorithm: str, seed: int, cards: float, wins: float, **more: object) -> dict:
    return {
        "task": task,
        "algorithm": algorithm,
        "seed": seed,
        "bot": f"policy:{task}/{algorithm}/seed_{seed}",  # each seed its own bot, as a learner's
        "budget_steps": 0,
        "mean_cards": cards,
        "win_rate": wins,
        "games": 1000,
        "commit": "c",
        "hardware": "h",
        "seconds": 1.0,
        **more,
    }


def test_rows_lead_with_the_graded_score_and_the_win_rate_with_its_wilson_interval(tmp_path: Path) -> None:
    """The score (cards + 1 for a win, 0-45) separates learners that all win 0%; normalised
    between random's and the heuristic's score on the same task. The win rate's interval is
    Wilson's over every game of every seed; steps to 30 cards: the median over seeds that did."""
    from tranquility_env.training import benchmark_report

    cells = [cell("p3-v1", "random", s, 10.0, 0.0) for s in (0, 1)]
    cells += [cell("p3-v1", "heuristic", s, 43.0, 0.6) for s in (0, 1)]
    curve = [[100_000, 1.0, 0.0, 25.0], [200_000, 2.0, 0.0, 31.0]]  # 30 cards after 200,000 steps, not 40
    cells += [
        cell("p3-v1", "mappo", 0, 28.0, 0.0, curve=curve, train_cpu_seconds=3600.0, losses={"ran dry": 1000}),
        cell("p3-v1", "mappo", 1, 32.0, 0.0, curve=curve[:1], train_cpu_seconds=7200.0, losses={"ran dry": 990}),
    ]
    rows = {r["algorithm"]: r for r in benchmark_report.summarise(cells)}
    assert rows["mappo"]["score"] == 30.0 and rows["mappo"]["win_rate"] == 0.0
    assert rows["mappo"]["score_half_width"] == pytest.approx(12.706 * 2.0)  # t(1) x stdev 2.83 / sqrt(2)
    assert rows["mappo"]["normalised_score"] == pytest.approx((30.0 - 10.0) / (43.6 - 10.0))
    assert rows["random"]["normalised_score"] == 0.0 and rows["heuristic"]["normalised_score"] == 1.0
    assert rows["mappo"]["steps_to_cards"] == {"30": [200_000, None], "40": [None, None], "43": [None, None]}
    assert rows["mappo"]["cpu_hours"] == 1.5 and rows["mappo"]["losses"] == {"ran dry": 1990}
    low, high = rows["heuristic"]["win_rate_ci95"]  # 1,200 wins of 2,000 games
    assert low == pytest.approx(0.5784, abs=1e-3) and high == pytest.approx(0.6213, abs=1e-3)
    fixed = [cell("p3-v1", "heuristic", s, 43.0, 0.6, bot="heuristic") for s in (0, 1)]  # one bot, the same games
    low, high = benchmark_report.summarise(fixed)[0]["win_rate_ci95"]  # 600 wins of 1,000 games, counted once
    assert low == pytest.approx(0.5696, abs=1e-3) and high == pytest.approx(0.6293, abs=1e-3)
    benchmark_report.write_tables(tmp_path, cells, list(rows.values()), protocol=3, tier="quick")
    table = (tmp_path / "results.md").read_text()
    assert "| p3-v1 | mappo | 2 | 0 | 30.0 ± 25.4 | 0.0% (0.0%-0.2%) | 0.60 | 0.2M (1/2) | - | - | 1.50 |" in table
    cells[4]["curve"] = [[100_000, 1.0, 0.0, 41.0]]  # 30 and 40 cards at its first evaluation: no sooner known
    cells[5]["curve"] = [[100_000, 1.0, 0.0, 40.0]]
    benchmark_report.write_tables(tmp_path, cells, benchmark_report.summarise(cells), protocol=3, tier="quick")
    assert "| 0.60 | ≤0.1M | ≤0.1M | - | 1.50 |" in (tmp_path / "results.md").read_text()
    assert "| p3-v1 | mappo | 99.5% |" in table  # ran dry: 1,990 of 2,000 games
    assert "protocol 3, quick tier" in table


def test_the_aggregate_is_the_interquartile_mean_with_a_stratified_bootstrap_interval() -> None:
    """rliable's aggregate: the IQM over every run of every task, its interval from resampling
    runs within each task; a task without random and the heuristic has no normalised score."""
    from tranquility_env.training import benchmark_report

    assert benchmark_report.iqm(np.array([0.0, 1.0, 2.0, 3.0, 100.0, -50.0, 4.0, 5.0])) == 2.5
    cells = []
    for task in ("p2-v1", "p3-v1"):
        cells += [cell(task, "random", 0, 10.0, 0.0), cell(task, "heuristic", 0, 43.0, 0.5)]
        cells += [cell(task, "mappo", s, 10.0 + 33.5 * f, 0.0) for s, f in enumerate((0.2, 0.4, 0.6, 0.8))]
    cells += [cell("p5-v1", "mappo", 0, 44.0, 1.0)]  # no fixed rows on p5-v1: left out of the aggregate
    rows = benchmark_report.summarise(cells)
    overall = {a["algorithm"]: a for a in benchmark_report.aggregate(cells, rows)}
    mappo = overall["mappo"]
    assert mappo["tasks"] == ["p2-v1", "p3-v1"] and mappo["runs"] == 8
    assert mappo["iqm_normalised_score"] == pytest.approx(0.5)  # the middle four of 0.2, 0.2, ..., 0.8, 0.8
    low, high = mappo["iqm_normalised_score_ci95"]
    assert 0.2 < low < 0.5 < high < 0.8 and mappo["iqm_win_rate_ci95"] == [0.0, 0.0]
    assert overall["random"]["iqm_normalised_score_ci95"] == [0.0, 0.0]
