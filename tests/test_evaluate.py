"""``tranquility evaluate``: results independent of workers, progress display, intervals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tranquility_env import Config


def test_evaluation_does_not_depend_on_the_number_of_workers() -> None:
    from tranquility_env.training.evaluate import evaluate

    config = Config(players=2)
    one, two = (evaluate("heuristic,random", config, 4, seed=9, workers=w) for w in (1, 2))
    assert one == two and one.games == 4
    with pytest.raises(ValueError, match="names 3 seats"):
        evaluate("random,random,random", config, 4, workers=2)


@pytest.mark.parametrize("progress", [True, False])
def test_evaluation_shows_its_progress_on_a_terminal_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, progress: bool
) -> None:
    import io
    import sys

    from tranquility_env.training.evaluate import evaluate

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    if progress:
        pytest.importorskip("tqdm")  # the train extra's
    else:  # without the bar, evaluation needs no tqdm (the env alone does not install it)
        monkeypatch.setitem(sys.modules, "tqdm", None)
    for stream in (Terminal(), io.StringIO()):  # a terminal, then a log file
        monkeypatch.setattr(sys, "stderr", stream)
        evaluate("random", Config(players=2), 3, seed=9, progress=progress)
        shown = "3/3" in stream.getvalue() and "random" in stream.getvalue()
        assert shown == (progress and isinstance(stream, Terminal))


def test_wilson_interval() -> None:
    from tranquility_env.training.evaluate import wilson

    low, high = wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert wilson(0, 300)[0] == 0.0 and wilson(0, 300)[1] > 0.0


def test_evaluation_saves_every_game_as_a_replay_with_what_the_bots_weighed(tmp_path: Path) -> None:
    from tranquility_env.replay import read
    from tranquility_env.training.evaluate import evaluate

    result = evaluate("policy,heuristic-no-search", Config(players=2), 3, seed=5, replays=str(tmp_path))
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 3
    replays = [read(f) for f in files]
    assert sum(r.end == "won" for r in replays) == result.wins
    assert {r.header["seed"] for r in replays} == {5, 6, 7}
    for replay in replays:
        assert replay.header["replay"] == 2 and replay.header["seats"] == ["policy", "heuristic-no-search"]
        kinds = {seat: {why["kind"] for s, _, why in replay.moves if s == seat and why} for seat in (0, 1)}
        assert kinds == {0: {"policy"}, 1: {"value model"}}


def test_adhoc_seats_the_candidate_beside_each_partner_on_the_same_deals(
    capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    from tranquility_env.training.evaluate import adhoc, main

    config = Config(players=3)
    # the candidate is the partner's own bot: every mixed game is the partner's own game
    (same,) = adhoc("heuristic-no-search", ["careful-no-search"], config, 6, seed=40)
    assert same.with_candidate.wins == same.alone.wins and same.with_candidate.mean_cards == same.alone.mean_cards
    (weak,) = adhoc("random", ["careful-no-search"], config, 6, seed=40)  # a random seat drags the team down
    assert weak.alone.wins == same.alone.wins and weak.with_candidate.mean_cards < weak.alone.mean_cards - 5
    with pytest.raises(ValueError, match="at least 2 players"):
        adhoc("random", ["greedy"], Config(players=1), 2)
    main(
        [
            "--players",
            "2",
            "--games",
            "2",
            "--workers",
            "1",
            "--adhoc",
            "random",
            "--partners",
            "greedy,random",
            "--out",
            str(tmp_path),
        ]
    )
    printed = capsys.readouterr().out
    assert "| greedy | weak but legal" in printed and "mean over the 2 partners" in printed
    with pytest.raises(SystemExit):
        main(["--players", "2", "--games", "2", "--adhoc", "random", "--partners", "wizard", "--out", str(tmp_path)])
    assert "unknown partner 'wizard'" in capsys.readouterr().err
