"""``tranquility evaluate``: results independent of workers, progress display, intervals."""

from __future__ import annotations

import re
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


def test_a_paired_difference_counts_the_deals_one_team_won_and_the_other_lost() -> None:
    from tranquility_env.training.evaluate import TeamResult, markdown, paired

    def team(name: str, won: list[int]) -> TeamResult:
        return TeamResult(name, len(won), sum(won), sum(won) / len(won), (0, 1), 40.0, 50.0, {}, won)

    base = team("a", [1, 0] * 50)
    same = team("b", [1, 0] * 50)
    assert paired(base, same) == (0.0, 0.0, 0.0)  # the same deals won: no doubt at all
    better = team("c", [1, 1] * 50)  # wins every deal a lost, and those a won
    gain, low, high = paired(base, better)
    assert gain == pytest.approx(50) and 40 < low < 50 < high < 60
    assert "- c: +50.0 points (95% CI +40.2 to +59.8)" in markdown([base, same, better], Config(players=2))
    with pytest.raises(ValueError, match="same deals"):
        paired(base, team("d", [1, 0, 1]))


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
    assert "| greedy | weak but legal" in printed and "| random | weakest" in printed
    assert "mean" not in printed  # one row per partner, never averaged
    with pytest.raises(SystemExit):
        main(["--players", "2", "--games", "2", "--adhoc", "random", "--partners", "wizard", "--out", str(tmp_path)])
    assert "unknown partner 'wizard'" in capsys.readouterr().err


def test_cross_play_plays_every_pair_in_every_seating_where_both_play() -> None:
    from tranquility_env.training.evaluate import arrangements, cross_play, evaluate

    assert arrangements(2) == ["AB", "BA"]
    assert len(set(arrangements(3))) == 6 and all({"A", "B"} == set(s) for s in arrangements(3))
    assert len(arrangements(5)) == 30
    config = Config(players=3)
    # a bot beside itself: every seating is its own game, so no mixed table differs from self-play
    same = cross_play(["heuristic-no-search", "heuristic-no-search"], config, 4, seed=40)
    assert same.largest_gap() == 0 and list(same.mixed[(0, 1)]) == arrangements(3)
    crossed = cross_play(["heuristic-no-search", "random", "partner:greedy"], config, 4, seed=40)
    assert list(crossed.mixed) == [(0, 1), (0, 2), (1, 2)]
    assert crossed.self_play[0].wins == same.self_play[0].wins
    seated = evaluate("random,heuristic-no-search,random", config, 4, seed=40)
    assert crossed.mixed[(0, 1)]["BAB"].mean_cards == seated.mean_cards  # B is the pair's second bot
    matrix = crossed.matrix()
    assert all(matrix[i][j] == matrix[j][i] for i in range(3) for j in range(3))
    worst = max(abs(r.win_rate - crossed.self_play[0].win_rate) for r in crossed.mixed[(0, 1)].values())
    assert crossed.largest_gap() >= worst
    report = crossed.to_dict()
    assert report["win_rate"] == matrix and set(report["mixed"][2]["seatings"]) == set(arrangements(3))
    assert "| BBA |" in crossed.markdown()
    with pytest.raises(ValueError, match="at least 2 players"):
        cross_play(["random", "partner:greedy"], Config(players=1), 2, seed=0)
    with pytest.raises(ValueError, match="at least 2 bots"):
        cross_play(["random"], config, 2, seed=0)


def test_adhoc_partners_may_be_any_bot_such_as_a_learned_bot_of_another_seed(tmp_path: Path) -> None:
    from tests.tiny_bots import tiny_checkpoint
    from tranquility_env.training.evaluate import adhoc, evaluate, partner_list, with_partner

    config = Config(players=2)
    other_seed = f"policy:{tiny_checkpoint(tmp_path / 'seed1', config)}"
    chosen = partner_list(f"greedy,test,heuristic-no-search,{other_seed}")
    assert chosen[0] == "greedy" and chosen.count("greedy") == 1 and "careful" in chosen
    assert chosen[-2:] == ["heuristic-no-search", other_seed]
    (row,) = adhoc("random", [other_seed], config, 4, seed=40)
    assert row.habit == "not in the pool"
    assert row.alone.mean_cards == evaluate(other_seed, config, 4, seed=40).mean_cards
    assert row.with_candidate.mean_cards == with_partner("random", other_seed, config, 4, seed=40).mean_cards
    with pytest.raises(ValueError, match="unknown partner 'wizard'"):
        partner_list("test,wizard")
    with pytest.raises(ValueError, match=re.escape("this table differs in {'players': 3}")):  # made for another table
        adhoc("random", [other_seed], Config(players=3), 2)
