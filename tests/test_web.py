"""``tranquility serve``'s API: whole games, what a page may see, the replay viewer, bad requests."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette.testclient")

from starlette.testclient import TestClient

from tranquility_env import Game
from tranquility_env.replay import read
from tranquility_env.web.app import create_app

from tiny_bots import tiny_checkpoint
from web_client import browser


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return browser(create_app(tmp_path / "replays", pace=0))


def walk(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every (key path, value) of a JSON value."""
    out = [(path, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out += walk(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += walk(v, f"{path}/{i}")
    return out


def hides_the_rest(message: dict, human: int) -> None:
    """A message for the person's page: no seed anywhere, no deck, no other seat's hand or discards."""
    for path, value in walk(message):
        assert not path.endswith("/seed") and not path.endswith("/deck"), path
        if isinstance(value, dict) and path.endswith(tuple(f"/view/players/{i}" for i in range(5))):
            seat = int(path.rsplit("/", 1)[1])
            assert seat == human or not {"hand", "discard"} & value.keys(), f"seat {seat}'s cards sent: {value}"


def play_out(client: TestClient, state: dict, human: int) -> list[dict]:
    """Make the first legal move whenever it is the person's turn, until the game ends; every
    message the page would get is returned."""
    messages = [state]
    for _ in range(2000):
        if state["outcome"]:
            return messages
        if state["moves"]:
            reply = client.post(
                f"/api/games/{state['id']}/moves",
                json={"move": state["moves"][0]["move"], "decision": state["decision"]},
            )
            assert reply.status_code == 200, reply.json()
        else:
            time.sleep(0.01)
            reply = client.get(f"/api/games/{state['id']}?since={state['decision']}")
        state = reply.json()
        messages.append(state)
        assert state["human"] == human
    raise AssertionError("the game did not end")


def test_a_whole_game_with_every_module_never_shows_another_seats_cards(client: TestClient, tmp_path: Path) -> None:
    body = {
        "players": 3,
        "seat": 1,
        "bots": ["heuristic-no-search", "random"],
        "green_path": True,
        "panoramas": 2,
        "goats": True,
    }
    state = client.post("/api/games", json=body).json()
    messages = play_out(client, state, human=1)
    for message in messages:
        hides_the_rest(message, human=1)
    end = messages[-1]
    assert end["outcome"] in ("won", "lost") and end["seats"] == ["heuristic-no-search", "person", "random"]
    assert any(e["seat"] != 1 for m in messages for e in m["events"])  # the bots' moves reached the page
    # the replay on the server's disk rebuilds the game; a bot's moves carry what it weighed
    replay = read(tmp_path / "replays" / end["replay"])
    assert replay.header["replay"] == 2 and replay.header["human"] == 1 and replay.end == end["outcome"]
    assert len(replay.moves) == end["decision"]
    assert any(why and why["kind"] == "value model" for seat, _, why in replay.moves if seat == 0)
    assert all(why is None for seat, _, why in replay.moves if seat in (1, 2))  # the person and random weigh nothing


def test_bots_run_off_the_event_loop_and_the_page_sees_them_thinking(tmp_path: Path) -> None:
    client = browser(create_app(tmp_path / "replays", pace=1.0))
    state = client.post("/api/games", json={"players": 2, "seat": 1, "bots": ["random"]}).json()
    started = time.perf_counter()
    seen = client.get(f"/api/games/{state['id']}").json()
    assert time.perf_counter() - started < 0.5  # answered while the bot waits out its pace
    assert seen["thinking"] == 0 and seen["moves"] == []
    for _ in range(100):
        seen = client.get(f"/api/games/{state['id']}").json()
        if seen["moves"]:
            break
        time.sleep(0.05)
    assert seen["thinking"] is None and seen["decision"] >= 1 and seen["events"][0]["seat"] == 0


def test_two_games_at_once_stay_apart(client: TestClient) -> None:
    a = client.post("/api/games", json={"players": 1}).json()
    b = client.post("/api/games", json={"players": 1}).json()
    assert a["id"] != b["id"]
    before = client.get(f"/api/games/{b['id']}").json()
    client.post(f"/api/games/{a['id']}/moves", json={"move": a["moves"][0]["move"], "decision": 0})
    assert client.get(f"/api/games/{a['id']}").json()["decision"] == 1
    assert client.get(f"/api/games/{b['id']}").json() == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": 9}, "'players'"),
        ({"players": 3, "seat": 3}, "seat must be from 0 to 2"),
        ({"players": 3, "bots": ["wizard"]}, "unknown bot 'wizard'"),
        ({"players": 3, "bots": ["policy:/etc/passwd"]}, "unknown bot"),
        ({"players": 3, "bots": ["policy:../checkpoints/shipped/p3_distill/final"]}, "unknown bot"),
        ({"players": 3, "bots": ["random", "random", "random"]}, "one bot for every seat"),
        ({"players": 3, "goats": True, "bots": ["policy"]}, "base game"),
    ],
)
def test_a_bad_new_game_is_refused_with_a_reason(client: TestClient, body: dict, message: str) -> None:
    reply = client.post("/api/games", json=body)
    assert reply.status_code == 400 and message in reply.json()["error"]


def test_bad_moves_are_refused_and_change_nothing(client: TestClient) -> None:
    state = client.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    url = f"/api/games/{state['id']}/moves"
    cases = [
        (client.post(url, content=b"{not json", headers={"content-type": "application/json"}), 400, "not JSON"),
        (client.post(url, json=["play"]), 400, "JSON object"),
        (client.post(url, json={"move": "play G13 r1c1", "decision": 0}), 400, "malformed move"),
        (client.post(url, json={"move": "play G12 r8c1", "decision": 0}), 400, "illegal move"),
        (client.post(url, json={"move": 7, "decision": 0}), 400, "a move is"),
        (client.post(url, json={"move": state["moves"][0]["move"], "decision": 5}), 409, "stale move"),
        (client.post("/api/games/nope/moves", json={"move": "rope", "decision": 0}), 404, "no such game"),
        (client.get(f"/api/games/{state['id']}?since=x"), 400, "since"),
        (client.post(f"/api/games/{state['id']}/pace", json={"pace": -1}), 400, "pace"),
    ]
    for reply, status, message in cases:
        assert reply.status_code == status and message in reply.json()["error"], reply.json()
    assert client.get(f"/api/games/{state['id']}").json() == state  # nothing changed


def test_a_move_during_a_bots_turn_is_refused(tmp_path: Path) -> None:
    client = browser(create_app(tmp_path / "replays", pace=2.0))  # the bot takes two seconds a move
    state = client.post("/api/games", json={"players": 2, "seat": 0, "bots": ["random"]}).json()
    url = f"/api/games/{state['id']}/moves"
    after = client.post(url, json={"move": state["moves"][0]["move"], "decision": 0}).json()
    assert after["thinking"] == 1 and after["moves"] == []
    wrong = client.post(url, json={"move": state["moves"][1]["move"], "decision": 1})
    assert wrong.status_code == 409 and "not your turn: seat 1 is to act" in wrong.json()["error"]
    assert client.get(f"/api/games/{state['id']}").json()["decision"] == 1


def test_version_1_replays_still_open(client: TestClient, tmp_path: Path) -> None:
    game = Game.new({"players": 2}, 4)
    lines = [json.dumps({"replay": 1, "config": game.config.to_dict(), "seed": 4, "seats": ["a", "b"], "human": 0})]
    for _ in range(6):
        move = game.legal_moves()[0]
        lines.append(json.dumps({"seat": game.current, "move": move}))
        game.apply(move)
    opened = client.post("/api/replays", json={"text": "\n".join(lines)}).json()
    assert opened["moves"] == 6 and opened["end"] is None
    frames = client.get(f"/api/replays/{opened['id']}/frames?seat=1").json()["frames"]
    assert frames[-1]["view"]["mountain"] == game.to_dict()["mountain"]


def test_tranquility_serve_prints_its_loopback_url_and_serves(tmp_path: Path) -> None:
    import subprocess
    import sys
    import urllib.request

    command = [sys.executable, "-m", "tranquility_env.cli", "serve", "--replays", str(tmp_path / "r")]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        url = line.strip().rsplit(" ", 1)[-1]
        assert url.startswith("http://localhost:") and url.endswith("/"), line
        options = json.loads(urllib.request.urlopen(url + "api/options", timeout=10).read())
        assert options["players"] == 3 and "policy" in options["bots"]
        assert set(options["bot_labels"]) == set(options["bots"])  # every bot named for people, with help
        assert all(about["label"] and about["help"] for about in options["bot_labels"].values())
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert "<title>Tranquility: The Ascent</title>" in page
    finally:
        server.terminate()
        server.wait(timeout=10)
    bad = subprocess.run([*command, "--players", "7"], capture_output=True, text=True)
    assert bad.returncode == 2 and "config 'players' must be an integer from 1 to 5, got 7" in bad.stderr


def test_a_page_may_seat_checkpoints_of_the_served_folder_by_name_only(tmp_path: Path) -> None:
    from tranquility_env import Config

    tiny_checkpoint(tmp_path / "bots" / "mine", Config(players=2))
    client = browser(create_app(tmp_path / "replays", checkpoints=tmp_path / "bots", pace=0))
    assert client.get("/api/options").json()["checkpoints"] == ["mine"]
    state = client.post("/api/games", json={"players": 2, "seat": 1, "bots": ["policy:mine"]}).json()
    assert state["seats"] == ["policy:mine", "person"]
    other = client.post("/api/games", json={"players": 3, "bots": ["policy:mine"]})
    assert other.status_code == 400 and "trained for" in other.json()["error"]


def test_the_viewer_steps_a_replay_from_any_seat_and_shows_all_only_when_finished(client: TestClient) -> None:
    state = client.post("/api/games", json={"players": 2, "seat": 0, "bots": ["heuristic-no-search"]}).json()
    end = play_out(client, state, human=0)[-1]
    opened = client.post(f"/api/replays/saved/{end['replay']}", json={}).json()
    assert opened["finished"] and opened["moves"] == end["decision"] and opened["human"] == 0
    frames = client.get(f"/api/replays/{opened['id']}/frames?seat=0").json()["frames"]
    assert len(frames) == end["decision"] + 1 and frames[0]["k"] == 0 and "move" not in frames[0]
    for frame in frames[1:]:
        assert "hand" not in frame["view"]["players"][1]  # seat 1's cards stay hidden from seat 0
        if frame["mover"] == 1:
            assert frame["why"] is None  # what the bot weighed would name its cards
    bot_frames = client.get(f"/api/replays/{opened['id']}/frames?seat=1").json()["frames"]
    assert any(f.get("why") for f in bot_frames[1:] if f["mover"] == 1)
    everyone = client.get(f"/api/replays/{opened['id']}/frames?seat=all").json()["frames"]
    assert all("deck" in p for p in everyone[-1]["view"]["players"])
    assert Game.from_dict(everyone[-1]["view"]).status == end["outcome"]


def test_unfinished_or_damaged_replays(client: TestClient, tmp_path: Path) -> None:
    state = client.post("/api/games", json={"players": 1}).json()
    client.post(f"/api/games/{state['id']}/moves", json={"move": state["moves"][0]["move"], "decision": 0})
    quit_state = client.post(f"/api/games/{state['id']}/quit", json={}).json()
    assert quit_state["outcome"] == "quit" and quit_state["moves"] == []
    refused = client.post(f"/api/games/{state['id']}/moves", json={"move": "rope", "decision": 1})
    assert refused.status_code == 409 and "over" in refused.json()["error"]
    text = (tmp_path / "replays" / quit_state["replay"]).read_text()
    opened = client.post("/api/replays", json={"text": text}).json()
    assert opened["end"] == "quit" and not opened["finished"]
    hidden = client.get(f"/api/replays/{opened['id']}/frames?seat=all")
    assert hidden.status_code == 403 and "finished games only" in hidden.json()["error"]
    lines = text.splitlines()
    damaged = [
        ("", "empty"),
        ("not json\n", "not JSON"),
        (json.dumps({"replay": 9}) + "\n", "not a replay header"),
        ("\n".join([lines[0], json.dumps({"seat": 0, "move": "play G13 r1c1"})]), ":2:"),
        ("\n".join([lines[0], json.dumps({"seat": 0, "move": "stop"})]), "illegal move"),
        ("\n".join([*lines, json.dumps({"end": "won"})]), "nothing may follow"),
    ]
    for content, message in damaged:
        reply = client.post("/api/replays", json={"text": content})
        assert reply.status_code == 400 and message in reply.json()["error"], (content, reply.json())
    for name in ("..%2F..%2Fetc%2Fpasswd", "nope.jsonl", ".hidden"):
        assert client.post(f"/api/replays/saved/{name}", json={}).status_code == 404
    assert client.get("/api/replays/nope/frames?seat=0").status_code == 404
    assert client.get("/api/options").status_code == 200  # still up


def test_a_lost_game_says_why_in_a_sentence() -> None:
    """Who could not act (E2), with how many cards, and how far the mountain got; three kinds."""
    from tranquility_env.rules import board, cards
    from tranquility_env.web.session import why_lost

    lost, seed = None, 0
    while lost is None:  # a game random play loses
        game, seed = Game.new({"players": 2}, seed), seed + 1
        while not game.is_over:
            game.apply(game.legal_moves()[0])
        lost = game if game.status == "lost" else None
    empty = board.N_SLOTS - lost.cards_on_mountain()
    sentence = why_lost(lost, ["person", "random"], 0)
    who = "You" if lost.current == 0 else "Seat 1 (random)"
    assert sentence.startswith(f"{who}, ") and "had no legal move (E2)" in sentence
    assert f"{empty} of the mountain's 44 slots were still empty" in sentence
    full = Game.from_dict(lost.to_dict())
    full.mountain[: board.N_SLOTS] = [cards.NAME.index("B5")] * board.N_SLOTS  # every slot an Ascent card, none green
    assert "the mountain was full, but no Summit could be played (E1)" in why_lost(full, ["a", "b"], 0)
    full.config = Game.new({"players": 2, "green_path": True}, 0).config
    assert "a module's goal for the Summit was not met (E1)" in why_lost(full, ["a", "b"], 0)
