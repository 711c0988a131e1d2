"""The rules every request passes before the app sees it, as an ASGI middleware:

- **Hosts.** A request whose ``Host`` is not one this server answers to (its own address,
  ``localhost``, ``127.0.0.1``, ``::1`` or a name given with ``--allowed-host``) is refused with
  421: a page elsewhere that rebinds its DNS name to this machine reads nothing.
- **No cross-site control.** A request that changes something (any method but GET and HEAD) must
  be ``application/json`` (which a page of another site cannot send without the server's leave),
  from this origin or with no ``Origin`` at all, and carry the browser's session cookie.
- **The session.** A request without a valid session cookie gets a new one (``owners.Tokens``);
  the app finds its owner in ``request.state.owner``.
- **Headers.** Every answer forbids inline and foreign script, framing and content sniffing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from http.cookies import CookieError, SimpleCookie
from typing import Any

from starlette.datastructures import Headers

from tranquility_env.web.errors import Refused, shown
from tranquility_env.web.owners import COOKIE, Tokens

__all__ = ["Guard"]

LOOPBACK = ("localhost", "127.0.0.1", "::1")
SAFE_METHODS = ("GET", "HEAD")
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


def host_name(host: str) -> str:
    """The name in a ``Host`` header, without its port: ``[::1]:8000`` is ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") == 1 else host.rstrip(".")


class Guard:
    """Wraps ``app`` with the rules above; ``hosts`` are the names it answers to."""

    def __init__(self, app: Any, hosts: Collection[str], tokens: Tokens) -> None:
        self.app, self.tokens = app, tokens
        self.hosts = frozenset(h.lower() for h in (*LOOPBACK, *hosts))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        token = _cookie(headers.get("cookie", ""))
        owner = self.tokens.owner(token)
        new_token = None if owner else self.tokens.issue()
        if new_token:
            owner = self.tokens.owner(new_token)
        scope.setdefault("state", {})["owner"] = owner

        async def send_guarded(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                if scope["path"].startswith("/api/"):
                    extra.append((b"cache-control", b"no-store"))
                if new_token:
                    extra.append((b"set-cookie", Tokens.cookie(new_token).encode()))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        try:
            self._check(scope, headers, fresh=new_token is not None)
        except Refused as err:
            await _refuse(err, send_guarded)
            return
        await self.app(scope, receive, send_guarded)

    def _check(self, scope: dict[str, Any], headers: Headers, fresh: bool) -> None:
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            raise Refused(
                421,
                f"this server does not answer to the host {shown(host)} (--allowed-host NAME allows another)",
            )
        if scope["method"] in SAFE_METHODS:
            return
        origin = headers.get("origin")  # the scheme may differ behind a TLS proxy; the host and port may not
        if origin is not None and origin.lower().partition("://")[2] != host.lower():
            raise Refused(403, f"a request from another site ({shown(origin)}) may not change anything here")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Refused(415, f"a request that changes something must be application/json, not {shown(kind)}")
        if fresh:
            raise Refused(
                403, "no session: load the page first (its session cookie is missing or from an earlier server)"
            )


def _cookie(header: str) -> str | None:
    if COOKIE not in header:
        return None
    try:
        morsel = SimpleCookie(header).get(COOKIE)
    except CookieError:
        return None
    return morsel.value if morsel else None


async def _refuse(err: Refused, send: Any) -> None:
    body = json.dumps({"error": err.reason}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
