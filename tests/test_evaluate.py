"""``tranquility evaluate``: results independent of workers, progress display, intervals."""

from __future__ import annotations

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
