"""Replay files: one game as JSON lines.

The first line is the header ``{"replay": 2, "config": {...}, "seed": N, "seats": [...],
"human": S}``, then one line per move ``{"seat": s, "move": "play G7 r1c1"}`` (RULES.md N2), and a
last line ``{"end": "won" | "lost" | "quit"}`` when the game stopped. ``Game.new(config, seed)``
plus the moves rebuilds every position: ``load_game`` resumes the last one.

Version 2 adds, on a bot's move, what the bot weighed: ``"why": {"kind": "policy" | "search" |
"value model", "top": [[move, number], ...]}`` (probabilities for a policy, mean rollout scores
for a search, costs for the heuristic's value model; best first). Version 1 files, which have
no ``why``, still read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tranquility_env import safe_json
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game, IllegalMove
from tranquility_env.safe_json import shown

__all__ = ["ENDS", "MAX_MOVES", "Replay", "ReplayWriter", "load_game", "parse", "read"]

VERSION = 2
READS = (1, 2)
ENDS = ("won", "lost", "quit")
HEADER_KEYS = ("replay", "config", "seed", "seats", "human")
WHY_KINDS = ("policy", "search", "value model")
MAX_NAME = 200  # characters of a seat's name
MAX_TOP = 10  # choices in a move's ``why``
MAX_MOVES = 2000  # far more than a game makes; a longer file is damaged


@dataclass
class Replay:
    """A replay file's content: the header, the moves (seat, move, what the bot weighed or None)
    and how it ended (None while the game went on)."""

    header: dict[str, Any]
    moves: list[tuple[int, str, dict[str, Any] | None]] = field(default_factory=list)
    end: str | None = None

    @property
    def finished(self) -> bool:
        return self.end in ("won", "lost")

    def games(self) -> Iterator[Game]:
        """The position before the first move, then after each move (the same ``Game`` object)."""
        game = Game.new(Config.from_dict(self.header["config"]), self.header["seed"])
        yield game
        for _, move, _ in self.moves:
            game.apply(move)
            yield game


class ReplayWriter:
    """Appends a game to a replay file as it is played (flushed after every move)."""

    def __init__(self, path: str | Path, config: Config, seed: int, seats: list[str], human: int | None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: TextIO = self.path.open("w")
        self._write({"replay": VERSION, "config": config.to_dict(), "seed": seed, "seats": seats, "human": human})

    def move(self, seat: int, move: str, why: dict[str, Any] | None = None) -> None:
        self._write({"seat": seat, "move": move, **({"why": why} if why else {})})

    def end(self, how: str) -> None:
        self._write({"end": how})
        self._file.close()

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()


def parse(text: str, name: str = "replay") -> Replay:
    """A replay from its text, every move checked by replaying it; ``ValueError`` naming the bad
    line (``name``:line) and what is wrong with it. Each line is read within ``safe_json``'s
    limits, and what a bot weighed must have the shape ``ReplayWriter`` gives it."""
    replay: Replay | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            record = safe_json.loads(line, max_depth=4)
        except ValueError as err:
            raise ValueError(f"{name}:{number}: {err}") from None
        if number == 1:
            replay = Replay(_header(record, name))
        elif replay.end is not None:
            raise ValueError(f"{name}:{number}: nothing may follow the end line")
        elif len(replay.moves) >= MAX_MOVES:
            raise ValueError(f"{name}:{number}: more than {MAX_MOVES} moves")
        elif isinstance(record, dict) and set(record) in ({"seat", "move"}, {"seat", "move", "why"}):
            why = record.get("why")
            if why is not None and not _is_why(why):
                raise ValueError(
                    f"{name}:{number}: 'why' must be {{kind: one of {list(WHY_KINDS)}, top: at most {MAX_TOP} "
                    f"[move, number] pairs}}, got {line[:80]!r}"
                )
            seat, move = record["seat"], record["move"]
            if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(move, str) or len(move) > 64:
                raise ValueError(f"{name}:{number}: a move line is {{seat: N, move: TEXT}}, got {line[:80]!r}")
            replay.moves.append((seat, move, why))
        elif isinstance(record, dict) and set(record) == {"end"} and record["end"] in ENDS:
            replay.end = record["end"]
        else:
            raise ValueError(f"{name}:{number}: expected {{seat, move[, why]}} or {{end}}, got {line[:80]!r}")
    if replay is None:
        raise ValueError(f"{name}: empty replay file")
    _check_moves(replay, name)
    return replay


def read(path: str | Path) -> Replay:
    """``parse`` of a file."""
    return parse(Path(path).read_text(), str(path))


def load_game(path: str | Path) -> Game:
    """The position at the end of a replay, to resume it."""
    game = None
    for game in read(path).games():  # noqa: B007 (the last one is wanted)
        pass
    return game


def _header(record: Any, name: str) -> dict[str, Any]:
    if not isinstance(record, dict) or record.get("replay") not in READS or "config" not in record:
        raise ValueError(f"{name}:1: not a replay header (needs replay: 1 or 2, config and seed)")
    unknown = sorted(set(record) - set(HEADER_KEYS))
    if unknown:
        raise ValueError(f"{name}:1: unknown header key {shown(unknown[0])}; the keys are {', '.join(HEADER_KEYS)}")
    seed = record.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"{name}:1: the header's seed must be an integer, got {shown(seed)}")
    try:
        players = Config.from_dict(record["config"]).players
    except (ValueError, TypeError) as err:
        raise ValueError(f"{name}:1: bad config ({err})") from None
    seats = record.get("seats")
    if seats is not None and not (
        isinstance(seats, list)
        and len(seats) == players
        and all(isinstance(s, str) and len(s) <= MAX_NAME for s in seats)
    ):
        raise ValueError(f"{name}:1: 'seats' must name each of the {players} seats in at most {MAX_NAME} characters")
    human = record.get("human")
    if human is not None and not (isinstance(human, int) and not isinstance(human, bool) and 0 <= human < players):
        raise ValueError(f"{name}:1: 'human' must be a seat from 0 to {players - 1} or null, got {shown(human)}")
    return record


def _is_why(why: Any) -> bool:
    def pair(entry: Any) -> bool:
        return (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and len(entry[0]) <= MAX_NAME
            and isinstance(entry[1], (int, float))
            and not isinstance(entry[1], bool)
            and math.isfinite(entry[1])
        )

    return (
        isinstance(why, dict)
        and set(why) == {"kind", "top"}
        and why["kind"] in WHY_KINDS
        and isinstance(why["top"], list)
        and len(why["top"]) <= MAX_TOP
        and all(pair(entry) for entry in why["top"])
    )


def _check_moves(replay: Replay, name: str) -> None:
    game = Game.new(Config.from_dict(replay.header["config"]), replay.header["seed"])
    for line, (seat, move, _) in enumerate(replay.moves, start=2):
        if seat != game.current:
            raise ValueError(f"{name}:{line}: seat {seat} moves, but seat {game.current} is to act")
        try:
            game.apply(move)
        except IllegalMove as err:
            raise ValueError(f"{name}:{line}: {err}") from None
    if replay.finished and game.status != replay.end:
        raise ValueError(f"{name}: the end line says {replay.end!r}, but the moves end the game {game.status!r}")
