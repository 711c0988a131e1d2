"""`tranquility play` and `tranquility replay`, driven as a person would: in a pseudo-terminal."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")
pytest.importorskip("rich")

from tranquility_env import replay
from tranquility_env.replay import read

TRANQUILITY = str(Path(sys.executable).parent / "tranquility")
PROMPT = r"Your move \(number or text, q to quit\): "
ENV = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(TRANQUILITY, list(args), cwd=str(cwd), env=ENV, encoding="utf-8", timeout=60)


@pytest.mark.parametrize("bots", ["policy", "heuristic,random"])
def test_a_whole_game_in_a_terminal_with_bad_input_on_the_way(tmp_path: Path, bots: str) -> None:
    child = spawn(
        "play",
        "--players",
        "3",
        "--seat",
        "1",
        "--bots",
        bots,
        "--seed",
        "11",
        "--delay",
        "0",
        "--no-color",
        cwd=tmp_path,
    )
    bad = ["", "banana", "999", "0", "play G13 r1c1", "play G12 r8c1"]
    decisions = 0
    while True:
        index = child.expect([PROMPT, r"The team (WON|lost) after (\d+) turns"])
        if index == 1:
            outcome = "won" if child.match.group(1) == "WON" else "lost"
            break
        decisions += 1
        if bad:
            answer = bad.pop(0)
            child.sendline(answer)
            child.expect(r"(not a listed number|Type the number|malformed move|illegal move)")
            child.sendline("1")
        elif decisions == 3:
            child.sendline("q")
            child.expect(r"Really quit this game\? \(y/n\): ")
            child.sendline("n")  # changes nothing: the same question comes again
            child.expect(PROMPT)
            child.sendline("1")
        else:
            child.sendline("1")
    child.expect(r"Replay saved: (\S+)")
    path = tmp_path / child.match.group(1)
    child.expect(pexpect.EOF)
    transcript = child.before or ""
    assert decisions > 5

    # The replay reproduces the game, and the screen never showed a bot's discards.
    played = read(path)
    header, end = played.header, played.end
    assert end == outcome and header["human"] == 1 and header["seed"] == 11
    game = replay.load_game(path)
    assert game.status == outcome
    assert not re.search(r"seat [02] \(\w+\): (discard|pay) ", transcript)

    viewer = spawn("replay", str(path), "--delay", "0", "--no-color", cwd=tmp_path)
    viewer.expect(rf"end of the replay: {outcome}")
    viewer.expect(pexpect.EOF)


def test_quit_asks_first_and_saves_the_replay(tmp_path: Path) -> None:
    child = spawn("play", "--players", "2", "--bots", "heuristic", "--seed", "3", "--delay", "0", cwd=tmp_path)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"Really quit")
    child.sendline("y")
    child.expect(r"Replay saved: (\S+)")
    played = read(tmp_path / child.match.group(1))
    moves, end = played.moves, played.end
    assert end == "quit" and moves == []


def test_bad_command_lines_are_refused_clearly(tmp_path: Path) -> None:
    for args, message in (
        (["--seat", "5"], "--seat must be"),
        (["--bots", "a,b,c,d"], "names 4 bots"),
        (["--bots", "wizard"], "unknown bot"),
        (["--goats"], "base game"),
    ):
        child = spawn("play", *args, cwd=tmp_path)
        child.expect(message)
        child.expect(pexpect.EOF)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"replay": 1, "config": {"players": 2}, "seed": 1}) + "\n" + '{"seat": 0, "move": "fly"}\n'
    )
    child = spawn("replay", str(bad), cwd=tmp_path)
    child.expect("malformed move 'fly'")
    child.expect(pexpect.EOF)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_policy_seats_the_strongest_shipped_bot_of_the_player_count(players: int) -> None:
    from tranquility_env import Config
    from tranquility_env.bots import PolicyBot, shipped_bot
    from tranquility_env.play import seat_bots

    strongest = {2: "p2_other_play", 3: "p3_other_play", 4: "p4_other_play", 5: "p5_other_play"}[players]
    bots, names = seat_bots(["policy"], Config(players=players), human=0, seed=1)
    assert names[0] == "human" and all(n.endswith(f"checkpoints/shipped/{strongest}/final") for n in names[1:])
    assert all(isinstance(b, PolicyBot) and b.config.players == players for b in bots.values())
    with pytest.raises(ValueError, match="base game"):
        seat_bots(["policy"], Config(players=players, goats=True), human=0, seed=1)
    for searching in ("policy+search", "policy+own-search"):
        bots, names = seat_bots([searching], Config(players=players), human=0, seed=1)
        assert all(n == f"{searching}:{shipped_bot(players)}" for n in names[1:])
        assert all(b.own_search == (searching == "policy+own-search") for b in bots.values())
