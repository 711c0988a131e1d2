"""How an endpoint answers: its dict as ASCII JSON, a ``Refused`` as its status and reason, and
Starlette's own refusals (no such route, a method a route does not take) as JSON too."""

from __future__ import annotations

import inspect
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from tranquility_env.web.errors import Refused, shown

__all__ = ["api", "http_error", "owner_of"]


class AsciiJSON(JSONResponse):
    """JSON with every non-ASCII character escaped: whatever text a value holds, it is written out."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def api(endpoint: Any) -> Any:
    """Wrap an endpoint: its dict as JSON, a ``Refused`` as its status and reason. Plain functions
    run on a worker thread, so that nothing they wait for holds up the server."""
    is_async = inspect.iscoroutinefunction(endpoint)

    async def handle(request: Request) -> JSONResponse:
        try:
            result = await endpoint(request) if is_async else await run_in_threadpool(endpoint, request)
        except Refused as err:
            return AsciiJSON({"error": err.reason}, status_code=err.status)
        return AsciiJSON(result)

    return handle


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    status = getattr(exc, "status_code", 400)
    reason = {404: f"no such page {shown(request.url.path)}", 405: f"{request.method} is not taken here"}
    return AsciiJSON({"error": reason.get(status, str(getattr(exc, "detail", "bad request")))}, status_code=status)


def owner_of(request: Request) -> str:
    """The browser the request comes from (``guard.Guard`` sets it)."""
    return request.state.owner
