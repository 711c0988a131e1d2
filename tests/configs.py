"""Game configs drawn from ``Config``'s own fields and bounds, for the differential and property
tests: a field added to ``Config`` is drawn with no change here."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable

from hypothesis import strategies as st

from tranquility_env import Config

DEFAULTS = {f.name: f.default for f in dataclasses.fields(Config)}


def config_from(pick: Callable[[str, type, int, int], int | bool | None]) -> Config:
    """A valid config whose every field is ``pick(name, kind, lo, hi)`` (None: its default); a
    value that a rule between fields refuses (ropes outside solo, too few bridges) falls back to
    the field's default."""
    values = {name: pick(name, *Config.bounds(name)) for name in Config.fields()}
    for _ in range(len(values)):
        try:
            return Config(**{k: DEFAULTS[k] if v is None else v for k, v in values.items()})
        except ValueError as err:
            values[re.search(r"config '(\w+)'", str(err)).group(1)] = None
    raise AssertionError(f"no valid config from {values}")


def random_config(rng: random.Random) -> Config:
    """Every field uniform within its bounds, or now and then its default."""

    def pick(name: str, kind: type, lo: int, hi: int) -> int | bool | None:
        if rng.random() < 0.15:
            return None
        return rng.random() < 0.5 if kind is bool else rng.randint(lo, hi)

    return config_from(pick)


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """The same for hypothesis."""

    def pick(name: str, kind: type, lo: int, hi: int) -> int | bool | None:
        if draw(st.integers(0, 6)) == 0:
            return None
        return draw(st.booleans()) if kind is bool else draw(st.integers(lo, hi))

    return config_from(pick)
