"""The ``tranquility`` command: ``play`` and ``replay`` (the ``play`` extra); ``serve`` (the ``web``
extra); ``train``, ``mappo``, ``ippo``, ``distill``, ``expert-iteration``, ``evaluate``,
``benchmark``, ``limits`` and ``symmetrise`` (the ``train`` extra); ``rllib``."""

from __future__ import annotations

import importlib
import sys

__all__ = ["main"]

COMMANDS = {  # command -> (module, function, the extra it needs)
    "train": ("tranquility_env.training.train", "main", "train"),
    "mappo": ("tranquility_env.training.mappo", "main", "train"),
    "ippo": ("tranquility_env.training.mappo", "ippo_main", "train"),
    "distill": ("tranquility_env.training.distill", "main", "train"),
    "expert-iteration": ("tranquility_env.training.expert_iteration", "main", "train"),
    "rllib": ("tranquility_env.training.rllib_train", "main", "train,rllib"),
    "evaluate": ("tranquility_env.training.evaluate", "main", "train"),
    "benchmark": ("tranquility_env.training.benchmark", "main", "train"),
    "limits": ("tranquility_env.training.limits", "main", "train"),
    "symmetrise": ("tranquility_env.training.symmetrise", "main", "train"),
    "play": ("tranquility_env.play", "main", "play"),
    "replay": ("tranquility_env.play", "replay_main", "play"),
    "serve": ("tranquility_env.web.app", "main", "web"),
}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: tranquility {{{','.join(COMMANDS)}}} [options]   (tranquility COMMAND --help)", file=sys.stderr)
        raise SystemExit(2)
    module_name, function, extra = COMMANDS[argv[0]]
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        print(
            f"tranquility {argv[0]} needs the {extra} extra (pip install '.[{extra}]' in the project's folder): {err}",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    getattr(module, function)(argv[1:])


if __name__ == "__main__":
    main()
