"""Bots: one protocol (``Bot.act(observation, mask, view)``), so any bot can fill any seat.

- ``protocol``: the ``Bot`` protocol.
- ``random_bot``: ``RandomBot``, uniform over the legal moves.
- ``value_model`` and ``heuristic``: ``HeuristicBot``, the hand-written strategy, and its
  ``ValueModel``.
- ``search``: the end-game rollout search both the heuristic and the learned bots use.
- ``policy``: ``PolicyBot``, a learned policy from a checkpoint, in numpy.
- ``policy_search``: ``PolicyWithSearchBot``, a policy with an end-game search (or a search at
  every decision: the expert of expert iteration).
- ``shipped``: the learned bots that come with the package.
- ``partners``: the partner pool, bots with different habits, for play with strangers.
- ``reasons``: what a bot weighed when it chose a move.
- ``pimc``: ``PimcBot``, Perfect-Information Monte Carlo over the omniscient solver.
- ``omniscient``: ``OmniscientBot``, which CHEATS (it sees every card) to measure a deal's ceiling.

``make_bot(name)`` makes any of them from its name.
"""

from __future__ import annotations

from typing import Any

from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.bots.omniscient import OmniscientBot
from tranquility_env.bots.partners import PARTNERS, partner_bot
from tranquility_env.bots.pimc import PimcBot
from tranquility_env.bots.policy import PolicyBot, load_policy
from tranquility_env.bots.policy_search import EarlySearch, PolicyWithSearchBot
from tranquility_env.bots.protocol import Bot
from tranquility_env.bots.random_bot import RandomBot
from tranquility_env.bots.shipped import SHIPPED_BOTS, shipped_bot
from tranquility_env.bots.value_model import ValueModel
from tranquility_env.rules.config import Config

__all__ = [
    "POLICY_KINDS",
    "SHIPPED_BOTS",
    "Bot",
    "EarlySearch",
    "HeuristicBot",
    "OmniscientBot",
    "PimcBot",
    "PolicyBot",
    "PolicyWithSearchBot",
    "RandomBot",
    "ValueModel",
    "load_policy",
    "make_bot",
    "resolve",
    "shipped_bot",
]


POLICY_KINDS = ("policy", "policy+search", "policy+own-search", "policy+expert")


def resolve(spec: str, table: Any = None) -> str:
    """``spec`` with a bare policy kind (``POLICY_KINDS``) made explicit:
    the shipped bot for ``table`` (a ``Config``; base game only), as ``KIND:PATH``."""
    if spec not in POLICY_KINDS:
        return spec
    if table is None:
        raise ValueError(f"bot {spec!r} without a path means the shipped bot of a table: give the table's config")
    config = Config.coerce(table)
    if config != Config(players=config.players):
        raise ValueError(
            f"the shipped learned bots play the base game; {spec!r} has none for {config.to_dict()}: "
            "name a policy:PATH made for this table, or use heuristic"
        )
    return f"{spec}:{shipped_bot(config.players)}"


def make_bot(spec: str, seed: int | None = None, table: Any = None) -> Bot:
    """A bot from its name: ``random``, ``heuristic``, ``heuristic-no-search`` (its value model
    alone, much faster: for teammates inside training), ``policy:PATH`` (a checkpoint folder),
    ``policy+search:PATH`` (that policy with the heuristic's end-game search) or
    ``policy+own-search:PATH`` (that policy with the same search over its own rollouts) or
    ``policy+expert:PATH`` (that search at every decision, ``EarlySearch`` before the end game); the
    policy names without ``:PATH`` take the shipped bot for ``table``; ``partner:NAME`` is a bot
    of the partner pool (``partners.PARTNERS``); ``pimc[:OPTIONS]`` is ``PimcBot`` (``OPTIONS``:
    ``samples=N,candidates=N,budget=N,margin=N,search_from=N``, any of them) and
    ``omniscient[:budget=N]`` ``OmniscientBot``, which cheats. Given a ``table`` config, a policy
    made for another table is refused (``PolicyBot.check_table``)."""
    spec = resolve(spec, table)
    kind, _, options = spec.partition(":")
    if kind in ("pimc", "omniscient"):
        names = ("samples", "candidates", "budget", "margin", "search_from") if kind == "pimc" else ("budget",)
        settings = _options(spec, options, names)
        return PimcBot(seed=seed, **settings) if kind == "pimc" else OmniscientBot(seed=seed, **settings)
    if spec == "random":
        return RandomBot(seed)
    if spec in ("heuristic", "heuristic-no-search"):
        return HeuristicBot(seed=seed) if spec == "heuristic" else HeuristicBot(seed=seed, rollouts=0)
    kind, _, path = spec.partition(":")
    if kind == "partner" and path in PARTNERS:
        return partner_bot(path, seed)
    if kind in POLICY_KINDS and path:
        policy = load_policy(path, seed)
        if table is not None:
            policy.check_table(table)
        if kind == "policy":
            return policy
        if kind == "policy+expert":
            return PolicyWithSearchBot(policy, HeuristicBot(seed=seed), own_search=True, early=EarlySearch())
        return PolicyWithSearchBot(policy, HeuristicBot(seed=seed), own_search=kind == "policy+own-search")
    raise ValueError(
        f"unknown bot {spec!r}: use 'random', 'heuristic', 'heuristic-no-search', 'policy[:PATH]', "
        f"'policy+search[:PATH]', 'policy+own-search[:PATH]', 'policy+expert[:PATH]', 'pimc[:OPTIONS]', "
        f"'omniscient[:budget=N]' or 'partner:NAME' (NAME one of {list(PARTNERS)})"
    )


def _options(spec: str, text: str, names: tuple[str, ...]) -> dict[str, int]:
    """``name=N,...`` options of a bot name, each one of ``names`` once, with a whole number (the
    bot checks its range)."""
    out: dict[str, int] = {}
    for item in filter(None, text.split(",")):
        name, _, value = item.partition("=")
        if name not in names or not value.isdigit() or name in out:
            raise ValueError(f"bot {spec!r}: options are {', '.join(n + '=N' for n in names)} (N a whole number)")
        out[name] = int(value)
    return out
