"""What one request may cost: a body read no further than its limit, JSON whose depth and numbers
are checked before use (``safe_json``), only the keys and query parameters an endpoint knows, and
numbers in the query as plain digits of bounded length. Every refusal is a ``Refused`` (4xx)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from starlette.requests import Request

from tranquility_env import safe_json
from tranquility_env.web.errors import Refused, shown

__all__ = ["MAX_UPLOAD", "count", "json_body", "parse_object", "query", "read_body"]

MAX_BODY = 16_000  # bytes of an API request's body (a move is under 100)
MAX_UPLOAD = 2_000_000  # bytes of an uploaded replay file's request
MAX_DEPTH = 4  # nesting of a request's JSON ({"bots": [...]} is 2)
_COUNT = re.compile(r"[0-9]{1,9}")  # ASCII digits only: "²".isdigit() is true, int("²") fails


async def read_body(request: Request, limit: int) -> bytes:
    """The body, read in chunks and refused (413) as soon as it passes ``limit`` bytes: a larger
    one is never held whole, whatever its ``Content-Length`` says."""
    size = request.headers.get("content-length", "")
    if size and (not _COUNT.fullmatch(size) or int(size) > limit):
        raise Refused(413, f"the request body is over {limit} bytes")
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise Refused(413, f"the request body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_object(body: bytes, known: Iterable[str], max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``body`` as a JSON object (empty means ``{}``) with no key outside ``known``."""
    try:
        value = safe_json.loads(body or b"{}", max_depth=max_depth)
    except ValueError as err:
        raise Refused(400, f"the request body is not acceptable JSON: {str(err)[:200]}") from None
    if not isinstance(value, dict):
        raise Refused(400, "the request body must be a JSON object")
    known = tuple(known)
    unknown = [key for key in value if key not in known]
    if unknown:
        raise Refused(400, f"unknown key {shown(unknown[0])}; the keys are {', '.join(known) or 'none'}")
    return value


async def json_body(request: Request, known: Iterable[str], limit: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object, read within ``limit`` and checked by ``parse_object``."""
    return parse_object(await read_body(request, limit), known)


def query(request: Request, known: Iterable[str]) -> dict[str, str]:
    """The query parameters, each at most once and none outside ``known``."""
    known = tuple(known)
    params = request.query_params
    for key in params:
        if key not in known:
            raise Refused(400, f"unknown query parameter {shown(key)}; the parameters are {', '.join(known) or 'none'}")
        if len(params.getlist(key)) > 1:
            raise Refused(400, f"the query parameter {shown(key)} is given more than once")
    return dict(params)


def count(value: str | None, name: str, default: int, largest: int) -> int:
    """A query parameter that is a count from 0 to ``largest``, in ASCII digits."""
    if value is None:
        return default
    if not _COUNT.fullmatch(value) or int(value) > largest:
        raise Refused(400, f"{name} must be a whole number from 0 to {largest}, got {shown(value)}")
    return int(value)
