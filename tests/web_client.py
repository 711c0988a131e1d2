"""A test client of ``tranquility serve``'s app as a browser is: it names this machine as the host,
and has loaded the page (so it holds its session cookie) before it sends anything."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

HOST = "http://127.0.0.1"


def browser(app: Any, base_url: str = HOST) -> TestClient:
    """A fresh browser: its own session cookie, so its own games and replays."""
    client = TestClient(app, base_url=base_url)
    assert client.get("/api/options").status_code == 200
    return client
