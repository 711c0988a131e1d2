"""The readable view: what one seat may know (RULES.md T5), as plain JSON-ready data.

It has the shape of ``Game.to_dict()`` (``shared/spec/state.md``) with the hidden parts replaced
by their public sizes: other seats' hands and discard piles, and every deck. Bots get it beside
the observation vector; the terminal renderer draws it.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from tranquility_env.rules import cards
from tranquility_env.rules.game import Game
from tranquility_env.rules.mountain import EMPTY

__all__ = [
    "LazySeatView",
    "sample_game",
    "sample_hidden",
    "seat_view",
    "unseen_cards",
    "unseen_counts",
    "unseen_in_game",
    "unseen_pool",
]


def seat_view(game: Game, seat: int) -> dict[str, Any]:
    """The table as ``seat`` sees it; ``legal_moves`` only when it is that seat's decision."""
    if not 0 <= seat < game.config.players:
        raise ValueError(f"seat must be from 0 to {game.config.players - 1}, got {seat!r}")
    full = game.to_dict()
    players = []
    for s, p in enumerate(full["players"]):
        entry = {"hand_size": len(p["hand"]), "deck_size": len(p["deck"]), "discard_size": len(p["discard"])}
        if s == seat:
            entry |= {"hand": p["hand"], "discard": p["discard"]}
        players.append(entry)
    view = {key: value for key, value in full.items() if key != "players"}
    view["players"] = players
    view["seat"] = seat
    view["legal_moves"] = game.legal_moves() if seat == game.current and game.status == "ongoing" else []
    return view


class LazySeatView(Mapping[str, Any]):
    """``seat_view(game, seat)``, built on first access: most bots never read it, and building it
    costs more than a decision. Valid while the bot decides (the game moves on afterwards)."""

    def __init__(self, game: Game, seat: int) -> None:
        self._game, self._seat, self._view = game, seat, None

    def whole_game(self) -> Game:
        """The game itself, every hidden card included: for the omniscient bot alone, which
        cheats by design and is labelled so wherever it appears (``bots.omniscient``)."""
        return self._game

    def _data(self) -> dict[str, Any]:
        if self._view is None:
            self._view = seat_view(self._game, self._seat)
        return self._view

    def __getitem__(self, key: str) -> Any:
        return self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())


def unseen_cards(view: Mapping[str, Any]) -> Counter[int]:
    """The cards (kind ids) the seat of ``view`` cannot see: the game's deck less the mountain, its
    hand, its own discards, the removed cards and a card waiting to be moved. Other seats' hands
    and discard piles and every deck are drawn from these."""
    return Counter({kind: int(n) for kind, n in enumerate(unseen_counts(view)) if n})


def unseen_counts(view: Mapping[str, Any]) -> np.ndarray:
    """``unseen_cards(view)`` as counts per kind id."""
    config, goats = view["config"], view["config"]["goats"]
    me = view["players"][view["seat"]]
    seen = [*view["mountain"].values(), *me["hand"], *me["discard"], *view["removed"]]
    if view["pending"] and view["pending"].get("kind") == "move":
        seen.append(view["pending"]["card"])
    deck = (config["players"], config["bridges"], config["campfires_per_colour"], config["ropes"], goats)
    return _deck_counts(*deck) - np.bincount([cards.parse_card(name, goats) for name in seen], minlength=cards.N_KINDS)


def unseen_in_game(game: Game, seat: int) -> np.ndarray:
    """``unseen_counts(seat_view(game, seat))``, read straight from the game: for bots that
    search, which decide in many sampled games, where building views would cost more than
    deciding."""
    c = game.config
    seen = [k for k in game.mountain if k != EMPTY] + game.hands[seat] + game.discards[seat] + game.removed
    if game.moving_card != EMPTY:
        seen.append(game.moving_card)
    deck = (c.players, c.bridges, c.campfires_per_colour, c.ropes, c.goats)
    return _deck_counts(*deck) - np.bincount(seen, minlength=cards.N_KINDS)


@functools.lru_cache(maxsize=64)
def _deck_counts(*deck: Any) -> np.ndarray:
    """``cards.game_deck`` as counts per kind id, cached: bots ask at every decision."""
    counts = np.zeros(cards.N_KINDS, dtype=np.int64)
    for kind, n in cards.game_deck(*deck).items():
        counts[kind] = n
    counts.flags.writeable = False  # shared by every caller
    return counts


def unseen_pool(view: Mapping[str, Any]) -> list[int]:
    """``unseen_cards(view)`` as a sorted list of kind ids: what ``sample_hidden`` deals from."""
    return [k for k, n in sorted(unseen_cards(view).items()) for _ in range(n)]


def sample_hidden(view: Mapping[str, Any], rng: random.Random, pool: list[int]) -> list[tuple[list[int], ...]]:
    """One random deal of the cards the seat of ``view`` cannot see (``pool``, from
    ``unseen_pool``): for every other seat its (hand, discard pile, deck), for the seat itself
    (None, None, deck), as kind ids at their public sizes; hands sorted (N1), a deck's top last."""
    pool = list(pool)
    rng.shuffle(pool)
    out = []
    for s, p in enumerate(view["players"]):
        hand = discard = None
        if s != view["seat"]:
            hand = sorted(pool.pop() for _ in range(p["hand_size"]))
            discard = [pool.pop() for _ in range(p["discard_size"])]
        deck = [pool.pop() for _ in range(p["deck_size"])]  # top card first, as a state lists it
        out.append((hand, discard, deck[::-1]))
    return out


def sample_game(view: Mapping[str, Any], rng: random.Random) -> Game:
    """A whole game that agrees with everything the seat of ``view`` sees: the unseen cards dealt
    at random (``sample_hidden``) to the other seats' hands and discard piles and to every deck
    (a determinization, for bots that search)."""
    players = []
    for p, (hand, discard, deck) in zip(view["players"], sample_hidden(view, rng, unseen_pool(view)), strict=True):
        players.append(
            {
                "hand": p["hand"] if hand is None else [cards.NAME[k] for k in hand],
                "deck": [cards.NAME[k] for k in reversed(deck)],
                "discard": p["discard"] if discard is None else [cards.NAME[k] for k in discard],
            }
        )
    data = {key: value for key, value in view.items() if key not in ("players", "seat", "legal_moves")}
    return Game.from_dict(data | {"players": players})
