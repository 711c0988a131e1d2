"""Game configuration: the ``config`` object of ``shared/spec/state.md``.

Every variant flag of RULES.md's Interpretations table is a field here, with the default given
there. ``hand_size`` and ``ropes`` default by player count (6 and 3 solo, 5 and 0 otherwise).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from tranquility_env.safe_json import shown

__all__ = ["Config"]

# field -> (type, smallest, largest); bounds are inclusive.
_BOUNDS: dict[str, tuple[type, int, int]] = {
    "players": (int, 1, 5),
    "hand_size": (int, 2, 10),
    "bridges": (int, 0, 10),
    "campfires_per_colour": (int, 0, 3),
    "ropes": (int, 0, 6),
    "campfire_move_pays": (bool, 0, 1),
    "green_path": (bool, 0, 1),
    "panoramas": (int, 0, 5),
    "goats": (bool, 0, 1),
    "goats_needed": (int, 0, 12),
}


# A line of help per field, for people choosing a table (the web page's form, ``Config.schema``).
_HELP = {
    "players": "players at the table (1: solo, with ropes)",
    "hand_size": "cards in each hand (default: 6 solo, 5 otherwise)",
    "bridges": "bridge cards in the game (U2 deals some to the hands)",
    "campfires_per_colour": "campfire cards of each colour",
    "ropes": "ropes, solo only (default: 3 solo)",
    "campfire_move_pays": "a card a campfire displaces pays the usual penalty where it moves (C3)",
    "green_path": "module: a green chain from row 1 to row 8 is needed to win (GP1)",
    "panoramas": "module: Panorama objectives to achieve before the Summit (PA1-PA4)",
    "goats": "module: Mountain Goats, herded up the mountain (GO1-GO4)",
    "goats_needed": "with Mountain Goats: goats on row 8 needed for the Summit (GO4)",
}

# A module's parameters, which mean nothing while the module is off: field -> (the switch's field,
# the value that turns it off). ``canonical()`` gives them their defaults then.
_SWITCHED = {"goats_needed": ("goats", False), "campfire_move_pays": ("campfires_per_colour", 0)}


@dataclass(frozen=True, eq=False)
class Config:
    """A validated, immutable game configuration.

    ``Config(players=3)`` or ``Config.from_dict({...})``; invalid values and unknown keys raise
    ``ValueError`` naming the key. Two configs are equal when they make the same table: a module's
    parameters count only while the module is on (``goats_needed`` without goats, what campfire
    moves cost without campfires). Whatever reads a config to play or to observe reads its
    ``canonical()`` form, so equal configs make the same games and the same observations.
    """

    players: int = 3
    hand_size: int | None = None  # 6 solo, 5 otherwise
    bridges: int = 5
    campfires_per_colour: int = 1
    ropes: int | None = None  # 3 solo, 0 otherwise (U5: ropes exist only in solo)
    campfire_move_pays: bool = True
    green_path: bool = False
    panoramas: int = 0
    goats: bool = False
    goats_needed: int = 8

    def __post_init__(self) -> None:
        solo = self.players == 1 if _is_int(self.players) else False
        if self.hand_size is None:
            object.__setattr__(self, "hand_size", 6 if solo else 5)
        if self.ropes is None:
            object.__setattr__(self, "ropes", 3 if solo else 0)
        for name, (kind, lo, hi) in _BOUNDS.items():
            value = getattr(self, name)
            if kind is bool:
                if not isinstance(value, bool):
                    raise ValueError(f"config {name!r} must be true or false, got {shown(value)}")
            elif not _is_int(value) or not lo <= value <= hi:
                raise ValueError(f"config {name!r} must be an integer from {lo} to {hi}, got {shown(value)}")
        if self.ropes and self.players != 1:
            raise ValueError(f"config 'ropes' must be 0 with {self.players} players (U5: ropes are solo only)")
        if self.bridges < self.dealt_bridges:
            raise ValueError(
                f"config 'bridges' is {self.bridges}, but {self.players} players are dealt {self.dealt_bridges} (U2)"
            )
        off = self._disabled()  # compared and hashed often (caches are keyed on configs): kept, not recomputed
        object.__setattr__(self, "_key", tuple((n, getattr(self, n)) for n in self.fields() if n not in off))

    @property
    def dealt_bridges(self) -> int:
        """How many bridges U2 deals to hands at setup."""
        return 0 if self.players == 1 else 1 if self.players <= 3 else 2

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def canonical(self) -> Config:
        """This table with a disabled module's parameters at their defaults: equal configs have
        the same canonical form."""
        off = self._disabled()
        return dataclasses.replace(self, **off) if any(getattr(self, k) != v for k, v in off.items()) else self

    def _disabled(self) -> dict[str, Any]:
        """The parameters of the modules that are off, with their defaults."""
        return {name: _DEFAULTS[name] for name, (switch, off) in _SWITCHED.items() if getattr(self, switch) == off}

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @staticmethod
    def bounds(name: str) -> tuple[type, int, int]:
        """A field's type (``int`` or ``bool``) and its smallest and largest values."""
        return _BOUNDS[name]

    @classmethod
    def schema(cls) -> list[dict[str, Any]]:
        """Every field for a form: name, type ("int" or "bool"), bounds, default (None where it
        follows the player count) and a line of help."""
        return [
            {
                "name": name,
                "type": _BOUNDS[name][0].__name__,
                "min": _BOUNDS[name][1],
                "max": _BOUNDS[name][2],
                "default": _DEFAULTS[name],
                "help": _HELP[name],
            }
            for name in cls.fields()
        ]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Config:
        if not isinstance(d, dict):
            raise ValueError(f"config must be a dict, got {type(d).__name__}")
        unknown = sorted(set(d) - set(cls.fields()), key=str)
        if unknown:
            raise ValueError(f"unknown config key {shown(unknown[0])}; allowed keys: {', '.join(cls.fields())}")
        return cls(**d)

    @classmethod
    def coerce(cls, config: Config | dict[str, Any] | None) -> Config:
        if isinstance(config, Config):
            return config
        return cls.from_dict({} if config is None else config)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Config)}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
