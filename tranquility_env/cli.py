"""The ``tranquility`` command: ``train``, ``mappo``, ``distill``, ``rllib``, ``evaluate``, ``play`` and ``replay``.

Training and evaluation live in ``training/`` and need the ``train`` extra; playing does not."""

from __future__ import annotations

import sys

COMMANDS = {  # command -> (module, function)
    "train": ("tranquility_env.training.train", "main"),
    "mappo": ("tranquility_env.training.mappo", "main"),
    "distill": ("tranquility_env.training.distill", "main"),
    "rllib": ("tranquility_env.training.rllib_train", "main"),
    "evaluate": ("tranquility_env.training.evaluate", "main"),
    "play": ("tranquility_env.play", "main"),
    "replay": ("tranquility_env.play", "replay_main"),
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: tranquility {{{','.join(COMMANDS)}}} [options]   (tranquility COMMAND --help)", file=sys.stderr)
        raise SystemExit(2)
    import importlib

    module_name, function = COMMANDS[argv[0]]
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        print(f"tranquility {argv[0]} needs the train extra: pip install -e '.[train]' ({err})", file=sys.stderr)
        raise SystemExit(2) from None
    getattr(module, function)(argv[1:])
