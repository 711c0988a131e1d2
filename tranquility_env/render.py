"""Drawing the table from one seat's readable view (``views.seat_view``), so nothing hidden can
leak into a picture: ``ansi`` text (the mountain as a coloured pyramid) and an ``rgb_array``
image (Pillow) of the mountain, for videos.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from tranquility_env.board import ROW_SLOTS, ROWS
from tranquility_env.game import Game
from tranquility_env.views import seat_view

_ANSI = {"G": "\x1b[32m", "B": "\x1b[34m", "R": "\x1b[31m"}
_RESET, _DIM = "\x1b[0m", "\x1b[2m"
_RGB = {"G": (46, 139, 87), "B": (65, 105, 225), "R": (205, 55, 55), None: (150, 150, 150)}
CELL = 7  # characters per slot in the text pyramid


def _label(card: str, goats: int) -> tuple[str, str | None]:
    """Short text and colour letter of a card in the mountain."""
    if card == "BRIDGE":
        text, colour = "==", None
    elif card.startswith("CAMP-"):
        text, colour = "^" + card[-1], card[-1]
    elif card == "SUMMIT":
        text, colour = "TOP", None
    else:
        text, colour = card, card[0]
    return text + (f"+{goats}" if goats else ""), colour


def ansi(view: dict[str, Any], colour: bool = True) -> str:
    """The table as text: pyramid (row 9 on top), modules, seats, the viewer's hand, pending."""
    mountain, goats = view["mountain"], view.get("goats") or {}
    lines = [f"Tranquility: The Ascent | turn {view['turn']} | seat {view['current']} to act | {view['status']}"]
    for r in range(ROWS + 1, 0, -1):
        cells = []
        for c in range(1, ROW_SLOTS[r] + 1):
            pos = f"r{r}c{c}"
            if pos in mountain:
                text, letter = _label(mountain[pos], goats.get(pos, 0))
                cell = f"{text:^{CELL}}"
                cells.append(f"{_ANSI[letter]}{cell}{_RESET}" if colour and letter else cell)
            else:
                cell = f"{'.':^{CELL}}"
                cells.append(f"{_DIM}{cell}{_RESET}" if colour else cell)
        lines.append(f"r{r} " + " " * ((10 - ROW_SLOTS[r] - 1) * CELL // 2) + "".join(cells))
    config = view["config"]
    if view.get("panorama"):
        objectives = [
            "-".join(map(str, seq)) + (" done" if done else "")
            for seq, done in zip(view["panorama"]["objectives"], view["panorama"]["achieved"], strict=True)
        ]
        lines.append("panorama objectives: " + ", ".join(objectives))
    if config["goats"]:
        on_top = sum(n for p, n in goats.items() if p.startswith(f"r{ROWS}c"))
        lines.append(f"goats on row 8: {on_top} of {config['goats_needed']} needed")
    if config["green_path"]:
        lines.append("green path module: a green chain from row 1 to row 8 is needed")
    for s, p in enumerate(view["players"]):
        mark = ">" if s == view["current"] else " "
        hand = " ".join(p["hand"]) if "hand" in p else f"{p['hand_size']} cards"
        lines.append(f"{mark} seat {s}: hand {hand} | deck {p['deck_size']} | discard {p['discard_size']}")
    if view["pending"]:
        lines.append("pending: " + ", ".join(f"{k} {v}" for k, v in view["pending"].items()))
    if view["removed"]:
        lines.append("removed: " + " ".join(view["removed"]))
    return "\n".join(lines)


def rgb_array(view: dict[str, Any], cell: tuple[int, int] = (48, 36)) -> np.ndarray:
    """An RGB image (H, W, 3, uint8) of the mountain as a pyramid of coloured cards."""
    from PIL import Image, ImageDraw

    w, h = cell
    image = Image.new("RGB", (10 * w, (ROWS + 1) * h + 8), (245, 240, 228))
    draw = ImageDraw.Draw(image)
    mountain, goats = view["mountain"], view.get("goats") or {}
    for r in range(1, ROWS + 2):
        top = (ROWS + 1 - r) * h + 4
        left0 = (10 - ROW_SLOTS[r]) * w // 2
        for c in range(1, ROW_SLOTS[r] + 1):
            box = (left0 + (c - 1) * w + 2, top + 2, left0 + c * w - 2, top + h - 2)
            pos = f"r{r}c{c}"
            if pos not in mountain:
                draw.rectangle(box, outline=(200, 195, 185))
                continue
            text, letter = _label(mountain[pos], goats.get(pos, 0))
            draw.rectangle(box, fill=_RGB[letter], outline=(40, 40, 40))
            draw.text((box[0] + 4, box[1] + 8), text, fill=(255, 255, 255))
    return np.asarray(image, dtype=np.uint8)


def frame(game: Game, mode: str | None) -> str | np.ndarray | None:
    """An env's ``render()``: the table as the seat to act sees it (its hand shown, others hidden)."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode=... to the env")
        return None
    view = seat_view(game, game.current)
    if mode == "rgb_array":
        return rgb_array(view)
    text = ansi(view)
    if mode == "human":
        print(text)
        return None
    return text
