"""Stable integer action ids: one fixed layout for every configuration (RULES.md N2).

Like the Hanabi Learning Environment's move uids, each N2 move string has exactly one integer id,
and the same id means the same move in every game and config. Card ids are those of
``cards.py`` (48 Ascent kinds, then BRIDGE, CAMP-G/B/R, SUMMIT, ROPE); positions those of
``board.py`` (0 = r1c1 ... 43 = r8c2, 44 = r9c1).

=============  ===========  =====  ==================================================
first id       move         count  argument(s)
=============  ===========  =====  ==================================================
0              play ASCENT  2112   Ascent kind k (0..47), position p (0..43): k*44 + p
2112           play BRIDGE    44   position p
2156           play SUMMIT     1   r9c1
2157           camp          132   colour c (G, B, R), position p: c*44 + p
2289           move           44   position p
2333           discard      1485   kinds a <= b (0..53), pairs in order (0,0), (0,1) ... (53,53)
3818           pay            54   kind k
3872           rope            1
3873           herd           44   position p
3917           step           44   position p
3961           stop            1
=============  ===========  =====  ==================================================

``N_ACTIONS`` = 3962. Ids that a config can never use (goat kinds without the goats module,
``rope`` with several players, a bridge at a row's end) are simply never legal.
"""

from __future__ import annotations

from tranquility_env.rules import board, cards

__all__ = [
    "CAMP",
    "DECODE",
    "DISCARD",
    "DISCARD_ID",
    "FIRST",
    "HERD",
    "MOVE",
    "N_ACTIONS",
    "PAY",
    "PLAY",
    "PLAY_BRIDGE",
    "PLAY_SUMMIT",
    "ROPE",
    "STEP",
    "STOP",
    "camp_id",
    "from_string",
    "play_id",
    "to_string",
]

PLAY, PLAY_BRIDGE, PLAY_SUMMIT, CAMP, MOVE, DISCARD, PAY, ROPE, HERD, STEP, STOP = range(11)

_S = board.N_SLOTS
_K = cards.N_KINDS
_PAIRS = [(a, b) for a in range(_K) for b in range(a, _K)]
_BLOCKS = (  # (move type, count), in id order
    (PLAY, cards.N_ASCENT * _S),
    (PLAY_BRIDGE, _S),
    (PLAY_SUMMIT, 1),
    (CAMP, 3 * _S),
    (MOVE, _S),
    (DISCARD, len(_PAIRS)),
    (PAY, _K),
    (ROPE, 1),
    (HERD, _S),
    (STEP, _S),
    (STOP, 1),
)
FIRST: dict[int, int] = {}
_n = 0
for _kind, _count in _BLOCKS:
    FIRST[_kind] = _n
    _n += _count
N_ACTIONS = _n

# DECODE[a] = (move type, x, y); x/y are card kind and position, or the two discarded kinds.
DECODE: list[tuple[int, int, int]] = []
DECODE += [(PLAY, k, p) for k in range(cards.N_ASCENT) for p in range(_S)]
DECODE += [(PLAY_BRIDGE, cards.BRIDGE, p) for p in range(_S)]
DECODE += [(PLAY_SUMMIT, cards.SUMMIT, board.SUMMIT_POS)]
DECODE += [(CAMP, cards.CAMP[c], p) for c in range(3) for p in range(_S)]
DECODE += [(MOVE, -1, p) for p in range(_S)]
DECODE += [(DISCARD, a, b) for a, b in _PAIRS]
DECODE += [(PAY, k, -1) for k in range(_K)]
DECODE += [(ROPE, cards.ROPE, -1)]
DECODE += [(HERD, -1, p) for p in range(_S)]
DECODE += [(STEP, -1, p) for p in range(_S)]
DECODE += [(STOP, -1, -1)]
assert len(DECODE) == N_ACTIONS

# DISCARD_ID[a][b] for a <= b (b < a is filled symmetrically, for convenience).
DISCARD_ID = [[0] * _K for _ in range(_K)]
for _i, (_a, _b) in enumerate(_PAIRS):
    DISCARD_ID[_a][_b] = DISCARD_ID[_b][_a] = FIRST[DISCARD] + _i


def play_id(kind: int, p: int) -> int:
    """The id of playing card ``kind`` at position ``p`` (Ascent, bridge or Summit)."""
    if kind < cards.N_ASCENT:
        return kind * _S + p
    if kind == cards.BRIDGE:
        return FIRST[PLAY_BRIDGE] + p
    return FIRST[PLAY_SUMMIT]


def camp_id(colour: int, p: int) -> int:
    return FIRST[CAMP] + colour * _S + p


def to_string(action: int, goats: bool) -> str:
    """The N2 move string of an action id; goat kinds print with ``*`` only with the goats module."""
    if not (isinstance(action, int) and 0 <= action < N_ACTIONS):
        raise ValueError(f"action must be an integer id from 0 to {N_ACTIONS - 1}, got {action!r}")
    kind, x, y = DECODE[action]

    def card(k: int) -> str:
        return cards.NAME[k if goats else cards.PLAIN[k]]

    if kind in (PLAY, PLAY_BRIDGE, PLAY_SUMMIT, CAMP):
        verb = "camp" if kind == CAMP else "play"
        return f"{verb} {card(x)} {board.POS_NAME[y]}"
    if kind == DISCARD:
        return f"discard {card(x)} {card(y)}"
    if kind == PAY:
        return f"pay {card(x)}"
    if kind in (MOVE, HERD, STEP):
        return f"{('move', 'herd', 'step')[(MOVE, HERD, STEP).index(kind)]} {board.POS_NAME[y]}"
    return "rope" if kind == ROPE else "stop"


def from_string(move: str, goats: bool) -> int:
    """The action id of an N2 move string; ``ValueError`` naming the move and what is malformed."""
    if not isinstance(move, str):
        raise ValueError(f"a move must be a string, got {type(move).__name__}")
    try:
        return _parse(move, goats)
    except ValueError as err:
        raise ValueError(f"malformed move {move!r}: {err}") from None


def _parse(move: str, goats: bool) -> int:
    words = move.split(" ")
    verb, args = words[0], words[1:]
    arity = {"play": 2, "camp": 2, "move": 1, "discard": 2, "pay": 1, "rope": 0, "herd": 1, "step": 1, "stop": 0}
    if verb not in arity:
        raise ValueError(f"unknown verb {verb!r} (N2: {', '.join(arity)})")
    if len(args) != arity[verb] or any(not a for a in args):
        raise ValueError(f"'{verb}' takes {arity[verb]} argument(s) (N2)")
    if verb in ("rope", "stop"):
        return FIRST[ROPE] if verb == "rope" else FIRST[STOP]
    if verb in ("move", "herd", "step"):
        p = board.parse_pos(args[0])
        if p == board.SUMMIT_POS:
            raise ValueError("the Summit slot holds only the SUMMIT (E1)")
        return FIRST[{"move": MOVE, "herd": HERD, "step": STEP}[verb]] + p
    if verb == "pay":
        return FIRST[PAY] + cards.parse_card(args[0], goats)
    if verb == "discard":
        a, b = (cards.parse_card(x, goats) for x in args)
        if b < a:
            raise ValueError("discard names A before B in canonical order (N2)")
        return DISCARD_ID[a][b]
    k, p = cards.parse_card(args[0], goats), board.parse_pos(args[1])
    if verb == "camp":
        if not cards.IS_CAMP[k]:
            raise ValueError("'camp' plays a campfire (N2)")
        if p == board.SUMMIT_POS:
            raise ValueError("a campfire never goes to r9c1 (C1)")
        return camp_id(cards.COLOUR[k], p)
    if cards.IS_CAMP[k] or k == cards.ROPE:
        raise ValueError(f"{args[0]} is not played with 'play' (N2)")
    if (k == cards.SUMMIT) != (p == board.SUMMIT_POS):
        raise ValueError("only the SUMMIT goes to r9c1, and only there (E1)")
    return play_id(k, p)
