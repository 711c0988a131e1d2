"""The replays a server shows, and to whom.

- The replay file of a game belongs to the browser that played it and opens once the game is over
  (won, lost or quit): while it goes on, its file holds every hand (the seed) and what the bots
  weighed, so the person sees only what the table shows them.
- An uploaded replay is its uploader's alone. Opened replays are kept a few a browser.
- Files in the folder that this process did not write (``tranquility play``, ``evaluate
  --save-replays``, an earlier server) are listed to everyone only when ``share_folder`` says so.
- The server's own files (``web_*.jsonl``, of this process or an earlier one) are kept to
  ``max_files``: an earlier process's go first, then the oldest of whoever has the most, so one
  browser's many games do not push out another's. No other file of the folder is ever removed.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tranquility_env import safe_json
from tranquility_env.replay import ENDS, Replay, parse
from tranquility_env.rules.config import Config
from tranquility_env.web import viewer
from tranquility_env.web.errors import Refused, shown
from tranquility_env.web.limits import MAX_UPLOAD
from tranquility_env.web.session import TableSession

__all__ = ["MAX_FILES", "OPEN_PER_OWNER", "ReplayStore", "parse"]

MAX_FILES = 1000  # the server's own replay files kept in the folder
OPEN_PER_OWNER = 8  # replays a browser has open at once
OPEN_CAP = 64  # replays open at once on the server
PER_PAGE = 20
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,199}\.jsonl")


@dataclass
class _Opened:
    owner: str
    replay: Replay


@dataclass
class _Written:
    """A replay file this process writes: its game while it goes on, then only its list row."""

    owner: str
    session: TableSession | None
    created: float = field(default_factory=time.time)
    row: dict[str, Any] | None = None

    @property
    def over(self) -> bool:
        return self.row is not None or (self.session is not None and self.session.outcome is not None)


class ReplayStore:
    """The replay folder, the server's files in it, and the replays open in the viewer."""

    def __init__(self, folder: Path, max_files: int = MAX_FILES, share_folder: bool = False) -> None:
        self.folder, self.max_files, self.share_folder = folder, max_files, share_folder
        folder.mkdir(parents=True, exist_ok=True)
        # the server's files, oldest first: an earlier server's, then this one's as its games start
        self._files = [p.name for p in sorted(folder.glob("web_*.jsonl"), key=lambda p: p.stat().st_mtime)]
        self._earlier = frozenset(self._files)  # any other web_* file is this process's, maybe not yet added
        self._written: dict[str, _Written] = {}  # this process's files
        self._opened: OrderedDict[str, _Opened] = OrderedDict()
        self._summaries: dict[tuple[str, int, int], dict[str, Any]] = {}  # of other files, by name and stat
        self._lock = threading.Lock()
        self._prune()

    # ------------------------------------------------------------------ the server's games
    def add_game(self, session: TableSession, owner: str) -> None:
        """``session``'s replay file, just begun, belongs to ``owner``."""
        with self._lock:
            self._written[session.replay_name] = _Written(owner, session)
            self._files.append(session.replay_name)
            self._prune()

    def _prune(self) -> None:
        """Remove server files past ``max_files`` (the lock held), never one still being written:
        an earlier process's first, oldest first, then one at a time the oldest ended game of the
        browser that has the most files. The removals are chosen in one pass, then made."""
        self._keep_rows_only()
        excess = len(self._files) - self.max_files
        if excess <= 0:
            return
        gone = [n for n in self._files if n not in self._written][:excess]
        counts = Counter(w.owner for w in self._written.values())
        ended: dict[str, deque[str]] = {}  # owner -> their ended games' files, oldest first
        for name in self._files:
            if name in self._written and self._written[name].over:
                ended.setdefault(self._written[name].owner, deque()).append(name)
        age = {name: i for i, name in enumerate(self._files)}
        while len(gone) < excess and ended:
            owner = min(ended, key=lambda o: (-counts[o], age[ended[o][0]]))
            gone.append(ended[owner].popleft())
            counts[owner] -= 1
            if not ended[owner]:
                del ended[owner]
        removed = set(gone)
        self._files = [n for n in self._files if n not in removed]
        for name in gone:
            self._written.pop(name, None)
            (self.folder / name).unlink(missing_ok=True)

    def _keep_rows_only(self) -> None:
        """An ended game keeps only its list row (the lock held): not its game, events and bots."""
        for name, written in self._written.items():
            if written.row is None and written.over:
                session = written.session
                written.row = _row(
                    name, session.game.config, session.outcome, written.created, len(session.events), "yours"
                )
                written.session = None

    # ------------------------------------------------------------------ the list
    def listing(self, owner: str, page: int, per_page: int = PER_PAGE) -> dict[str, Any]:
        """Page ``page`` (from 1) of what ``owner`` may open: their ended games, newest first, then
        (with ``share_folder``) the folder's other files, newest first."""
        with self._lock:
            self._keep_rows_only()
            mine = sorted((w for w in self._written.values() if w.owner == owner and w.over), key=lambda w: -w.created)
            names: list[tuple[str, dict[str, Any] | None]] = [(w.row["name"], w.row) for w in mine]
            if self.share_folder:
                names += [(p.name, None) for p in self._others()]
        pages = max(1, -(-len(names) // per_page))
        if page > pages:
            raise Refused(404, f"no page {page}: there are {pages}")
        chosen = names[(page - 1) * per_page : page * per_page]
        rows = [row or self._summary_of_file(n) for n, row in chosen]
        return {"replays": rows, "page": page, "pages": pages, "total": len(names)}

    def _others(self) -> list[Path]:
        """The folder's replay files that this process did not write, newest first."""
        paths = [p for p in self.folder.glob("*.jsonl") if self._foreign(p.name) and NAME.fullmatch(p.name)]
        stamped = []
        for path in paths:
            try:
                stamped.append((path.stat().st_mtime, path))
            except OSError:  # removed meanwhile
                continue
        return [p for _, p in sorted(stamped, key=lambda item: -item[0])]

    def _foreign(self, name: str) -> bool:
        """Not this process's: not a ``web_*`` file, or one that was there when it started."""
        return name not in self._written and (not name.startswith("web_") or name in self._earlier)

    def _summary_of_file(self, name: str) -> dict[str, Any]:
        path = self.folder / name
        try:
            stat = path.stat()
            key = (name, stat.st_mtime_ns, stat.st_size)
            if key not in self._summaries:
                if len(self._summaries) > 4 * self.max_files:
                    self._summaries.clear()
                self._summaries[key] = _read_summary(path, stat.st_size, stat.st_mtime)
            return self._summaries[key]
        except OSError:
            return {"name": name, "error": "could not be read"}

    # ------------------------------------------------------------------ opening
    def open_saved(self, name: str, owner: str) -> dict[str, Any]:
        """Open the folder's file ``name`` for ``owner``, if they may see it."""
        missing = Refused(404, f"no saved replay {shown(name)} that you may open")
        if not NAME.fullmatch(name):
            raise missing
        with self._lock:
            written, foreign = self._written.get(name), self._foreign(name)
        if written is not None:
            if written.owner != owner:
                raise missing
            if not written.over:
                raise Refused(409, "the game is still going on: its replay opens once it is over")
        elif not (self.share_folder and foreign):
            raise missing
        path = self.folder / name
        try:
            if path.stat().st_size > MAX_UPLOAD:
                raise Refused(413, f"{name} is over {MAX_UPLOAD} bytes")
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            raise missing from None
        return self._open(text, name, owner)

    def upload(self, text: str, owner: str) -> dict[str, Any]:
        """Open an uploaded file's ``text`` for its uploader only."""
        return self._open(text, "the uploaded file", owner)

    def _open(self, text: str, name: str, owner: str) -> dict[str, Any]:
        try:
            replay = parse(text, name)
        except ValueError as err:
            raise Refused(400, str(err)[:300]) from None
        key = uuid.uuid4().hex
        with self._lock:
            self._opened[key] = _Opened(owner, replay)
            theirs = [k for k, o in self._opened.items() if o.owner == owner]
            for old in theirs[: max(0, len(theirs) - OPEN_PER_OWNER)]:
                del self._opened[old]
            while len(self._opened) > OPEN_CAP:
                self._opened.popitem(last=False)
        return {
            "id": key,
            "players": replay.header["config"]["players"],
            "seats": replay.header.get("seats"),
            "human": replay.header.get("human"),
            "moves": len(replay.moves),
            "end": replay.end,
            "finished": replay.finished,
        }

    def frames(self, key: str, owner: str, seat: int | None) -> list[dict[str, Any]]:
        """The viewer's frames of an open replay of ``owner``'s, as ``seat`` knew it."""
        with self._lock:
            opened = self._opened.get(key)
        if opened is None or opened.owner != owner:
            raise Refused(404, "no such replay open (open it again)")
        try:
            return viewer.frames(opened.replay, seat)
        except PermissionError as err:
            raise Refused(403, str(err)) from None
        except ValueError as err:
            raise Refused(400, str(err)) from None


def _row(name: str, config: Config, outcome: str | None, created: float, moves: int | None, whose: str) -> dict:
    modules = [
        *(["green path"] if config.green_path else []),
        *([f"{config.panoramas} panoramas"] if config.panoramas else []),
        *(["goats"] if config.goats else []),
    ]
    return {
        "name": name,
        "outcome": outcome or "unfinished",
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(created)),
        "players": config.players,
        "modules": modules,
        "moves": moves,
        "whose": whose,
    }


def _read_summary(path: Path, size: int, modified: float) -> dict[str, Any]:
    """A folder file's row from its first and last lines, without replaying it."""
    if size > MAX_UPLOAD:
        return {"name": path.name, "error": f"over {MAX_UPLOAD} bytes"}
    lines = path.read_bytes().splitlines()
    try:
        header = safe_json.loads(lines[0], max_depth=4)
        config = Config.from_dict(header["config"])
        last = safe_json.loads(lines[-1], max_depth=4)
    except (ValueError, TypeError, KeyError, IndexError):
        return {"name": path.name, "error": "not a replay file"}
    end = last.get("end") if isinstance(last, dict) and last.get("end") in ENDS else None
    return _row(path.name, config, end, modified, len(lines) - 1 - (end is not None), "folder")
