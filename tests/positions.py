"""Hand-built positions for rule tests: say what matters, the rest of the deck is filled in."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tranquility_env import Config, Game
from tranquility_env.rules import cards


def state(
    config: dict[str, Any] | None = None,
    mountain: dict[str, str] | None = None,
    hands: list[list[str]] | None = None,
    decks: list[list[str]] | None = None,
    goats: dict[str, int] | None = None,
    pending: dict[str, Any] | None = None,
    removed: list[str] | None = None,
    achieved: list[bool] | None = None,
    current: int = 0,
    status: str = "ongoing",
    turn: int = 0,
) -> dict[str, Any]:
    """A state dict (spec/state.md). Cards not named anywhere go to the last seat's discard pile,
    so that no deck holds a card the test did not ask for."""
    cfg = Config.coerce(config or {"players": 1})
    n = cfg.players
    hands = [sorted(h, key=_key(cfg)) for h in (hands or [[] for _ in range(n)])]
    decks = decks or [[] for _ in range(n)]
    mountain = mountain or {}
    removed = removed or []
    named = [*mountain.values(), *removed, *(c for h in hands for c in h), *(c for d in decks for c in d)]
    if pending and pending.get("kind") == "move":
        named.append(pending["card"])
    have = Counter(cards.parse_card(c, cfg.goats) for c in named)
    want = cards.game_deck(cfg.players, cfg.bridges, cfg.campfires_per_colour, cfg.ropes, cfg.goats)
    if have - want:
        raise AssertionError(f"test position names too many cards: {have - want}")
    rest = [cards.NAME[k] for k in sorted((want - have).elements())]
    panorama = None
    if cfg.panoramas:
        from tranquility_env.rules.tables import PANORAMA_SEQUENCES

        panorama = {
            "objectives": [list(s) for s in PANORAMA_SEQUENCES[: cfg.panoramas]],
            "achieved": achieved or [False] * cfg.panoramas,
        }
    return {
        "config": cfg.to_dict(),
        "mountain": mountain,
        "goats": goats or {},
        "players": [{"hand": hands[s], "deck": decks[s], "discard": rest if s == n - 1 else []} for s in range(n)],
        "removed": removed,
        "panorama": panorama,
        "current": current,
        "pending": pending,
        "status": status,
        "turn": turn,
    }


def game(**kwargs: Any) -> Game:
    return Game.from_dict(state(**kwargs))


def row(r: int, *names: str) -> dict[str, str]:
    """``row(1, "G1", "B2")`` -> ``{"r1c1": "G1", "r1c2": "B2"}``."""
    return {f"r{r}c{c}": name for c, name in enumerate(names, start=1)}


def _key(cfg: Config):  # canonical order (N1)
    return lambda name: cards.parse_card(name, cfg.goats)


def full_mountain(patterns: dict[int, str] | None = None, goats: bool = False) -> dict[str, str]:
    """44 legal cards (M2, M3, P1, P2). ``patterns[r]`` gives row r's colours left to right
    (default: G, B, R repeating, shifted by row). Numbers: the smallest copy left that the row
    allows, filled from row 8 down; with ``goats`` goat copies are taken first."""
    pool = Counter(cards.game_deck(2, 5, 1, 0, goats))
    out: dict[str, str] = {}
    for r in range(8, 0, -1):
        colours = (patterns or {}).get(r) or "".join("GBR"[(c + r) % 3] for c in range(10 - r))
        for c, letter in enumerate(colours, start=1):
            colour = "GBR".index(letter)
            options = [
                k for k in pool if pool[k] and k < cards.N_ASCENT and cards.COLOUR[k] == colour and cards.NUMBER[k] >= r
            ]
            k = min(options, key=lambda k: (cards.NUMBER[k], not cards.HAS_GOAT[k]))
            pool[k] -= 1
            out[f"r{r}c{c}"] = cards.NAME[k]
    return out
