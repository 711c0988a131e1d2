"""``tranquility serve``: the web app. A JSON API over ``TableSession`` and the replay viewer,
and one static page (``static/``) that draws the table and sends clicks.

Routes (every error is a 4xx whose JSON ``error`` says what is wrong; no game changes):

- ``GET /api/options``: the bots a page may seat, the checkpoints it may name, the defaults.
- ``POST /api/games``: a new game, ``{"players", "seat", "bots", "green_path", "panoramas", "goats"}``.
- ``GET /api/games/{id}?since=N``: the person's view, legal moves with costs, events after the Nth.
- ``POST /api/games/{id}/moves``: ``{"move": "play G7 r1c1", "decision": N}``.
- ``POST /api/games/{id}/pace`` (``{"pace": seconds}``) and ``POST /api/games/{id}/quit``.
- ``GET /api/replays``: the saved replays; ``POST /api/replays`` (a file's text) or
  ``POST /api/replays/saved/{name}`` opens one; ``GET /api/replays/{id}/frames?seat=S|all``.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import socket
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tranquility_env.bots import POLICY_KINDS, make_bot, resolve
from tranquility_env.replay import Replay, parse
from tranquility_env.rules.config import Config
from tranquility_env.web.session import MoveRefused, TableSession
from tranquility_env.web.viewer import frames

STATIC = Path(__file__).parent / "static"
BOT_NAMES = ("policy", "policy+search", "policy+own-search", "heuristic", "heuristic-no-search", "random")
MAX_GAMES = 64  # games kept at once; past that, the one left alone longest goes
MAX_REPLAYS = 64
MAX_BODY = 2_000_000  # bytes of a request body (a replay file is a few tens of KB)


class Refused(Exception):
    """A bad request: the status and the reason sent back."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def checkpoint_names(folder: Path | None) -> dict[str, Path]:
    """The bot checkpoints under ``folder`` by their name there (``p3/final``): the only paths a
    page may name."""
    if folder is None or not folder.is_dir():
        return {}
    return {
        str(path.parent.relative_to(folder)): path.parent
        for path in sorted(folder.rglob("bot.json"))
        if (path.parent / "policy.safetensors").is_file()
    }


def create_app(
    replays: Path, checkpoints: Path | None = None, players: int = 3, pace: float = 0.5, seed: int | None = None
) -> Starlette:
    """The app; ``replays`` receives every game played and is where saved replays are opened
    from, ``checkpoints`` the folder whose bots a page may seat besides the shipped ones. With a
    ``seed`` the games get the deals ``seed``, ``seed + 1``, ... and their bots seeds of their own
    (for demonstrations and tests: a game replays alike; a page never learns them), otherwise
    random ones."""
    dealt = itertools.count(seed) if seed is not None else None
    replays.mkdir(parents=True, exist_ok=True)
    games: OrderedDict[str, TableSession] = OrderedDict()
    opened: OrderedDict[str, Replay] = OrderedDict()
    named = checkpoint_names(checkpoints)

    def bot_spec(name: Any, config: Config) -> str:
        if name in BOT_NAMES:
            try:
                return resolve(name, config)
            except ValueError as err:
                raise Refused(400, str(err)) from None
        kind, _, rest = name.partition(":") if isinstance(name, str) else ("", "", "")
        if kind in POLICY_KINDS and rest in named:
            return f"{kind}:{named[rest]}"
        raise Refused(
            400,
            f"unknown bot {name!r}: one of {list(BOT_NAMES)}, or policy:NAME for a checkpoint of "
            f"{sorted(named) or 'none (start the server with --checkpoints DIR)'}",
        )

    def new_game(body: dict[str, Any]) -> TableSession:
        try:
            config = Config(
                players=body.get("players", players),
                green_path=body.get("green_path", False),
                panoramas=body.get("panoramas", 0),
                goats=body.get("goats", False),
            )
        except (ValueError, TypeError) as err:
            raise Refused(400, str(err)) from None
        seat = body.get("seat", 0)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < config.players:
            raise Refused(400, f"seat must be from 0 to {config.players - 1}, got {seat!r}")
        others = [s for s in range(config.players) if s != seat]
        names = body.get("bots", ["policy"] if config == Config(players=config.players) else ["heuristic"])
        names = [names] if isinstance(names, str) else names
        if (
            not isinstance(names, list)
            or len(names) not in (1, len(others))
            or not all(isinstance(n, str) for n in names)
        ):
            raise Refused(400, f"bots must name one bot for every seat or one for each of the {len(others)} others")
        names = names * len(others) if len(names) == 1 else names  # solo: no bot seat
        bots, seats = {}, ["person"] * config.players
        deal = next(dealt) if dealt else None
        for s, name in zip(others, names, strict=True):
            spec = bot_spec(name, config)
            try:  # a seeded app seeds its bots too, so that its games replay alike
                bots[s] = make_bot(spec, seed=None if deal is None else deal * 8 + s, table=config)
            except ValueError as err:
                raise Refused(400, str(err)) from None
            seats[s] = name
        while len(games) >= MAX_GAMES:  # the game left alone longest makes room (quit if it was going on)
            oldest = min(games, key=lambda k: games[k].touched)
            games.pop(oldest).quit()
        session = TableSession(config, seat, bots, seats, replays, pace=pace, seed=deal)
        games[session.id] = session
        return session

    def game_of(request: Request) -> TableSession:
        session = games.get(request.path_params["game"])
        if session is None:
            raise Refused(404, "no such game (it may have ended long ago, or the server restarted)")
        return session

    def keep(replay: Replay) -> str:
        key = uuid.uuid4().hex
        opened[key] = replay
        while len(opened) > MAX_REPLAYS:
            opened.popitem(last=False)
        return key

    def summary(key: str, replay: Replay) -> dict[str, Any]:
        return {
            "id": key,
            "players": replay.header["config"]["players"],
            "seats": replay.header.get("seats"),
            "human": replay.header.get("human"),
            "moves": len(replay.moves),
            "end": replay.end,
            "finished": replay.finished,
        }

    # ------------------------------------------------------------------ endpoints
    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def options(request: Request) -> dict[str, Any]:
        return {"bots": list(BOT_NAMES), "checkpoints": sorted(named), "players": players, "pace": pace}

    async def create(request: Request) -> dict[str, Any]:
        session = new_game(await body_of(request))
        return session.state()

    def show(request: Request) -> dict[str, Any]:
        since = request.query_params.get("since", "0")
        if not since.isdigit():
            raise Refused(400, f"since must be a count of events, got {since!r}")
        return game_of(request).state(int(since))

    async def move(request: Request) -> dict[str, Any]:
        session, body = game_of(request), await body_of(request)
        try:
            session.play(body.get("move"), body.get("decision"))
        except MoveRefused as err:
            raise Refused(err.status, str(err)) from None
        return session.state()

    async def set_pace(request: Request) -> dict[str, Any]:
        session, body = game_of(request), await body_of(request)
        value = body.get("pace")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 10:
            raise Refused(400, f"pace must be seconds from 0 to 10, got {value!r}")
        session.pace = float(value)
        return session.state()

    def quit_game(request: Request) -> dict[str, Any]:
        session = game_of(request)
        session.quit()
        return session.state()

    def saved(request: Request) -> dict[str, Any]:
        files = sorted(replays.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
        return {"replays": [p.name for p in files]}

    async def upload(request: Request) -> dict[str, Any]:
        text = (await read_body(request)).decode("utf-8", errors="replace")
        try:
            replay = parse(text, "the uploaded file")
        except ValueError as err:
            raise Refused(400, str(err)) from None
        return summary(keep(replay), replay)

    def open_saved(request: Request) -> dict[str, Any]:
        name = request.path_params["name"]
        path = replays / name
        if "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
            raise Refused(404, f"no saved replay {name!r}")
        try:
            replay = parse(path.read_text(), name)
        except ValueError as err:
            raise Refused(400, str(err)) from None
        return summary(keep(replay), replay)

    def replay_frames(request: Request) -> dict[str, Any]:
        replay = opened.get(request.path_params["replay"])
        if replay is None:
            raise Refused(404, "no such replay open (open it again)")
        seat_text = request.query_params.get("seat", "")
        seat = None if seat_text == "all" else int(seat_text) if seat_text.isdigit() else seat_text
        try:
            return {"frames": frames(replay, seat)}
        except PermissionError as err:
            raise Refused(403, str(err)) from None
        except ValueError as err:
            raise Refused(400, str(err)) from None

    def api(endpoint: Any) -> Any:
        """Wrap an endpoint: its dict as JSON, a ``Refused`` as its status and reason. Plain
        functions run on a worker thread, so that nothing they wait for holds up the server."""
        is_async = inspect.iscoroutinefunction(endpoint)

        async def handle(request: Request) -> JSONResponse:
            try:
                result = await endpoint(request) if is_async else await run_in_threadpool(endpoint, request)
            except Refused as err:
                return JSONResponse({"error": err.reason}, status_code=err.status)
            return JSONResponse(result)

        return handle

    routes = [
        Route("/", index),
        Route("/api/options", api(options)),
        Route("/api/games", api(create), methods=["POST"]),
        Route("/api/games/{game}", api(show)),
        Route("/api/games/{game}/moves", api(move), methods=["POST"]),
        Route("/api/games/{game}/pace", api(set_pace), methods=["POST"]),
        Route("/api/games/{game}/quit", api(quit_game), methods=["POST"]),
        Route("/api/replays", api(saved)),
        Route("/api/replays", api(upload), methods=["POST"]),
        Route("/api/replays/saved/{name}", api(open_saved), methods=["POST"]),
        Route("/api/replays/{replay}/frames", api(replay_frames)),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    app = Starlette(routes=routes)
    app.state.games = games  # the sessions, for tests that set a position on the server
    return app


async def read_body(request: Request) -> bytes:
    size = request.headers.get("content-length", "")
    if size.isdigit() and int(size) > MAX_BODY:
        raise Refused(413, f"the request is over {MAX_BODY} bytes")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise Refused(413, f"the request is over {MAX_BODY} bytes")
    return body


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object; ``Refused`` if it is not one."""
    try:
        body = json.loads(await read_body(request) or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise Refused(400, f"the request body is not JSON ({err})") from None
    if not isinstance(body, dict):
        raise Refused(400, "the request body must be a JSON object")
    return body


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tranquility serve", description="Play in the browser with the bots.")
    parser.add_argument("--players", type=int, default=3, help="the page's first choice of player count")
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: this machine only)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--checkpoints", type=Path, help="a folder whose bot checkpoints a page may seat")
    parser.add_argument("--replays", type=Path, default=Path("replays"), help="where games are saved (replays/)")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between bot moves, at first")
    parser.add_argument("--seed", type=int, help="deal the games from this seed on (default: random deals)")
    args = parser.parse_args(argv)
    if not 1 <= args.players <= 5:
        parser.error("--players must be from 1 to 5")
    if not 0 <= args.pace <= 10:
        parser.error("--pace must be from 0 to 10 seconds")
    if args.checkpoints is not None and not args.checkpoints.is_dir():
        parser.error(f"--checkpoints {args.checkpoints} is not a folder")
    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as err:
        parser.error(f"cannot serve on {args.host}:{args.port}: {err}")
    sock.listen(128)  # from here on the URL answers: requests wait until the server takes them
    host, port = sock.getsockname()[:2]
    app = create_app(args.replays, args.checkpoints, args.players, args.pace, args.seed)
    print(
        f"Tranquility: The Ascent is served on http://{'localhost' if host == '127.0.0.1' else host}:{port}/",
        flush=True,
    )
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
