"""``tranquility serve``: the web app's factory and command. A JSON API over ``TableSession`` and
the replay viewer (``game_routes.py``, ``replay_routes.py``), and one static page (``static/``)
that draws the table and sends clicks.

Every error is a 4xx whose JSON ``error`` says what is wrong, and nothing changes. A game or
replay is its browser's alone (``owners.py``); every request first passes ``guard.py``, and
``limits.py`` bounds what one may cost.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tranquility_env.rules.config import Config
from tranquility_env.table_args import add_table_arguments, table_fields
from tranquility_env.web.endpoints import http_error
from tranquility_env.web.game_routes import GameRoutes
from tranquility_env.web.games import CAP, IDLE, PER_OWNER, Games
from tranquility_env.web.guard import Guard
from tranquility_env.web.owners import Tokens
from tranquility_env.web.replay_routes import ReplayRoutes
from tranquility_env.web.replay_store import MAX_FILES, ReplayStore

__all__ = ["create_app", "is_loopback", "main"]

STATIC = Path(__file__).parent / "static"


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
    ``share_folder``, its other files are listed to every browser. ``checkpoints`` is the folder
    whose bots a page may seat besides the shipped ones. Requests must name this machine or one of
    ``allowed_hosts``. With a ``seed`` the games get the deals ``seed``, ``seed + 1``, ... and
    their bots seeds of their own (for demonstrations and tests: a game replays alike; a page
    never learns them), otherwise random ones."""
    store = ReplayStore(replays, max_replays, share_folder)
    games = Games(games_per_browser, max_games, idle_minutes * 60)
    table = {"players": 3, **(table or {})}
    routes = [
        Route("/", index),
        *GameRoutes(games, store, table, checkpoints, pace, seed).routes(),
        *ReplayRoutes(store).routes(),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.games = games.sessions  # the sessions, for tests that set a position on the server
    app.state.store = store
    guarded = Guard(app, allowed_hosts, Tokens())
    guarded.state = app.state
    return guarded


def index(request: Request) -> FileResponse:
    return FileResponse(STATIC / "index.html")


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
