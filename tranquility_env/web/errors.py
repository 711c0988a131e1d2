"""The one way a request is refused: ``Refused(status, reason)``, answered as ``{"error": reason}``
with that status; and ``shown``, which quotes at most the first 100 characters of a bad value."""

from __future__ import annotations

from typing import Any

SHOWN = 100  # characters of a bad value an error quotes


class Refused(Exception):
    """A bad request: the status and the reason sent back. Nothing was changed."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def shown(value: Any) -> str:
    """``repr(value)``, cut to its first ``SHOWN`` characters (a hostile value may be megabytes)."""
    text = repr(value) if not isinstance(value, str) or len(value) <= SHOWN else repr(value[:SHOWN])
    return text if len(text) <= SHOWN + 2 else text[:SHOWN] + "..."
