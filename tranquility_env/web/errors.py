"""The one way a request is refused: ``Refused(status, reason)``, answered as ``{"error": reason}``
with that status; ``shown`` (from ``safe_json``) quotes at most the first 100 characters of a bad
value in a reason."""

from __future__ import annotations

from tranquility_env.safe_json import shown

__all__ = ["Refused", "shown"]


class Refused(Exception):
    """A bad request: the status and the reason sent back. Nothing was changed."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason
