"""The games a server keeps, each its owner's alone: another browser is told there is no such
game. A browser may have ``per_owner`` games going at once and the server ``cap``; past either a
new game is refused (429) rather than taking the place of one in play. A game nobody has looked at
for ``idle`` seconds is ended ("quit") and forgotten, as is an ended game after as long, or sooner
when more than ``cap`` ended games are kept."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from tranquility_env.web.errors import Refused
from tranquility_env.web.session import TableSession

__all__ = ["CAP", "IDLE", "PER_OWNER", "Games"]

PER_OWNER = 4
CAP = 64
IDLE = 30 * 60.0  # seconds


class Games:
    """The live and recently ended games by id, with their owners."""

    def __init__(self, per_owner: int = PER_OWNER, cap: int = CAP, idle: float = IDLE) -> None:
        self.per_owner, self.cap, self.idle = per_owner, cap, idle
        self.sessions: dict[str, TableSession] = {}
        self._owners: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, game: str, owner: str) -> TableSession:
        """``owner``'s game ``game``; 404 for a game of anyone else's, as for one that never was."""
        with self._lock:
            self._expire()
            session = self.sessions.get(game)
            if session is None or self._owners[game] != owner:
                raise Refused(404, "no such game: it ended and was left alone too long, or the server restarted")
            return session

    def of(self, owner: str) -> list[TableSession]:
        """``owner``'s games, the last looked at first."""
        with self._lock:
            self._expire()
            mine = [s for k, s in self.sessions.items() if self._owners[k] == owner]
        return sorted(mine, key=lambda s: -s.touched)

    def start(self, owner: str, make: Callable[[], TableSession]) -> TableSession:
        """A new game for ``owner`` from ``make()``, if the quotas leave room (429 otherwise)."""
        with self._lock:
            self._expire()
            going = [k for k, s in self.sessions.items() if s.outcome is None]
            if sum(self._owners[k] == owner for k in going) >= self.per_owner:
                raise Refused(
                    429,
                    f"you have {self.per_owner} games going, the most a browser may have: leave one "
                    f"first (or wait until one has been left alone {self.idle / 60:g} minutes)",
                )
            if len(going) >= self.cap:
                raise Refused(429, f"the server has {self.cap} games going, the most it takes: try again later")
            session = make()
            self.sessions[session.id], self._owners[session.id] = session, owner
            return session

    def _expire(self) -> None:
        """End and forget every game left alone longer than ``idle`` (the lock held)."""
        now = time.monotonic()
        gone = [k for k, s in self.sessions.items() if now - s.touched > self.idle]
        ended = sorted((s.touched, k) for k, s in self.sessions.items() if s.outcome is not None and k not in gone)
        gone += [k for _, k in ended[: max(0, len(ended) - self.cap)]]
        for key in gone:
            self.sessions.pop(key).quit()
            del self._owners[key]
