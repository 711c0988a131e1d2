"""The partner pool: bots with different habits, to measure how a bot plays with strangers.

Each partner is a bot name with its habit in one line, and a split: a method may train beside the
``train`` partners (or learn from them); the ``test`` partners are kept for evaluation only, so
that an ad-hoc score (``tranquility evaluate --adhoc``) measures play with partners never seen.
The variants of the heuristic change one convention of its value model each, without its
end-game search (fast enough to sit inside training loops), except ``careful`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.bots.random_bot import RandomBot

__all__ = ["PARTNERS", "names", "partner_bot"]


@dataclass(frozen=True)
class Partner:
    name: str
    habit: str
    split: str  # "train" or "test"
    settings: dict[str, Any] = field(default_factory=dict)  # HeuristicBot's, or {"bot": name} for another bot


PARTNERS = {
    p.name: p
    for p in (
        Partner("careful-no-search", "the heuristic's value model: cheapest move by its rules", "train",
                {"rollouts": 0}),
        Partner("summit-hoarder", "keeps a Summit in hand from the first turn", "train",
                {"rollouts": 0, "summit_from": 0}),
        Partner("bridge-happy", "plays bridges whenever one fits, at no debt", "train",
                {"rollouts": 0, "bridge_debt": -1.0, "late_game": 44}),
        Partner("discarder", "discards a pair rather than pay for a dear play", "train",
                {"rollouts": 0, "progress": 0.5}),
        Partner("careful", "the heuristic with its end-game search", "test", {}),
        Partner("wide-builder", "grows every row evenly, paying more to keep slots open", "test",
                {"rollouts": 0, "open_bonus": 1.5}),
        Partner("bridge-averse", "plays a bridge only when nothing else is legal", "test",
                {"rollouts": 0, "late_game": 0}),
        Partner("greedy", "weak but legal: places a card whenever it can, never minding the cost", "test",
                {"rollouts": 0, "lookahead": 0.0, "progress": 10.0}),
        Partner("random", "weakest: uniform over the legal moves", "test", {"bot": "random"}),
    )
}  # fmt: skip


def names(split: str = "all") -> list[str]:
    """The partners of a split ("train", "test" or "all"), or those named in a comma-separated list."""
    if split == "all":
        return list(PARTNERS)
    if split in ("train", "test"):
        return [n for n, p in PARTNERS.items() if p.split == split]
    chosen = split.split(",")
    unknown = [n for n in chosen if n not in PARTNERS]
    if unknown:
        raise ValueError(f"unknown partner {unknown[0]!r}: one of {list(PARTNERS)}, or 'train', 'test', 'all'")
    return chosen


def partner_bot(name: str, seed: int | None = None) -> HeuristicBot | RandomBot:
    """The bot of partner ``name``."""
    if name not in PARTNERS:
        raise ValueError(f"unknown partner {name!r}: one of {list(PARTNERS)}")
    settings = PARTNERS[name].settings
    if settings.get("bot") == "random":
        return RandomBot(seed)
    return HeuristicBot(seed=seed, **settings)
