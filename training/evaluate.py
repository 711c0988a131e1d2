"""Evaluate teams of bots: ``tranquility evaluate --team SPEC [--team SPEC ...] [options]``.

A team SPEC names the bot of each seat, comma-separated (``policy:checkpoints/p3/final,heuristic,
random``); one name fills every seat. Every team plays the same N deals (seeds ``seed .. seed+N-1``).
Reported: win rate with a 95% Wilson interval, mean cards on the mountain (Ascent cards and
campfires, of 44), mean turns, and how games were lost. Written as a Markdown table (printed), a
JSON file and a PNG chart under ``--out``.

``--cross-play CKPT CKPT ...`` plays every ordered pair of checkpoints with their seats mixed
(seat 0 from the row's checkpoint, the other seats alternating column, row, column, ...) and
prints the matrix of win rates: the standard test of whether a learned convention works with
partners it was not trained with.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import re
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
from tranquility_env.tasks import EVALUATION_DEALS


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
    return TeamResult(label, games, wins, wins / games, wilson(wins, games), cards / games, turns / games, dict(losses))


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
    """Ad-hoc teamwork: for each partner of the pool (``bots.partners``), the candidate bot in one
    seat and the partner in the others (the candidate's seat goes round, deal by deal), beside the
    partner's own team on the same deals."""
    if config.players < 2:
        raise ValueError("ad-hoc play needs at least 2 players")
    seat_team(candidate, config)  # a bad name, or a policy made for another table, fails before any game
    rows = []
    for name in partners:
        partner = f"partner:{name}"
        make_bot(partner)
        mixed = with_partner(candidate, partner, config, games, seed, workers)
        rows.append(AdhocRow(name, PARTNERS[name].habit, evaluate(partner, config, games, seed, workers), mixed))
    return rows


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
        "| partner | habit | partner's team alone | with the candidate | difference |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        a, w = r.alone, r.with_candidate
        lines.append(
            f"| {r.partner} | {r.habit} | {a.win_rate:.1%} ({a.ci95[0]:.1%} - {a.ci95[1]:.1%}) "
            f"| {w.win_rate:.1%} ({w.ci95[0]:.1%} - {w.ci95[1]:.1%}) | {100 * (w.win_rate - a.win_rate):+.1f} points |"
        )
    mean = sum(r.with_candidate.win_rate - r.alone.win_rate for r in rows) / len(rows)
    lines.append(f"| mean over the {len(rows)} partners | | | | {100 * mean:+.1f} points |")
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
    return "\n".join(lines)


def modules(config: Config) -> str:
    on = [
        name
        for name, flag in (("green path", config.green_path), ("panorama", config.panoramas), ("goats", config.goats))
        if flag
    ]
    return ", ".join(on) or "base game"


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


def cross_play(bots: list[str], config: Config, games: int, seed: int, workers: int = 1) -> list[list[float]]:
    """Win rates of every ordered pair of ``bots`` (names for ``make_bot``) with their seats mixed:
    seat 0 and the even seats the row's bot, the odd seats the column's; the diagonal is self-play."""
    matrix = []
    for row in bots:
        matrix.append([])
        for col in bots:
            seats = [row if s % 2 == 0 else col for s in range(config.players)]
            matrix[-1].append(evaluate(",".join(seats), config, games, seed, workers).win_rate)
    return matrix


def main(argv: list[str] | None = None) -> list[TeamResult]:
    parser = argparse.ArgumentParser(prog="tranquility evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--team", action="append", default=[], help="a team SPEC (repeatable)")
    parser.add_argument("--cross-play", nargs="+", metavar="CKPT", help="checkpoint folders to mix")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--green-path", action="store_true")
    parser.add_argument("--panoramas", type=int, default=0)
    parser.add_argument("--goats", action="store_true")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument(
        "--seed", type=int, default=EVALUATION_DEALS, help="first deal (default 1000000, apart from training seeds)"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one a core)")
    parser.add_argument("--out", default="results", help="folder for the JSON and PNG (default results/)")
    parser.add_argument("--save-replays", metavar="DIR", help="write every game to DIR as a replay file")
    parser.add_argument("--adhoc", metavar="SPEC", help="a bot to seat beside each partner of the pool")
    parser.add_argument(
        "--partners", default="test", help="the partners for --adhoc: test (default), train, all, or NAME,NAME"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not args.team and not args.cross_play and not args.adhoc:
        parser.error("give at least one --team, --cross-play or --adhoc")
    config = Config(players=args.players, green_path=args.green_path, panoramas=args.panoramas, goats=args.goats)
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
        chart(results, out / f"evaluation_p{config.players}.png")
    if args.adhoc:
        try:
            rows = adhoc(args.adhoc, partner_names(args.partners), config, args.games, args.seed, args.workers)
        except ValueError as err:
            parser.error(str(err))
        report["adhoc"] = {"candidate": args.adhoc, "partners": [asdict(r) for r in rows]}
        print(adhoc_markdown(args.adhoc, rows))
    if args.cross_play:
        matrix = cross_play([f"policy:{c}" for c in args.cross_play], config, args.games, args.seed, args.workers)
        report["cross_play"] = {"checkpoints": args.cross_play, "win_rate": matrix}
        print("\ncross-play win rates (row: seat 0 and even seats, column: odd seats)")
        print("| | " + " | ".join(Path(c).name for c in args.cross_play) + " |")
        print("|---|" + "---:|" * len(args.cross_play))
        for name, row in zip(args.cross_play, matrix, strict=True):
            print(f"| {Path(name).name} | " + " | ".join(f"{x:.1%}" for x in row) + " |")
    (out / f"evaluation_p{config.players}.json").write_text(json.dumps(report, indent=1) + "\n")
    print(
        f"\nwritten: {out}/evaluation_p{config.players}.json"
        + (f", {out}/evaluation_p{config.players}.png" if results else "")
    )
    return results


if __name__ == "__main__":
    main()
