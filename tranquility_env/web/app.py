"""``tranquility serve``: the web app. A JSON API over ``TableSession`` and the replay viewer,
and one static page (``static/``) that draws the table and sends clicks.

Routes (every error is a 4xx whose JSON ``error`` says what is wrong; nothing changes). A game or
replay is its browser's alone (``owners.py``); every request first passes ``guard.py``, and
``limits.py`` bounds what one may cost.

- ``GET /api/options``: the bots a page may seat, the checkpoints it may name, the defaults.
- ``GET /api/games``: this browser's games; ``POST /api/games``: a new one,
  ``{"seat", "bots", <any Config field: "players", "hand_size", "goats", ...>}``.
- ``GET /api/games/{id}?since=N``: the person's view, legal moves with costs, events after the Nth.
- ``POST /api/games/{id}/moves``: ``{"move": "play G7 r1c1", "decision": N}``.
- ``POST /api/games/{id}/pace`` (``{"pace": seconds}``) and ``POST /api/games/{id}/quit``.
- ``GET /api/replays?page=N``: what this browser may open; ``POST /api/replays``
  (``{"text": a replay file's text}``) or ``POST /api/replays/saved/{name}`` opens one;
  ``GET /api/replays/{id}/frames?seat=S|all``.
"""

from __future__ import annotations

import argparse
import inspect
import ipaddress
import itertools
import json
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tranquility_env.bots import POLICY_KINDS, make_bot, resolve
from tranquility_env.rules.config import Config
from tranquility_env.table_args import add_table_arguments, table_fields
from tranquility_env.web import limits
from tranquility_env.web.errors import Refused, shown
from tranquility_env.web.games import CAP, IDLE, PER_OWNER, Games
from tranquility_env.web.guard import Guard
from tranquility_env.web.owners import Tokens
from tranquility_env.web.replay_store import MAX_FILES, ReplayStore
from tranquility_env.web.session import MoveRefused, TableSession

STATIC = Path(__file__).parent / "static"
BOT_NAMES = ("policy", "policy+search", "policy+own-search", "heuristic", "heuristic-no-search", "random")
NEW_GAME_KEYS = ("seat", "bots", *Config.fields())


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
    replays: Path,
    checkpoints: Path | None = None,
    table: dict[str, Any] | None = None,
    pace: float = 0.5,
    seed: int | None = None,
    *,
    allowed_hosts: Sequence[str] = (),
    share_folder: bool = False,
    max_replays: int = MAX_FILES,
    games_per_browser: int = PER_OWNER,
    max_games: int = CAP,
    idle_minutes: float = IDLE / 60,
) -> Guard:
    """The app; ``table`` holds the game fields a new game has unless its request says otherwise
    (``players`` is the page's first choice; checked by ``Config.from_dict``). ``replays``
    receives every game played (at most ``max_replays`` of the server's files are kept) and, with
    ``share_folder``, its other files are listed to every browser.
    ``checkpoints`` is the folder whose bots a page may seat besides the shipped ones. Requests
    must name this machine or one of ``allowed_hosts``. With a ``seed`` the games get the deals
    ``seed``, ``seed + 1``, ... and their bots seeds of their own (for demonstrations and tests: a
    game replays alike; a page never learns them), otherwise random ones."""
    table = {"players": 3, **(table or {})}
    Config.from_dict(table)  # a bad table fails here, not at the first game
    dealt = itertools.count(seed) if seed is not None else None
    store = ReplayStore(replays, max_replays, share_folder)
    games = Games(games_per_browser, max_games, idle_minutes * 60)
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
            f"unknown bot {shown(name)}: one of {list(BOT_NAMES)}, or policy:NAME for a checkpoint of "
            f"{sorted(named) or 'none (start the server with --checkpoints DIR)'}",
        )

    def new_game(body: dict[str, Any], owner: str) -> TableSession:
        fields = table | {k: body[k] for k in Config.fields() if k in body}
        for key, value in fields.items():
            if not isinstance(value, (bool, int)) and value is not None:
                raise Refused(400, f"{key} must be a whole number or true/false, got {shown(value)}")
        try:
            config = Config.from_dict(fields)
        except (ValueError, TypeError) as err:
            raise Refused(400, str(err)) from None
        seat = body.get("seat", 0)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < config.players:
            raise Refused(400, f"seat must be from 0 to {config.players - 1}, got {shown(seat)}")
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
        specs = {s: bot_spec(name, config) for s, name in zip(others, names, strict=True)}
        seats = ["person"] * config.players
        for s, name in zip(others, names, strict=True):
            seats[s] = name

        def make() -> TableSession:
            deal = next(dealt) if dealt else None
            try:  # a seeded app seeds its bots too, so that its games replay alike
                bots = {
                    s: make_bot(spec, seed=None if deal is None else deal * 8 + s, table=config)
                    for s, spec in specs.items()
                }
            except ValueError as err:
                raise Refused(400, str(err)) from None
            return TableSession(config, seat, bots, seats, replays, pace=pace, seed=deal)

        session = games.start(owner, make)
        store.add_game(session, owner)
        return session

    # ------------------------------------------------------------------ endpoints
    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def options(request: Request) -> dict[str, Any]:
        limits.query(request, ())
        return {
            "bots": list(BOT_NAMES),
            "checkpoints": sorted(named),
            "players": table["players"],
            "pace": pace,
            "config": Config.from_dict(table).to_dict(),
            "games_per_browser": games.per_owner,
        }

    def my_games(request: Request) -> dict[str, Any]:
        limits.query(request, ())
        return {"games": [s.summary() for s in games.of(owner_of(request))]}

    async def create(request: Request) -> dict[str, Any]:
        body = await limits.json_body(request, NEW_GAME_KEYS)
        session = await run_in_threadpool(new_game, body, owner_of(request))
        return session.state()

    def show(request: Request) -> dict[str, Any]:
        since = limits.count(limits.query(request, ("since",)).get("since"), "since", 0, 10**6)
        return game_of(request).state(since)

    async def move(request: Request) -> dict[str, Any]:
        session, body = game_of(request), await limits.json_body(request, ("move", "decision"))
        try:
            session.play(body.get("move"), body.get("decision"))
        except MoveRefused as err:
            raise Refused(err.status, str(err)) from None
        return session.state()

    async def set_pace(request: Request) -> dict[str, Any]:
        session, body = game_of(request), await limits.json_body(request, ("pace",))
        value = body.get("pace")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 10:
            raise Refused(400, f"pace must be seconds from 0 to 10, got {shown(value)}")
        session.pace = float(value)
        return session.state()

    async def quit_game(request: Request) -> dict[str, Any]:
        session = game_of(request)
        await limits.json_body(request, ())
        session.quit()
        return session.state()

    def saved(request: Request) -> dict[str, Any]:
        page = limits.count(limits.query(request, ("page",)).get("page"), "page", 1, 10**6)
        return store.listing(owner_of(request), max(page, 1))

    async def upload(request: Request) -> dict[str, Any]:
        body = await limits.read_body(request, limits.MAX_UPLOAD)
        return await run_in_threadpool(open_upload, body, owner_of(request))

    def open_upload(body: bytes, owner: str) -> dict[str, Any]:
        text = limits.parse_object(body, ("text",)).get("text")
        if not isinstance(text, str):
            raise Refused(400, 'an upload is {"text": the replay file\'s text}')
        return store.upload(text, owner)

    async def open_saved(request: Request) -> dict[str, Any]:
        await limits.json_body(request, ())
        return await run_in_threadpool(store.open_saved, request.path_params["name"], owner_of(request))

    def replay_frames(request: Request) -> dict[str, Any]:
        text = limits.query(request, ("seat",)).get("seat", "")
        seat = None if text == "all" else limits.count(text, "seat", 0, 4)
        return {"frames": store.frames(request.path_params["replay"], owner_of(request), seat)}

    def game_of(request: Request) -> TableSession:
        return games.get(request.path_params["game"], owner_of(request))

    routes = [
        Route("/", index),
        Route("/api/options", api(options)),
        Route("/api/games", api(my_games)),
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
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.games = games.sessions  # the sessions, for tests that set a position on the server
    app.state.store = store
    guarded = Guard(app, allowed_hosts, Tokens())
    guarded.state = app.state
    return guarded


def owner_of(request: Request) -> str:
    """The browser the request comes from (``guard.Guard`` sets it)."""
    return request.state.owner


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


class AsciiJSON(JSONResponse):
    """JSON with every non-ASCII character escaped: whatever text a value holds, it is written out."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (no such route, a method a route does not take) as JSON too."""
    status = getattr(exc, "status_code", 400)
    reason = {404: f"no such page {shown(request.url.path)}", 405: f"{request.method} is not taken here"}
    return AsciiJSON({"error": reason.get(status, str(getattr(exc, "detail", "bad request")))}, status_code=status)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only: ``localhost`` or a loopback address (a name that
    merely looks like one, such as ``127.0.0.1.example.net``, is not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tranquility serve", description="Play in the browser with the bots.")
    add_table_arguments(parser)  # --players: the page's first choice; --set KEY=VALUE: every new game's
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (default: this machine only)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides localhost and its address (repeatable; "
        "needed with a --host other than this machine's)",
    )
    parser.add_argument("--checkpoints", type=Path, help="a folder whose bot checkpoints a page may seat")
    parser.add_argument("--replays", type=Path, default=Path("replays"), help="where games are saved (replays/)")
    parser.add_argument(
        "--share-replays",
        action="store_true",
        help="list the other replay files of --replays (tranquility play, evaluate, earlier servers) to every browser",
    )
    parser.add_argument("--max-replays", type=int, default=MAX_FILES, help="the server's replay files kept (oldest go)")
    parser.add_argument("--max-games", type=int, default=CAP, help="games going at once on the server")
    parser.add_argument("--games-per-browser", type=int, default=PER_OWNER, help="games going at once per browser")
    parser.add_argument("--idle-minutes", type=float, default=IDLE / 60, help="a game left alone this long ends")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between bot moves, at first")
    parser.add_argument("--seed", type=int, help="deal the games from this seed on (default: random deals)")
    args = parser.parse_args(argv)
    try:
        table = table_fields(args)
        Config.from_dict(table)
    except ValueError as err:
        parser.error(str(err))
    if not 0 <= args.pace <= 10:
        parser.error("--pace must be from 0 to 10 seconds")
    for flag in ("max_replays", "max_games", "games_per_browser"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag.replace('_', '-')} must be at least 1")
    if args.idle_minutes <= 0:
        parser.error("--idle-minutes must be above 0")
    if args.checkpoints is not None and not args.checkpoints.is_dir():
        parser.error(f"--checkpoints {args.checkpoints} is not a folder")
    loopback = is_loopback(args.host)
    if not loopback and not args.allowed_host:
        parser.error(
            f"--host {args.host} serves other machines: name the host names they will use with --allowed-host NAME"
        )
    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as err:
        parser.error(f"cannot serve on {args.host}:{args.port}: {err}")
    sock.listen(128)  # from here on the URL answers: requests wait until the server takes them
    host, port = sock.getsockname()[:2]
    hosts = [*args.allowed_host, *([] if args.host in ("0.0.0.0", "::") else [args.host])]
    app = create_app(
        args.replays,
        args.checkpoints,
        table,
        args.pace,
        args.seed,
        allowed_hosts=hosts,
        share_folder=args.share_replays,
        max_replays=args.max_replays,
        games_per_browser=args.games_per_browser,
        max_games=args.max_games,
        idle_minutes=args.idle_minutes,
    )
    if not loopback:
        print(
            f"warning: serving on {args.host}: anyone who can reach port {port} as {', '.join(args.allowed_host)} "
            f"can start games with the bots and upload replays; their games stay their own. This is a table for "
            f"people you trust, not an internet service (docs/play.md).",
            flush=True,
        )
    print(
        f"Tranquility: The Ascent is served on http://{'localhost' if host == '127.0.0.1' else host}:{port}/",
        flush=True,
    )
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
