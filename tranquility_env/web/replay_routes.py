"""The routes of the replay viewer (what each browser may open: ``replay_store.py``).

- ``GET /api/replays?page=N``: what this browser may open, a page at a time.
- ``POST /api/replays`` (``{"text": a replay file's text}``) or ``POST /api/replays/saved/{name}``
  opens one; ``GET /api/replays/{id}/frames?seat=S|all`` steps through it.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from tranquility_env.web import limits
from tranquility_env.web.endpoints import api, owner_of
from tranquility_env.web.errors import Refused
from tranquility_env.web.replay_store import ReplayStore

__all__ = ["ReplayRoutes"]


class ReplayRoutes:
    """The replay endpoints over ``store``."""

    def __init__(self, store: ReplayStore) -> None:
        self.store = store

    def routes(self) -> list[Route]:
        return [
            Route("/api/replays", api(self.listing)),
            Route("/api/replays", api(self.upload), methods=["POST"]),
            Route("/api/replays/saved/{name}", api(self.open_saved), methods=["POST"]),
            Route("/api/replays/{replay}/frames", api(self.frames)),
        ]

    def listing(self, request: Request) -> dict[str, Any]:
        page = limits.count(limits.query(request, ("page",)).get("page"), "page", 1, 10**6)
        return self.store.listing(owner_of(request), max(page, 1))

    async def upload(self, request: Request) -> dict[str, Any]:
        body = await limits.read_body(request, limits.MAX_UPLOAD)  # parsed off the event loop
        return await run_in_threadpool(self._open_upload, body, owner_of(request))

    async def open_saved(self, request: Request) -> dict[str, Any]:
        await limits.json_body(request, ())
        return await run_in_threadpool(self.store.open_saved, request.path_params["name"], owner_of(request))

    def frames(self, request: Request) -> dict[str, Any]:
        text = limits.query(request, ("seat",)).get("seat", "")
        seat = None if text == "all" else limits.count(text, "seat", 0, 4)
        return {"frames": self.store.frames(request.path_params["replay"], owner_of(request), seat)}

    def _open_upload(self, body: bytes, owner: str) -> dict[str, Any]:
        text = limits.parse_object(body, ("text",)).get("text")
        if not isinstance(text, str):
            raise Refused(400, 'an upload is {"text": the replay file\'s text}')
        return self.store.upload(text, owner)
