"""Property tests: random games over every player count and module mix keep the invariants.

- every card of the game is in exactly one place (hand, deck, discard, mountain, removed, pending);
- the mountain is always legal (M2, M3, P1, P2, B1);
- ``from_dict(to_dict(g))`` is the same game, legal moves included;
- every game ends (won or lost), within one turn per card: each action takes a card out of
  circulation for good;
- the engine's fast move generator agrees with the plain per-move checker of ``rules/legality.py`` on
  every action id.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tranquility_env import Config, Game
from tranquility_env.rules import actions, cards
from tranquility_env.rules.game import EMPTY
from tranquility_env.rules.legality import why_illegal
from tranquility_env.rules.state_io import check_mountain

from configs import configs


def eager_choice(game: Game, rng: random.Random, eagerness: float) -> int:
    """Mostly moves that build the mountain (so games reach campfires, herds and the Summit
    conditions), sometimes any legal move."""
    legal = game.legal_actions()
    builders = [a for a in legal if actions.DECODE[a][0] != actions.DISCARD]
    return rng.choice(builders if builders and rng.random() < eagerness else legal)


def card_places(game: Game) -> Counter[int]:
    places = [game.mountain, game.removed, [game.moving_card], *game.hands, *game.decks, *game.discards]
    return Counter(k for place in places for k in place if k != EMPTY)


def play_checked(config: Config, seed: int, eagerness: float, full_check_every: int = 0) -> Game:
    game = Game.new(config, seed)
    rng = random.Random(seed)
    deck = cards.game_deck(config.players, config.bridges, config.campfires_per_colour, config.ropes, config.goats)
    bound = sum(deck.values())
    decisions = 0
    while not game.is_over:
        assert card_places(game) == deck
        check_mountain(game.mountain)
        twin = Game.from_dict(json.loads(json.dumps(game.to_dict())))
        assert twin.to_dict() == game.to_dict() and twin.legal_actions() == game.legal_actions()
        if full_check_every and decisions % full_check_every == 0:
            legal = set(game.legal_actions())
            for a in range(actions.N_ACTIONS):
                assert (why_illegal(game, a) is None) == (a in legal), actions.to_string(a, config.goats)
        game.apply_action(eager_choice(game, rng, eagerness))
        decisions += 1
        assert game.turn <= bound
    assert game.status in ("won", "lost") and game.legal_actions() == []
    assert card_places(game) == deck
    return game


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**32), eagerness=st.sampled_from([0.0, 0.7, 0.95]))
def test_random_games_keep_the_invariants(config: Config, seed: int, eagerness: float) -> None:
    play_checked(config, seed, eagerness)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**32))
def test_move_generator_agrees_with_the_rule_checker(config: Config, seed: int) -> None:
    play_checked(config, seed, eagerness=0.9, full_check_every=3)


def test_thousands_of_plain_random_games_end() -> None:
    statuses: Counter[str] = Counter()
    for seed in range(2000):
        game = Game.new({"players": 1 + seed % 5}, seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply_action(rng.choice(game.legal_actions()))
        assert game.turn <= 91
        statuses[game.status] += 1
    assert statuses["lost"] == 2000  # random legal play never wins


def test_same_seed_same_game_in_another_process() -> None:
    code = (
        "import json, sys; from tranquility_env import Game; "
        "g = Game.new({'players': 4, 'goats': True, 'panoramas': 3}, 123); "
        "[g.apply(g.legal_moves()[len(g.legal_moves()) // 2]) for _ in range(30) if not g.is_over]; "
        "print(json.dumps(g.to_dict(), sort_keys=True))"
    )
    env = {"PYTHONHASHSEED": "", "PATH": ""}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**env, "PYTHONHASHSEED": str(h)},
        ).stdout
        for h in (1, 2)
    ]
    assert runs[0] == runs[1] and json.loads(runs[0])["turn"] > 0
