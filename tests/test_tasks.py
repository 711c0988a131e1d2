"""Named tasks (``tranquility_env.tasks``): frozen configs, pinned versions, deals kept apart."""

from __future__ import annotations

import dataclasses

import pytest

from tranquility_env import encoding, tasks
from tranquility_env.rules import RULES_VERSION, Config


def test_every_task_is_a_valid_frozen_table_with_its_own_evaluation_deals() -> None:
    assert len(tasks.TASKS) >= 7 and all(name.endswith(f"-v{t.version}") for name, t in tasks.TASKS.items())
    for name, t in tasks.TASKS.items():
        assert tasks.task(name) is t and isinstance(t.config, Config)
        assert (t.rules_version, t.observation_version) == (RULES_VERSION, encoding.VERSION)
        deals = t.evaluation_deals()
        assert len(deals) == tasks.EVALUATION_GAMES and deals[0] == tasks.EVALUATION_DEALS
        with pytest.raises(dataclasses.FrozenInstanceError):
            t.config = Config(players=2)  # type: ignore[misc]
    assert {t.config.players for t in tasks.TASKS.values()} == {1, 2, 3, 5}
    modules = [t for t in tasks.TASKS.values() if t.config != Config(players=t.config.players)]
    assert {(t.config.green_path, t.config.panoramas > 0, t.config.goats) for t in modules} == {
        (True, False, False),
        (False, True, False),
        (False, False, True),
    }


def test_training_tuning_and_evaluation_deals_never_meet() -> None:
    evaluation = range(tasks.EVALUATION_DEALS, 2 * tasks.EVALUATION_DEALS)
    tuning = range(tasks.TUNING_DEALS, tasks.EVALUATION_DEALS)
    for seed in (0, 1, 2, 3, 99):
        for index in (0, 63, 10**6 - 1, 5 * 10**7):
            deal = tasks.training_deal(seed, index)
            assert deal >= tasks.TRAINING_DEALS and deal not in evaluation and deal not in tuning


def test_unknown_tasks_other_versions_and_bad_deal_counts_are_refused() -> None:
    with pytest.raises(ValueError, match=r"unknown task 'p4'; the tasks are solo-v1, p2-v1"):
        tasks.task("p4")
    newer = dataclasses.replace(tasks.TASKS["p3-v1"], observation_version=encoding.VERSION + 1)
    with pytest.raises(ValueError, match=r"pins .* but this tranquility_env has"):
        newer.check_versions()
    for games in (0, tasks.EVALUATION_GAMES + 1):
        with pytest.raises(ValueError, match="evaluation deals"):
            tasks.TASKS["p2-v1"].evaluation_deals(games)


def test_every_task_pins_literal_versions_that_refuse_other_running_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    fields = {f.name: f for f in dataclasses.fields(tasks.Task)}
    assert all(fields[n].default is dataclasses.MISSING for n in ("version", "rules_version", "observation_version"))
    for name in tasks.TASKS:
        tasks.task(name)  # the running versions are the pinned ones
    for module, attribute in ((encoding, "VERSION"), (tasks.rules, "RULES_VERSION")):
        with monkeypatch.context() as patch:
            patch.setattr(module, attribute, getattr(module, attribute) + 1)
            for name in tasks.TASKS:
                with pytest.raises(ValueError, match=rf"task {name} pins .* but this tranquility_env has"):
                    tasks.task(name)
