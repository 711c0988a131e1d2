"""Colour symmetries: the relabellings of G, B and R that a config's rules leave unchanged.

The rules treat the three colours alike (P2, B3, C1 name "a colour", never a given one), so a
deal whose colours are relabelled, played with relabelled moves, is the relabelled game. Two
modules break this: Green Path singles out green (GP1), leaving only B <-> R, and with Mountain
Goats each number's goat copy has one fixed colour (S3), leaving none. A symmetry is written as
``sigma``, a tuple with ``sigma[c]`` the new colour of colour ``c`` (0 = G, 1 = B, 2 = R).

Other-Play and data augmentation use the symmetries through index arrays that *gather*: the
observation of the relabelled game is ``obs[observation_index(sigma)]``, its action mask is
``mask[action_index(sigma)]``, and a move chosen in the relabelled game is the move
``action_index(sigma)[choice]`` of the real one (``action_image`` goes the other way).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from tranquility_env import encoding
from tranquility_env.rules import actions, cards
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import EMPTY, Game

__all__ = [
    "IDENTITY",
    "action_image",
    "action_index",
    "colour_symmetries",
    "inverse",
    "kind_map",
    "observation_index",
    "permute_game",
    "rename_decisions",
    "state_index",
]

IDENTITY = (0, 1, 2)
_ALL = tuple(itertools.permutations(range(3)))
_K, _A = cards.N_KINDS, cards.N_ASCENT
# The blocks of ``encoding``'s layouts that hold a colour one-hot (G, B, R) in each row: the row's
# width (None: the whole block is one row) and where the one-hot starts in it.
_COLOUR_ONE_HOTS = {
    "mountain": (encoding.SLOT_FEATURES, 13),  # after empty and number 1..12
    "pending": (None, 17),  # after kind 4, cards owed and the moving card's number 1..12
    "open rows": (encoding.ROW_FEATURES, 15),  # after has-open, reference none/1..12 and colour none
}


def colour_symmetries(config: Config) -> tuple[tuple[int, int, int], ...]:
    """The symmetries of ``config``'s game, the identity first."""
    if config.goats:
        return (IDENTITY,)
    if config.green_path:
        return tuple(s for s in _ALL if s[0] == 0)
    return _ALL


def inverse(sigma: tuple[int, int, int]) -> tuple[int, int, int]:
    """The relabelling that undoes ``sigma``."""
    out = [0, 0, 0]
    for c, new in enumerate(sigma):
        out[new] = c
    return tuple(out)


@functools.cache
def kind_map(sigma: tuple[int, int, int]) -> np.ndarray:
    """``kind_map(sigma)[k]``: the card kind that kind ``k`` becomes. Goat copies keep their kind,
    as they may only where ``sigma`` is a symmetry (no goats module, so no goat copies)."""
    _check(sigma)
    out = np.arange(_K)
    for k in range(_A):
        if not cards.HAS_GOAT[k]:
            out[k] = cards.ascent(sigma[cards.COLOUR[k]], cards.NUMBER[k])
    for c, camp in enumerate(cards.CAMP):
        out[camp] = cards.CAMP[sigma[c]]
    out.flags.writeable = False
    return out


@functools.cache
def action_image(sigma: tuple[int, int, int]) -> np.ndarray:
    """For each action id of the real game, the action id it becomes in the relabelled one."""
    kinds, out = kind_map(sigma), np.arange(actions.N_ACTIONS)
    for a, (move, x, y) in enumerate(actions.DECODE):
        if move == actions.PLAY:
            out[a] = actions.play_id(kinds[x], y)
        elif move == actions.CAMP:
            out[a] = actions.camp_id(sigma[cards.COLOUR[x]], y)
        elif move == actions.DISCARD:
            out[a] = actions.DISCARD_ID[kinds[x]][kinds[y]]
        elif move == actions.PAY:
            out[a] = actions.FIRST[actions.PAY] + kinds[x]
    out.flags.writeable = False
    return out


@functools.cache
def action_index(sigma: tuple[int, int, int]) -> np.ndarray:
    """For each action id of the relabelled game, the action id of the real game it stands for."""
    out = np.argsort(action_image(sigma))
    out.flags.writeable = False
    return out


def permute_game(game: Game, sigma: tuple[int, int, int]) -> Game:
    """The game with every colour relabelled by ``sigma``; ``ValueError`` unless ``sigma`` is a
    symmetry of the game's config. Two pieces of bookkeeping follow the card names, not the rules:
    a discard puts its pair in canonical order (K1), and a rope's shuffle (K7) is seeded from the
    deck; played on, the two games may order a discard pile or a reshuffled deck differently."""
    if tuple(sigma) not in colour_symmetries(game.config):
        raise ValueError(
            f"{tuple(sigma)} is not a colour symmetry of this config; "
            f"its symmetries are {list(colour_symmetries(game.config))}"
        )
    kinds = kind_map(tuple(sigma)).tolist()

    def relabel(pile: list[int]) -> list[int]:
        return [kinds[k] if k != EMPTY else EMPTY for k in pile]

    fields = {
        "config": game.config,
        "mountain": relabel(game.mountain),
        "goats": game.goats[:],
        "hands": [sorted(relabel(hand)) for hand in game.hands],
        "decks": [relabel(deck) for deck in game.decks],
        "discards": [relabel(pile) for pile in game.discards],
        "removed": relabel(game.removed),
        "objectives": list(game.objectives),
        "achieved": list(game.achieved),
        "current": game.current,
        "status": game.status,
        "turn": game.turn,
        "pending": game.pending,
        "owed": game.owed,
        "moving_card": kinds[game.moving_card] if game.moving_card != EMPTY else EMPTY,
        "moving_from": game.moving_from,
        "herd_at": game.herd_at,
        "herd_steps": game.herd_steps,
    }
    return Game.from_fields(fields)


@functools.cache
def observation_index(sigma: tuple[int, int, int]) -> np.ndarray:
    """The observation of the relabelled game is ``observation[observation_index(sigma)]``."""
    return _layout_index(encoding.OBSERVATION_LAYOUT, sigma)


@functools.cache
def state_index(sigma: tuple[int, int, int]) -> np.ndarray:
    """The global state of the relabelled game is ``state[state_index(sigma)]``."""
    return _layout_index(encoding.STATE_LAYOUT, sigma)


def rename_decisions(
    config: Config, obs: np.ndarray, legal: np.ndarray, which: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Decisions (rows of observations and of action ids, padding below 0 kept) each seen under
    the symmetry ``colour_symmetries(config)[which[i]]``: the relabelled game's observation and
    the relabelled ids, each in its place, so a move chosen at a place of its row stays there.
    Data augmentation for imitation: a teacher that treats the colours alike would choose the
    relabelled move in the relabelled game."""
    symmetries = colour_symmetries(config)
    seen_at = np.stack([observation_index(s) for s in symmetries])[which]
    image = np.stack([action_image(s) for s in symmetries])[which[:, None], np.maximum(legal, 0)]
    return np.take_along_axis(obs, seen_at, 1), np.where(legal < 0, legal, image)


def _layout_index(layout: list, sigma: tuple[int, int, int]) -> np.ndarray:
    """A gather index over a vector of ``layout``: blocks indexed by card kind follow the kinds,
    one-hot colours follow the colours, everything else stays."""
    kinds, colours = kind_map(sigma), np.asarray(sigma)
    out, at = [], 0
    for name, size, _, _ in layout:
        block = np.arange(size)
        if name in ("hand", "discard", "unseen") or name.startswith("seat "):
            block[kinds] = np.arange(_K)
        elif name == "hand fit":
            block = block.reshape(_A, -1)
            block[kinds[:_A]] = np.arange(_A * block.shape[1]).reshape(_A, -1)
        elif name == "hand best fit":
            block[kinds[:_A]] = np.arange(_A)
        elif name in _COLOUR_ONE_HOTS:
            width, first = _COLOUR_ONE_HOTS[name]
            block = block.reshape(-1, width or size)
            block[:, first + colours] = block[:, first : first + 3].copy()
        out.append(block.ravel() + at)
        at += size
    index = np.concatenate(out)
    index.flags.writeable = False
    return index


def _check(sigma: tuple[int, int, int]) -> None:
    if tuple(sigma) not in _ALL:
        raise ValueError(f"a colour relabelling is a permutation of (0, 1, 2), got {sigma!r}")
