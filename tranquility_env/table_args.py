"""The game's table on a command line, the same for every command that plays (``play``,
``serve``, ``evaluate``, ``benchmark``): ``--players``, ``--green-path``, ``--panoramas`` and
``--goats``, and ``--set KEY=VALUE`` for any field of ``Config`` (``hand_size=4``,
``goats_needed=6``, ...), all checked by ``Config.from_dict`` in one place. The trainers take the
same fields as ``key=value`` overrides (``training/common.py``)."""

from __future__ import annotations

import argparse
from typing import Any

from tranquility_env.rules.config import Config

__all__ = ["add_table_arguments", "parse_fields", "table_fields", "table_from_args"]


def add_table_arguments(parser: argparse.ArgumentParser, players: int = 3) -> None:
    """The table's options on ``parser``; ``players`` is the default player count."""
    group = parser.add_argument_group("the table", f"any field of the game's Config: {', '.join(Config.fields())}")
    group.add_argument("--players", type=int, default=players, help=f"player count (default {players})")
    group.add_argument("--green-path", action="store_true", default=None, help="the Green Path module")
    group.add_argument("--panoramas", type=int, help="Panorama objectives (0-5)")
    group.add_argument("--goats", action="store_true", default=None, help="the Mountain Goats module")
    group.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other field of the table, e.g. --set hand_size=4 --set goats_needed=6 (repeatable)",
    )


def table_from_args(args: argparse.Namespace) -> Config:
    """The ``Config`` the options name; ``ValueError`` saying what is wrong."""
    return Config.from_dict(table_fields(args))


def table_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The fields the options set (the others keep ``Config``'s defaults, which may follow the
    player count), not yet checked."""
    values: dict[str, Any] = {"players": args.players}
    for name in ("green_path", "panoramas", "goats"):
        if getattr(args, name) is not None:
            values[name] = getattr(args, name)
    return values | parse_fields(args.set)


def parse_fields(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` items as a dict of game fields: a whole number, or true / false."""
    values: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{item!r} must be KEY=VALUE, e.g. hand_size=4")
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            values[key] = lowered == "true"
        else:
            try:
                values[key] = int(text)
            except ValueError:
                raise ValueError(f"{item!r}: the value must be a whole number, true or false") from None
    return values
