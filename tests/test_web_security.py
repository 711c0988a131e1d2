"""``tranquility serve`` against a hostile client: each finding of the web-hardening issue as a test
(a bot's hand seen during a live game, script from a replay file in ``test_browser.py``, cross-site
control, a flood evicting a game in play, bad numbers and nesting answered with 500, unbounded
memory), then the rules that fix them: games and replays of one browser only, Host and Origin,
limits read as the request comes, quotas, pagination."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette.testclient")

from starlette.requests import Request
from starlette.testclient import TestClient

from tranquility_env import Game, safe_json
from tranquility_env.replay import MAX_MOVES, ReplayWriter
from tranquility_env.web import limits, replay_store
from tranquility_env.web.app import create_app
from tranquility_env.web.errors import Refused

from web_client import HOST, browser


def app_at(tmp_path: Path, **kwargs: Any) -> Any:
    return create_app(tmp_path / "replays", pace=0, **kwargs)


def play_to_the_end(client: TestClient, body: dict) -> dict:
    state = client.post("/api/games", json=body).json()
    for _ in range(3000):
        if state["outcome"]:
            return state
        if state["moves"]:
            move = {"move": state["moves"][0]["move"], "decision": state["decision"]}
            state = client.post(f"/api/games/{state['id']}/moves", json=move).json()
        else:
            time.sleep(0.005)
            state = client.get(f"/api/games/{state['id']}").json()
    raise AssertionError("the game did not end")


def replay_text(players: int = 2, moves: int = 6, seats: list[str] | None = None, end: bool = False) -> str:
    game = Game.new({"players": players}, 4)
    header = {"replay": 2, "config": game.config.to_dict(), "seed": 4, "seats": seats or ["a"] * players, "human": 0}
    lines = [json.dumps(header)]
    while len(lines) <= moves and not game.is_over:
        move = game.legal_moves()[0]
        lines.append(json.dumps({"seat": game.current, "move": move}))
        game.apply(move)
    if end:
        while not game.is_over:
            move = game.legal_moves()[0]
            lines.append(json.dumps({"seat": game.current, "move": move}))
            game.apply(move)
        lines.append(json.dumps({"end": game.status}))
    return "\n".join(lines)


# ---------------------------------------------------------------- finding 1: peeking at the bots
def test_finding_1_a_live_games_replay_shows_no_bots_hand(tmp_path: Path) -> None:
    me = browser(app_at(tmp_path))
    state = me.post("/api/games", json={"players": 2, "seat": 0, "bots": ["heuristic-no-search"]}).json()
    state = me.post(f"/api/games/{state['id']}/moves", json={"move": state["moves"][0]["move"], "decision": 0}).json()
    name = next(p.name for p in (tmp_path / "replays").glob("web_*.jsonl"))
    assert me.get("/api/replays").json()["replays"] == []  # not listed while it goes on
    opened = me.post(f"/api/replays/saved/{name}", json={})
    assert opened.status_code == 409 and "still going on" in opened.json()["error"]
    # once over (here: left), its owner opens it and may step through any seat
    me.post(f"/api/games/{state['id']}/quit", json={})
    (row,) = me.get("/api/replays").json()["replays"]
    assert row["name"] == name and row["outcome"] == "quit" and row["players"] == 2 and row["whose"] == "yours"
    opened = me.post(f"/api/replays/saved/{name}", json={}).json()
    assert me.get(f"/api/replays/{opened['id']}/frames?seat=1").status_code == 200


def test_another_browser_sees_nothing_of_mine(tmp_path: Path) -> None:
    app = app_at(tmp_path)
    me, other = browser(app), browser(app)
    done = play_to_the_end(me, {"players": 2, "seat": 0, "bots": ["random"]})
    going = me.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    uploaded = me.post("/api/replays", json={"text": replay_text()}).json()
    opened = me.post(f"/api/replays/saved/{done['replay']}", json={}).json()
    assert [g["id"] for g in me.get("/api/games").json()["games"]] == [going["id"], done["id"]]

    assert other.get("/api/games").json() == {"games": []}
    assert other.get("/api/replays").json()["replays"] == []
    gid = going["id"]
    for reply in (
        other.get(f"/api/games/{gid}"),
        other.post(f"/api/games/{gid}/moves", json={"move": going["moves"][0]["move"], "decision": 0}),
        other.post(f"/api/games/{gid}/pace", json={"pace": 3}),
        other.post(f"/api/games/{gid}/quit", json={}),
        other.post(f"/api/replays/saved/{done['replay']}", json={}),
        other.get(f"/api/replays/{opened['id']}/frames?seat=0"),
        other.get(f"/api/replays/{uploaded['id']}/frames?seat=0"),
    ):
        assert reply.status_code == 404, reply.json()
    assert me.get(f"/api/games/{gid}").json()["outcome"] is None  # untouched by the other browser
    assert me.get(f"/api/replays/{uploaded['id']}/frames?seat=0").status_code == 200


def test_folder_files_are_listed_only_with_share_replays_and_a_restart_owns_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "replays"
    me = browser(create_app(folder, pace=0))
    done = play_to_the_end(me, {"players": 1})
    game = Game.new({"players": 2}, 9)
    writer = ReplayWriter(folder / "game_cli.jsonl", game.config, 9, ["person", "heuristic"], 0)
    writer.end("quit")

    restarted = browser(create_app(folder, pace=0))  # the same folder, a new process's app
    assert restarted.get("/api/replays").json()["total"] == 0
    for name in (done["replay"], "game_cli.jsonl"):
        assert restarted.post(f"/api/replays/saved/{name}", json={}).status_code == 404
    cookie = me.cookies.get("tranquility_session")
    stale = TestClient(create_app(folder, pace=0), base_url=HOST, cookies={"tranquility_session": cookie})
    refused = stale.post("/api/games", json={"players": 1})
    assert refused.status_code == 403 and "no session" in refused.json()["error"]  # the old token means nothing

    shared = browser(create_app(folder, pace=0, share_folder=True))
    listing = shared.get("/api/replays").json()
    assert {r["name"] for r in listing["replays"]} == {done["replay"], "game_cli.jsonl"}
    row = next(r for r in listing["replays"] if r["name"] == "game_cli.jsonl")
    assert row["whose"] == "folder" and row["outcome"] == "quit" and row["moves"] == 0 and row["players"] == 2
    assert shared.post("/api/replays/saved/game_cli.jsonl", json={}).status_code == 200


# ---------------------------------------------------------------- finding 3: cross-site control
def test_finding_3_other_sites_cannot_drive_the_server(tmp_path: Path) -> None:
    app = app_at(tmp_path)
    me = browser(app)
    plain = me.post("/api/games", content=b'{"players": 1}', headers={"content-type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    foreign = me.post("/api/games", json={"players": 1}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403 and "another site" in foreign.json()["error"]
    null = me.post("/api/games", json={"players": 1}, headers={"origin": "null"})
    assert null.status_code == 403
    same = me.post("/api/games", json={"players": 1}, headers={"origin": HOST})
    assert same.status_code == 200
    rebound = TestClient(app, base_url="http://rebind.example.net")
    for reply in (rebound.get("/"), rebound.get("/api/options"), rebound.post("/api/games", json={})):
        assert reply.status_code == 421 and "does not answer to the host" in reply.json()["error"]
    no_cookie = TestClient(app, base_url=HOST).post("/api/games", json={"players": 1})
    assert no_cookie.status_code == 403 and "no session" in no_cookie.json()["error"]
    assert len(app.state.games) == 1  # only the same-origin request made a game


def test_allowed_hosts_and_the_session_cookie(tmp_path: Path) -> None:
    app = app_at(tmp_path, allowed_hosts=["table.lan"])
    for url in ("http://table.lan:8000", "http://localhost:8000", "http://[::1]:8000", HOST):
        client = TestClient(app, base_url=url)
        page = client.get("/")
        assert page.status_code == 200, url
    cookie = page.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert "set-cookie" not in client.get("/").headers  # one cookie per browser, kept


def test_every_answer_forbids_foreign_script_framing_and_sniffing(tmp_path: Path) -> None:
    client = browser(app_at(tmp_path))
    for path in ("/", "/static/app.js", "/api/options", "/api/games/nope", "/nowhere"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    assert client.get("/api/options").headers["cache-control"] == "no-store"
    assert "<script>" not in (Path(__file__).parents[1] / "tranquility_env/web/static/index.html").read_text()


def test_serving_other_machines_needs_allowed_hosts_and_warns(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tranquility_env.cli", "serve", "--replays", str(tmp_path / "r")]
    bad = subprocess.run([*command, "--host", "0.0.0.0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--allowed-host" in bad.stderr
    server = subprocess.Popen(
        [*command, "--host", "0.0.0.0", "--allowed-host", "table.lan"], stdout=subprocess.PIPE, text=True
    )
    try:
        warning = server.stdout.readline()
        assert warning.startswith("warning: serving on 0.0.0.0") and "table.lan" in warning
        assert "served on http://" in server.stdout.readline()
    finally:
        server.terminate()
        server.wait(timeout=10)


# ---------------------------------------------------------------- finding 4: a flood
def test_finding_4_a_game_in_play_survives_200_creations(tmp_path: Path) -> None:
    app = app_at(tmp_path, max_games=16)
    me = browser(app)
    mine = me.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    statuses = []
    for k in range(200):
        flooder = me if k % 2 else browser(app)  # the same browser, and a new one each time
        statuses.append(flooder.post("/api/games", json={"players": 1}).status_code)
        if k % 20 == 0:
            assert me.get(f"/api/games/{mine['id']}").status_code == 200  # looked at all along
    assert statuses.count(200) == 15 and set(statuses) == {200, 429}
    state = me.get(f"/api/games/{mine['id']}").json()
    assert state["outcome"] is None and state["moves"]
    full = browser(app).post("/api/games", json={"players": 1})
    assert full.status_code == 429 and "16 games going" in full.json()["error"]


def test_a_browser_has_at_most_its_quota_of_games_going(tmp_path: Path) -> None:
    me = browser(app_at(tmp_path, games_per_browser=2))
    first, _ = (me.post("/api/games", json={"players": 1}).json() for _ in range(2))
    refused = me.post("/api/games", json={"players": 1})
    assert refused.status_code == 429 and "leave one" in refused.json()["error"]
    me.post(f"/api/games/{first['id']}/quit", json={})  # an ended game no longer counts
    assert me.post("/api/games", json={"players": 1}).status_code == 200


def test_a_game_left_alone_past_the_idle_time_ends_and_goes(tmp_path: Path) -> None:
    app = app_at(tmp_path, games_per_browser=1, idle_minutes=1)
    me = browser(app)
    old = me.post("/api/games", json={"players": 1}).json()
    app.state.games[old["id"]].touched -= 61  # left alone for a minute and a second
    assert me.post("/api/games", json={"players": 1}).status_code == 200
    gone = me.get(f"/api/games/{old['id']}")
    assert gone.status_code == 404 and "left alone" in gone.json()["error"]
    assert any(r["outcome"] == "quit" for r in me.get("/api/replays").json()["replays"])  # its replay says so


# ---------------------------------------------------------------- finding 5: bad numbers and nesting
DEEP = "[" * 100_000 + "]" * 100_000  # an upload's size
SHALLOWER = "[" * 7000 + "]" * 7000  # within an API body's limit


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "message"),
    [
        ("post", "/api/games", '{"players": ' + "9" * 5000 + "}", 400, "digits"),
        ("post", "/api/games", SHALLOWER, 400, "nested deeper"),
        ("post", "/api/games", '{"players": 1e999}', 400, "out of range"),
        ("post", "/api/games", '{"players": NaN}', 400, "NaN"),
        ("post", "/api/games", '{"hand_sizes": 10}', 400, "unknown key 'hand_sizes'; the keys are seat, bots, players"),
        ("post", "/api/games", '{"players": "' + "x" * 5000 + '"}', 400, "whole number"),
        ("post", "/api/replays", DEEP, 400, "nested deeper"),
        ("post", "/api/replays", json.dumps({"text": DEEP}), 400, "nested deeper"),
        ("post", "/api/replays", json.dumps({"text": replay_text(), "name": "x"}), 400, "unknown key 'name'"),
        ("get", "/api/games/GAME?since=²", None, 400, "since must be a whole number"),
        ("get", "/api/games/GAME?since=" + "9" * 5000, None, 400, "since must be a whole number"),
        ("get", "/api/games/GAME?since=1&since=2", None, 400, "more than once"),
        ("get", "/api/games/GAME?peek=1", None, 400, "unknown query parameter 'peek'"),
        ("get", "/api/replays?page=²", None, 400, "page must be"),
        ("get", "/api/replays?page=7", None, 404, "no page 7"),
        ("get", "/api/replays/REPLAY/frames?seat=²", None, 400, "seat must be"),
        ("get", "/api/replays/REPLAY/frames?seat=" + "9" * 5000, None, 400, "seat must be"),
        ("get", "/api/replays/REPLAY/frames?seat=3", None, 400, "seat must be from 0 to 1"),
        ("post", "/api/replays/saved/" + "a" * 300 + ".jsonl", "{}", 404, "no saved replay"),
        ("post", "/api/games/GAME/moves", json.dumps({"move": "x" * 10_000, "decision": 0}), 400, "malformed move"),
        ("post", "/api/games/GAME/moves", json.dumps({"move": "x" * 1_900_000, "decision": 0}), 413, "over"),
        ("post", "/api/games/GAME/moves", json.dumps({"move": "rope", "decision": 0, "x": 1}), 400, "unknown key"),
        ("post", "/api/games/GAME/quit", '{"now": true}', 400, "unknown key 'now'; the keys are none"),
        ("delete", "/api/games/GAME", "{}", 405, "DELETE is not taken"),
        ("get", "/api/nowhere", None, 404, "no such page"),
    ],
)
def test_finding_5_bad_numbers_and_nesting_get_a_4xx_that_says_why(
    tmp_path: Path, method: str, path: str, body: str | None, status: int, message: str
) -> None:
    client = browser(app_at(tmp_path))
    game = client.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    replay = client.post("/api/replays", json={"text": replay_text()}).json()
    path = path.replace("GAME", game["id"]).replace("REPLAY", replay["id"])
    files = sorted((tmp_path / "replays").iterdir())
    kwargs = {} if body is None else {"content": body.encode(), "headers": {"content-type": "application/json"}}
    reply = client.request(method.upper(), path, **kwargs)
    assert reply.status_code == status, reply.text[:300]
    error = reply.json()["error"]
    assert message in error and len(error) < 400, error[:400]
    assert client.get(f"/api/games/{game['id']}").json()["decision"] == game["decision"]  # nothing changed
    assert sorted((tmp_path / "replays").iterdir()) == files


def test_the_new_game_body_takes_every_config_field(tmp_path: Path) -> None:
    client = browser(app_at(tmp_path))
    body = {"players": 2, "bots": ["heuristic"], "hand_size": 4, "bridges": 3, "campfires_per_colour": 2}
    state = client.post("/api/games", json=body | {"campfire_move_pays": False, "goats": True, "goats_needed": 6})
    assert state.status_code == 200, state.json()
    config = state.json()["view"]["config"]
    assert config["hand_size"] == 4 and config["goats_needed"] == 6 and not config["campfire_move_pays"]
    assert len(state.json()["view"]["players"][0]["hand"]) == 4
    bad = client.post("/api/games", json={"players": 2, "hand_size": 11})
    assert bad.status_code == 400 and "'hand_size' must be an integer from 2 to 10" in bad.json()["error"]


# ---------------------------------------------------------------- finding 6: memory and the event loop
def test_finding_6_the_body_limit_holds_while_reading() -> None:
    """A 200 MB chunked body is refused once it passes the limit: read no further than that."""
    pulled = []

    async def receive() -> dict:
        pulled.append(1)
        return {"type": "http.request", "body": b"x" * 65536, "more_body": len(pulled) < 3200}

    request = Request({"type": "http", "method": "POST", "headers": [], "path": "/"}, receive)
    with pytest.raises(Refused) as refused:
        asyncio.run(limits.read_body(request, limits.MAX_UPLOAD))
    assert refused.value.status == 413 and len(pulled) <= limits.MAX_UPLOAD // 65536 + 1
    claimed = Request({"type": "http", "method": "POST", "headers": [(b"content-length", b"200000000")]}, receive)
    with pytest.raises(Refused):
        asyncio.run(limits.read_body(claimed, limits.MAX_UPLOAD))


def test_a_chunked_flood_to_a_served_app_is_cut_off(tmp_path: Path) -> None:
    import httpx2 as httpx

    from tranquility_env.web.headless import served

    with served(app_at(tmp_path)) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        cookie = httpx.get(url + "api/options").cookies["tranquility_session"]
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        head = (
            "POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Cookie: tranquility_session={cookie}\r\n"
        )
        conn.sendall((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
        chunk, sent, answer = b"%x\r\n%s\r\n" % (65536, b"x" * 65536), 0, b""
        conn.setblocking(False)
        while sent < 200_000_000 and not answer:
            try:
                sent += conn.send(chunk)
            except BlockingIOError:
                time.sleep(0.001)
            except (BrokenPipeError, ConnectionResetError):
                break
            with contextlib.suppress(BlockingIOError):
                answer = conn.recv(4096)
        conn.setblocking(True)
        answer = answer or conn.recv(4096)
        conn.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert sent < 50_000_000  # refused long before the 200 MB were sent


def test_a_replay_bomb_is_refused_by_shape_and_size(tmp_path: Path) -> None:
    client = browser(app_at(tmp_path))
    lines = replay_text().splitlines()
    bomb = json.loads(lines[1]) | {"why": {"kind": "policy", "top": [{}] * 620_000}}
    reply = client.post("/api/replays", json={"text": "\n".join([lines[0], json.dumps(bomb)])})
    assert reply.status_code == 413  # 620,000 {} are over the upload limit already
    small_bomb = json.loads(lines[1]) | {"why": {"kind": "policy", "top": [{}] * 1000}}
    reply = client.post("/api/replays", json={"text": "\n".join([lines[0], json.dumps(small_bomb)])})
    assert reply.status_code == 400 and "'why' must be" in reply.json()["error"]
    long_seat = replay_text(seats=["x" * 300, "b"])
    assert "'seats' must name" in client.post("/api/replays", json={"text": long_seat}).json()["error"]
    header, *_ = replay_text().splitlines()
    too_long = "\n".join([header, *[json.dumps({"seat": 0, "move": "rope"})] * (MAX_MOVES + 1)])
    assert f"more than {MAX_MOVES} moves" in client.post("/api/replays", json={"text": too_long}).json()["error"]


def test_open_replays_are_kept_a_few_a_browser(tmp_path: Path) -> None:
    client = browser(app_at(tmp_path))
    ids = [client.post("/api/replays", json={"text": replay_text()}).json()["id"] for _ in range(9)]
    assert client.get(f"/api/replays/{ids[0]}/frames?seat=0").status_code == 404  # the oldest went
    assert client.get(f"/api/replays/{ids[-1]}/frames?seat=0").status_code == 200
    assert len(client.app.state.store._opened) == replay_store.OPEN_PER_OWNER


def test_the_servers_replay_files_are_capped_and_no_other_file_is_touched(tmp_path: Path) -> None:
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "game_mine.jsonl").write_text(replay_text())
    (folder / "notes.txt").write_text("keep me")
    client = browser(create_app(folder, pace=0, max_replays=3))
    for _ in range(5):
        play_to_the_end(client, {"players": 1})
    assert len(list(folder.glob("web_*.jsonl"))) == 3
    assert (folder / "game_mine.jsonl").exists() and (folder / "notes.txt").read_text() == "keep me"
    assert client.get("/api/replays").json()["total"] == 3


def test_the_replay_list_is_paginated_with_what_each_game_was(tmp_path: Path) -> None:
    folder = tmp_path / "replays"
    folder.mkdir()
    text = replay_text(players=3, end=True)
    for k in range(45):
        (folder / f"game_{k:02}.jsonl").write_text(text)
    client = browser(create_app(folder, pace=0, share_folder=True))
    first = client.get("/api/replays").json()
    assert first["total"] == 45 and first["pages"] == 3 and len(first["replays"]) == 20
    last = client.get("/api/replays?page=3").json()["replays"]
    assert len(last) == 5
    row = last[0]
    assert row["players"] == 3 and row["outcome"] in ("won", "lost") and row["modules"] == [] and row["date"]
    names = [r["name"] for p in (1, 2, 3) for r in client.get(f"/api/replays?page={p}").json()["replays"]]
    assert sorted(names) == sorted(p.name for p in folder.iterdir())


def test_an_upload_is_parsed_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While an upload is parsed (slowed to a second here), the server answers everyone else."""
    import httpx2 as httpx

    from tranquility_env.web.headless import served

    real = replay_store.parse
    monkeypatch.setattr(replay_store, "parse", lambda text, name: (time.sleep(1.0), real(text, name))[1])
    answers = []
    with served(app_at(tmp_path)) as url, httpx.Client(base_url=url) as client:
        client.get("/api/options")

        def upload() -> None:
            answers.append(client.post("/api/replays", json={"text": replay_text()}).status_code)

        uploading = threading.Thread(target=upload)
        uploading.start()
        time.sleep(0.2)
        started = time.perf_counter()
        assert httpx.get(url + "api/options").status_code == 200
        waited = time.perf_counter() - started
        uploading.join()
    assert answers == [200]  # the upload was parsed, slowly
    assert waited < 0.5


def test_the_page_writes_no_html_from_data() -> None:
    """Text from the server or a replay file reaches the page through textContent only."""
    static = Path(__file__).parents[1] / "tranquility_env/web/static"
    script, page = (static / "app.js").read_text(), (static / "index.html").read_text()
    assert re.findall(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", script) == []
    assert re.findall(r"<script>|\son[a-z]+=|\sstyle=", page) == []  # no inline script or style for the CSP to refuse


def test_safe_json_counts_depth_outside_strings_and_bounds_numbers() -> None:
    assert safe_json.depth('{"a": "[[[[{{{{", "b": [1, {"c": []}]}') == 4
    assert safe_json.depth("[" * 10_000 + "]" * 10_000) == 10_000
    assert safe_json.depth('{"bots": ' + "[" * 5000) == 5001  # unbalanced: as deep as a parser would go
    assert safe_json.loads(r'[[["\\]", "\""]]]', max_depth=3) == [[["\\]", '"']]]  # brackets and quotes in strings
    for text, message in [
        ("[[[[1]]]]", "nested deeper than 3"),
        ("1" * 31, "31 digits"),
        ("1e400", "out of range"),
        ("Infinity", "not a JSON number"),
        ("[1,", "not JSON"),
        ('"\\ud800"', "lone surrogate"),
        ('{"\\udfff": 1}', "lone surrogate"),
        (b"\xff", "not UTF-8"),
    ]:
        with pytest.raises(ValueError, match=message):
            safe_json.loads(text, max_depth=3)


def test_the_load_test_runs_and_reports(tmp_path: Path) -> None:
    """``make load-test``'s script, with two games instead of 32."""
    script = Path(__file__).parents[1] / "benchmarks/web_load.py"
    done = subprocess.run(
        [sys.executable, str(script), "--games", "2", "--out", str(tmp_path / "load.json")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    figures = json.loads((tmp_path / "load.json").read_text())
    assert figures["finished"] == 2 and figures["errors_5xx"] == 0 and figures["state_requests"] > 0, done.stdout


def test_hostile_text_costs_linear_time_and_never_recursion() -> None:
    """Review findings: an unclosed string of escaped quotes (quadratic for a naive pattern) and
    unbalanced brackets (which a depth count by matched pairs missed)."""
    started = time.perf_counter()
    for text in ('"' + '\\"' * 1_000_000, "[" * 1_000_000, '{"a": ' + "[" * 1_000_000 + "}" * 10):
        with pytest.raises(ValueError):
            safe_json.loads(text, max_depth=4)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        ("/api/games", '{"bots": ' + "[" * 5000, "nested deeper"),
        ("/api/replays", json.dumps({"text": "[" * 100_000}), "nested deeper"),
        ("/api/replays", json.dumps({"text": '"' + '\\"' * 200_000}), "not JSON"),
        ("/api/games/GAME/moves", '{"move": "\\ud800", "decision": 0}', "lone surrogate"),
        ("/api/replays", json.dumps({"text": replay_text(seats=["\ud800", "a"])}), "lone surrogate"),
    ],
)
def test_unbalanced_nesting_quadratic_strings_and_surrogates_get_a_400(
    tmp_path: Path, path: str, body: str, message: str
) -> None:
    client = browser(app_at(tmp_path))
    game = client.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    started = time.perf_counter()
    reply = client.post(
        path.replace("GAME", game["id"]), content=body.encode(), headers={"content-type": "application/json"}
    )
    assert reply.status_code == 400 and message in reply.json()["error"], reply.text[:300]
    assert time.perf_counter() - started < 5
    assert client.app.state.store._opened == {}  # nothing was opened


@pytest.mark.parametrize(
    "cookie", ['tranquility_session="abc.\\351"', "tranquility_session=\u00e9.x", "tranquility_session=a.b.c; x"]
)
def test_a_hostile_cookie_is_a_new_session_not_a_500(tmp_path: Path, cookie: str) -> None:
    client = TestClient(app_at(tmp_path), base_url=HOST)
    reply = client.get("/api/options", headers={"cookie": cookie.encode("latin-1")})
    assert reply.status_code == 200 and "tranquility_session=" in reply.headers["set-cookie"]


def test_a_bad_replay_header_quotes_at_most_100_characters(tmp_path: Path) -> None:
    client = browser(app_at(tmp_path))
    lines = replay_text().splitlines()
    for key, letter in (("seed", "A"), ("human", "B"), ("config", "C")):
        value = {"players": letter * 5000} if key == "config" else letter * 5000
        header = json.loads(lines[0]) | {key: value}
        error = client.post("/api/replays", json={"text": "\n".join([json.dumps(header), *lines[1:]])}).json()["error"]
        assert 0 < error.count(letter) <= 100, error


def test_a_game_just_begun_is_never_a_folder_file_even_shared(tmp_path: Path) -> None:
    """Its file exists before the store hears of the game: a web_* file that was not there when the
    server started is never another browser's to see."""
    app = app_at(tmp_path, share_folder=True)
    other = browser(app)
    (tmp_path / "replays" / "web_20990101_000000_cafecafe.jsonl").write_text(replay_text())  # as a game starting
    assert other.get("/api/replays").json()["replays"] == []
    assert other.post("/api/replays/saved/web_20990101_000000_cafecafe.jsonl", json={}).status_code == 404


def test_an_ended_game_leaves_only_its_row_in_the_store(tmp_path: Path) -> None:
    app = app_at(tmp_path)
    me = browser(app)
    done = play_to_the_end(me, {"players": 1})
    (row,) = me.get("/api/replays").json()["replays"]
    (written,) = app.state.store._written.values()
    assert written.session is None and written.row == row and row["name"] == done["replay"]


def test_the_replay_cap_takes_from_whoever_has_the_most(tmp_path: Path) -> None:
    app = app_at(tmp_path, max_replays=4)
    me, flooder = browser(app), browser(app)
    mine = play_to_the_end(me, {"players": 1})["replay"]
    for _ in range(6):
        play_to_the_end(flooder, {"players": 1})
    assert [r["name"] for r in me.get("/api/replays").json()["replays"]] == [mine]
    assert flooder.get("/api/replays").json()["total"] == 3


def test_looking_at_a_game_past_the_idle_time_finds_it_gone(tmp_path: Path) -> None:
    app = app_at(tmp_path, idle_minutes=1)
    me = browser(app)
    game = me.post("/api/games", json={"players": 1}).json()
    app.state.games[game["id"]].touched -= 61
    assert me.get(f"/api/games/{game['id']}").status_code == 404


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("127.0.0.1.example.net", False), ("0.0.0.0", False)],
)
def test_only_loopback_addresses_count_as_this_machine(host: str, loopback: bool) -> None:
    from tranquility_env.web.app import is_loopback

    assert is_loopback(host) is loopback
