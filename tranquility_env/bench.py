"""Speed benchmark: ``python -m tranquility_env.bench``.

Plays random legal games through the engine's integer path (``legal_actions`` / ``apply_action``)
on one core and prints decisions per second and games per second, the median of several runs,
for 1 to 5 players. When ``open_spiel`` is installed (``pip install -e '.[bench]'``), the same run
times OpenSpiel's C++ Hanabi through pyspiel (random legal moves, an observation tensor built at
every decision) and prints our 3-player figure as a ratio to it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from tranquility_env import Game


def time_engine(players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(decisions, games, seconds) of ``games`` random legal games."""
    rng = random.Random(seed)
    choice = rng.choice
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        game = Game.new({"players": players}, seed + i)
        while game.status == "ongoing":
            game.apply_action(choice(game.legal_actions()))
            decisions += 1
    return decisions, games, time.perf_counter() - start


def time_hanabi(players: int, games: int, seed: int) -> tuple[int, int, float]:
    """The same loop on OpenSpiel's Hanabi, with an observation tensor at every decision."""
    import pyspiel

    game = pyspiel.load_game("hanabi", {"players": players})
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
    return decisions, games, time.perf_counter() - start


def median_rates(timer: Callable[[int, int, int], tuple[int, int, float]], players: int, games: int,
                 runs: int) -> tuple[float, float]:  # fmt: skip
    """Median decisions/s and games/s over ``runs`` runs."""
    results = [timer(players, games, 1000 * run) for run in range(runs)]
    return (statistics.median(d / s for d, _, s in results), statistics.median(g / s for _, g, s in results))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per run (default 400)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure; the median is printed (default 5)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")

    print(f"Engine, random legal games, integer path; median of {args.runs} runs of {args.games} games")
    print(f"{'players':>7} | {'decisions/s':>11} | {'games/s':>8}")
    ours = {}
    for players in range(1, 6):
        ours[players], games_rate = median_rates(time_engine, players, args.games, args.runs)
        print(f"{players:>7} | {ours[players]:>11,.0f} | {games_rate:>8,.0f}")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("\nopen_spiel is not installed: no Hanabi comparison (pip install -e '.[bench]')")
        return
    hanabi, hanabi_games = median_rates(time_hanabi, 3, args.games, args.runs)
    print(f"\nOpenSpiel hanabi (pyspiel, 3 players, observation tensor per decision): "
          f"{hanabi:,.0f} decisions/s, {hanabi_games:,.0f} games/s")  # fmt: skip
    print(f"ratio, our 3 players to OpenSpiel hanabi: {ours[3] / hanabi:.2f}")


if __name__ == "__main__":
    main()
