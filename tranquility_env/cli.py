"""The ``tranquility`` command: ``tranquility train ...`` and ``tranquility evaluate ...``.

Training and evaluation live in ``training/`` and need the ``train`` extra."""

from __future__ import annotations

import sys

COMMANDS = {"train": "training.train", "evaluate": "training.evaluate"}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: tranquility {{{','.join(COMMANDS)}}} [options]   (tranquility COMMAND --help)", file=sys.stderr)
        raise SystemExit(2)
    import importlib

    try:
        module = importlib.import_module(COMMANDS[argv[0]])
    except ImportError as err:
        print(f"tranquility {argv[0]} needs the train extra: pip install -e '.[train]' ({err})", file=sys.stderr)
        raise SystemExit(2) from None
    module.main(argv[1:])
