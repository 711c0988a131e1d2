"""Evaluate teams of bots: ``tranquility evaluate --team SPEC [--team SPEC ...] [options]``.

A team SPEC names the bot of each seat, comma-separated (``policy:checkpoints/p3/final,heuristic,
random``); one name fills every seat. Every team plays the same N deals (seeds ``seed .. seed+N-1``).
Reported: win rate with a 95% Wilson interval, mean cards on the mountain (Ascent cards and
campfires, of 44), mean turns, and how games were lost. Written as a Markdown table (printed), a
JSON file and a PNG chart under ``--out``.

``--cross-play CKPT CKPT ...`` plays each checkpoint alone and every pair of them in every seating
where both play (``AAB``, ``ABA``, ... at 3 players), each seating on all the deals, and prints the
matrix of win rates, every seating's, and the largest distance of a mixed table from either bot's
self-play: the standard test of whether a learned convention works with partners it was not
trained with (seeds of one recipe, say).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tranquility_env import Config, Game
from tranquility_env.arena import bot_action, play_until
from tranquility_env.bots import Bot, make_bot
from tranquility_env.bots.partners import PARTNERS
from tranquility_env.bots.partners import names as partner_names
from tranquility_env.bots.reasons import top_choices
from tranquility_env.replay import ReplayWriter
from tranquility_env.rules import actions
from tranquility_env.rules.board import N_SLOTS
from tranquility_env.rules.game import ONGOING
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.table_args import add_table_arguments, table_from_args
from tranquility_env.tasks import EVALUATION_DEALS

__all__ = [
    "TeamResult",
    "adhoc",
    "arrangements",
    "cross_play",
    "evaluate",
    "imap_jobs",
    "main",
    "markdown",
    "paired",
    "partner_list",
    "play_jobs",
    "seat_team",
    "wilson",
    "with_partner",
]


@dataclass
class TeamResult:
    team: str
    games: int
    wins: int
    win_rate: float
    ci95: tuple[float, float]
    mean_cards: float
    mean_turns: float
    losses: dict[str, int] = field(default_factory=dict)
    won: list[int] = field(default_factory=list)  # 1 for each deal won, 0 lost, in deal order


def paired(base: TeamResult, other: TeamResult) -> tuple[float, float, float]:
    """``other``'s win rate minus ``base``'s on the same deals, in points, with the 95% interval
    of that mean difference over the deals (normal approximation): pairing the deals removes
    their luck, so the interval is much narrower than the two win rates' own."""
    if not base.won or len(base.won) != len(other.won):
        raise ValueError(f"{base.team} and {other.team} were not played on the same deals")
    d = [b - a for a, b in zip(base.won, other.won, strict=True)]
    mean = statistics.fmean(d)
    half = 1.96 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    return 100 * mean, 100 * (mean - half), 100 * (mean + half)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def seat_team(spec: str, config: Config, seed: int = 0) -> list[Bot]:
    """The bots of a team SPEC for a table of ``config``; policies must fit the table."""
    names = spec.split(",")
    if len(names) == 1:
        names = names * config.players
    if len(names) != config.players:
        raise ValueError(f"team {spec!r} names {len(names)} seats, the table has {config.players}")
    return [make_bot(name, seed + i, table=config) for i, name in enumerate(names)]


def loss_reason(game: Game) -> str:
    empty = game.mountain[:N_SLOTS].count(EMPTY)  # bridges count as filled: they block the Summit
    if empty == 0:
        return "mountain full, no Summit playable"
    return "ran dry, 1-4 slots empty" if empty <= 4 else "ran dry, 5+ slots empty"


def play_deal(spec: str, config: Config, deal: int, replays: str | None = None) -> Game:
    """Deal ``deal`` played to its end by the team SPEC. The bots are made for this game and seeded
    from the deal, so a result depends neither on the order of the games nor on how many workers
    play them. With a ``replays`` folder the game is also written there as a replay file, with what
    each bot weighed (``replay.py``)."""
    game = Game.new(config, deal)
    team = seat_team(spec, config, seed=deal * 8)
    if replays is None:
        play_until(game, team)
        return game
    name = re.sub(r"[^A-Za-z0-9+.-]+", "_", spec)[:80]
    names = spec.split(",")
    writer = ReplayWriter(
        Path(replays) / f"{name}_p{config.players}_{deal}.jsonl",
        config,
        deal,
        names * config.players if len(names) == 1 else names,
        None,
    )
    while game.status == ONGOING:
        seat, bot = game.current, team[game.current]
        action = bot_action(game, bot)
        writer.move(seat, actions.to_string(action, config.goats), top_choices(bot, game))
        game.apply_action(action)
    writer.end(game.status)
    return game


def _outcome(job: tuple[str, Config, int, str | None]) -> tuple[bool, int, int, str | None]:
    game = play_deal(*job)
    lost = loss_reason(game) if game.status == "lost" else None
    return game.status == "won", game.cards_on_mountain(), game.turn, lost


def imap_jobs(function: Callable[[Any], Any], jobs: list[Any], workers: int, chunksize: int = 1) -> Iterator[Any]:
    """``function`` over ``jobs``, in order: in this process, or on ``workers`` spawned processes
    (spawn, not fork: the caller may be a trainer with torch's threads running)."""
    if workers <= 1:
        yield from map(function, jobs)
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap(function, jobs, chunksize=chunksize)


def evaluate(
    spec: str,
    config: Config,
    games: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    replays: str | None = None,
) -> TeamResult:
    """The team SPEC on deals ``seed .. seed + games - 1``, over ``workers`` processes;
    ``progress`` shows a bar of the games played on a terminal (an end-game search team may
    take an hour); ``replays`` is a folder to write every game to."""
    seat_team(spec, config)  # a bad SPEC, or a checkpoint made for another table, fails before any game
    return play_jobs(spec, [(spec, config, seed + i, replays) for i in range(games)], workers, progress)


def play_jobs(label: str, jobs: list[tuple], workers: int, progress: bool = False) -> TeamResult:
    """The games of ``jobs`` ((team SPEC, config, deal, replays) each) as one result named ``label``."""
    games = len(jobs)
    played: Iterable = imap_jobs(_outcome, jobs, workers, chunksize=max(1, games // (40 * workers)))
    if progress:
        from tqdm import tqdm  # the train extra's: only a caller who asks for the bar needs it

        played = tqdm(played, total=games, desc=label, unit="game", disable=None)  # None: on a terminal only
    outcomes = list(played)
    wins = sum(o[0] for o in outcomes)
    losses = Counter(o[3] for o in outcomes if o[3] is not None)
    cards, turns = sum(o[1] for o in outcomes), sum(o[2] for o in outcomes)
    won = [int(o[0]) for o in outcomes]
    return TeamResult(
        label, games, wins, wins / games, wilson(wins, games), cards / games, turns / games, dict(losses), won
    )


@dataclass
class AdhocRow:
    """One partner of an ad-hoc evaluation: its own team, and the candidate in one of its seats."""

    partner: str
    habit: str
    alone: TeamResult
    with_candidate: TeamResult


def adhoc(
    candidate: str, partners: list[str], config: Config, games: int, seed: int = 0, workers: int = 1
) -> list[AdhocRow]:
    """Ad-hoc teamwork: for each partner, the candidate bot in one seat and the partner in the
    others (the candidate's seat goes round, deal by deal), beside the partner's own team on the
    same deals. A partner is a name of the pool (``bots.partners``) or any bot name (``policy:PATH``
    for a learned bot of another training seed, say)."""
    if config.players < 2:
        raise ValueError("ad-hoc play needs at least 2 players")
    _no_cheat(candidate)
    seat_team(candidate, config)  # a bad name, or a policy made for another table, fails before any game
    specs = {name: f"partner:{name}" if name in PARTNERS else name for name in partners}
    for spec in specs.values():
        seat_team(spec, config)
    rows = []
    for name, spec in specs.items():
        habit = PARTNERS[name].habit if name in PARTNERS else "not in the pool"
        mixed = with_partner(candidate, spec, config, games, seed, workers)
        rows.append(AdhocRow(name, habit, evaluate(spec, config, games, seed, workers), mixed))
    return rows


def partner_list(text: str) -> list[str]:
    """``--partners``: comma-separated splits of the pool (``train``, ``test``, ``all``), names of
    the pool, and other bot names (``heuristic``, ``policy:PATH``), in that order, each once."""
    chosen: list[str] = []
    for token in text.split(","):
        if token in ("train", "test", "all") or token in PARTNERS:
            chosen += partner_names(token)
        else:
            _no_cheat(token)
            try:
                make_bot(token)
            except ValueError as err:
                raise ValueError(
                    f"unknown partner {token!r}: not a split, a name of the pool ({list(PARTNERS)}) or a bot: {err}"
                ) from None
            chosen.append(token)
    return list(dict.fromkeys(chosen))


def _no_cheat(name: str) -> None:
    if name.partition(":")[0] == "omniscient":
        raise ValueError("the omniscient bot sees every card (it cheats): it measures a ceiling, never a partner")


def with_partner(
    candidate: str, partner: str, config: Config, games: int, seed: int = 0, workers: int = 1
) -> TeamResult:
    """The bot ``candidate`` in one seat and ``partner`` in the others, on deals ``seed ..
    seed + games - 1``; the candidate's seat goes round, deal by deal."""
    if config.players < 2:
        raise ValueError("a mixed table needs at least 2 players")
    jobs = []
    for i in range(games):
        seats = [partner] * config.players
        seats[i % config.players] = candidate
        jobs.append((",".join(seats), config, seed + i, None))
    return play_jobs(f"{candidate} + {partner}", jobs, workers)


def adhoc_markdown(candidate: str, rows: list[AdhocRow]) -> str:
    lines = [
        f"ad-hoc: {candidate} in one seat, the partner in the others (its seat goes round)",
        "",
        "| partner | habit | partner's team alone | with the candidate | difference (paired 95% CI) |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        a, w = r.alone, r.with_candidate
        gain, low, high = paired(a, w)
        lines.append(
            f"| {r.partner} | {r.habit} | {a.win_rate:.1%} ({a.ci95[0]:.1%} - {a.ci95[1]:.1%}) "
            f"| {w.win_rate:.1%} ({w.ci95[0]:.1%} - {w.ci95[1]:.1%}) | {gain:+.1f} points ({low:+.1f} to {high:+.1f}) |"
        )
    return "\n".join(lines)


def markdown(results: list[TeamResult], config: Config) -> str:
    lines = [
        f"players {config.players}, modules: {modules(config)}, {results[0].games} games per team",
        "",
        "| team | win rate | 95% CI | cards on mountain | turns | losses |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in results:
        losses = "; ".join(f"{k}: {v}" for k, v in sorted(r.losses.items())) or "-"
        lines.append(
            f"| {r.team} | {r.win_rate:.1%} | {r.ci95[0]:.1%} - {r.ci95[1]:.1%} | {r.mean_cards:.1f} "
            f"| {r.mean_turns:.1f} | {losses} |"
        )
    if len(results) > 1 and all(r.won and len(r.won) == len(results[0].won) for r in results):
        lines += ["", f"paired on the same deals, each team against {results[0].team}:"]
        for r in results[1:]:
            gain, low, high = paired(results[0], r)
            lines.append(f"- {r.team}: {gain:+.1f} points (95% CI {low:+.1f} to {high:+.1f})")
    return "\n".join(lines)


MODULES = ("green_path", "panoramas", "goats")


def modules(config: Config) -> str:
    """The table in words: its modules, and any other field off its default (``hand_size=4``)."""
    on = [
        name
        for name, flag in (("green path", config.green_path), ("panorama", config.panoramas), ("goats", config.goats))
        if flag
    ]
    return ", ".join([*on, *(f"{k}={v}" for k, v in changed_fields(config).items())]) or "base game"


def changed_fields(config: Config) -> dict[str, object]:
    """The fields other than the player count and the modules that differ from the defaults."""
    usual = Config(players=config.players).canonical().to_dict()
    mine = config.canonical().to_dict()
    return {k: v for k, v in mine.items() if k not in ("players", *MODULES) and v != usual[k]}


def report_stem(config: Config) -> str:
    """``evaluation_p3``, with the changed fields after it (``evaluation_p3_hand_size4``)."""
    return f"evaluation_p{config.players}" + "".join(f"_{k}{int(v)}" for k, v in changed_fields(config).items())


def chart(results: list[TeamResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(results)), 3.5))
    rates = [r.win_rate for r in results]
    errors = [[r.win_rate - r.ci95[0] for r in results], [r.ci95[1] - r.win_rate for r in results]]
    ax.bar(range(len(results)), rates, yerr=errors, capsize=4, color="#4a7ab5")
    ax.set_xticks(range(len(results)), [r.team.replace(",", ",\n") for r in results], fontsize=7)
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


SEATINGS = "every"  # how a pair is mixed, as reports name it: every seating where both play


def arrangements(players: int) -> list[str]:
    """Every seating of two bots at a table where both play, seat by seat: ``A`` the first bot,
    ``B`` the second (``"AAB"``, ``"ABA"``, ...; 2**players - 2 of them)."""
    return ["".join(seats) for seats in itertools.product("AB", repeat=players) if "A" in seats and "B" in seats]


@dataclass
class CrossPlay:
    """Self-play of each bot, and each pair mixed in every seating (``arrangements``)."""

    bots: list[str]
    self_play: list[TeamResult]
    mixed: dict[tuple[int, int], dict[str, TeamResult]]  # (i, j), i < j -> seating -> result

    def matrix(self) -> list[list[float]]:
        """Win rates: self-play on the diagonal; off it, the pair's mean over every seating."""
        n = len(self.bots)
        rates = [[self.self_play[i].win_rate if i == j else 0.0 for j in range(n)] for i in range(n)]
        for (i, j), seated in self.mixed.items():
            rates[i][j] = rates[j][i] = statistics.fmean(r.win_rate for r in seated.values())
        return rates

    def largest_gap(self) -> float:
        """The largest distance, over every seating of every pair, between the mixed table's win
        rate and either bot's self-play: the number a cross-play goal is held to."""
        return max(
            abs(r.win_rate - self.self_play[k].win_rate)
            for (i, j), seated in self.mixed.items()
            for r in seated.values()
            for k in (i, j)
        )

    def to_dict(self) -> dict:
        return {
            "bots": self.bots,
            "seatings": SEATINGS,
            "self_play": [asdict(r) for r in self.self_play],
            "mixed": [
                {"pair": [i, j], "seatings": {seats: asdict(r) for seats, r in seated.items()}}
                for (i, j), seated in self.mixed.items()
            ],
            "win_rate": self.matrix(),
            "largest_gap": self.largest_gap(),
        }

    def markdown(self) -> str:
        n, names = len(self.bots), [f"bot {k + 1}" for k in range(len(self.bots))]
        lines = [f"cross-play: {', '.join(f'{a} = {b}' for a, b in zip(names, self.bots, strict=True))}", ""]
        lines += ["self-play on the diagonal; off it, the pair's mean over every seating", ""]
        lines += ["| | " + " | ".join(names) + " |", "|---|" + "---:|" * n]
        lines += [
            f"| {names[i]} | " + " | ".join(f"{x:.1%}" for x in row) + " |" for i, row in enumerate(self.matrix())
        ]
        pairs = list(self.mixed)
        lines += ["", "every seating (A the pair's first bot, B its second; seat 0 first)", ""]
        lines += ["| seating | " + " | ".join(f"{names[i]} + {names[j]}" for i, j in pairs) + " |"]
        lines += ["|---|" + "---:|" * len(pairs)]
        for seats in next(iter(self.mixed.values())):
            cells = [self.mixed[p][seats] for p in pairs]
            lines.append(
                f"| {seats} | "
                + " | ".join(f"{r.win_rate:.1%} ({r.ci95[0]:.1%} - {r.ci95[1]:.1%})" for r in cells)
                + " |"
            )
        lines.append(
            f"\nlargest distance of a mixed table from either bot's self-play: {100 * self.largest_gap():.1f} points"
        )
        return "\n".join(lines)


def cross_play(bots: list[str], config: Config, games: int, seed: int, workers: int = 1) -> CrossPlay:
    """Cross-play of ``bots`` (names for ``make_bot``) on deals ``seed .. seed + games - 1``: each
    bot's self-play, and every pair in every seating where both play (``arrangements``), each
    seating on all the deals."""
    if config.players < 2:
        raise ValueError("cross-play needs at least 2 players")
    if len(bots) < 2:
        raise ValueError("cross-play needs at least 2 bots")
    for bot in bots:
        seat_team(bot, config)  # a bad name, or a policy made for another table, fails before any game
    self_play = [evaluate(bot, config, games, seed, workers) for bot in bots]
    mixed = {}
    for i, j in itertools.combinations(range(len(bots)), 2):
        mixed[(i, j)] = {
            seats: evaluate(",".join(bots[i] if s == "A" else bots[j] for s in seats), config, games, seed, workers)
            for seats in arrangements(config.players)
        }
    return CrossPlay(bots, self_play, mixed)


def main(argv: list[str] | None = None) -> list[TeamResult]:
    parser = argparse.ArgumentParser(prog="tranquility evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--team", action="append", default=[], help="a team SPEC (repeatable)")
    parser.add_argument("--cross-play", nargs="+", metavar="CKPT", help="checkpoint folders to mix")
    add_table_arguments(parser)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument(
        "--seed", type=int, default=EVALUATION_DEALS, help="first deal (default 1000000, apart from training seeds)"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one a core)")
    parser.add_argument("--out", default="results", help="folder for the JSON and PNG (default results/)")
    parser.add_argument("--save-replays", metavar="DIR", help="write every game to DIR as a replay file")
    parser.add_argument("--adhoc", metavar="SPEC", help="a bot to seat beside each partner of the pool")
    parser.add_argument(
        "--partners",
        default="test",
        help="the partners for --adhoc, comma-separated: test (default), train, all, names of the pool, other bots",
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not args.team and not args.cross_play and not args.adhoc:
        parser.error("give at least one --team, --cross-play or --adhoc")
    try:
        config = table_from_args(args)
    except ValueError as err:
        parser.error(str(err))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        results = [
            evaluate(spec, config, args.games, args.seed, args.workers, progress=True, replays=args.save_replays)
            for spec in args.team
        ]
    except ValueError as err:
        parser.error(str(err))
    report: dict = {
        "config": config.to_dict(),
        "games": args.games,
        "seed": args.seed,
        "teams": [asdict(r) for r in results],
    }
    if results:
        print(markdown(results, config))
        chart(results, out / f"{report_stem(config)}.png")
    if args.adhoc:
        try:
            rows = adhoc(args.adhoc, partner_list(args.partners), config, args.games, args.seed, args.workers)
        except ValueError as err:
            parser.error(str(err))
        report["adhoc"] = {"candidate": args.adhoc, "partners": [asdict(r) for r in rows]}
        print(adhoc_markdown(args.adhoc, rows))
    if args.cross_play:
        try:
            crossed = cross_play([f"policy:{c}" for c in args.cross_play], config, args.games, args.seed, args.workers)
        except ValueError as err:
            parser.error(str(err))
        report["cross_play"] = crossed.to_dict()
        print("\n" + crossed.markdown())
    (out / f"{report_stem(config)}.json").write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwritten: {out}/{report_stem(config)}.json" + (f", {out}/{report_stem(config)}.png" if results else ""))
    return results


if __name__ == "__main__":
    main()
