"""Who a request comes from: each browser gets an unguessable token in an HttpOnly,
SameSite=Strict cookie, and the games and replays it makes belong to that token's owner.

A token is ``nonce.signature``, signed with a secret this server process draws when it starts: the
server keeps no list of tokens (a flood of new browsers costs it nothing), a browser cannot make up
another's, and every token ends with the process, so a restarted server owns nothing of before.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

__all__ = ["COOKIE", "Tokens"]

COOKIE = "tranquility_session"
_TOKEN = re.compile(r"([A-Za-z0-9_-]{32})\.[0-9a-f]{43}")


class Tokens:
    """Issues and checks the browser tokens of one server process."""

    def __init__(self) -> None:
        self._secret = secrets.token_bytes(32)

    def issue(self) -> str:
        nonce = secrets.token_urlsafe(24)
        return f"{nonce}.{self._sign(nonce)}"

    def owner(self, token: str | None) -> str | None:
        """The owner a token stands for (its nonce), or None for a missing, damaged or foreign one."""
        match = _TOKEN.fullmatch(token or "")
        if match is None:
            return None
        nonce = match.group(1)
        return nonce if hmac.compare_digest(token, f"{nonce}.{self._sign(nonce)}") else None

    @staticmethod
    def cookie(token: str) -> str:
        """The ``Set-Cookie`` value: for this site's pages and requests only, never for script."""
        return f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"

    def _sign(self, nonce: str) -> str:
        return hmac.new(self._secret, nonce.encode(), hashlib.sha256).hexdigest()[:43]
