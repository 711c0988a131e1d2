"""Drawing the table from one seat's readable view (``views.seat_view``), so nothing hidden can
leak into a picture: a ``rich`` text of the table (the mountain as a coloured pyramid, the
modules, the seats), exported as ANSI text for the env's ``ansi`` mode and printed as it is by
``tranquility play``; and an ``rgb_array`` image (Pillow) of the mountain, for videos.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from rich.console import Console
from rich.text import Text

from tranquility_env.rules import board, cards
from tranquility_env.rules import mountain as mrules
from tranquility_env.rules.board import ROW_SLOTS, ROWS

__all__ = ["ansi", "rgb_array", "table"]

STYLE = {"G": "bold green", "B": "bold blue", "R": "bold red", None: "yellow"}
_RGB = {"G": (46, 139, 87), "B": (65, 105, 225), "R": (205, 55, 55), None: (150, 150, 150)}
CELL = 7  # characters per slot in the text pyramid


def label(card: str, goats: int = 0) -> tuple[str, str | None]:
    """Short text and colour letter of a card: ``==`` a bridge, ``^G`` a campfire, ``+2`` goats."""
    if card == "BRIDGE":
        text, colour = "==", None
    elif card.startswith("CAMP-"):
        text, colour = "^" + card[-1], card[-1]
    elif card in ("SUMMIT", "ROPE"):
        text, colour = card, None
    else:
        text, colour = card, card[0]
    return text + (f"+{goats}" if goats else ""), colour


def card_text(name: str) -> Text:
    text, colour = label(name)
    return Text(text, style=STYLE[colour])


def table(view: dict[str, Any]) -> Text:
    """The table as ``view['seat']`` sees it: pyramid (row 9 on top), modules, seats, pending."""
    mountain, goats, config = view["mountain"], view.get("goats") or {}, view["config"]
    out = Text(f"Tranquility: The Ascent | turn {view['turn']} | seat {view['current']} to act | {view['status']}\n")
    for r in range(ROWS + 1, 0, -1):
        out.append(f"r{r} " + " " * ((10 - ROW_SLOTS[r] - 1) * CELL // 2))
        for c in range(1, ROW_SLOTS[r] + 1):
            pos = f"r{r}c{c}"
            if pos in mountain:
                text, colour = label(mountain[pos], goats.get(pos, 0))
                out.append(f"{text:^{CELL}}", style=STYLE[colour])
            else:
                out.append(f"{'.':^{CELL}}", style="dim")
        out.append("\n")
    if view.get("panorama"):
        out.append("panorama objectives: ")
        for i, (seq, done) in enumerate(zip(view["panorama"]["objectives"], view["panorama"]["achieved"], strict=True)):
            out.append(
                ("" if i == 0 else ", ") + "-".join(map(str, seq)) + (" (done)" if done else ""),
                style="green" if done else "",
            )
        out.append("\n")
    if config["goats"]:
        on_top = sum(n for p, n in goats.items() if p.startswith(f"r{ROWS}c"))
        out.append(f"goats on row 8: {on_top} of {config['goats_needed']} needed\n")
    if config["green_path"]:
        kinds = [mrules.EMPTY] * board.N_POS
        for pos, name in mountain.items():
            kinds[board.parse_pos(pos)] = cards.parse_card(name, config["goats"])
        out.append(f"green path (row 1 to row 8): {'complete' if mrules.green_path(kinds) else 'not yet'}\n")
    for s, p in enumerate(view["players"]):
        out.append(">" if s == view["current"] else " ")
        out.append(f" seat {s}{' (you)' if s == view['seat'] else ''}: hand ")
        if "hand" in p:
            for i, name in enumerate(p["hand"]):
                out.append(" " if i else "")
                out.append_text(card_text(name))
        else:
            out.append(f"{p['hand_size']} cards")
        out.append(f" | deck {p['deck_size']} | discard {p['discard_size']}\n")
    if view["pending"]:
        out.append("pending: " + ", ".join(f"{k} {v}" for k, v in view["pending"].items()) + "\n")
    if view["removed"]:
        out.append("removed: " + " ".join(view["removed"]) + "\n")
    out.rstrip()
    return out


def ansi(view: dict[str, Any], colour: bool = True) -> str:
    """``table(view)`` as text, with ANSI colours unless ``colour`` is False."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=colour, no_color=not colour, width=200, color_system="standard" if colour else None
    )
    console.print(table(view), end="")
    return buffer.getvalue()


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
            text, letter = label(mountain[pos], goats.get(pos, 0))
            draw.rectangle(box, fill=_RGB[letter], outline=(40, 40, 40))
            draw.text((box[0] + 4, box[1] + 8), text, fill=(255, 255, 255))
    return np.asarray(image, dtype=np.uint8)
