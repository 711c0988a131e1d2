"""``make load-test``: ``tranquility serve`` under a bounded load on this machine only.

A server is started on a free loopback port (pace 0, a fresh replay folder); 32 browsers, each
with its own session, play a 3-player game at once beside two ``heuristic-no-search`` bots, always
taking their first legal move and asking for the state as the page does, until every game ends.
Counts are fixed and the run stops by itself (a time limit ends it too). It prints the latency of
the state endpoint (median, p95, max), the count of 5xx answers and the server's memory (RSS)
after a warm-up game and after the load; it exits 1 when a target of docs/play.md is missed:
p95 <= 100 ms, no 5xx, RSS after <= 2x before.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

GAMES = 32
LIMIT_S = 600.0
POLL_S = 0.05  # between state requests while the bots move


class Browser:
    """One browser: a session cookie, and the requests of the page."""

    def __init__(self, port: int) -> None:
        self.port, self.cookie = port, ""
        self.latencies: list[float] = []
        self.errors: list[int] = []

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        reply = conn.getresponse()
        data = reply.read()
        elapsed = time.perf_counter() - started
        conn.close()
        if method == "GET" and path.startswith("/api/games/"):
            self.latencies.append(elapsed)
        if reply.status >= 500:
            self.errors.append(reply.status)
        cookie = reply.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";")[0]
        return reply.status, json.loads(data) if data else None

    def play(self, deadline: float) -> str:
        self.request("GET", "/api/options")
        status, state = self.request("POST", "/api/games", {"players": 3, "seat": 0, "bots": ["heuristic-no-search"]})
        if status != 200:
            raise RuntimeError(f"a new game was refused: {status} {state}")
        while not state["outcome"] and time.monotonic() < deadline:
            if state["moves"]:
                move = {"move": state["moves"][0]["move"], "decision": state["decision"]}
                status, reply = self.request("POST", f"/api/games/{state['id']}/moves", move)
                state = reply if status == 200 else state
            else:
                time.sleep(POLL_S)
            status, reply = self.request("GET", f"/api/games/{state['id']}?since={state['decision']}")
            state = reply if status == 200 else state
        return state["outcome"] or "unfinished"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help="games played at once")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "tranquility_env.cli", "serve", "--pace", "0", "--replays", folder]
        command += ["--max-games", str(args.games + 1), "--games-per-browser", "1"]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline().strip().rstrip("/").rsplit(":", 1)[1])
            deadline = time.monotonic() + LIMIT_S
            Browser(port).play(deadline)  # warm-up: the bots' code and tables loaded
            before = rss_mb(server.pid)
            browsers = [Browser(port) for _ in range(args.games)]
            outcomes: list[str] = []
            threads = [threading.Thread(target=lambda b=b: outcomes.append(b.play(deadline))) for b in browsers]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            after = rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=10)
    latencies = sorted(x for b in browsers for x in b.latencies)
    figures = {
        "games": args.games,
        "finished": sum(o in ("won", "lost") for o in outcomes),
        "wall_s": round(wall, 1),
        "state_requests": len(latencies),
        "latency_median_ms": round(1000 * statistics.median(latencies), 1),
        "latency_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1),
        "latency_max_ms": round(1000 * latencies[-1], 1),
        "errors_5xx": sum(len(b.errors) for b in browsers),
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    missed = [
        *(["a game did not finish"] if figures["finished"] != args.games else []),
        *(["p95 over 100 ms"] if figures["latency_p95_ms"] > 100 else []),
        *(["5xx answers"] if figures["errors_5xx"] else []),
        *(["RSS more than doubled"] if after > 2 * before else []),
    ]
    print("targets met" if not missed else "targets missed: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
