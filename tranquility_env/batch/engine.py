"""``GameBatch``: many games of one config, held as arrays and stepped together by compiled code.

``Game`` stays the readable reference; a batch plays exactly its rules (the same legal ids in the
same order, the same next states), with conversions both ways (``load`` a ``Game`` into a slot,
``game(i)`` a slot out as a ``Game``) and the vector view written for every game at once into
preallocated arrays, equal byte for byte to ``encoding``'s.

Games are dealt by ``Game.new`` (Python's ``random``) and loaded into their slots, and a rope's
shuffle (K7 hashes the state) is finished in Python too: both are rare next to decisions.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from tranquility_env import encoding
from tranquility_env.batch import deal, encode, rules
from tranquility_env.batch import layout as L
from tranquility_env.rules import actions, cards
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game, IllegalMove, rope_shuffle
from tranquility_env.rules.tables import PANORAMA_SEQUENCES
from tranquility_env.views import unseen_in_game

__all__ = ["GameBatch", "check_actions", "finish_rope", "max_threads", "refusal", "write_cards"]

K = cards.N_KINDS


def max_threads() -> int:
    """The most threads a batch may use (numba's pool: the machine's cores unless
    ``NUMBA_NUM_THREADS`` says otherwise)."""
    return numba.config.NUMBA_NUM_THREADS


class GameBatch:
    """``num_games`` games of one ``config``; slot ``i`` is dealt with ``reset(i, seed)`` or set
    with ``load(i, game)``. ``threads`` (default: all) is how many cores the batched calls use."""

    def __init__(self, config: Config | dict[str, Any] | None = None, num_games: int = 1, threads: int | None = None):
        self.config = Config.coerce(config)
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        most = max_threads()
        if threads is None:
            threads = most
        if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
            raise ValueError(f"threads must be an integer from 1 to {most} (this machine's cores), got {threads!r}")
        self.num_games, self.threads = num_games, threads
        canonical = self.config.canonical()  # observed as encoding.observation observes it
        self.cfg = np.array([int(getattr(canonical, f)) for f in L.CONFIG_FIELDS], dtype=np.int64)
        # unseen_in_game of an empty table: every card of the game
        self.deck_counts = unseen_in_game(Game(self.config), 0).astype(np.int64)
        self.rows = np.zeros((num_games, L.ROW_SIZE), dtype=np.int16)
        self.rows[:, L.STATUS] = L.LOST  # no game until a slot is dealt or loaded
        self.pool = deal.pool_of(self.config)

    # ------------------------------------------------------------------ slots
    def _slot(self, i: int) -> int:
        try:
            i = operator.index(i)
        except TypeError:
            raise ValueError(f"a slot must be an integer from 0 to {self.num_games - 1}, got {i!r}") from None
        if not 0 <= i < self.num_games:
            raise ValueError(f"slot {i} is not in the batch (0 to {self.num_games - 1})")
        return i

    def reset(self, i: int, seed: int) -> None:
        """Deal slot ``i`` as ``Game.new(config, seed)``."""
        self.reset_many(np.array([self._slot(i)]), [seed])

    def reset_many(self, slots: Any, seeds: Any) -> None:
        """Deal each of ``slots`` as ``Game.new(config, seed)`` with its seed, in compiled code
        where this Python's ``random`` is the one ``deal.py`` repeats."""
        slots = np.array([self._slot(i) for i in np.asarray(slots).reshape(-1)], dtype=np.int64)
        seeds = [_seed(s) for s in (seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds))]
        if len(seeds) != len(slots):
            raise ValueError(f"{len(slots)} slots but {len(seeds)} seeds")
        if self.deals_compiled and all(abs(s) <= deal.MAX_SEED for s in seeds):
            numba.set_num_threads(self.threads)
            _deal_all(self.rows, self.cfg, self.pool, slots, np.array(seeds, dtype=np.int64))
        else:
            for i, seed in zip(slots, seeds, strict=True):
                self.rows[i] = to_row(Game.new(self.config, seed), self.cfg)

    @functools.cached_property
    def deals_compiled(self) -> bool:
        """Whether compiled deals equal ``Game.new`` here (checked on a few seeds, once)."""
        row, mt = np.zeros(L.ROW_SIZE, dtype=np.int16), deal.new_mt()
        for seed in (0, 1, 2**40 + 3):
            deal.deal(row, self.cfg, self.pool, seed, mt)
            game = Game.new(self.config, seed)
            legal = row[L.LEGAL : L.LEGAL + row[L.N_LEGAL]].tolist()
            if from_row(row, self.config).to_dict() != game.to_dict() or legal != game.legal_actions():
                return False
        return True

    def load(self, i: int, game: Game) -> None:
        """Put a copy of ``game`` (of this batch's config) into slot ``i``."""
        i = self._slot(i)
        if not isinstance(game, Game):
            raise ValueError(f"load takes a Game, got {type(game).__name__}")
        if game.config.to_dict() != self.config.to_dict():  # the state keeps every field
            raise ValueError(f"the game's config {game.config.to_dict()} is not the batch's {self.config.to_dict()}")
        self.rows[i] = to_row(game, self.cfg)

    def game(self, i: int) -> Game:
        """Slot ``i`` as a new ``Game``."""
        return from_row(self.rows[self._slot(i)], self.config)

    def legal_actions(self, i: int) -> np.ndarray:
        """Slot ``i``'s legal action ids, ascending (empty when its game is over)."""
        row = self.rows[self._slot(i)]
        return row[L.LEGAL : L.LEGAL + row[L.N_LEGAL]].astype(np.int64)

    def legal_ids(self, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every game's legal action ids, ascending, in the rows of an int64 ``(num_games,
        MAX_LEGAL)`` array padded with 0 (written into ``out`` when given), and their counts."""
        out = self._out(out, L.MAX_LEGAL, np.int64)
        return out, _legal_ids(self.rows, out)

    @property
    def current(self) -> np.ndarray:
        """The seat to act in each game."""
        return self.rows[:, L.CURRENT].astype(np.int64)

    @property
    def status(self) -> np.ndarray:
        """Each game's status: ``layout.ONGOING``, ``WON`` or ``LOST``."""
        return self.rows[:, L.STATUS].astype(np.int64)

    @property
    def turn(self) -> np.ndarray:
        return self.rows[:, L.TURN].astype(np.int64)

    def cards_on_mountain(self) -> np.ndarray:
        return _cards_on_mountain(self.rows)

    # ------------------------------------------------------------------ moves
    def check(self, actions_: Any, where: np.ndarray | None = None) -> np.ndarray:
        """The actions as an int64 array, checked: ``IllegalMove`` naming the first slot whose
        action is not an integer id or not legal there, with ``Game``'s reason."""
        return check_actions(self, actions_, self._where(where))

    def legal(self, ids: np.ndarray) -> np.ndarray:
        """Whether each game's action (int64 ids, any value) is legal there now."""
        return _legal_flags(self.rows, np.asarray(ids, dtype=np.int64))

    def why_illegal(self, i: int, action: int) -> str:
        """What ``Game`` says of ``action`` in slot ``i``: the move and the rule it breaks."""
        return refusal(self.game(i), action)

    def step(self, actions_: Any, where: np.ndarray | None = None) -> None:
        """Make one move in every game (or those ``where`` is true). All are checked first: on an
        illegal one ``IllegalMove`` names the slot and no game changes."""
        self.apply(self.check(actions_, where), where)

    def apply(self, ids: np.ndarray, where: np.ndarray | None = None) -> None:
        """``step`` for int64 ids that ``check`` has passed (callers that check once, then step)."""
        numba.set_num_threads(self.threads)
        _apply_all(self.rows, self.cfg, ids, self._where(where))
        self.finish_ropes()

    def play_forced(self) -> None:
        """In every game, make the only legal move for as long as there is just one."""
        while True:
            _play_forced(self.rows, self.cfg)
            if not self.rows[:, L.ROPE_SHUFFLE].any():
                return
            self.finish_ropes()

    def finish_ropes(self) -> None:
        """Shuffle the decks of the games whose rope waits for it (K7), then end their actions."""
        for i in np.flatnonzero(self.rows[:, L.ROPE_SHUFFLE]):
            finish_rope(self.rows[i], self.cfg)

    def play_random(self, steps: int, seed: int, observations: np.ndarray, masks: np.ndarray) -> int:
        """``steps`` rounds of random legal play in every game, the action drawn in compiled code
        and each game's observation and mask written after every move; a finished game is dealt
        again at once (seeds from ``seed`` on). For benchmarks and rollouts; returns the games
        finished."""
        numba.set_num_threads(self.threads)
        _seed_numba(seed)
        next_seeds = seed + np.arange(self.num_games, dtype=np.int64)
        finished = 0
        for _ in range(steps):
            finished += _random_step(self.rows, self.cfg, self.pool, self.deck_counts, next_seeds, observations, masks)
            if self.rows[:, L.ROPE_SHUFFLE].any():
                waiting = np.flatnonzero(self.rows[:, L.ROPE_SHUFFLE])
                self.finish_ropes()
                for i in waiting:
                    encode.observation(
                        self.rows[i], self.cfg, self.rows[i, L.CURRENT], self.deck_counts, observations[i]
                    )
                    encode.action_mask(self.rows[i], masks[i])
        return finished

    def _where(self, where: np.ndarray | None) -> np.ndarray:
        if where is None:
            return np.ones(self.num_games, dtype=np.bool_)
        where = np.asarray(where)
        if where.shape != (self.num_games,) or where.dtype != np.bool_:
            want = f"({self.num_games},)"
            raise ValueError(f"where must be a bool array of shape {want}, got {where.dtype} {where.shape}")
        return where

    # ------------------------------------------------------------------ the vector view
    def observations(
        self, seats: np.ndarray | None = None, out: np.ndarray | None = None, where: np.ndarray | None = None
    ) -> np.ndarray:
        """Each game's observation from ``seats[i]`` (default: the seat to act), float32
        ``(num_games, OBSERVATION_SIZE)``, written into ``out`` when given. With ``where``, only
        those games' rows are written; the others keep what ``out`` held (zeros in a new array)."""
        seats = self.current if seats is None else np.asarray(seats, dtype=np.int64)
        if out is None and where is not None:
            out = np.zeros((self.num_games, encoding.OBSERVATION_SIZE), dtype=np.float32)
        out = self._out(out, encoding.OBSERVATION_SIZE, np.float32)
        numba.set_num_threads(self.threads)
        _observe_all(self.rows, self.cfg, seats, self._where(where), self.deck_counts, out)
        return out

    def action_masks(self, out: np.ndarray | None = None) -> np.ndarray:
        """Each game's legal actions for its seat to act, int8 ``(num_games, N_ACTIONS)``."""
        out = self._out(out, actions.N_ACTIONS, np.int8)
        numba.set_num_threads(self.threads)
        _masks_all(self.rows, out)
        return out

    def states(self, out: np.ndarray | None = None) -> np.ndarray:
        """Each game's full-information state (``encoding.state``), float32 ``(num_games, STATE_SIZE)``."""
        out = self._out(out, encoding.STATE_SIZE, np.float32)
        numba.set_num_threads(self.threads)
        _states_all(self.rows, self.cfg, out)
        return out

    def _out(self, out: np.ndarray | None, size: int, dtype: type) -> np.ndarray:
        if out is None:
            return np.empty((self.num_games, size), dtype=dtype)
        if out.shape != (self.num_games, size) or out.dtype != dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {np.dtype(dtype)} array of shape ({self.num_games}, {size})")
        return out


def check_actions(games: Any, actions_: Any, where: np.ndarray) -> np.ndarray:
    """``actions_`` as int64 ids for ``games`` (a ``GameBatch`` or ``GameList``); ``IllegalMove``
    naming the first slot ``where`` is true whose action is not legal there, in ``Game``'s words."""
    ids = as_actions(actions_, games.num_games)
    bad = np.flatnonzero(where & ~games.legal(ids))
    if bad.size:
        raise IllegalMove(f"slot {bad[0]}: {games.why_illegal(int(bad[0]), int(ids[bad[0]]))}")
    return ids


def refusal(game: Game, action: int) -> str:
    """Why ``game`` refuses ``action`` (``Game.apply_action``'s message; the game is a copy to
    spare)."""
    if game.is_over:
        return f"its game is over ({game.status}); reset it first"
    try:
        game.apply_action(action)
    except IllegalMove as err:
        return str(err)
    raise AssertionError(f"the engines disagree: action {action} is legal in Game")


def _seed(seed: Any) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    return int(seed)


def as_actions(values: Any, n: int) -> np.ndarray:
    """``values`` as an int64 array of ``n`` action ids; ``IllegalMove`` naming what is wrong."""
    ids = np.asarray(values)
    if ids.shape != (n,):
        raise IllegalMove(f"expected one action per game, shape ({n},), got shape {ids.shape}")
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise IllegalMove(f"actions must be integer ids, got dtype {ids.dtype}")
    ids = ids.astype(np.int64)
    bad = np.flatnonzero((ids < 0) | (ids >= actions.N_ACTIONS))
    if bad.size:
        raise IllegalMove(f"slot {bad[0]}: action {ids[bad[0]]} is not an action id (0 to {actions.N_ACTIONS - 1})")
    return ids


# ---------------------------------------------------------------------- Game <-> row
def to_row(game: Game, cfg: np.ndarray) -> np.ndarray:
    """A game's row (``layout.py``), its legal ids generated as ``Game`` would."""
    row = np.zeros(L.ROW_SIZE, dtype=np.int16)
    row[L.MOUNTAIN : L.MOUNTAIN + len(game.mountain)] = game.mountain
    row[L.GOATS : L.GOATS + len(game.goats)] = game.goats
    for s in range(game.config.players):
        write_cards(row, s, game.hands[s], game.discards[s], game.decks[s])
    row[L.REMOVED : L.REMOVED + len(game.removed)] = game.removed
    row[L.REMOVED_LEN] = len(game.removed)
    for i, (seq, done) in enumerate(zip(game.objectives, game.achieved, strict=True)):
        row[L.OBJECTIVE + i] = PANORAMA_SEQUENCES.index(tuple(seq))
        row[L.ACHIEVED + i] = done
    row[L.CURRENT], row[L.STATUS], row[L.TURN] = game.current, L.STATUS_NAMES.index(game.status), game.turn
    row[L.PENDING], row[L.OWED] = game.pending, game.owed
    row[L.MOVING_CARD], row[L.MOVING_FROM] = game.moving_card, game.moving_from
    row[L.HERD_AT], row[L.HERD_STEPS] = game.herd_at, game.herd_steps
    rules.refresh_all(row)
    if game.status == "ongoing":
        rules.generate(row, cfg)
    return row


def finish_rope(row: np.ndarray, cfg: np.ndarray) -> None:
    """A game row whose rope waits for its shuffle: the deck shuffled as ``Game`` does (K7),
    then the action ended."""
    seat = int(row[L.CURRENT])
    at = L.DECK + seat * L.MAX_PILE
    deck = row[at : at + row[L.DECK_LEN + seat]].tolist()
    rope_shuffle(deck, int(row[L.TURN]))
    row[at : at + len(deck)] = deck
    rules.finish_rope(row, cfg)


def write_cards(row: np.ndarray, seat: int, hand: list[int], discard: list[int], deck: list[int]) -> None:
    """Put ``seat``'s hand, discard pile and deck (kind ids, a deck's top card last) into its row;
    the caller keeps the game whole (every card once) and generates its legal ids again."""
    row[L.HAND + seat * K : L.HAND + (seat + 1) * K] = np.bincount(hand, minlength=K)
    row[L.HAND_LEN + seat] = len(hand)
    for field, length, pile in ((L.DECK, L.DECK_LEN, deck), (L.DISCARD, L.DISCARD_LEN, discard)):
        row[field + seat * L.MAX_PILE : field + seat * L.MAX_PILE + len(pile)] = pile
        row[length + seat] = len(pile)


def from_row(row: np.ndarray, config: Config) -> Game:
    """A row as a new ``Game``."""
    players, pile = config.players, L.MAX_PILE
    hands = [np.repeat(np.arange(K), row[L.HAND + s * K : L.HAND + (s + 1) * K]).tolist() for s in range(players)]
    decks = [row[L.DECK + s * pile : L.DECK + s * pile + row[L.DECK_LEN + s]].tolist() for s in range(players)]
    discards = [
        row[L.DISCARD + s * pile : L.DISCARD + s * pile + row[L.DISCARD_LEN + s]].tolist() for s in range(players)
    ]
    n = config.panoramas
    return Game.from_fields(
        {
            "config": config,
            "mountain": row[L.MOUNTAIN : L.MOUNTAIN + 45].tolist(),
            "goats": row[L.GOATS : L.GOATS + 45].tolist(),
            "hands": hands,
            "decks": decks,
            "discards": discards,
            "removed": row[L.REMOVED : L.REMOVED + row[L.REMOVED_LEN]].tolist(),
            "objectives": [PANORAMA_SEQUENCES[k] for k in row[L.OBJECTIVE : L.OBJECTIVE + n]],
            "achieved": [bool(x) for x in row[L.ACHIEVED : L.ACHIEVED + n]],
            "current": int(row[L.CURRENT]),
            "status": L.STATUS_NAMES[row[L.STATUS]],
            "turn": int(row[L.TURN]),
            "pending": int(row[L.PENDING]),
            "owed": int(row[L.OWED]),
            "moving_card": int(row[L.MOVING_CARD]),
            "moving_from": int(row[L.MOVING_FROM]),
            "herd_at": int(row[L.HERD_AT]),
            "herd_steps": int(row[L.HERD_STEPS]),
        }
    )


# ---------------------------------------------------------------------- batched kernels
@njit(cache=True)
def _legal_flags(rows, ids):
    out = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        out[i] = rows[i, L.STATUS] == L.ONGOING and rules.is_legal(rows[i], ids[i])
    return out


@njit(cache=True, parallel=True)
def _deal_all(rows, cfg, pool, slots, seeds) -> None:
    for j in prange(len(slots)):
        deal.deal(rows[slots[j]], cfg, pool, seeds[j], deal.new_mt())


@njit(cache=True, parallel=True)
def _apply_all(rows, cfg, ids, active) -> None:
    for i in prange(rows.shape[0]):
        if active[i]:
            rules.apply(rows[i], cfg, ids[i])


@njit(cache=True, parallel=True)
def _observe_all(rows, cfg, seats, active, deck_counts, out) -> None:
    for i in prange(rows.shape[0]):
        if active[i]:
            encode.observation(rows[i], cfg, seats[i], deck_counts, out[i])


@njit(cache=True, parallel=True)
def _masks_all(rows, out) -> None:
    for i in prange(rows.shape[0]):
        encode.action_mask(rows[i], out[i])


@njit(cache=True, parallel=True)
def _states_all(rows, cfg, out) -> None:
    for i in prange(rows.shape[0]):
        encode.state(rows[i], cfg, out[i])


@njit(cache=True)
def _play_forced(rows, cfg) -> None:
    for i in range(rows.shape[0]):
        g = rows[i]
        while g[L.STATUS] == L.ONGOING and g[L.N_LEGAL] == 1 and not g[L.ROPE_SHUFFLE]:
            rules.apply(g, cfg, g[L.LEGAL])


@njit(cache=True)
def _legal_ids(rows, out):
    counts = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        n = rows[i, L.N_LEGAL]
        out[i, :n] = rows[i, L.LEGAL : L.LEGAL + n]
        out[i, n:] = 0
        counts[i] = n
    return counts


@njit(cache=True)
def _seed_numba(seed: int) -> None:
    np.random.seed(seed)


@njit(cache=True, parallel=True)
def _random_step(rows, cfg, pool, deck_counts, next_seeds, observations, masks) -> int:
    finished = 0
    n = rows.shape[0]
    for i in prange(n):
        g = rows[i]
        rules.apply(g, cfg, g[L.LEGAL + np.random.randint(g[L.N_LEGAL])])
        if g[L.ROPE_SHUFFLE]:
            continue  # Python shuffles, then writes the view
        if g[L.STATUS] != L.ONGOING:
            finished += 1
            deal.deal(g, cfg, pool, next_seeds[i], deal.new_mt())
            next_seeds[i] += n
        encode.observation(g, cfg, g[L.CURRENT], deck_counts, observations[i])
        encode.action_mask(g, masks[i])
    return finished


@njit(cache=True)
def _cards_on_mountain(rows):
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = rules.cards_on_mountain(rows[i])
    return out
