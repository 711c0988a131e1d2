"""Speed benchmark: ``python benchmarks/engine_speed.py [--env | --batch | --heuristic | --policy]``
(``make bench``; not part of the installed package).

Every figure is the median of ``--runs`` runs, and each run of the engine, the AEC loop and their
peers plays whole games for ``--seconds`` of wall-clock (default 3), not a fixed handful of games:
a short run would time mostly a peer's reset.

Engine (default): random legal games through the engine's integer path (``legal_actions`` /
``apply_action``) on one core; decisions per second and games per second, for 1 to 5 players.
When ``open_spiel`` is installed (the ``bench`` extra), the same run times OpenSpiel's C++ Hanabi
through pyspiel (random legal moves, an observation tensor built at every decision) and prints our
3-player figure as a ratio to it.

``--env``: random legal play through the PettingZoo AEC API (the standard ``agent_iter()`` /
``last()`` / ``step()`` loop, observation and mask built at every step), with the share of the time
that ``reset`` takes. With the ``bench`` extra it times PettingZoo's ``hanabi_v5`` (2 players) and
``connect_four_v3`` the same way in the same run and prints our 3-player steps/s as a ratio to each.

``--heuristic``: seconds per 3-player game of a team that searches, the median over the games
(``--games``, default 10): ``HeuristicBot`` without search (``rollouts=0``), then with its
end-game search, and the shipped 3-player bot with the same search over its own rollouts
(``policy+own-search``), each search with its rollouts played one game at a time in Python (as
before the batched engine) and batched, on the same deals in the same run; the ratios, and in
how many games the two made the same moves.

``--decision-time BOT``: seconds per decision of the bot name BOT in every seat of games at the
table the table options name (3 players by default; ``--panoramas 3``, ``--goats``, ...)
(``--games``, default 10, evaluation deals), over the decisions with more than one legal move:
median, 95th percentile and largest, one core (a searching bot's latency at the table).

``--policy``: microseconds per decision of ``PolicyBot.act`` (the shipped 3-player
bot) on the positions of its own games (``--games``, default 40), against the dense forward
pass it replaced (every weight of every layer, the whole head, then the mask) on the same
positions in the same run; the median of ``--runs`` passes, and the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from tranquility_env import Game
from tranquility_env.rules import Config
from tranquility_env.table_args import add_table_arguments, table_from_args
from tranquility_env.tasks import EVALUATION_DEALS


def time_engine(players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """(decisions, games, seconds) of random legal games played for ``seconds``."""
    rng = random.Random(seed)
    choice = rng.choice
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game.new({"players": players}, seed + games)
        while game.status == "ongoing":
            game.apply_action(choice(game.legal_actions()))
            decisions += 1
        games += 1
    return decisions, games, time.perf_counter() - start


def time_hanabi(players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """The same loop on OpenSpiel's Hanabi, with an observation tensor at every decision."""
    import pyspiel

    game = pyspiel.load_game("hanabi", {"players": players})
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        games += 1
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


def time_aec(make_env: Callable[[], object], seconds: float, seed: int) -> tuple[int, int, float, float]:
    """Random legal play through the AEC loop for ``seconds``: (the steps where an agent decides,
    games, seconds, of which in ``reset``)."""
    import numpy as np

    env = make_env()
    rng = random.Random(seed)  # a scalar draw from Python's random is cheaper than numpy's
    steps = games = 0
    in_reset = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        before = time.perf_counter()
        env.reset(seed=seed + games)
        in_reset += time.perf_counter() - before
        games += 1
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                # nonzero() on a bool view of the 0/1 mask: exact, and much faster than on int8.
                legal = observation["action_mask"].view(np.bool_).nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
                steps += 1
            env.step(action)
    return steps, games, time.perf_counter() - start, in_reset


def aec_peers() -> dict[str, Callable[[], object]]:
    """The envs to time: ours for 1-5 players, and PettingZoo's peers when they are installed."""
    import tranquility_env

    envs = {f"tranquility {p} players": (lambda p=p: tranquility_env.env(players=p)) for p in range(1, 6)}
    try:
        from pettingzoo.classic import connect_four_v3, hanabi_v5

        envs["hanabi_v5 (2 players)"] = lambda: hanabi_v5.env(players=2)
        envs["connect_four_v3"] = connect_four_v3.env
    except ImportError as err:
        print(f"(no PettingZoo peers: {err}; run `make bench`, which installs the bench extra)")
    return envs


def median_rates(
    timer: Callable[[int, float, int], tuple], players: int, seconds: float, runs: int
) -> tuple[float, float]:
    """Median decisions/s and games/s over ``runs`` runs of ``seconds`` each."""
    results = [timer(players, seconds, 1000 * run)[:3] for run in range(runs)]
    return (statistics.median(d / s for d, _, s in results), statistics.median(g / s for _, g, s in results))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of play per run (default 3)")
    parser.add_argument("--games", type=int, help="games per run with --heuristic (default 10) or --policy (40)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure; the median is printed (default 5)")
    parser.add_argument("--env", action="store_true", help="time the PettingZoo AEC loop instead of the engine")
    parser.add_argument("--heuristic", action="store_true", help="time HeuristicBot games with and without search")
    parser.add_argument("--policy", action="store_true", help="time PolicyBot decisions against a dense forward pass")
    parser.add_argument("--batch", action="store_true", help="time the batched engine against OpenSpiel and PettingZoo")
    parser.add_argument("--decision-time", metavar="BOT", help="time each decision of a bot name (make_bot)")
    add_table_arguments(parser)  # the table of --decision-time
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 10 if args.heuristic else 40
    if args.games < 1 or args.runs < 1 or not args.seconds > 0:
        parser.error("--games and --runs must be at least 1, --seconds above 0")
    if args.env:
        bench_env(args.seconds, args.runs)
        return
    if args.heuristic:
        bench_heuristic(args.games)
        return
    if args.policy:
        bench_policy(args.games, args.runs)
        return
    if args.batch:
        bench_batch(args.runs, args.seconds)
        return
    if args.decision_time:
        try:
            config = table_from_args(args)
        except ValueError as err:
            parser.error(str(err))
        bench_decisions(args.decision_time, args.games, config)
        return

    print(f"Engine, random legal games, integer path; median of {args.runs} runs of {args.seconds:g} s")
    print(f"{'players':>7} | {'decisions/s':>11} | {'games/s':>8}")
    ours = {}
    for players in range(1, 6):
        ours[players], games_rate = median_rates(time_engine, players, args.seconds, args.runs)
        print(f"{players:>7} | {ours[players]:>11,.0f} | {games_rate:>8,.0f}")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("\nopen_spiel is not installed: no Hanabi comparison (pip install -e '.[bench]')")
        return
    hanabi, hanabi_games = median_rates(time_hanabi, 3, args.seconds, args.runs)
    print(
        f"\nOpenSpiel hanabi (pyspiel, 3 players, observation tensor per decision): "
        f"{hanabi:,.0f} decisions/s, {hanabi_games:,.0f} games/s"
    )
    print(f"ratio, our 3 players to OpenSpiel hanabi: {ours[3] / hanabi:.2f}")


def time_batch(games: int, threads: int, decisions: int, seed: int) -> tuple[int, float]:
    """(decisions, seconds) of random legal play in a ``GameBatch`` of ``games`` 3-player games:
    the action drawn in compiled code, observation and mask written after every move, finished
    games dealt again at once."""
    import numpy as np

    from tranquility_env.batch import GameBatch
    from tranquility_env.encoding import OBSERVATION_SIZE
    from tranquility_env.rules.actions import N_ACTIONS

    batch = GameBatch({"players": 3}, games, threads)
    batch.reset_many(np.arange(games), seed + np.arange(games))
    observations = np.zeros((games, OBSERVATION_SIZE), dtype=np.float32)
    masks = np.zeros((games, N_ACTIONS), dtype=np.int8)
    batch.play_random(2, seed, observations, masks)  # warm: compiled, pages touched
    rounds = max(1, decisions // games)
    start = time.perf_counter()
    batch.play_random(rounds, seed + 1, observations, masks)
    return rounds * games, time.perf_counter() - start


_COLD_START = """
import time
start = time.perf_counter()
import numpy as np
from tranquility_env.batch import GameBatch
batch = GameBatch({"players": 3}, 4)
batch.reset_many(range(4), range(4))
batch.play_random(3, 0, np.zeros((4, 1941), dtype=np.float32), np.zeros((4, 3962), dtype=np.int8))
batch.states()
print(time.perf_counter() - start)
"""


def first_call_seconds() -> tuple[float, float]:
    """Seconds from import to the first steps in a fresh process: with an empty compile cache
    (numba compiles every kernel), then again with the cache it wrote."""
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = [
            float(
                subprocess.run(
                    [sys.executable, "-c", _COLD_START], env=env, capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(2)
        ]
    return times[0], times[1]


def bench_batch(runs: int, seconds: float) -> dict[str, float]:
    """The batched engine's table, its memory and compile time, and its ratios to OpenSpiel's
    Hanabi and PettingZoo's hanabi_v5 measured in the same run; returns the figures."""
    from tranquility_env.batch import layout, max_threads
    from tranquility_env.encoding import OBSERVATION_SIZE
    from tranquility_env.rules.actions import N_ACTIONS

    decisions = 200_000
    print("Batched engine, 3 players, random legal play in compiled code, observation + mask every step;")
    print(f"median of {runs} runs of about {decisions:,} decisions")
    print(f"{'games':>6} | {'threads':>7} | {'decisions/s':>11}")
    figures: dict[str, float] = {}
    for games in (1, 64, 1024, 8192):
        for threads in sorted({1, min(2, max_threads())}):
            rates = []
            for run in range(runs):
                done, seconds = time_batch(games, threads, decisions if games > 1 else decisions // 10, 1000 * run)
                rates.append(done / seconds)
            figures[f"{games}x{threads}"] = statistics.median(rates)
            print(f"{games:>6} | {threads:>7} | {figures[f'{games}x{threads}']:>11,.0f}")
    per_game = layout.ROW_SIZE * 2 + OBSERVATION_SIZE * 4 + N_ACTIONS
    parts = f"state row {layout.ROW_SIZE * 2:,}, observation {OBSERVATION_SIZE * 4:,}, mask {N_ACTIONS:,}"
    print(f"memory per game: {per_game:,} bytes ({parts})")
    cold, warm = first_call_seconds()
    print(f"first call in a new process: {cold:.1f} s compiling, {warm:.1f} s from the compile cache")
    ours = figures[f"1024x{min(2, max_threads())}"]
    try:
        import pyspiel  # noqa: F401

        hanabi, _ = median_rates(time_hanabi, 3, seconds, runs)
        figures["pyspiel"] = hanabi
        print(f"OpenSpiel hanabi (pyspiel, 3 players, observation tensor per decision): {hanabi:,.0f} decisions/s")
        print(f"ratio, 1,024 games on {min(2, max_threads())} threads to OpenSpiel hanabi: {ours / hanabi:.1f}")
    except ImportError:
        print("open_spiel is not installed: no Hanabi comparison (pip install '.[bench]')")
    peers = aec_peers()
    if "hanabi_v5 (2 players)" in peers:
        hanabi_v5, _ = median_rates(lambda _, t, s: time_aec(peers["hanabi_v5 (2 players)"], t, s), 0, seconds, runs)
        figures["hanabi_v5"] = hanabi_v5
        print(f"PettingZoo hanabi_v5 (2 players, AEC loop): {hanabi_v5:,.0f} steps/s")
        print(f"ratio, 1,024 games on {min(2, max_threads())} threads to hanabi_v5: {ours / hanabi_v5:.1f}")
    return figures


def bench_env(seconds: float, runs: int) -> None:
    print(
        f"PettingZoo AEC loop, random legal play, observation + mask every step; median of {runs} runs of {seconds:g} s"
    )
    print(f"{'env':<26} | {'steps/s':>9} | {'games/s':>8} | {'in reset':>8}")
    rates = {}
    for name, make_env in aec_peers().items():
        results = [time_aec(make_env, seconds, 1000 * run) for run in range(runs)]
        rates[name] = statistics.median(steps / took for steps, _, took, _ in results)
        games_rate = statistics.median(games / took for _, games, took, _ in results)
        in_reset = statistics.median(reset / took for _, _, took, reset in results)
        print(f"{name:<26} | {rates[name]:>9,.0f} | {games_rate:>8,.1f} | {in_reset:>8.1%}")
    ours = rates["tranquility 3 players"]
    for peer in ("hanabi_v5 (2 players)", "connect_four_v3"):
        if peer in rates:
            print(f"ratio, tranquility 3 players to {peer}: {ours / rates[peer]:.2f}")


def bench_heuristic(games: int) -> None:
    import numpy as np

    from tranquility_env import encoding
    from tranquility_env.arena import play_until
    from tranquility_env.bots import HeuristicBot, PolicyBot, make_bot, shipped_bot

    policy = PolicyBot.load(shipped_bot(3))

    def policy_one_by_one(batch: Any) -> None:
        """``PolicyWithSearchBot.play_out`` as before the batched engine: each game alone."""
        for i in range(batch.num_games):
            game = batch.game(i)
            while game.status == "ongoing":
                legal = game.legal_actions()
                observation = encoding.observation(game, game.current)
                game.apply_action(legal[0] if len(legal) == 1 else policy.choose(observation, np.asarray(legal)))
            batch.load(i, game)

    def one_by_one(bot: Any) -> Any:
        bot.play_out = bot.play_out_one_by_one if isinstance(bot, HeuristicBot) else policy_one_by_one
        return bot

    own = f"policy+own-search:{shipped_bot(3)}"
    print(f"Searching teams, 3 players, one core; median seconds per game over {games} games")
    teams = {
        "value model alone (rollouts=0)": lambda seed: HeuristicBot(rollouts=0, seed=seed),
        "heuristic search, rollouts one game at a time": lambda seed: one_by_one(HeuristicBot(seed=seed)),
        "heuristic search, rollouts batched (compiled)": lambda seed: HeuristicBot(seed=seed),
        "policy+own-search, rollouts one game at a time": lambda seed: one_by_one(make_bot(own, seed)),
        "policy+own-search, rollouts batched": lambda seed: make_bot(own, seed),
    }
    medians, moves = [], []
    for label, make in teams.items():
        seconds, taken = [], []
        for i in range(games):
            game = Game.new({"players": 3}, EVALUATION_DEALS + i)
            start = time.perf_counter()
            taken.append(play_until(game, [make(i) for _ in range(3)]))
            seconds.append(time.perf_counter() - start)
        medians.append(statistics.median(seconds))
        moves.append(taken)
        print(f"{label:<48} | {medians[-1]:.4f} s")
    for name, (one, batched) in {"heuristic search": (1, 2), "policy+own-search": (3, 4)}.items():
        same = sum(a == b for a, b in zip(moves[one], moves[batched], strict=True))
        print(f"ratio, {name} one game at a time to batched: {medians[one] / medians[batched]:.1f} ", end="")
        print(f"(the same moves in {same} of {games} games)")


def bench_decisions(spec: str, games: int, config: Config | None = None) -> dict[str, float]:
    from tranquility_env import encoding
    from tranquility_env.bots import make_bot
    from tranquility_env.views import LazySeatView

    config, seconds = config or Config(players=3), []
    for i in range(games):
        game = Game.new(config, EVALUATION_DEALS + i)
        team = [make_bot(spec, seed=i * 8 + s, table=config) for s in range(config.players)]
        while game.status == "ongoing":
            seat = game.current
            observation, mask = encoding.observation(game, seat), encoding.action_mask(game, seat)
            start = time.perf_counter()
            action = team[seat].act(observation, mask, LazySeatView(game, seat))
            if mask.sum() > 1:
                seconds.append(time.perf_counter() - start)
            game.apply_action(action)
    seconds.sort()
    figures = {
        "median_s": statistics.median(seconds),
        "p95_s": seconds[int(0.95 * (len(seconds) - 1))],
        "max_s": seconds[-1],
    }
    base = Config(players=config.players).to_dict()
    table = "".join(f", {k}={v}" for k, v in config.to_dict().items() if base[k] != v)
    head = f"{spec}, {config.players} players{table}, one core"
    print(f"{head}: {len(seconds)} decisions of {games} games; seconds per decision")
    print(" | ".join(f"{name} {value:.3g}" for name, value in figures.items()))
    return figures


def bench_policy(games: int, runs: int) -> dict[str, float]:
    """Prints the policy table; returns its figures: the median microseconds a decision of each
    path, the positions timed and on how many the two paths made the same move."""
    import numpy as np

    from tranquility_env import checkpoint, encoding
    from tranquility_env.bots import PolicyBot, shipped_bot

    # the shipped bot's network alone (one pass, not its mean over the colour symmetries), as the
    # dense pass below computes it
    about, layers, head = checkpoint.load(shipped_bot(3))
    policy = PolicyBot({**about, "symmetrised": False}, layers, head)
    positions = []
    for i in range(games):
        game = Game.new({"players": 3}, EVALUATION_DEALS + i)
        while not game.is_over:
            seat = game.current_player
            observation, mask = encoding.observation(game, seat), encoding.action_mask(game, seat)
            positions.append((observation, mask))
            game.apply_action(policy.act(observation, mask, {}))

    def dense(observation: np.ndarray, mask: np.ndarray) -> int:
        x = observation
        for weight, bias in policy.layers:
            x = policy.activation(np.einsum("ij,j->i", weight, x) + bias)
        return int(
            np.argmax(np.where(mask.astype(bool), np.einsum("ij,j->i", policy.head[0], x) + policy.head[1], -np.inf))
        )

    timed = {"PolicyBot.act": lambda o, m: policy.act(o, m, {}), "dense forward pass": dense}
    print(f"PolicyBot (shipped p3, one pass); {len(positions)} positions of {games} games; median of {runs} runs")
    medians = {}
    for label, act in timed.items():
        per_decision = []
        for _ in range(runs):
            start = time.perf_counter()
            for observation, mask in positions:
                act(observation, mask)
            per_decision.append((time.perf_counter() - start) / len(positions) * 1e6)
        medians[label] = statistics.median(per_decision)
        print(f"{label:<20} | {medians[label]:7.1f} us a decision")
    print(f"ratio, dense to PolicyBot.act: {medians['dense forward pass'] / medians['PolicyBot.act']:.1f}")
    agree = sum(policy.act(o, m, {}) == dense(o, m) for o, m in positions)
    print(f"same move on {agree} of {len(positions)} positions")
    return {**medians, "positions": len(positions), "same move": agree}


if __name__ == "__main__":
    main()
