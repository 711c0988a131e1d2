"""Speed benchmark: ``python -m tranquility_env.bench [--env | --heuristic]``.

Engine (default): random legal games through the engine's integer path (``legal_actions`` /
``apply_action``) on one core; decisions per second and games per second, the median of several
runs, for 1 to 5 players. When ``open_spiel`` is installed (the ``bench`` extra), the same run
times OpenSpiel's C++ Hanabi through pyspiel (random legal moves, an observation tensor built at
every decision) and prints our 3-player figure as a ratio to it.

``--env``: random legal play through the PettingZoo AEC API (the standard ``agent_iter()`` /
``last()`` / ``step()`` loop, observation and mask built at every step). With the ``bench`` extra
it times PettingZoo's ``hanabi_v5`` (2 players) and ``connect_four_v3`` the same way in the same
run and prints our 3-player steps/s as a ratio to each.

``--heuristic``: seconds per 3-player game of a ``HeuristicBot`` team, with its end-game search
and without (``rollouts=0``), the median over the games (``--games``, default 40), and the ratio.
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


def time_aec(make_env: Callable[[], object], games: int, seed: int) -> tuple[int, int, float]:
    """Random legal play through the AEC loop; counts the steps where an agent decides."""
    import numpy as np

    env = make_env()
    rng = random.Random(seed)  # a scalar draw from Python's random costs a fifth of numpy's
    steps = 0
    start = time.perf_counter()
    for i in range(games):
        env.reset(seed=seed + i)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                # nonzero() on a bool view of the 0/1 mask: exact, and 7x faster than on int8.
                legal = observation["action_mask"].view(np.bool_).nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
                steps += 1
            env.step(action)
    return steps, games, time.perf_counter() - start


def aec_peers() -> dict[str, Callable[[], object]]:
    """The envs to time: ours for 1-5 players, and PettingZoo's peers when they are installed."""
    import tranquility_env

    envs = {f"tranquility {p} players": (lambda p=p: tranquility_env.env(players=p)) for p in range(1, 6)}
    try:
        from pettingzoo.classic import connect_four_v3, hanabi_v5

        envs["hanabi_v5 (2 players)"] = lambda: hanabi_v5.env(players=2)
        envs["connect_four_v3"] = connect_four_v3.env
    except ImportError as err:
        print(f"(no PettingZoo peers: {err}; install the bench extra, see README)")
    return envs


def median_rates(timer: Callable[[int, int, int], tuple[int, int, float]], players: int, games: int,
                 runs: int) -> tuple[float, float]:  # fmt: skip
    """Median decisions/s and games/s over ``runs`` runs."""
    results = [timer(players, games, 1000 * run) for run in range(runs)]  # type: ignore[arg-type]
    return (statistics.median(d / s for d, _, s in results), statistics.median(g / s for _, g, s in results))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games per run (default 400; 40 with --heuristic)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure; the median is printed (default 5)")
    parser.add_argument("--env", action="store_true", help="time the PettingZoo AEC loop instead of the engine")
    parser.add_argument("--heuristic", action="store_true", help="time HeuristicBot games with and without search")
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 40 if args.heuristic else 400
    if args.games < 1 or args.runs < 1:
        parser.error("--games and --runs must be at least 1")
    if args.env:
        bench_env(args.games, args.runs)
        return
    if args.heuristic:
        bench_heuristic(args.games)
        return

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


def bench_env(games: int, runs: int) -> None:
    print(f"PettingZoo AEC loop, random legal play, observation + mask every step; median of {runs} runs "
          f"of {games} games")  # fmt: skip
    print(f"{'env':<26} | {'steps/s':>9} | {'games/s':>8}")
    rates = {}
    for name, make_env in aec_peers().items():
        rates[name], games_rate = median_rates(lambda _, g, s, m=make_env: time_aec(m, g, s), 0, games, runs)
        print(f"{name:<26} | {rates[name]:>9,.0f} | {games_rate:>8,.1f}")
    ours = rates["tranquility 3 players"]
    for peer in ("hanabi_v5 (2 players)", "connect_four_v3"):
        if peer in rates:
            print(f"ratio, tranquility 3 players to {peer}: {ours / rates[peer]:.2f}")


def bench_heuristic(games: int) -> None:
    from tranquility_env.arena import play_until
    from tranquility_env.bots import HeuristicBot

    print(f"HeuristicBot team, 3 players, one core; median seconds per game over {games} games")
    medians, searching = {}, int(HeuristicBot().setting("rollouts", 3))
    runs = (("value model alone (rollouts=0)", 0), (f"with end-game search ({searching} rollouts)", searching))
    for label, rollouts in runs:
        seconds = []
        for i in range(games):
            game = Game.new({"players": 3}, 1_000_000 + i)
            start = time.perf_counter()
            play_until(game, [HeuristicBot(rollouts=rollouts, seed=i) for _ in range(3)])
            seconds.append(time.perf_counter() - start)
        medians[rollouts] = statistics.median(seconds)
        print(f"{label:<36} | {medians[rollouts]:.4f} s")
    print(f"ratio, search to value model alone: {medians[searching] / medians[0]:.1f}")


if __name__ == "__main__":
    main()
