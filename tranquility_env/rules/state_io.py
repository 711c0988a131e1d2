"""A game state as JSON data and back (``shared/spec/state.md``, RULES.md N3).

``parse_state`` checks everything it is given and raises ``ValueError`` saying what is wrong: an
unknown card or key, a card count that does not match the config's deck, a mountain that breaks
M2/M3/P1/P2/B1, a goat or panorama record the mountain cannot have, or a pending sub-decision that
cannot be. It returns the state as the values of ``Game``'s fields; ``Game.from_dict`` builds the
game from them and checks what needs the move generator (the status, E2).
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

from tranquility_env.rules import board, cards
from tranquility_env.rules import mountain as mrules
from tranquility_env.rules.board import POS_COL, POS_NAME, POS_ROW, ROW_SLOTS, ROW_START, ROWS
from tranquility_env.rules.cards import BRIDGE, COLOUR, N_ASCENT, NAME, NUMBER, ROPE, SUMMIT
from tranquility_env.rules.config import Config
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.rules.status import HERD_PENDING, LOST, MOVE_PENDING, NO_PENDING, ONGOING, PAY_PENDING, WON
from tranquility_env.rules.tables import PANORAMA_SEQUENCES

__all__ = ["check_mountain", "parse_state", "state_to_dict"]

_KEYS = {"config", "mountain", "goats", "players", "removed", "panorama", "current", "pending", "status", "turn"}
_OPTIONAL = {"goats"}
_PENDING_KEYS = {"pay": {"kind", "owed"}, "move": {"kind", "card", "from"}, "herd": {"kind", "at", "steps", "owed"}}


def state_to_dict(game: Any) -> dict[str, Any]:
    """A ``Game``'s state as JSON-ready data (read from its public fields)."""
    mountain = game.mountain
    pending: dict[str, Any] | None = None
    if game.pending == PAY_PENDING:
        pending = {"kind": "pay", "owed": game.owed}
    elif game.pending == MOVE_PENDING:
        pending = {"kind": "move", "card": NAME[game.moving_card], "from": POS_NAME[game.moving_from]}
    elif game.pending == HERD_PENDING:
        pending = {"kind": "herd", "at": POS_NAME[game.herd_at], "steps": game.herd_steps, "owed": game.owed}
    return {
        "config": game.config.to_dict(),
        "mountain": {POS_NAME[p]: NAME[k] for p, k in enumerate(mountain) if k != EMPTY},
        "goats": {POS_NAME[p]: n for p, n in enumerate(game.goats) if n},
        "players": [
            {
                "hand": [NAME[k] for k in hand],
                "deck": [NAME[k] for k in reversed(deck)],
                "discard": [NAME[k] for k in discard],
            }
            for hand, deck, discard in zip(game.hands, game.decks, game.discards, strict=False)
        ],
        "removed": [NAME[k] for k in game.removed],
        "panorama": None
        if not game.config.panoramas
        else {"objectives": [list(seq) for seq in game.objectives], "achieved": list(game.achieved)},
        "current": game.current,
        "pending": pending,
        "status": game.status,
        "turn": game.turn,
    }


def parse_state(d: Any) -> dict[str, Any]:
    """The values of ``Game``'s fields for the state ``d``; ``ValueError`` saying what is wrong."""
    _expect(isinstance(d, dict), f"a game state must be a dict, got {type(d).__name__}")
    unknown = sorted(set(d) - _KEYS, key=str)
    _expect(not unknown, f"unknown state key {unknown[0]!r}; allowed: {', '.join(sorted(_KEYS))}" if unknown else "")
    missing = sorted(_KEYS - _OPTIONAL - set(d))
    _expect(not missing, f"state key {missing[0]!r} is missing" if missing else "")
    _expect(isinstance(d["config"], dict), "state 'config' must be a dict")
    absent = [f for f in Config.fields() if f not in d["config"]]
    _expect(not absent, f"state 'config' lacks {absent[0]!r} (spec: every field present)" if absent else "")
    config = Config.from_dict(d["config"])
    game = _blank(config)
    goats_on = config.goats

    def card(text: Any, where: str) -> int:
        try:
            return cards.parse_card(text, goats_on)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None

    def position(text: Any, where: str) -> int:
        try:
            return board.parse_pos(text)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None

    # --- the mountain
    _expect(isinstance(d["mountain"], dict), "state 'mountain' must be a dict of position -> card")
    for key, name in d["mountain"].items():
        p, k = position(key, "mountain"), card(name, f"mountain {key}")
        if p == board.SUMMIT_POS:
            _expect(k == SUMMIT, f"mountain r9c1 holds {name}, but only the SUMMIT goes there (E1)")
        else:
            _expect(
                k < N_ASCENT or k == BRIDGE or cards.IS_CAMP[k],
                f"mountain {key} holds {name}, which is never played to a slot (N2)",
            )
        game.mountain[p] = k
    check_mountain(game.mountain)

    # --- goats
    goats = d.get("goats") or {}
    _expect(isinstance(goats, dict), "state 'goats' must be a dict of position -> count")
    _expect(goats_on or not goats, "state 'goats' must be empty without the goats module (GO1)")
    for key, n in goats.items():
        p = position(key, "goats")
        k = game.mountain[p]
        _expect(
            isinstance(n, int) and not isinstance(n, bool) and n > 0,
            f"goats at {key}: count must be a positive integer, got {n!r}",
        )
        _expect(
            0 <= k < N_ASCENT or (k != EMPTY and cards.IS_CAMP[k]),
            f"goats at {key}: goats stand only on Ascent cards and campfires (GO2), "
            f"found {NAME[k] if k != EMPTY else 'an empty slot'}",
        )
        game.goats[p] = n
    # --- players and removed cards
    seats = d["players"]
    _expect(
        isinstance(seats, list) and len(seats) == config.players,
        f"state 'players' must be a list of {config.players} seats (config 'players')",
    )
    for seat, entry in enumerate(seats):
        _expect(
            isinstance(entry, dict) and set(entry) == {"hand", "deck", "discard"},
            f"players[{seat}] must be a dict with exactly 'hand', 'deck' and 'discard'",
        )
        for field in ("hand", "deck", "discard"):
            _expect(isinstance(entry[field], list), f"players[{seat}].{field} must be a list")
        hand = [card(x, f"players[{seat}].hand") for x in entry["hand"]]
        _expect(hand == sorted(hand), f"players[{seat}].hand is not in canonical order (N1): {entry['hand']}")
        _expect(
            len(hand) <= config.hand_size,
            f"players[{seat}].hand holds {len(hand)} cards, more than the hand size {config.hand_size} (T3)",
        )
        game.hands[seat] = hand
        game.decks[seat] = [card(x, f"players[{seat}].deck") for x in reversed(entry["deck"])]
        game.discards[seat] = [card(x, f"players[{seat}].discard") for x in entry["discard"]]
    _expect(isinstance(d["removed"], list), "state 'removed' must be a list")
    game.removed = [card(x, "removed") for x in d["removed"]]
    _expect(
        all(k in (BRIDGE, ROPE) for k in game.removed),
        "state 'removed' may hold only replaced bridges and used ropes (K1)",
    )

    # --- scalars and the pending sub-decision
    current, status, turn = d["current"], d["status"], d["turn"]
    _expect(
        _is_int(current) and 0 <= current < config.players,
        f"state 'current' must be a seat from 0 to {config.players - 1}, got {current!r}",
    )
    _expect(status in (ONGOING, WON, LOST), f"state 'status' must be 'ongoing', 'won' or 'lost', got {status!r}")
    _expect(_is_int(turn) and turn >= 0, f"state 'turn' must be a non-negative integer, got {turn!r}")
    game.current, game.status, game.turn = current, status, turn
    _expect(
        (status == WON) == (game.mountain[board.SUMMIT_POS] == SUMMIT),
        "state 'status' is 'won' exactly when the SUMMIT stands on r9c1 (E1, K5)",
    )
    _read_pending(game, d["pending"], card, position)

    # GO1: every goat came with a goat card from a hand, and such cards never leave the
    # mountain (a campfire's displaced card is in `pending` until it moves).
    entered = [*game.mountain, game.moving_card]
    goat_cards = sum(1 for k in entered if 0 <= k < N_ASCENT and cards.HAS_GOAT[k])
    _expect(
        sum(game.goats) <= goat_cards,
        f"{sum(game.goats)} goats stand on the mountain, but only {goat_cards} goat cards entered it (GO1)",
    )

    # --- every card in exactly one place
    places = [game.mountain, game.removed, [game.moving_card], *game.hands, *game.decks, *game.discards]
    have = Counter(k for place in places for k in place if k != EMPTY)
    want = cards.game_deck(config.players, config.bridges, config.campfires_per_colour, config.ropes, goats_on)
    if have != want:
        extra, short = have - want, want - have
        parts = [f"{n} x {NAME[k]} too many" for k, n in sorted(extra.items())]
        parts += [f"{n} x {NAME[k]} missing" for k, n in sorted(short.items())]
        raise ValueError("the cards do not match the config's deck: " + ", ".join(parts))

    _read_panorama(game, d["panorama"])
    return vars(game)


def _blank(config: Config) -> SimpleNamespace:
    """The fields of a game with an empty table, to be filled from the data."""
    players = config.players
    return SimpleNamespace(
        config=config,
        mountain=[EMPTY] * board.N_POS,
        goats=[0] * board.N_POS,
        hands=[[] for _ in range(players)],
        decks=[[] for _ in range(players)],
        discards=[[] for _ in range(players)],
        removed=[],
        objectives=[],
        achieved=[],
        current=0,
        status=ONGOING,
        turn=0,
        pending=NO_PENDING,
        owed=0,
        moving_card=EMPTY,
        moving_from=EMPTY,
        herd_at=EMPTY,
        herd_steps=0,
    )


def check_mountain(mountain: list[int]) -> None:
    """``ValueError`` if the cards on ``mountain`` break M2, M3, P1, P2, B1 or E1/B5."""
    for p in range(board.N_SLOTS):
        k = mountain[p]
        r, c = POS_ROW[p], POS_COL[p]
        if k == EMPTY:
            continue
        where = f"mountain {POS_NAME[p]} ({NAME[k]})"
        _expect(
            c == 1 or mountain[p - 1] != EMPTY, f"{where}: the slot to its left is empty (M3: rows fill left to right)"
        )
        _expect(
            r == 1 or (mountain[ROW_START[r - 1] + c - 1] != EMPTY and mountain[ROW_START[r - 1] + c] != EMPTY),
            f"{where}: not supported by two cards below (M2)",
        )
        _expect(k >= N_ASCENT or NUMBER[k] >= r, f"{where}: a {NUMBER[k]} may not stand in row {r} (P1)")
        _expect(k != BRIDGE or 1 < c < ROW_SLOTS[r], f"{where}: a bridge never stands first or last in a row (B1)")
        if c > 1 and COLOUR[k] >= 0:
            left = mountain[p - 1]
            _expect(COLOUR[left] != COLOUR[k], f"{where}: same colour as {NAME[left]} on its left (P2)")
    if mountain[board.SUMMIT_POS] != EMPTY:
        _expect(
            mrules.cards_on_mountain(mountain) == board.N_SLOTS,
            "mountain r9c1: the SUMMIT stands only on a full mountain without bridges (E1, B5)",
        )


def _read_pending(game: SimpleNamespace, pending: Any, card: Any, position: Any) -> None:
    if pending is None:
        return
    _expect(
        isinstance(pending, dict) and pending.get("kind") in _PENDING_KEYS,
        f"state 'pending' must be null or a dict with kind 'pay', 'move' or 'herd', got {pending!r}",
    )
    kind = pending["kind"]
    _expect(
        set(pending) == _PENDING_KEYS[kind],
        f"pending {kind!r} must have exactly the keys {sorted(_PENDING_KEYS[kind])}, got {sorted(pending)}",
    )
    _expect(game.status == ONGOING, "state 'pending' must be null once the game is over")
    hand = game.hands[game.current]
    if kind == "pay":
        owed = pending["owed"]
        _expect(
            _is_int(owed) and 1 <= owed <= len(hand),
            f"pending pay: 'owed' must be from 1 to the {len(hand)} cards in hand (P4), got {owed!r}",
        )
        game.pending, game.owed = PAY_PENDING, owed
    elif kind == "move":
        k, p = card(pending["card"], "pending move 'card'"), position(pending["from"], "pending move 'from'")
        _expect(k < N_ASCENT, f"pending move: a campfire displaces only Ascent cards (C1), got {pending['card']}")
        _expect(
            p != board.SUMMIT_POS and game.mountain[p] == cards.CAMP[COLOUR[k]],
            f"pending move: {pending['from']} must hold the {NAME[cards.CAMP[COLOUR[k]]]} "
            f"that displaced {pending['card']} (C1)",
        )
        game.pending, game.moving_card, game.moving_from = MOVE_PENDING, k, p
    else:
        at, steps, owed = position(pending["at"], "pending herd 'at'"), pending["steps"], pending["owed"]
        _expect(game.config.goats, "pending herd: needs the goats module (GO2)")
        _expect(game.goats[at] > 0, f"pending herd: no goats stand at {pending['at']} (GO2)")
        _expect(_is_int(steps) and steps >= 0, f"pending herd: 'steps' must be a non-negative integer, got {steps!r}")
        _expect(
            owed in (0, 1) and not isinstance(owed, bool) and (steps > 0 or owed == 0),
            f"pending herd: 'owed' is 1 right after a step and 0 otherwise (K3), got {owed!r}",
        )
        _expect(owed <= len(hand), "pending herd: a step is owed but the hand is empty (GO2)")
        game.pending, game.herd_at, game.herd_steps, game.owed = HERD_PENDING, at, steps, owed


def _read_panorama(game: SimpleNamespace, panorama: Any) -> None:
    want = game.config.panoramas
    if not want:
        _expect(panorama is None, "state 'panorama' must be null when config 'panoramas' is 0 (PA1)")
        return
    _expect(
        isinstance(panorama, dict) and set(panorama) == {"objectives", "achieved"},
        "state 'panorama' must be a dict with exactly 'objectives' and 'achieved'",
    )
    objectives, achieved = panorama["objectives"], panorama["achieved"]
    _expect(
        isinstance(objectives, list) and len(objectives) == want,
        f"panorama 'objectives' must list {want} sequences (config 'panoramas')",
    )
    _expect(
        isinstance(achieved, list) and len(achieved) == want and all(isinstance(a, bool) for a in achieved),
        f"panorama 'achieved' must list {want} booleans",
    )
    seqs = []
    for seq in objectives:
        seq = tuple(seq) if isinstance(seq, list) else seq
        _expect(seq in PANORAMA_SEQUENCES, f"panorama objective {seq!r} is not a sequence of PA4")
        seqs.append(seq)
    _expect(len(set(seqs)) == len(seqs), "panorama objectives must be different cards (PA1)")
    game.objectives, game.achieved = seqs, list(achieved)
    for i, seq in enumerate(seqs):
        if not achieved[i]:
            _expect(
                not _shows(game.mountain, seq),
                f"panorama objective {list(seq)} stands in the mountain but is not marked achieved (PA2)",
            )


def _shows(mountain: list[int], seq: tuple[int, ...]) -> bool:
    """PA2 by brute force: some row holds ``seq`` on consecutive Ascent cards."""
    for r in range(1, ROWS + 1):
        row = mountain[ROW_START[r] : ROW_START[r] + ROW_SLOTS[r]]
        numbers = [NUMBER[k] if 0 <= k < N_ASCENT else 0 for k in row]
        for i in range(len(row) - len(seq) + 1):
            if tuple(numbers[i : i + len(seq)]) == seq:
                return True
    return False


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)
