"""The app served on a free loopback port in this process, and Debian's Chromium driven headless:
what the browser tests and the docs' screenshots share (``selenium`` and the ``chromium`` and
``chromium-driver`` packages)."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["chromium", "chromium_found", "served"]

# As the workplace's own checks start it: without the background-networking flags Chromium keeps
# reaching for hosts this machine cannot reach.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_found() -> bool:
    return bool(shutil.which("chromium") and shutil.which("chromedriver"))


@contextmanager
def served(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port until the block ends; yields its URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextmanager
def chromium(profile: Path, size: tuple[int, int] = (1280, 1100)) -> Iterator[Any]:
    """A headless Chromium under Selenium, with a fresh profile folder."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (*CHROMIUM_FLAGS, f"--window-size={size[0]},{size[1]}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        yield driver
    finally:
        driver.quit()
