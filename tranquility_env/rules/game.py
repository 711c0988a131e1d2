"""The rules engine of Tranquility: The Ascent (RULES.md), on small integers.

``Game`` holds the whole state; its integer path (``legal_actions`` / ``apply_action``) is what
environments and training call, and its string path (``legal_moves`` / ``apply``) is the human and
test view of the same moves in N2 notation. Card kinds are the ids of ``cards.py``, positions
those of ``board.py``, actions those of ``actions.py``.
"""

from __future__ import annotations

import hashlib
import operator
import random
from bisect import insort
from typing import Any

from tranquility_env.rules import actions as A
from tranquility_env.rules import board, cards
from tranquility_env.rules import mountain as mountain_rules
from tranquility_env.rules.board import POS_COL, POS_ROW, ROW_SLOTS, ROW_START, ROWS
from tranquility_env.rules.cards import BRIDGE, COLOUR, N_ASCENT, NUMBER, ROPE, SUMMIT
from tranquility_env.rules.config import Config
from tranquility_env.rules.legality import why_illegal
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.rules.state_io import parse_state, state_to_dict
from tranquility_env.rules.status import HERD_PENDING, LOST, MOVE_PENDING, NO_PENDING, ONGOING, PAY_PENDING, WON
from tranquility_env.rules.tables import PANORAMA_SEQUENCES

__all__ = [
    "EMPTY",
    "HERD_PENDING",
    "LOST",
    "MOVE_PENDING",
    "NO_PENDING",
    "ONGOING",
    "PAY_PENDING",
    "WON",
    "Game",
    "IllegalMove",
    "rope_shuffle",
]

_PLAY_BRIDGE, _PLAY_SUMMIT = A.FIRST[A.PLAY_BRIDGE], A.FIRST[A.PLAY_SUMMIT]
_PAY, _ROPE, _STOP = A.FIRST[A.PAY], A.FIRST[A.ROPE], A.FIRST[A.STOP]
_MOVE, _HERD, _STEP = A.FIRST[A.MOVE], A.FIRST[A.HERD], A.FIRST[A.STEP]
_DISCARD_ID = A.DISCARD_ID
_S = board.N_SLOTS
_CAMP_KIND = {c: k for k, c in enumerate(cards.CAMP)}  # campfire kind -> colour


def rope_shuffle(deck: list[int], turn: int) -> None:
    """K7: shuffle a deck in place, seeded from the deck and the turn, so that a game rebuilt with
    ``from_dict(to_dict())`` (or moved between engines) goes on exactly as the original would."""
    digest = hashlib.blake2b(bytes(deck) + turn.to_bytes(8, "little"), digest_size=8)
    random.Random(int.from_bytes(digest.digest(), "little")).shuffle(deck)


class IllegalMove(ValueError):
    """A move that is malformed or not legal now; the message names the move and the rule."""


class Game:
    """One game: ``Game.new(config, seed)``, then ``legal_moves()`` / ``apply(move)``.

    Mountain slots hold a card kind or ``EMPTY``; hands are sorted lists of kinds (canonical
    order); decks are lists whose *last* element is the top card.
    """

    __slots__ = (
        "_legal",
        "_open_colour",
        "_open_ref",
        "achieved",
        "config",
        "current",
        "decks",
        "discards",
        "goats",
        "hands",
        "herd_at",
        "herd_steps",
        "mountain",
        "moving_card",
        "moving_from",
        "objectives",
        "owed",
        "pending",
        "removed",
        "row_len",
        "status",
        "turn",
    )

    config: Config

    # ----------------------------------------------------------------- construction
    def __init__(self, config: Config) -> None:
        self.config = config
        self.mountain = [EMPTY] * board.N_POS
        self.row_len = [0] * (ROWS + 2)  # filled slots per row; rows fill left to right (M3)
        self.goats = [0] * board.N_POS
        self.hands: list[list[int]] = [[] for _ in range(config.players)]
        self.decks: list[list[int]] = [[] for _ in range(config.players)]
        self.discards: list[list[int]] = [[] for _ in range(config.players)]
        self.removed: list[int] = []
        self.objectives: list[tuple[int, ...]] = []
        self.achieved: list[bool] = []
        self.current = 0
        self.status = ONGOING
        self.turn = 0
        self.pending = NO_PENDING
        self.owed = 0
        self.moving_card = EMPTY
        self.moving_from = EMPTY
        self.herd_at = EMPTY
        self.herd_steps = 0
        # Per row, the colour of the card left of the row's next slot and the P3 reference
        # number there (0 = none): the inner loop of move generation needs only these.
        self._open_colour = [-1] * (ROWS + 2)
        self._open_ref = [0] * (ROWS + 2)
        self._legal: list[int] | None = None

    @classmethod
    def new(cls, config: Config | dict[str, Any] | None = None, seed: int = 0) -> Game:
        """A fresh deal (U1-U5, PA1). The same config and seed give the same game in any process."""
        config = Config.coerce(config)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        rng = random.Random(seed)
        game = cls(config)
        pool = list(
            cards.game_deck(
                config.players, config.bridges, config.campfires_per_colour, config.ropes, config.goats
            ).elements()
        )
        holders = [1, 3][: config.dealt_bridges]  # U2
        for seat in holders:
            pool.remove(BRIDGE)
            game.hands[seat].append(BRIDGE)
        rng.shuffle(pool)
        # U3: sizes as even as possible; seat 0 a largest one, the rest to the others at random.
        small, extra = divmod(len(pool), config.players)
        sizes = [small + 1] * extra + [small] * (config.players - extra)
        rest = sizes[1:]
        rng.shuffle(rest)
        start = 0
        for seat, size in enumerate([sizes[0], *rest]):
            game.decks[seat] = pool[start : start + size]
            start += size
        for seat in range(config.players):
            game._refill(seat)  # U4
        if config.panoramas:  # PA1
            order = list(range(len(PANORAMA_SEQUENCES)))
            rng.shuffle(order)
            game.objectives = [PANORAMA_SEQUENCES[i] for i in order[: config.panoramas]]
            game.achieved = [False] * config.panoramas
        game._start_turn()
        return game

    def clone(self) -> Game:
        other = Game.__new__(Game)
        for name in Game.__slots__:
            value = getattr(self, name)
            if isinstance(value, list):
                value = [v[:] if isinstance(v, list) else v for v in value]
            setattr(other, name, value)
        return other

    # ----------------------------------------------------------------- public API
    @property
    def current_player(self) -> int:
        return self.current

    @property
    def is_over(self) -> bool:
        return self.status != ONGOING

    def legal_actions(self) -> list[int]:
        """The legal action ids (``actions.py``), ascending; empty when the game is over."""
        if self._legal is None:
            self._legal = self._generate() if self.status == ONGOING else []
        return self._legal

    def legal_moves(self) -> list[str]:
        """The legal moves as N2 strings, sorted, no duplicates; empty when the game is over."""
        goats = self.config.goats
        return sorted(A.to_string(a, goats) for a in self.legal_actions())

    def apply(self, move: str) -> None:
        """Make one move given in N2 notation; ``IllegalMove`` (game unchanged) if it is not legal."""
        try:
            action = A.from_string(move, self.config.goats)
        except ValueError as err:
            raise IllegalMove(str(err)) from None
        self.apply_action(action, _text=move)

    def apply_action(self, action: int, _text: str | None = None) -> None:
        """Make one move given as an action id; ``IllegalMove`` (game unchanged) if it is not legal."""
        if action.__class__ is not int:  # numpy integers welcome; floats, strings, bools are not
            try:
                action = operator.index(action) if not isinstance(action, bool) else None
            except TypeError:
                action = None
            if action is None:
                raise IllegalMove(f"an action must be an integer id (0 to {A.N_ACTIONS - 1})")
        if action not in self.legal_actions():
            if not 0 <= action < A.N_ACTIONS:
                raise IllegalMove(f"action {action!r} is not an action id (0 to {A.N_ACTIONS - 1})")
            text = _text or A.to_string(action, self.config.goats)
            raise IllegalMove(f"illegal move {text!r}: {why_illegal(self, action)}")
        self._legal = None
        kind, x, y = A.DECODE[action]
        hand = self.hands[self.current]
        if kind == A.PLAY:
            hand.remove(x)
            self._play_ascent(x, y)
        elif kind == A.PAY:
            hand.remove(x)
            self.discards[self.current].append(x)
            self.owed -= 1
            if self.owed == 0 and self.pending == PAY_PENDING:
                self._end_action()
        elif kind == A.DISCARD:
            hand.remove(x)
            hand.remove(y)
            self.discards[self.current] += (x, y)
            self._end_action()
        elif kind == A.PLAY_BRIDGE:
            hand.remove(BRIDGE)
            self._place(BRIDGE, y)
            self._end_action()
        elif kind == A.CAMP:
            hand.remove(x)
            self.pending, self.moving_card, self.moving_from = MOVE_PENDING, self.mountain[y], y
            self.mountain[y] = x
            self._refresh_row(POS_ROW[y])
        elif kind == A.MOVE:
            card = self.moving_card
            self.moving_card = self.moving_from = EMPTY
            self.pending = NO_PENDING
            penalty = mountain_rules.move_penalty(self.mountain, card, y, self.config.campfire_move_pays)
            self._place(card, y)
            self._settle(penalty)
        elif kind == A.HERD:
            self.pending, self.herd_at, self.herd_steps, self.owed = HERD_PENDING, y, 0, 0
        elif kind == A.STEP:
            self.goats[y] += self.goats[self.herd_at]  # K3: the herd moves at `step`
            self.goats[self.herd_at] = 0
            self.herd_at, self.herd_steps, self.owed = y, self.herd_steps + 1, 1
        elif kind == A.STOP:
            self.herd_at, self.herd_steps = EMPTY, 0
            self._end_action()
        elif kind == A.ROPE:
            self._use_rope(hand)
        else:  # PLAY_SUMMIT
            hand.remove(SUMMIT)
            self.mountain[board.SUMMIT_POS] = SUMMIT
            self.row_len[ROWS + 1] = 1
            self.status, self.turn = WON, self.turn + 1  # K5: no refill, current stays

    # ----------------------------------------------------------------- making moves
    def _play_ascent(self, card: int, p: int) -> None:
        penalty = mountain_rules.play_penalty(self.mountain, card, p)  # P3, or B3 onto a bridge
        if self.mountain[p] == BRIDGE:
            self.removed.append(BRIDGE)  # B3: the bridge leaves the game
        self._place(card, p)
        if self.config.goats and cards.HAS_GOAT[card]:
            self.goats[p] += 1  # GO1: from a hand only
        self._settle(penalty)

    def _settle(self, penalty: int) -> None:
        if penalty:
            self.pending, self.owed = PAY_PENDING, penalty
        else:
            self._end_action()

    def _place(self, card: int, p: int) -> None:
        r = POS_ROW[p]
        self.mountain[p] = card
        if POS_COL[p] > self.row_len[r]:
            self.row_len[r] = POS_COL[p]
        self._refresh_row(r)
        if self.objectives and card < N_ASCENT:
            self._check_objectives(p)

    def _use_rope(self, hand: list[int]) -> None:  # T4
        hand.remove(ROPE)
        self.removed.append(ROPE)
        deck = self.decks[self.current]
        deck += hand
        hand.clear()
        rope_shuffle(deck, self.turn)
        self._end_action()

    def _refill(self, seat: int) -> None:  # T3
        hand, deck, size = self.hands[seat], self.decks[seat], self.config.hand_size
        while len(hand) < size and deck:
            insort(hand, deck.pop())

    def _end_action(self) -> None:  # K4
        self.pending, self.owed = NO_PENDING, 0
        self._refill(self.current)
        self.turn += 1
        self.current = (self.current + 1) % self.config.players
        self._start_turn()

    def _start_turn(self) -> None:
        self._legal = self._generate()
        if not self._legal:
            self.status = LOST  # E2

    # ----------------------------------------------------------------- the mountain
    def _refresh_row(self, r: int) -> None:
        c = self.row_len[r] + 1
        if c > ROW_SLOTS[r]:
            return
        left = ROW_START[r] + c - 2
        self._open_colour[r] = COLOUR[self.mountain[left]] if c > 1 else -1
        self._open_ref[r] = mountain_rules.reference(self.mountain, left, ROW_START[r] - 1, -1) if c > 1 else 0

    def open_slots(self) -> list[tuple[int, int]]:
        """(row, position) of every open empty slot (M2, M3): each row's next slot, if supported."""
        return mountain_rules.open_slots(self.row_len)

    def _check_objectives(self, p: int) -> None:  # PA2
        r, c = POS_ROW[p], POS_COL[p]
        start, width = ROW_START[r], self.row_len[r]
        mountain = self.mountain
        for i, seq in enumerate(self.objectives):
            if self.achieved[i]:
                continue
            n = len(seq)
            for first in range(max(1, c - n + 1), min(c, width - n + 1) + 1):
                window = mountain[start + first - 1 : start + first - 1 + n]
                if all(0 <= k < N_ASCENT and NUMBER[k] == v for k, v in zip(window, seq, strict=False)):
                    self.achieved[i] = True
                    break

    def cards_on_mountain(self) -> int:
        """Slots below the Summit holding an Ascent card or a campfire (bridges must still go)."""
        return mountain_rules.cards_on_mountain(self.mountain)

    def summit_goals_met(self) -> bool:
        """E1's conditions besides the SUMMIT in hand: 44 Ascent cards or campfires, module goals."""
        if self.cards_on_mountain() < board.N_SLOTS:
            return False
        if self.config.green_path and not self.has_green_path():
            return False
        if not all(self.achieved):  # PA3
            return False
        if self.config.goats:  # GO4
            return sum(self.goats[ROW_START[ROWS] : ROW_START[ROWS] + ROW_SLOTS[ROWS]]) >= self.config.goats_needed
        return True

    def has_green_path(self) -> bool:
        """GP1: green cards from row 1 to row 8, each resting on the one before."""
        return mountain_rules.green_path(self.mountain)

    # ----------------------------------------------------------------- move generation
    def _generate(self) -> list[int]:
        hand = self.hands[self.current]
        if self.pending == NO_PENDING:
            return self._turn_actions(hand)
        if self.pending == MOVE_PENDING:
            return [_MOVE + p for p in self._move_targets(self.moving_card, self.moving_from, len(hand))]
        if self.owed:  # a payment (P5, GO2)
            return sorted({_PAY + k for k in hand})
        steps = [_STEP + t for t in self._herd_steps(self.herd_at)] if hand else []
        return [*steps, _STOP] if self.herd_steps else steps

    def _turn_actions(self, hand: list[int]) -> list[int]:
        out: list[int] = []
        spare = len(hand) - 1  # cards left to pay with once the played card has left (P4)
        opens = self.open_slots()
        open_colour, open_ref = self._open_colour, self._open_ref
        mountain = self.mountain
        bridges = [p for p in range(_S) if mountain[p] == BRIDGE] if BRIDGE in mountain else []
        last = EMPTY
        for kind in hand:
            if kind == last:
                continue
            last = kind
            if kind < N_ASCENT:
                n, colour = NUMBER[kind], COLOUR[kind]
                base = kind * _S
                for r, p in opens:
                    if n >= r and colour != open_colour[r]:  # P1, P2
                        ref = open_ref[r]
                        if not ref or abs(n - ref) <= spare:  # P3, P4
                            out.append(base + p)
                for p in bridges:
                    if self._bridge_replacement_ok(kind, p, spare):
                        out.append(base + p)
            elif kind == BRIDGE:
                for r, p in opens:
                    if 1 < POS_COL[p] < ROW_SLOTS[r]:  # B1
                        out.append(_PLAY_BRIDGE + p)
            elif kind in _CAMP_KIND:
                out += self._campfire_actions(_CAMP_KIND[kind], spare, opens)
            elif kind == SUMMIT:
                if self.summit_goals_met():
                    out.append(_PLAY_SUMMIT)
            else:
                out.append(_ROPE)
        if spare >= 1:  # T2: any two cards
            pairs = {_DISCARD_ID[hand[i]][hand[j]] for i in range(len(hand)) for j in range(i + 1, len(hand))}
            out += pairs
        if self.config.goats and hand:
            out += [_HERD + p for p in range(_S) if self.goats[p] and self._herd_steps(p)]
        out.sort()
        return out

    def _bridge_replacement_ok(self, kind: int, p: int, spare: int) -> bool:  # B3
        r, c = POS_ROW[p], POS_COL[p]
        if NUMBER[kind] < r:
            return False
        colour = COLOUR[kind]
        if COLOUR[self.mountain[p - 1]] == colour:
            return False
        if c < self.row_len[r] and COLOUR[self.mountain[p + 1]] == colour:
            return False
        return mountain_rules.play_penalty(self.mountain, kind, p) <= spare

    def _campfire_actions(self, colour: int, spare: int, opens: list[tuple[int, int]]) -> list[int]:
        out = []
        mountain, goats = self.mountain, self.goats
        for p in range(_S):
            card = mountain[p]
            # C1 (and GO3): an Ascent card of the campfire's colour, without goats; C2: somewhere to go.
            replaceable = 0 <= card < N_ASCENT and COLOUR[card] == colour and not goats[p]
            if replaceable and self._move_targets(card, p, spare, opens, first_only=True):
                out.append(A.camp_id(colour, p))
        return out

    def _move_targets(
        self, card: int, source: int, in_hand: int, opens: list[tuple[int, int]] | None = None, first_only: bool = False
    ) -> list[int]:
        """C2/C3: the open slots in higher rows where a displaced ``card`` may go."""
        out = []
        n, colour, row = NUMBER[card], COLOUR[card], POS_ROW[source]
        pays = self.config.campfire_move_pays
        for r, p in opens if opens is not None else self.open_slots():
            if row < r <= n and colour != self._open_colour[r]:
                ref = self._open_ref[r]
                if not pays or not ref or abs(n - ref) <= in_hand:
                    out.append(p)
                    if first_only:
                        break
        return out

    def _herd_steps(self, p: int) -> list[int]:  # GO2
        r, c = POS_ROW[p], POS_COL[p]
        if r >= ROWS:
            return []
        out = []
        for col in (c - 1, c):
            if 1 <= col <= ROW_SLOTS[r + 1]:
                target = ROW_START[r + 1] + col - 1
                if self.mountain[target] not in (EMPTY, BRIDGE):
                    out.append(target)
        return out

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data (``shared/spec/state.md``)."""
        return state_to_dict(self)

    @classmethod
    def from_dict(cls, d: Any) -> Game:
        """Rebuild a game from ``to_dict`` data; ``ValueError`` saying what is malformed or inconsistent.

        ``state_io.parse_state`` checks the data itself; what needs the move generator, that the
        status follows from the position (E2, K4), is checked here."""
        return cls.from_fields(parse_state(d))

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> Game:
        """A game from the values of its public fields (``config``, ``mountain``, ``hands`` ...,
        as ``state_io.parse_state`` returns them); ``ValueError`` when the status does not follow
        from the position (E2, K4)."""
        fields = dict(fields)
        game = cls(fields.pop("config"))
        for name, value in fields.items():
            setattr(game, name, value)
        game.row_len = mountain_rules.row_lengths(game.mountain)
        for r in range(1, ROWS + 2):
            game._refresh_row(r)
        moves = game._generate() if game.status != WON else []
        if game.status == ONGOING and not moves:
            raise ValueError(f"status is 'ongoing' but seat {game.current} has no legal move (E2: that is a loss)")
        if game.status == LOST and moves:
            raise ValueError(f"status is 'lost' but seat {game.current} still has a legal move (E2)")
        game._legal = moves if game.status == ONGOING else []
        return game

    def __repr__(self) -> str:
        return f"<Game players={self.config.players} turn={self.turn} current={self.current} status={self.status}>"
