"""``tranquility benchmark``: the protocol run small (as CI runs it), resumed, its outputs, the
entry point for a new method, and bad requests refused before any training."""

from __future__ import annotations

import csv
import json
from pathlib import Path

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
    rows = benchmark.run(["p2-v1"], algorithms, seeds=2, scale=0.005, games=4, out=out, workers=1, teamwork_games=2)
    assert [(r["algorithm"], r["seeds"]) for r in rows] == [(a, 2) for a in algorithms]
    assert rows[1]["win_rate"] > rows[0]["win_rate"] == 0.0  # the value model wins some of 4 deals; random none
    cells = json.loads((out / "results.json").read_text())["cells"]
    assert len(cells) == 10 and {c["games"] for c in cells} == {4}
    assert all(c["commit"] and c["hardware"] and c["protocol"] == benchmark.PROTOCOL_VERSION for c in cells)
    mappo = [c for c in cells if c["algorithm"] == "mappo"]
    assert all(c["budget_steps"] == 500 and c["bot"].startswith("policy:") for c in mappo)
    for c in mappo:  # the time-to-score points are kept in the cell: [steps, minutes, win rate]
        steps = [p[0] for p in c["curve"]]
        assert steps == sorted(steps) and steps[-1] <= 2_048 and len(steps) >= 1
        assert all(0 <= p[1] <= c["seconds"] / 60 and 0 <= p[2] <= 1 for p in c["curve"])
    assert all(c["curve"] == [] and c["seconds"] >= 0 for c in cells if c["algorithm"] == "random")
    assert (out / "p2-v1" / f"{__name__}_custom_method" / "seed_1" / "trained.txt").read_text() == "p2-v1 1 500"
    with (out / "results.csv").open() as f:
        assert [r["warm_start"] for r in csv.DictReader(f)] == ["", "", "", "the shipped bot", ""]
    scratch, warm = (out / "results.md").read_text().split("Warm-started")
    assert "| p2-v1 | heuristic-no-search | 2 |" in scratch and "| p2-v1 | mappo-warm | 2 |" in warm
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
    again = benchmark.run(["p2-v1"], algorithms, seeds=2, scale=0.005, games=4, out=out, workers=1, teamwork_games=2)
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
    benchmark.run(["p2-v1"], ["mappo"], seeds=1, scale=0.005, games=2, out=out, workers=1)
    first = json.loads((cell / "result.json").read_text())
    (cell / "result.json").unlink()  # killed after its last checkpoint, before its result was kept
    benchmark.run(["p2-v1"], ["mappo"], seeds=1, scale=0.005, games=2, out=out, workers=1)
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
    with pytest.raises(ValueError, match="holds a benchmark of another version"):
        benchmark.run(["p2-v1"], ["random"], seeds=1, scale=1.0, games=1, out=out, workers=1)


def test_a_warm_start_runs_only_where_it_has_a_teacher() -> None:
    from tranquility_env import tasks
    from tranquility_env.training import benchmark

    warm = benchmark.ALGORITHMS["mappo-warm"]
    assert warm.teacher and all(warm.fits(tasks.task(n)) for n in ("solo-v1", "p2-v1", "p3-v1", "p5-v1"))
    assert not any(warm.fits(tasks.task(n)) for n in ("p3-green-path-v1", "p3-panoramas-v1", "p3-goats-v1"))


def test_rows_lead_with_the_graded_score_and_its_normalised_form(tmp_path: Path) -> None:
    """The score (cards + 1 for a win, 0-45) separates learners that all win 0%; normalised
    between random's and the heuristic's score on the same task."""
    from tranquility_env.training import benchmark

    def cell(algorithm: str, seed: int, cards: float, wins: float) -> dict:
        return {
            "task": "p3-v1",
            "algorithm": algorithm,
            "seed": seed,
            "budget_steps": 0,
            "mean_cards": cards,
            "win_rate": wins,
            "commit": "c",
            "hardware": "h",
            "seconds": 1.0,
        }

    cells = [cell("random", s, 10.0, 0.0) for s in (0, 1)]
    cells += [cell("heuristic", s, 43.0, 0.6) for s in (0, 1)]
    cells += [cell("mappo", 0, 28.0, 0.0), cell("mappo", 1, 32.0, 0.0)]
    rows = {r["algorithm"]: r for r in benchmark.summarise(cells)}
    assert rows["mappo"]["score"] == 30.0 and rows["mappo"]["win_rate"] == 0.0
    assert rows["mappo"]["score_half_width"] == pytest.approx(12.706 * 2.0)  # t(1) x stdev 2.83 / sqrt(2)
    assert rows["mappo"]["normalised_score"] == pytest.approx((30.0 - 10.0) / (43.6 - 10.0))
    assert rows["random"]["normalised_score"] == 0.0 and rows["heuristic"]["normalised_score"] == 1.0
    benchmark.write_tables(tmp_path, cells, list(rows.values()))
    table = (tmp_path / "results.md").read_text()
    assert "| p3-v1 | mappo | 2 | 0 | 30.0 ± 25.4 | 0.0% ± 0.0% | 0.60 |" in table
