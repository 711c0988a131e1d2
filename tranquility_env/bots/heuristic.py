"""``HeuristicBot``: the hand-written strategy, its value model plus an end-game search."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from tranquility_env.batch import GameBatch
from tranquility_env.batch import value_model as compiled
from tranquility_env.bots.search import best_by_rollouts
from tranquility_env.bots.value_model import ValueModel
from tranquility_env.rules.game import ONGOING, Game

__all__ = ["PLAYER_DEFAULTS", "HeuristicBot"]

# The settings whose default depends on the player count (a constructor argument left None takes
# its value here). Solo, a seat sees every card but its deck's order, and no teammate shares the
# cost of the plays, so the search starts earlier and the value model weighs a few terms apart.
PLAYER_DEFAULTS: dict[str, dict[int, float]] = {
    "search_from": {1: 30, 2: 32, 3: 32, 4: 32, 5: 32},
    "rollouts": {1: 96, 2: 48, 3: 48, 4: 48, 5: 96},
    "reach": {1: 0.0, 2: 0.3, 3: 0.3, 4: 0.3, 5: 0.3},
    "open_bonus": {1: 0.0, 2: 0.25, 3: 0.25, 4: 0.25, 5: 0.25},
    "steep": {1: 0.5, 2: 1.0, 3: 1.0, 4: 1.0, 5: 1.0},
}


class HeuristicBot:
    """A careful hand-written strategy: the baseline that learned bots must beat.

    It reasons from its seat's readable view only (``views.seat_view``). Until ``search_from``
    cards stand on the mountain it makes the cheapest move of its value model (``ValueModel``);
    from then on it plays its ``candidates`` best moves out to the end on ``rollouts`` sampled
    deals each (``search.rollout_scores``), every seat playing the value model, and makes the
    move with the best mean score. ``rollouts=0`` turns the search off (bot name
    ``heuristic-no-search``). A setting left ``None`` takes its value for the player count from
    ``PLAYER_DEFAULTS``. ``docs/bots.md`` explains every weight and how it was chosen.
    """

    def __init__(
        self,
        lookahead: float = 0.1,
        progress: float = 1.5,
        draw_cost: float = 0.5,
        no_fit: float = 4.0,
        bridge_debt: float = 0.8,
        spare_margin: int = 2,
        late_game: int = 34,
        fit_discount: float = 0.05,
        summit_from: int = 34,
        scarcity: float = 2.0,
        steep: float | None = None,
        open_bonus: float | None = None,
        hand_decay: float = 0.5,
        bridge_lock: float = 0.3,
        green: float = 2.0,
        green_lost: float = 40.0,
        green_keep: float = 1.0,
        panorama: float = 1.0,
        panorama_done: float = 4.0,
        panorama_lost: float = 2.0,
        goat_keep: float = 1.0,
        goat_high: float = 0.3,
        goat_herd: float = 1.5,
        goat_reserve: int = 2,
        reach: float | None = None,
        search_from: int | None = None,
        objective_search_from: int = 10,
        candidates: int = 6,
        rollouts: int | None = None,
        seed: int | None = None,
    ) -> None:
        self.scarcity = scarcity
        self.steep = steep
        self.fit_discount = fit_discount
        self.summit_from = summit_from
        self.lookahead = lookahead
        self.progress = progress
        self.draw_cost = draw_cost
        self.no_fit = no_fit
        self.bridge_debt = bridge_debt
        self.spare_margin = spare_margin
        self.late_game = late_game
        self.open_bonus = open_bonus
        self.hand_decay = hand_decay
        self.bridge_lock = bridge_lock
        self.green, self.green_lost, self.green_keep = green, green_lost, green_keep
        self.panorama, self.panorama_done, self.panorama_lost = panorama, panorama_done, panorama_lost
        self.goat_keep, self.goat_high = goat_keep, goat_high
        self.goat_herd, self.goat_reserve = goat_herd, goat_reserve
        self.reach = reach
        self.search_from = search_from
        self.objective_search_from = objective_search_from
        self.candidates = candidates
        self.rollouts = rollouts
        # Each search samples from a generator seeded by (seed, turn, seat): a bot's choices depend
        # on what its seat sees, never on the games it played before.
        self.seed = random.randrange(1 << 63) if seed is None else seed
        self.last_search: dict[int, float] = {}  # the candidates' mean scores of the last search

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        self.last_search = {}
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        turn = ValueModel.from_view(view, legal, self)
        ranked = turn.ranked()
        if self.searches(turn.filled, len(view["players"]), view["config"]["panoramas"]) and len(ranked) > 1:
            return self.search(view, ranked[: self.candidates])
        return ranked[0]

    def searches(self, filled: int, players: int, panoramas: int = 0) -> bool:
        """Whether this bot searches once ``filled`` slots of the mountain are filled (bridges
        count): its search is on and ``search_from`` is reached, or with Panorama objectives
        (``panoramas`` of them) ``objective_search_from``: their rows are made early."""
        start = self.objective_search_from if panoramas else self.setting("search_from", players)
        return bool(self.setting("rollouts", players)) and filled >= start

    def setting(self, name: str, players: int) -> float:
        """The value of a player-count dependent setting (``search_from``, ``rollouts``,
        ``reach``, ``open_bonus``, ``steep``): as given, or by default (None) ``PLAYER_DEFAULTS``'s."""
        value = getattr(self, name)
        return PLAYER_DEFAULTS[name][players] if value is None else value

    def search(self, view: Mapping[str, Any], candidates: list[int]) -> int:
        """The candidate with the best ``rollout_scores``, every seat playing this strategy
        without search in the rollouts; the scores are kept in ``last_search``."""
        rollouts = int(self.setting("rollouts", len(view["players"])))
        return best_by_rollouts(view, candidates, rollouts, self.seed, self.play_out, self.last_search)

    def play_out(self, batch: GameBatch) -> None:
        """Finish the games of ``batch`` with every seat playing the value model alone (no
        search): in compiled code (``batch.value_model``), which makes exactly the moves of
        ``finish`` whenever ``value_model.exact`` holds for these settings, else by ``finish``."""
        if compiled.exact(self):
            compiled.play_out(batch, self)
        else:
            self.play_out_one_by_one(batch)

    def play_out_one_by_one(self, batch: GameBatch) -> None:
        """``play_out`` in Python: each game taken out of the batch and finished by ``finish``."""
        for i in range(batch.num_games):
            game = batch.game(i)
            self.finish(game)
            batch.load(i, game)

    def finish(self, game: Game) -> None:
        """Finish ``game`` with every seat playing the value model alone: the readable reference
        of the compiled play-out."""
        while game.status == ONGOING:
            legal = game.legal_actions()
            forced = len(legal) == 1
            game.apply_action(legal[0] if forced else ValueModel.from_game(game, legal, self).ranked()[0])
