"""The routes of games: the options a page may choose from, this browser's games, a new game, its
state, the person's moves, the bots' pace, leaving.

- ``GET /api/options``: the bots a page may seat, the checkpoints it may name, the defaults.
- ``GET /api/games``: this browser's games; ``POST /api/games``: a new one,
  ``{"seat", "bots", <any Config field: "players", "hand_size", "goats", ...>}``.
- ``GET /api/games/{id}?since=N``: the person's view, legal moves with costs, events after the Nth.
- ``POST /api/games/{id}/moves``: ``{"move": "play G7 r1c1", "decision": N}``.
- ``POST /api/games/{id}/pace`` (``{"pace": seconds}``) and ``POST /api/games/{id}/quit``.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from tranquility_env.bots import POLICY_KINDS, make_bot, resolve
from tranquility_env.rules.config import Config
from tranquility_env.web import limits
from tranquility_env.web.endpoints import api, owner_of
from tranquility_env.web.errors import Refused, shown
from tranquility_env.web.games import Games
from tranquility_env.web.replay_store import ReplayStore
from tranquility_env.web.session import MoveRefused, TableSession

__all__ = ["BOT_NAMES", "GameRoutes"]

# The bots a page may seat, in the order it offers them (the first is the default: the strongest
# learned bot whose moves stay quick enough for a person to wait on, docs/results.md), each with
# what a person reads: a name and a line of help.
BOTS = {
    "policy+expert": (
        "Learned, looks ahead every move",
        "The learned bot, trying its likeliest moves on sampled deals before each one: the strongest.",
    ),
    "policy": ("Learned (fast)", "The learned bot alone, no look-ahead: it answers at once."),
    "policy+search": (
        "Learned, hand-written end game",
        "The learned bot until the mountain is nearly full, then the hand-written strategy's look-ahead.",
    ),
    "policy+own-search": (
        "Learned, looks ahead in the end game",
        "The learned bot, trying its likeliest moves on sampled deals once the mountain is nearly full.",
    ),
    "heuristic": (
        "Hand-written, looks ahead in the end game",
        "The hand-written strategy, with its look-ahead once the mountain is nearly full.",
    ),
    "heuristic-no-search": ("Hand-written (fast)", "The hand-written strategy alone, no look-ahead."),
    "random": ("Random", "Any legal move, at random: for trying the rules."),
}
BOT_NAMES = tuple(BOTS)
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


class GameRoutes:
    """The game endpoints over ``games`` (who has which) and ``store`` (their replay files).
    ``table`` holds the fields a new game has unless its request says otherwise; with a ``seed``
    the games get the deals ``seed``, ``seed + 1``, ... and their bots seeds of their own."""

    def __init__(
        self,
        games: Games,
        store: ReplayStore,
        table: dict[str, Any],
        checkpoints: Path | None,
        pace: float,
        seed: int | None,
    ) -> None:
        Config.from_dict(table)  # a bad table fails here, not at the first game
        self.games, self.store, self.table, self.pace = games, store, table, pace
        self.named = checkpoint_names(checkpoints)
        self._dealt = itertools.count(seed) if seed is not None else None

    def routes(self) -> list[Route]:
        return [
            Route("/api/options", api(self.options)),
            Route("/api/games", api(self.mine)),
            Route("/api/games", api(self.create), methods=["POST"]),
            Route("/api/games/{game}", api(self.show)),
            Route("/api/games/{game}/moves", api(self.move), methods=["POST"]),
            Route("/api/games/{game}/pace", api(self.set_pace), methods=["POST"]),
            Route("/api/games/{game}/quit", api(self.quit), methods=["POST"]),
        ]

    # ------------------------------------------------------------------ endpoints
    def options(self, request: Request) -> dict[str, Any]:
        limits.query(request, ())
        return {
            "bots": list(BOT_NAMES),
            "bot_labels": {name: {"label": label, "help": help_} for name, (label, help_) in BOTS.items()},
            "checkpoints": sorted(self.named),
            "players": self.table["players"],
            "pace": self.pace,
            "config": Config.from_dict(self.table).to_dict(),
            "table": self.table,  # the fields the server sets; the form leaves the others at their defaults
            "schema": Config.schema(),
            "games_per_browser": self.games.per_owner,
        }

    def mine(self, request: Request) -> dict[str, Any]:
        limits.query(request, ())
        return {"games": [s.summary() for s in self.games.of(owner_of(request))]}

    async def create(self, request: Request) -> dict[str, Any]:
        body = await limits.json_body(request, NEW_GAME_KEYS)
        session = await run_in_threadpool(self._new_game, body, owner_of(request))
        return session.state()

    def show(self, request: Request) -> dict[str, Any]:
        since = limits.count(limits.query(request, ("since",)).get("since"), "since", 0, 10**6)
        return self._game_of(request).state(since)

    async def move(self, request: Request) -> dict[str, Any]:
        session, body = self._game_of(request), await limits.json_body(request, ("move", "decision"))
        try:
            session.play(body.get("move"), body.get("decision"))
        except MoveRefused as err:
            raise Refused(err.status, str(err)) from None
        return session.state()

    async def set_pace(self, request: Request) -> dict[str, Any]:
        session, body = self._game_of(request), await limits.json_body(request, ("pace",))
        value = body.get("pace")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 10:
            raise Refused(400, f"pace must be seconds from 0 to 10, got {shown(value)}")
        session.pace = float(value)
        return session.state()

    async def quit(self, request: Request) -> dict[str, Any]:
        session = self._game_of(request)
        await limits.json_body(request, ())
        session.quit()
        return session.state()

    # ------------------------------------------------------------------ helpers
    def _game_of(self, request: Request) -> TableSession:
        return self.games.get(request.path_params["game"], owner_of(request))

    def _new_game(self, body: dict[str, Any], owner: str) -> TableSession:
        fields = self.table | {k: body[k] for k in Config.fields() if k in body}
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
        names = body.get("bots", [BOT_NAMES[0]] if config == Config(players=config.players) else ["heuristic"])
        names = [names] if isinstance(names, str) else names
        if (
            not isinstance(names, list)
            or len(names) not in (1, len(others))
            or not all(isinstance(n, str) for n in names)
        ):
            raise Refused(400, f"bots must name one bot for every seat or one for each of the {len(others)} others")
        names = names * len(others) if len(names) == 1 else names  # solo: no bot seat
        specs = {s: self._bot_spec(name, config) for s, name in zip(others, names, strict=True)}
        seats = ["person"] * config.players
        for s, name in zip(others, names, strict=True):
            seats[s] = name

        def make() -> TableSession:
            deal = next(self._dealt) if self._dealt else None
            try:  # a seeded app seeds its bots too, so that its games replay alike
                bots = {
                    s: make_bot(spec, seed=None if deal is None else deal * 8 + s, table=config)
                    for s, spec in specs.items()
                }
            except ValueError as err:
                raise Refused(400, str(err)) from None
            return TableSession(config, seat, bots, seats, self.store.folder, pace=self.pace, seed=deal)

        session = self.games.start(owner, make)
        self.store.add_game(session, owner)
        return session

    def _bot_spec(self, name: Any, config: Config) -> str:
        if name in BOT_NAMES:
            try:
                return resolve(name, config)
            except ValueError as err:
                raise Refused(400, str(err)) from None
        kind, _, rest = name.partition(":") if isinstance(name, str) else ("", "", "")
        if kind in POLICY_KINDS and rest in self.named:
            return f"{kind}:{self.named[rest]}"
        raise Refused(
            400,
            f"unknown bot {shown(name)}: one of {list(BOT_NAMES)}, or policy:NAME for a checkpoint of "
            f"{sorted(self.named) or 'none (start the server with --checkpoints DIR)'}",
        )
