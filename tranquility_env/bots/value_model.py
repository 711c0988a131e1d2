"""The heuristic's value model: a hand-written estimate of what each move costs the team.

Of the cards of a game, 44 Ascent cards or campfires and one Summit must reach the mountain; every
other card is spent (paid, discarded) from a small shared budget, and the team loses as soon as
the seat to act runs dry. ``ValueModel`` weighs each legal move by what it spends and what it
leaves; ``HeuristicBot`` plays its cheapest move or searches among its best few.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tranquility_env.rules import actions, board, cards
from tranquility_env.rules import mountain as mrules
from tranquility_env.rules.game import Game
from tranquility_env.views import unseen_counts, unseen_in_game

__all__ = ["NO_GREEN_PATH", "ValueModel", "green_need", "objective_possible", "objective_step"]

_SUB_DECISIONS = {actions.PAY, actions.MOVE, actions.STEP, actions.STOP}


@functools.lru_cache(maxsize=4096)
def _slot_costs(slot: tuple[int, int, int], no_fit: float) -> np.ndarray:
    """The penalty of every Ascent kind on an open slot (row, left colour, reference); ``no_fit``
    where it may not stand. Cached: rollouts ask millions of times."""
    penalties = mrules.kind_penalties(*slot)
    costs = np.where(penalties >= 0, penalties, no_fit).astype(np.float64)
    costs.flags.writeable = False  # shared by every caller
    return costs


NO_GREEN_PATH = 99  # ``green_need`` when no green path can be made any more


def green_need(mountain: list[int]) -> int:
    """The fewest green cards still to place for a green path (GP1): over the chains whose every
    slot holds a green card or may still get one (empty, or a bridge, which an Ascent card may
    replace), the fewest such slots to fill; ``NO_GREEN_PATH`` when no chain is left."""
    need = [0] * (board.ROW_SLOTS[1] + 2)  # by column, from 1; the row below's, then this row's
    for r in range(1, board.ROWS + 1):
        below = need
        need = [NO_GREEN_PATH] * (board.ROW_SLOTS[1] + 2)
        for c in range(1, board.ROW_SLOTS[r] + 1):
            card = mountain[board.ROW_START[r] + c - 1]
            if card in (mrules.EMPTY, cards.BRIDGE):
                cost = 1
            elif cards.COLOUR[card] == 0:
                cost = 0
            else:
                continue
            under = min(below[c], below[c + 1]) if r > 1 else 0
            need[c] = min(NO_GREEN_PATH, under + cost)
    return min(need)


def green_top(mountain: list[int]) -> int:
    """The highest row that holds no green card, 0 if every row holds one: a green path still
    needs a green card there, numbered that or more (P1), and high green cards are few."""
    for r in range(board.ROWS, 0, -1):
        row = mountain[board.ROW_START[r] : board.ROW_START[r] + board.ROW_SLOTS[r]]
        if not any(k != mrules.EMPTY and cards.COLOUR[k] == 0 for k in row):
            return r
    return 0


def unmet(objectives: Sequence[Sequence[int]], achieved: Sequence[bool]) -> tuple[tuple[int, ...], ...]:
    """The objectives not yet achieved."""
    return tuple(tuple(s) for s, done in zip(objectives, achieved, strict=True) if not done)


def objective_step(mountain: list[int], hand: list[int], seq: tuple[int, ...], card: int, p: int) -> float:
    """How far ``card`` at ``p`` carries objective ``seq`` (PA2): ``j + 1`` when the ``j`` cards
    left of ``p`` are Ascent cards numbered as its first ``j`` and ``card`` is numbered as the
    next, with room in the row for the rest and every number of it allowed there (P1), the
    longest such match; 1.5 for a start whose next number ``hand`` holds too; 0 for none."""
    r, col = board.POS_ROW[p], board.POS_COL[p]
    n = len(seq)
    if card >= cards.N_ASCENT or min(seq) < r:
        return 0.0
    for j in range(min(n, col) - 1, -1, -1):
        if cards.NUMBER[card] != seq[j] or col - j + n - 1 > board.ROW_SLOTS[r]:
            continue
        left = mountain[p - j : p]
        if all(0 <= k < cards.N_ASCENT and cards.NUMBER[k] == v for k, v in zip(left, seq, strict=False)):
            return 1.5 if j == 0 and _holds(hand, seq[1], card) else j + 1.0
    return 0.0


def objective_possible(mountain: list[int], seq: tuple[int, ...], by_number: list[int]) -> bool:
    """Whether objective ``seq`` (PA2) can still be met: some row allowed to every number of it
    (P1) has consecutive slots each empty, a bridge (an Ascent card may replace it) or an Ascent
    card of the number wanted there, the wanted numbers among ``by_number`` (the cards still to
    come, counted by number)."""
    n = len(seq)
    for r in range(1, min(min(seq), board.ROWS) + 1):
        start = board.ROW_START[r]
        for first in range(board.ROW_SLOTS[r] - n + 1):
            wanted = [0] * 13
            fits = True
            for j in range(n):
                k = mountain[start + first + j]
                if k in (mrules.EMPTY, cards.BRIDGE):
                    wanted[seq[j]] += 1
                elif not (k < cards.N_ASCENT and cards.NUMBER[k] == seq[j]):
                    fits = False
                    break
            if fits and all(w <= have for w, have in zip(wanted, by_number, strict=True)):
                return True
    return False


def _holds(hand: list[int], number: int, playing: int) -> bool:
    """Whether ``hand`` holds an Ascent card numbered ``number`` besides the one it plays."""
    rest = list(hand)
    if playing in rest:
        rest.remove(playing)
    return any(k < cards.N_ASCENT and cards.NUMBER[k] == number for k in rest)


class ValueModel:
    """``HeuristicBot``'s value model for one decision, on what the seat to act knows (from its
    view, or in a rollout straight from the sampled game).

    ``ranked()`` lists the moves worth considering, best first. Each move is valued as

        worth of the cards it spends x scarcity
        + lookahead x (future cost of the hand it leaves + draw_cost x cards drawn x E)
        - progress (a card placed on the mountain) - open_bonus x (open slots gained)

    with the weights of ``bot`` (a ``HeuristicBot``); ``docs/bots.md`` explains each term."""

    def __init__(
        self,
        bot: Any,
        legal: list[int],
        mountain: list[int],
        hand: list[int],
        holdings: list[int],
        *,
        seat: int = 0,
        summits_given_up: int = 0,
        moving_card: int = mrules.EMPTY,
        move_pays: bool = True,
        unseen: np.ndarray | None = None,
        green_path: bool = False,
        objectives: tuple[tuple[int, ...], ...] = (),
        goats: list[int] | None = None,
    ) -> None:
        """What the seat knows, as kind ids: ``holdings`` are each seat's hand and deck sizes
        (public), ``moving_card`` the card a campfire displaced (``EMPTY`` if none), ``unseen``
        the counts per kind of the cards this seat has not seen (``views.unseen_counts``);
        ``green_path`` whether the module is on, ``objectives`` the Panorama objectives not yet
        achieved, ``goats`` the goats on each position (Mountain Goats)."""
        self.bot, self.legal, self.mountain, self.hand = bot, legal, mountain, hand
        self.holdings, self.seat, self.moving_card, self.move_pays = holdings, seat, moving_card, move_pays
        self.row_len = mrules.row_lengths(self.mountain)
        self.slots = mrules.open_slot_facts(self.mountain, self.row_len)
        self.filled = board.N_SLOTS - self.mountain[: board.N_SLOTS].count(mrules.EMPTY)
        # reachable[r]: the empty slots of rows 1 .. r, the ones a card numbered r or more may fill
        # (P1); 0 when rows 1 .. r are full.
        self.reachable = [0]
        for r in range(1, board.ROWS + 1):
            self.reachable.append(self.reachable[-1] + board.ROW_SLOTS[r] - self.row_len[r])
        # The weights that depend on the player count (``HeuristicBot.setting``).
        players = len(holdings)
        self.reach, self.open_bonus, self.steep = (bot.setting(w, players) for w in ("reach", "open_bonus", "steep"))
        self.summits_given_up = summits_given_up
        # Cards are dearer to a seat that holds fewer than its teammates (sizes are public): the
        # team loses when any seat runs dry, so the richer seats should pay for the dear plays.
        others = [n for i, n in enumerate(holdings) if i != seat]
        mean = sum(others) / len(others) if others else 0.0
        gap = (mean - holdings[seat]) / max(1.0, mean) if others else 0.0
        self.scarcity = min(3.0, max(0.5, 1.0 + bot.scarcity * gap))
        # The Ascent cards this seat has not seen: teammates' hands and every deck are drawn from them.
        self.unseen = np.zeros(cards.N_ASCENT) if unseen is None else unseen[: cards.N_ASCENT].astype(np.float64)
        self.unseen_total = self.unseen.sum()
        self.goats = goats or [0] * board.N_POS
        # Green Path (GP2): the green cards a path still needs, which a play may change.
        self.green_path = green_path
        self.green_need = green_need(self.mountain) if green_path else 0
        # Panorama objectives (PA3): those not achieved that some row may still hold, and the
        # cards by number that may still come (this hand and the unseen ones) to fill them;
        # once one is out of reach the game is lost, and no play is charged for losing another.
        self.by_number = [0] * 13  # read only with objectives
        for k, n in [*((k, 1) for k in hand), *enumerate(self.unseen)] if objectives else ():
            if k < cards.N_ASCENT:
                self.by_number[cards.NUMBER[k]] += int(n)
        self.objectives = tuple(s for s in objectives if objective_possible(self.mountain, s, self.by_number))
        self.objectives_lost = len(objectives) > len(self.objectives)
        # green cards numbered this or more are kept for the path's highest rows (0: none)
        self.green_top = green_top(self.mountain) if 0 < self.green_need < NO_GREEN_PATH else 0

    @classmethod
    def from_view(cls, view: Mapping[str, Any], legal: list[int], bot: Any) -> ValueModel:
        goats = view["config"]["goats"]
        mountain = [mrules.EMPTY] * board.N_POS
        for pos, name in view["mountain"].items():
            mountain[board.parse_pos(pos)] = cards.parse_card(name, goats)
        me = view["players"][view["seat"]]
        pending, panorama = view["pending"], view["panorama"] or {"objectives": (), "achieved": ()}
        moving = cards.parse_card(pending["card"], goats) if pending and pending["kind"] == "move" else mrules.EMPTY
        hand = [cards.parse_card(name, goats) for name in me["hand"]]
        holdings = [p["hand_size"] + p["deck_size"] for p in view["players"]]
        return cls(
            bot,
            legal,
            mountain,
            hand,
            holdings,
            seat=view["seat"],
            summits_given_up=me["discard"].count("SUMMIT"),
            moving_card=moving,
            move_pays=view["config"]["campfire_move_pays"],
            unseen=unseen_counts(view),
            green_path=view["config"]["green_path"],
            objectives=unmet(panorama["objectives"], panorama["achieved"]),
            goats=[view.get("goats", {}).get(board.POS_NAME[p], 0) for p in range(board.N_POS)],
        )

    @classmethod
    def from_game(cls, game: Game, legal: list[int], bot: Any) -> ValueModel:
        """The same as ``from_view(seat_view(game, game.current), ...)``, read straight from the
        game (``views.unseen_in_game``): rollouts decide thousands of times a move."""
        seat = game.current
        holdings = [len(h) + len(d) for h, d in zip(game.hands, game.decks, strict=True)]
        return cls(
            bot,
            legal,
            game.mountain,
            game.hands[seat],
            holdings,
            seat=seat,
            summits_given_up=game.discards[seat].count(cards.SUMMIT),
            moving_card=game.moving_card,
            move_pays=game.config.campfire_move_pays,
            unseen=unseen_in_game(game, seat),
            green_path=game.config.green_path,
            objectives=unmet(game.objectives, game.achieved),
            goats=game.goats,
        )

    # --- the value model
    def slots_after(self, card: int, p: int) -> list[tuple[int, int, int]]:
        """The open slots once ``card`` stands at ``p``."""
        mountain, row_len = list(self.mountain), list(self.row_len)
        row_len[board.POS_ROW[p]] += self.mountain[p] == mrules.EMPTY  # onto a bridge: the row keeps its length
        mountain[p] = card
        return mrules.open_slot_facts(mountain, row_len)

    def card_cost(self, kind: int, slots: list[tuple[int, int, int]]) -> float:
        """How dear ``kind`` will be to play (or how little it matters, for specials)."""
        if kind == cards.SUMMIT or kind == cards.ROPE:
            return 0.0
        if kind < cards.N_ASCENT and self.dead(kind):
            return 0.0  # worthless, and costs nothing to give up
        if cards.IS_CAMP[kind]:
            return 0.5
        if kind == cards.BRIDGE:
            return 3.0 if self.filled >= self.bot.late_game else 1.0
        n, colour = cards.NUMBER[kind], cards.COLOUR[kind]
        best = self.bot.no_fit
        for r, left_colour, ref in slots:
            if n >= r and colour != left_colour:
                best = min(best, abs(n - ref) if ref else 0)
        return best

    def unseen_cost(self, slots: list[tuple[int, int, int]]) -> float:
        """The expected cheapest penalty of an unseen Ascent card on ``slots``: what the next cards
        drawn, this seat's and its teammates', will cost."""
        if not self.unseen_total or not slots:
            return self.bot.no_fit
        best = np.minimum.reduce([_slot_costs(slot, self.bot.no_fit) for slot in slots])
        return float(best @ self.unseen / self.unseen_total)

    def hand_cost(self, hand: list[int], slots: list[tuple[int, int, int]]) -> float:
        """The hand's future cost: its cards' costs, cheapest first, weighted ``hand_decay`` ** i
        (one card is played a turn, so the cheapest matters most), scaled to the hand's size."""
        costs = sorted(self.card_cost(k, slots) for k in hand)
        weights = [self.bot.hand_decay**i for i in range(len(costs))]
        return sum(c * w for c, w in zip(costs, weights, strict=True)) * len(costs) / sum(weights) if costs else 0.0

    def dead(self, kind: int) -> bool:
        """An Ascent card every row of which (rows 1 .. its number) is full."""
        return self.reachable[min(cards.NUMBER[kind], board.ROWS)] == 0

    def keep_summit(self) -> bool:
        """Hold a Summit once the mountain is well under way, or once this seat gave one up."""
        return self.filled >= self.bot.summit_from or self.summits_given_up > 0

    def worths(self, hand: list[int], slots: list[tuple[int, int, int]]) -> list[tuple[float, int]]:
        """(worth, kind) of each card: what giving it up loses. Dead cards and spare Summits are
        worth nothing; an Ascent card is worth less the dearer it is to play."""
        out, summits = [], 0
        for k in sorted(hand):
            if k == cards.SUMMIT:
                worth = 2.0 if summits == 0 and self.keep_summit() else 0.0
                summits += 1
            elif k == cards.ROPE:
                worth = 3.0
            elif cards.IS_CAMP[k]:
                worth = 1.2
            elif k == cards.BRIDGE:
                worth = 0.1 if self.filled >= self.bot.late_game else 0.6
            elif self.dead(k):
                worth = 0.0
            else:
                worth = (1.0 - self.bot.fit_discount * min(self.card_cost(k, slots), 4.0)) * self.reach_factor(k)
                if self.green_top and cards.COLOUR[k] == 0 and cards.NUMBER[k] >= self.green_top:
                    worth += self.bot.green_keep
                if cards.HAS_GOAT[k]:  # a goat card (Mountain Goats) brings a goat from a hand only (GO1)
                    worth += self.bot.goat_keep
            out.append((worth, k))
        return out

    def reach_factor(self, kind: int) -> float:
        """1 for an Ascent card that may fill every empty slot, down to 1 - ``reach`` for one that
        may fill none (P1: a card numbered n stands in rows 1 .. n, and low rows fill first)."""
        share = self.reachable[min(cards.NUMBER[kind], board.ROWS)] / max(1, self.reachable[board.ROWS])
        return 1.0 - self.reach * (1.0 - share)

    def give_up(self, hand: list[int], count: int, slots: list[tuple[int, int, int]]) -> list[int]:
        """The ``count`` least worth cards of ``hand`` (to pay or discard)."""
        return [k for _, k in sorted(self.worths(hand, slots))[:count]]

    def spend(self, hand: list[int], count: int, slots: list[tuple[int, int, int]]) -> tuple[float, list[int]]:
        """(worth lost, hand left) when ``count`` cards of ``hand`` are given up."""
        ranked = sorted(self.worths(hand, slots))
        rest = list(hand)
        for _, k in ranked[:count]:
            rest.remove(k)
        return sum(w for w, _ in ranked[:count]), rest

    def after(self, hand: list[int], spend: int, slots: list[tuple[int, int, int]], drawn: int) -> float:
        """Worth lost by spending ``spend`` cards, plus ``lookahead`` x the future cost of the hand
        left and of the ``drawn`` cards that refill it."""
        lost, rest = self.spend(hand, spend, slots)
        lost += self.steep * max(0, spend - 2)  # a dear play drains the seat that makes it
        unseen = self.unseen_cost(slots)
        return lost * self.scarcity + self.bot.lookahead * (
            self.hand_cost(rest, slots) + drawn * self.bot.draw_cost * unseen
        )

    def value_of_play(self, card: int, p: int) -> float:
        bot = self.bot
        penalty = mrules.play_penalty(self.mountain, card, p)
        onto_bridge = self.mountain[p] == cards.BRIDGE
        slots = self.slots_after(card, p)
        rest = list(self.hand)
        rest.remove(card)
        progress = bot.progress * (2 if onto_bridge and self.filled >= bot.late_game else 1)
        progress += self.open_bonus * (len(slots) - len(self.slots))  # rows growing evenly keep slots open
        value = self.after(rest, penalty, slots, 1 + penalty) - progress
        value += self.green_cost(card, p)
        value -= self.panorama_gain(card, p)
        if cards.HAS_GOAT[card]:  # a goat on the mountain, the higher the fewer herd steps to row 8
            value -= self.bot.goat_high * board.POS_ROW[p]
        return value + bot.bridge_lock * self.bridge_lock(card, p) if bot.bridge_lock else value

    def panorama_gain(self, card: int, p: int) -> float:
        """With Panorama objectives: ``panorama`` x how far ``card`` at ``p`` carries an objective
        not yet achieved (PA2), plus ``panorama_done`` when it achieves one, less
        ``panorama_lost`` when it leaves one that no row can hold any more; 0 without."""
        gain, lost = 0.0, False
        if not self.objectives:
            return gain
        mountain = list(self.mountain)
        mountain[p] = card
        by_number = list(self.by_number)
        if card < cards.N_ASCENT:
            by_number[cards.NUMBER[card]] -= 1
        for seq in self.objectives:
            step = objective_step(self.mountain, self.hand, seq, card, p)
            if step:
                gain = max(gain, self.bot.panorama * step + (self.bot.panorama_done if step == len(seq) else 0.0))
            if step < len(seq) and not self.objectives_lost:
                lost = lost or not objective_possible(mountain, seq, by_number)
        return gain - self.bot.panorama_lost if lost else gain

    def green_cost(self, card: int, p: int) -> float:
        """With Green Path: ``green`` x the change in the green cards a path still needs once
        ``card`` stands at ``p`` (a green card on a path's slot lowers it, another card there
        may raise it), or ``green_lost`` when that leaves no path; 0 without the module."""
        if not self.green_path:
            return 0.0
        mountain = list(self.mountain)
        mountain[p] = card
        need = green_need(mountain)
        if need >= NO_GREEN_PATH:
            return 0.0 if self.green_need >= NO_GREEN_PATH else self.bot.green_lost
        return self.bot.green * (need - self.green_need)

    def bridge_lock(self, card: int, p: int) -> int:
        """The least a card will pay to replace the bridge left of empty slot ``p`` once ``card``
        stands at ``p`` (B3: the larger of its differences to both sides), 0 with no bridge there.
        The play itself is free (B2), which tempts the value model to lock the bridge in."""
        first_of_row = p == board.ROW_START[board.POS_ROW[p]]
        if self.mountain[p] != mrules.EMPTY or first_of_row or self.mountain[p - 1] != cards.BRIDGE:
            return 0
        return (mrules.difference(card, mrules.left_reference(self.mountain, p - 1)) + 1) // 2  # 0 with no reference

    # --- choosing
    def by_kind(self) -> dict[int, list[int]]:
        """The legal actions grouped by kind (``actions.PLAY``, ...)."""
        out: dict[int, list[int]] = {}
        for a in self.legal:
            out.setdefault(actions.DECODE[a][0], []).append(a)
        return out

    def weighed(self) -> list[tuple[float, int]]:
        """(cost, action) of every option the value model weighs, cheapest first; empty for a
        sub-decision or the Summit, which it does not weigh (``ranked`` has the move it takes)."""
        by_kind = self.by_kind()
        if by_kind.keys() & _SUB_DECISIONS or actions.PLAY_SUMMIT in by_kind:
            return []
        return sorted(self.options(by_kind))

    def ranked(self) -> list[int]:
        """The actions worth considering, best first: one for a sub-decision or the Summit, else
        every option the value model weighs, cheapest first."""
        by_kind = self.by_kind()
        if by_kind.keys() & _SUB_DECISIONS:  # a pending payment, campfire move or herd
            if actions.PAY in by_kind:
                payable = [actions.DECODE[a][1] for a in by_kind[actions.PAY]]
                return [actions.FIRST[actions.PAY] + self.give_up(payable, 1, self.slots)[0]]
            if actions.MOVE in by_kind:
                card = self.moving_card
                return [min(by_kind[actions.MOVE], key=lambda a: (self.move_value(card, actions.DECODE[a][2]), a))]
            steps, stop = by_kind.get(actions.STEP, []), by_kind.get(actions.STOP, [])
            if not steps or (stop and len(self.hand) <= self.bot.goat_reserve):
                return stop
            return [max(steps, key=lambda a: (self.goats[actions.DECODE[a][2]], -a))]  # gather goats
        if actions.PLAY_SUMMIT in by_kind:
            return by_kind[actions.PLAY_SUMMIT]
        return [a for _, a in sorted(self.options(by_kind))]

    def move_cost(self, card: int, p: int) -> int:
        return mrules.move_penalty(self.mountain, card, p, self.move_pays)

    def move_value(self, card: int, p: int) -> float:
        """What moving the card a campfire displaced to ``p`` costs: its penalty and, with Green
        Path, what the move does to the path."""
        return self.move_cost(card, p) + self.green_cost(card, p)

    def options(self, by_kind: dict[int, list[int]]) -> list[tuple[float, int]]:
        bot = self.bot
        out = [(self.value_of_play(x, y), a) for a in by_kind.get(actions.PLAY, []) for _, x, y in [actions.DECODE[a]]]
        for a in by_kind.get(actions.CAMP, []):
            _, camp, p = actions.DECODE[a]
            card = self.mountain[p]
            # the displaced card's best destination (ties: the first); its penalty is paid
            above = [q for r, q in mrules.open_slots(self.row_len) if r > board.POS_ROW[p]]
            value, q = min((self.move_value(card, q), q) for q in above)
            cost = self.move_cost(card, q)
            rest = list(self.hand)
            rest.remove(camp)
            out.append((self.after(rest, cost, self.slots, 1 + cost) - bot.progress + (value - cost), a))
        if self.filled < bot.late_game:
            for a in by_kind.get(actions.PLAY_BRIDGE, []):
                rest = list(self.hand)
                rest.remove(cards.BRIDGE)
                slots = self.slots_after(cards.BRIDGE, actions.DECODE[a][2])
                out.append((bot.bridge_debt + self.after(rest, 0, slots, 1), a))
        if actions.ROPE in by_kind:
            fresh = (len(self.hand) - 1) * bot.draw_cost * self.unseen_cost(self.slots)
            out.append((bot.lookahead * fresh, by_kind[actions.ROPE][0]))
        if actions.DISCARD in by_kind and (not out or self.spare() >= bot.spare_margin):
            pair = self.give_up(self.hand, 2, self.slots)
            a = actions.DISCARD_ID[pair[0]][pair[1]]
            out.append((self.after(self.hand, 2, self.slots, 2), a))
        if actions.HERD in by_kind:
            a = max(by_kind[actions.HERD], key=lambda a: board.POS_ROW[actions.DECODE[a][2]])
            herd = self.bot.goat_herd * self.goats[actions.DECODE[a][2]]
            out.append((0.5 + self.after(self.hand, 1, self.slots, 1) - herd, a))
        if not out:
            out = [(0.0, a) for a in self.legal]
        return out

    def spare(self) -> int:
        """This seat's cards (hand and deck) beyond its share of the plays the mountain still needs."""
        needed = board.N_SLOTS - mrules.cards_on_mountain(self.mountain) + 1  # the Summit too
        share = -(-needed // len(self.holdings))  # ceil
        return self.holdings[self.seat] - share
