"""Replay files: one game as JSON lines.

The first line is the header ``{"replay": 1, "config": {...}, "seed": N, "seats": [...],
"human": S}``, then one line per move ``{"seat": s, "move": "play G7 r1c1"}`` (RULES.md N2), and a
last line ``{"end": "won" | "lost" | "quit"}`` when the game stopped. ``Game.new(config, seed)``
plus the moves rebuilds every position: ``load_game`` resumes the last one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game, IllegalMove


class ReplayWriter:
    """Appends a game to a replay file as it is played (flushed after every move)."""

    def __init__(self, path: str | Path, config: Config, seed: int, seats: list[str], human: int | None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = self.path.open("w")
        self._write({"replay": 1, "config": config.to_dict(), "seed": seed, "seats": seats, "human": human})

    def move(self, seat: int, move: str) -> None:
        self._write({"seat": seat, "move": move})

    def end(self, how: str) -> None:
        self._write({"end": how})
        self._file.close()

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()


def read(path: str | Path) -> tuple[dict[str, Any], list[tuple[int, str]], str | None]:
    """(header, [(seat, move)], end) of a replay file; ``ValueError`` naming a bad line."""
    header, moves, end = None, [], None
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err})") from None
        if number == 1:
            if (
                not isinstance(record, dict)
                or record.get("replay") != 1
                or "config" not in record
                or "seed" not in record
            ):
                raise ValueError(f"{path}:1: not a replay header (needs replay: 1, config and seed)")
            header = record
        elif isinstance(record, dict) and set(record) == {"seat", "move"}:
            moves.append((record["seat"], record["move"]))
        elif isinstance(record, dict) and set(record) == {"end"}:
            end = record["end"]
        else:
            raise ValueError(f"{path}:{number}: expected {{seat, move}} or {{end}}, got {line[:80]!r}")
    if header is None:
        raise ValueError(f"{path}: empty replay file")
    return header, moves, end


def games(path: str | Path):
    """The game after each move of a replay: yields (seat, move, game), the same Game object."""
    header, moves, _ = read(path)
    game = Game.new(Config.from_dict(header["config"]), header["seed"])
    for i, (seat, move) in enumerate(moves, start=2):
        if seat != game.current:
            raise ValueError(f"{path}:{i}: seat {seat} moves, but seat {game.current} is to act")
        try:
            game.apply(move)
        except IllegalMove as err:
            raise ValueError(f"{path}:{i}: {err}") from None
        yield seat, move, game


def load_game(path: str | Path) -> Game:
    """The position at the end of a replay, to resume it."""
    header, _, _ = read(path)
    game = Game.new(Config.from_dict(header["config"]), header["seed"])
    for _, _, after in games(path):
        game = after
    return game
