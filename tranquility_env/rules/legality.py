"""Why a move is illegal, by the rule it breaks (the message of ``IllegalMove``).

This is a second, deliberately plain implementation of legality: it checks one move at a time
straight from RULES.md, on (row, column) coordinates, without the engine's caches. The property
tests hold it against ``Game.legal_actions`` on every action id of thousands of positions, so the
fast move generator and this readable one keep each other honest.
"""

from __future__ import annotations

from typing import Any

from tranquility_env.rules import actions as A
from tranquility_env.rules.board import POS_COL, POS_NAME, POS_ROW, ROW_SLOTS, ROWS, pos
from tranquility_env.rules.cards import BRIDGE, COLOUR, N_ASCENT, NAME, NUMBER, PLAIN, ROPE
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.rules.status import HERD_PENDING, MOVE_PENDING, ONGOING, PAY_PENDING

__all__ = ["why_illegal"]

_VERB = {
    A.PLAY: "play",
    A.PLAY_BRIDGE: "play",
    A.PLAY_SUMMIT: "play",
    A.CAMP: "camp",
    A.MOVE: "move",
    A.DISCARD: "discard",
    A.PAY: "pay",
    A.ROPE: "rope",
    A.HERD: "herd",
    A.STEP: "step",
    A.STOP: "stop",
}


def why_illegal(game: Any, action: int) -> str | None:
    """The rule ``action`` breaks in ``game`` (a ``Game``: "P1 row limit: ..."), or ``None`` when it is legal."""
    if game.status != ONGOING:
        return f"E1/E2: the game is over ({game.status})"
    kind, x, y = A.DECODE[action]
    return _Check(game).why(kind, x, y)


class _Check:
    def __init__(self, game: Any) -> None:
        self.g = game
        self.hand = game.hands[game.current]
        self.goats_on = game.config.goats

    def name(self, kind: int) -> str:
        return NAME[kind if self.goats_on else PLAIN[kind]]

    def at(self, r: int, c: int) -> int:
        """The card at (r, c), or EMPTY also for a slot that does not exist."""
        if 1 <= r <= ROWS and 1 <= c <= ROW_SLOTS[r]:
            return self.g.mountain[pos(r, c)]
        return EMPTY

    def why(self, kind: int, x: int, y: int) -> str | None:
        g = self.g
        verb = _VERB[kind]
        if g.pending == PAY_PENDING or (g.pending == HERD_PENDING and g.owed):
            if kind != A.PAY:
                return f"P5/N2: {g.owed} penalty card(s) are owed; only 'pay CARD' is legal now"
            return None if x in self.hand else f"K2: {self.name(x)} is not in the hand"
        if g.pending == MOVE_PENDING:
            if kind != A.MOVE:
                return f"C2/N2: the displaced {self.name(g.moving_card)} must 'move' first"
            return self.move_target(g.moving_card, g.moving_from, y, len(self.hand))
        if g.pending == HERD_PENDING:
            if kind == A.STOP:
                return None if g.herd_steps else "GO2/N2: 'stop' only after at least one step"
            if kind != A.STEP:
                return "GO2/N2: a herd is on the move; only 'step POS' or 'stop' is legal"
            if not self.hand:
                return "GO2: each step costs a card, and the hand is empty"
            return (
                None
                if y in self.steps(y_from=g.herd_at)
                else f"GO2: the herd at {POS_NAME[g.herd_at]} cannot step to {POS_NAME[y]}"
            )
        if kind in (A.PAY, A.MOVE, A.STEP, A.STOP):
            return f"N2: '{verb}' is a sub-decision, and none is open at the start of a turn"
        if kind == A.DISCARD:
            need = 2 if x == y else 1
            for k in {x, y}:
                if self.hand.count(k) < need:
                    return f"T2: the hand does not hold {'two' if need == 2 else 'a'} {self.name(k)}"
            return None
        if kind == A.ROPE:
            return None if ROPE in self.hand else "T4: no guide rope in hand"
        if kind == A.HERD:
            if not self.goats_on:
                return "GO2: herding needs the Mountain Goats module"
            if not g.goats[y]:
                return f"GO2: no goats stand at {POS_NAME[y]}"
            if not self.hand:
                return "GO2: each step costs a card, and the hand is empty"
            return None if self.steps(y) else f"GO2: the goats at {POS_NAME[y]} have no step to take"
        if x not in self.hand:
            return f"T1: {self.name(x)} is not in the hand"
        if kind == A.PLAY_SUMMIT:
            return self.summit()
        if kind == A.CAMP:
            return self.campfire(x, y)
        r, c = _rc(y)
        if self.at(r, c) == BRIDGE and kind == A.PLAY:
            return self.onto_bridge(x, r, c)
        slot = self.open_slot(r, c)
        if slot:
            return slot
        if kind == A.PLAY_BRIDGE:
            return None if 1 < c < ROW_SLOTS[r] else f"B1: a bridge may not go first or last in row {r}"
        return self.ascent_at(x, r, c, len(self.hand) - 1)

    # --- the rules, one function each
    def open_slot(self, r: int, c: int) -> str | None:
        where = f"r{r}c{c}"
        if self.at(r, c) != EMPTY:
            return f"M3: {where} is not empty"
        if c > 1 and self.at(r, c - 1) == EMPTY:
            return f"M3: {where} is not the next slot of row {r} (rows fill left to right)"
        if r > 1 and (self.at(r - 1, c) == EMPTY or self.at(r - 1, c + 1) == EMPTY):
            return f"M2: {where} is not supported by two cards in row {r - 1}"
        return None

    def reference(self, r: int, c: int, step: int) -> int | None:
        """P3: scan from (r, c) by ``step``; campfires skipped; None at a bridge, a gap or the end."""
        while 1 <= c <= ROW_SLOTS[r]:
            k = self.at(r, c)
            if k in (EMPTY, BRIDGE):
                return None
            if k < N_ASCENT:
                return NUMBER[k]
            c += step
        return None

    def ascent_at(self, card: int, r: int, c: int, spare: int, pays: bool = True) -> str | None:
        name = self.name(card)
        if NUMBER[card] < r:
            return f"P1 row limit: {name} may not go to row {r}"
        left = self.at(r, c - 1)
        if c > 1 and COLOUR[left] == COLOUR[card]:
            return f"P2 colour: {name} may not stand right of {self.name(left)}"
        ref = self.reference(r, c - 1, -1)
        penalty = abs(NUMBER[card] - ref) if ref is not None and pays else 0
        if penalty > spare:
            return f"P4 affordability: the penalty is {penalty} but only {spare} card(s) would be left to pay"
        return None

    def onto_bridge(self, card: int, r: int, c: int) -> str | None:  # B3
        name = self.name(card)
        if NUMBER[card] < r:
            return f"P1 row limit: {name} may not go to row {r}"
        for side in (self.at(r, c - 1), self.at(r, c + 1)):
            if side != EMPTY and COLOUR[side] >= 0 and COLOUR[side] == COLOUR[card]:
                return f"B3: {name} may not share a colour with its neighbour {self.name(side)}"
        refs = [self.reference(r, c - 1, -1), self.reference(r, c + 1, 1)]
        penalty = max((abs(NUMBER[card] - ref) for ref in refs if ref is not None), default=0)
        if penalty > len(self.hand) - 1:
            return f"B3/P4: the penalty is {penalty} but only {len(self.hand) - 1} card(s) would be left to pay"
        return None

    def summit(self) -> str | None:
        g = self.g
        for p in range(44):
            if g.mountain[p] == BRIDGE:
                return f"B5: a bridge lies at {POS_NAME[p]}"
            if g.mountain[p] == EMPTY:
                return f"E1: the mountain is not complete ({POS_NAME[p]} is empty)"
        if g.config.green_path and not g.has_green_path():
            return "GP2: no green path runs from row 1 to row 8"
        if not all(g.achieved):
            return "PA3: not every revealed panorama objective is achieved"
        goats = sum(g.goats[pos(ROWS, c)] for c in range(1, ROW_SLOTS[ROWS] + 1))
        if self.goats_on and goats < g.config.goats_needed:
            return f"GO4: {goats} goats stand on row 8, {g.config.goats_needed} are needed"
        return None

    def campfire(self, camp: int, p: int) -> str | None:
        r, _c = _rc(p)
        target = self.g.mountain[p]
        if target == EMPTY or target >= N_ASCENT:
            what = "an empty slot" if target == EMPTY else self.name(target)
            return f"C1: a campfire replaces only an Ascent card, and {POS_NAME[p]} holds {what}"
        if COLOUR[target] != COLOUR[camp]:
            return f"C1: {self.name(camp)} replaces only a card of its colour, not {self.name(target)}"
        if self.g.goats[p]:
            return f"GO3: {self.name(target)} at {POS_NAME[p]} carries goats"
        if self.move_targets(target, r, len(self.hand) - 1):
            return None
        return f"C2: the displaced {self.name(target)} would have no legal slot in a higher row"

    def move_targets(self, card: int, row: int, in_hand: int) -> list[tuple[int, int]]:
        pays = self.g.config.campfire_move_pays
        return [
            (r, c)
            for r in range(row + 1, ROWS + 1)
            for c in range(1, ROW_SLOTS[r] + 1)
            if self.open_slot(r, c) is None and self.ascent_at(card, r, c, in_hand, pays) is None
        ]

    def move_target(self, card: int, source: int, p: int, in_hand: int) -> str | None:
        r, c = _rc(p)
        if r <= _rc(source)[0]:
            return f"C2: the displaced card must go to a higher row than {POS_NAME[source]}"
        return self.open_slot(r, c) or self.ascent_at(card, r, c, in_hand, self.g.config.campfire_move_pays)

    def steps(self, y_from: int) -> list[int]:
        r, c = _rc(y_from)
        return [pos(r + 1, col) for col in (c - 1, c) if r + 1 <= ROWS and self.at(r + 1, col) not in (EMPTY, BRIDGE)]


def _rc(p: int) -> tuple[int, int]:
    return POS_ROW[p], POS_COL[p]
