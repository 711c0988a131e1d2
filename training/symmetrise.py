"""``tranquility symmetrise SOURCE TARGET``: a bot that plays its network over every colour naming.

Writes ``TARGET``, a copy of the bot checkpoint ``SOURCE`` (the weights byte for byte) marked
``symmetrised``: it plays the mean log-probability of the network over the table's colour
symmetries (``symmetry.py``, ``PolicyBot``), so its moves cannot rest on which colour is called
which. No training: a policy learned in self-play picks up such colour habits, and averaging them
away is a policy of its own, measured in ``docs/results.md``.
"""

from __future__ import annotations

import argparse
import sys

from tranquility_env import checkpoint

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tranquility symmetrise", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a bot checkpoint folder")
    parser.add_argument("target", help="the folder to write (replaced whole if it exists)")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    try:
        made_before = checkpoint.load(args.source)[0].get("made_by", "")
        folder = checkpoint.copy(
            args.source,
            args.target,
            symmetrised=True,
            made_by="tranquility symmetrise " + " ".join(argv),
            source_made_by=made_before,  # the command that trained the network
        )
    except checkpoint.CheckpointError as err:
        parser.error(str(err))
    print(f"wrote {folder}: {args.source} played over its table's colour symmetries")


if __name__ == "__main__":
    main()
