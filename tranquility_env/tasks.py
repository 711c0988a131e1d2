"""Named tasks: the fixed tables a benchmark result is reported on.

A task is a frozen game config with a version, pinned to the versions of the rules and of the
observation it was defined with, and with its own evaluation deals. Deals are kept in ranges
that never meet: training runs deal from ``TRAINING_DEALS`` on (or from seeds below
``TUNING_DEALS``), tuning uses ``TUNING_DEALS`` and results are measured on ``EVALUATION_DEALS``.

``task("p3-v1")`` gives a task; ``TASKS`` lists them all (``docs/benchmark.md`` has the table).
"""

from __future__ import annotations

from dataclasses import dataclass

from tranquility_env import encoding, rules
from tranquility_env.rules.config import Config

__all__ = [
    "EVALUATION_DEALS",
    "EVALUATION_GAMES",
    "TASKS",
    "TRAINING_DEALS",
    "TUNING_DEALS",
    "Task",
    "rules",
    "task",
    "training_deal",
]

TUNING_DEALS = 500_000  # deals 500,000 .. 999,999: for choosing settings
EVALUATION_DEALS = 1_000_000  # deals 1,000,000 .. 1,999,999: for results only
TRAINING_DEALS = 10**10  # training runs deal from here on (seed s: TRAINING_DEALS + s * 10**6 ...)
EVALUATION_GAMES = 1_000  # the deals of a task's result: EVALUATION_DEALS .. + 999


@dataclass(frozen=True)
class Task:
    """A named table: ``config`` frozen at ``version``, defined with ``rules_version`` and
    ``observation_version`` (literal numbers: raising a running version makes every task defined
    before refuse to run until it is looked at again); results are win rates on
    ``evaluation_deals()``."""

    name: str
    config: Config
    about: str
    version: int
    rules_version: int
    observation_version: int

    def evaluation_deals(self, games: int = EVALUATION_GAMES) -> range:
        """The seeds of the task's evaluation deals (the first ``games`` of them)."""
        if not 1 <= games <= EVALUATION_GAMES:
            raise ValueError(f"a task has {EVALUATION_GAMES} evaluation deals; asked for {games}")
        return range(EVALUATION_DEALS, EVALUATION_DEALS + games)

    def check_versions(self) -> None:
        """Refuse to run a task on rules or observations other than the ones it was defined with."""
        running = {"rules": rules.RULES_VERSION, "observation": encoding.VERSION}
        pinned = {"rules": self.rules_version, "observation": self.observation_version}
        if running != pinned:
            raise ValueError(f"task {self.name} pins {pinned}, but this tranquility_env has {running}")


_ALL = (  # name, config, about, then the versions: the task's, the rules', the observation's
    Task("solo-v1", Config(players=1), "one player with 3 ropes, the base game", 1, 1, 1),
    Task("p2-v1", Config(players=2), "2 players, the base game", 1, 1, 1),
    Task("p3-v1", Config(players=3), "3 players, the base game", 1, 1, 1),
    Task("p5-v1", Config(players=5), "5 players, the base game", 1, 1, 1),
    Task("p3-green-path-v1", Config(players=3, green_path=True), "3 players, the Green Path module (GP1)", 1, 1, 1),
    Task("p3-panoramas-v1", Config(players=3, panoramas=3), "3 players, 3 Panorama objectives (PA1-PA4)", 1, 1, 1),
    Task("p3-goats-v1", Config(players=3, goats=True), "3 players, the Mountain Goats module (GO1-GO4)", 1, 1, 1),
)
TASKS: dict[str, Task] = {t.name: t for t in _ALL}


def task(name: str) -> Task:
    """The task called ``name``; ``ValueError`` listing the names when there is none."""
    found = TASKS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown task {name!r}; the tasks are {', '.join(TASKS)}")
    found.check_versions()
    return found


def training_deal(seed: int, index: int) -> int:
    """The ``index``-th deal a training run with ``seed`` starts a game on: never a tuning or
    evaluation deal."""
    return TRAINING_DEALS + seed * 10**6 + index
