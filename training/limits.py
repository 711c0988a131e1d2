"""``tranquility limits``: how good play can get on a task's evaluation deals, beside how well our bots play them.

For each task: the ceiling of every deal by the omniscient solver (it CHEATS: it sees every
hand and deck; a deal ends won, proven unwinnable or undecided within the budget), then the
win rates of ``pimc``, the heuristic and the shipped learned bot (where one plays the task) on
the first of the same deals. Each task's numbers go to ``OUT/<task>.json``; ``OUT/limits.md``
is remade from every JSON there, the table "The limits" of ``docs/results.md``. A task's JSON
already there keeps the teams not played again, and its ceiling if made on as many deals with the
same budget, so a run stopped part way goes on where it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path

from tranquility_env.bots import SHIPPED_BOTS
from tranquility_env.bots.omniscient import DEFAULT_BUDGET, OUTCOMES, solve
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game
from tranquility_env.tasks import TASKS, task
from tranquility_env.training.evaluate import TeamResult, imap_jobs, play_jobs, seat_team

__all__ = ["LIMIT_TASKS", "Ceiling", "ceiling", "main", "markdown"]

LIMIT_TASKS = ("p3-v1", "p3-green-path-v1", "p3-panoramas-v1", "p3-goats-v1", "solo-v1")
TEAMS = ("pimc", "heuristic", "policy")  # beside the ceiling; ``policy`` only where a learned bot is shipped


@dataclass
class Ceiling:
    """The omniscient solver on ``games`` deals: how many ended each way (``OUTCOMES``), and the
    seconds a deal took (median, largest) with ``budget`` moves at most."""

    games: int
    won: int
    unwinnable: int
    undecided: int
    budget: int
    median_seconds: float
    max_seconds: float


_compiled: set[Config] = set()  # the tables this process has solved on, its compiled code loaded


def _solve_deal(job: tuple) -> tuple[str, float]:
    config, deal, budget = job
    if config not in _compiled:  # compiling (or loading the cache) is not a deal's time
        solve(Game.new(config, deal), budget=1)
        _compiled.add(config)
    found = solve(Game.new(config, deal), budget)
    return found.outcome, found.seconds


def ceiling(config: Config, deals: range, budget: int = DEFAULT_BUDGET, workers: int = 1) -> Ceiling:
    """The omniscient solver on each of ``deals`` (seeds of ``Game.new``), over ``workers``
    processes."""
    found = list(imap_jobs(_solve_deal, [(config, d, budget) for d in deals], workers))
    counts = {o: sum(1 for outcome, _ in found if outcome == o) for o in OUTCOMES}
    seconds = [s for _, s in found]
    return Ceiling(len(found), *counts.values(), budget, statistics.median(seconds), max(seconds))


def _teams(config: Config) -> list[str]:
    shipped = config.players in SHIPPED_BOTS and config == Config(players=config.players)
    return [t for t in TEAMS if t != "policy" or shipped]


def _rate(team: dict | None) -> str:
    if team is None:
        return "none"
    low, high = team["ci95"]
    return f"{100 * team['win_rate']:.1f}% ({100 * low:.0f}–{100 * high:.0f}), {team['games']} deals"


def markdown(reports: list[dict]) -> str:
    """The table of ``limits.md`` from the tasks' reports."""
    lines = [
        "| task | ceiling: won | unwinnable | undecided | seconds a deal (median, max) | pimc | heuristic | learned |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        c, teams = r["ceiling"], {t["team"]: t for t in r["teams"]}
        share = [f"{c[o]} ({100 * c[o] / c['games']:.1f}%)" for o in OUTCOMES]
        rates = [_rate(teams.get(t)) for t in TEAMS]
        seconds = f"{c['median_seconds']:.2f}, {c['max_seconds']:.1f}"
        lines.append(f"| {r['task']} | {' | '.join(share)} | {seconds} | {' | '.join(rates)} |")
    return "\n".join(lines)


def _earlier(path: Path) -> dict:
    """The report at ``path``, checked."""
    try:
        report = json.loads(path.read_text())
        Ceiling(**report["ceiling"])
        if report["task"] not in TASKS or not all(TeamResult(**t).team in TEAMS for t in report["teams"]):
            raise ValueError("an unknown task or team")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path} is not a limits report ({err}); remove it or pass --fresh") from None
    return report


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(prog="tranquility limits", description=__doc__.splitlines()[0])
    parser.add_argument("--task", action="append", choices=sorted(TASKS), help=f"repeatable (default {LIMIT_TASKS})")
    parser.add_argument("--games", type=int, default=200, help="deals the solver decides (default 200)")
    parser.add_argument("--team-games", type=int, help="deals each team plays, the first of the same (default --games)")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="moves the solver may make on a deal")
    parser.add_argument("--teams", default=",".join(TEAMS), help=f"which of {', '.join(TEAMS)} play (default all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one a core)")
    parser.add_argument("--out", default="results/limits", help="folder for the JSON and limits.md")
    parser.add_argument(
        "--fresh", action="store_true", help="start every task afresh (default: keep what its JSON has, see above)"
    )

    args = parser.parse_args(argv)
    teams = [t for t in args.teams.split(",") if t]
    if args.games < 1 or args.budget < 1 or args.workers < 1:
        parser.error("--games, --budget and --workers must be at least 1")
    if not set(teams) <= set(TEAMS):
        parser.error(f"--teams takes names from {', '.join(TEAMS)}, got {args.teams!r}")
    team_games = args.games if args.team_games is None else args.team_games
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.task or LIMIT_TASKS:
        t = task(name)
        path = out / f"{name}.json"
        try:
            earlier = None if args.fresh or not path.exists() else _earlier(path)
        except ValueError as err:
            parser.error(str(err))
        alike = earlier and (earlier["ceiling"]["games"], earlier["ceiling"]["budget"]) == (args.games, args.budget)
        if alike:
            found = Ceiling(**earlier["ceiling"])
        else:
            found = ceiling(t.config, t.evaluation_deals(args.games), args.budget, args.workers)
        print(f"{name}: {asdict(found)}" + (" (kept)" if alike else ""), flush=True)
        played: dict[str, dict] = {r["team"]: r for r in earlier["teams"]} if earlier else {}
        for spec in (s for s in _teams(t.config) if s in teams and team_games > 0):
            seat_team(spec, t.config)
            jobs = [(spec, t.config, d, None) for d in t.evaluation_deals(team_games)]
            played[spec] = asdict(play_jobs(spec, jobs, args.workers, progress=True))
            print(f"{name} {spec}: {played[spec]['win_rate']:.3f}", flush=True)
        report = {"task": name, "config": t.config.to_dict(), "ceiling": asdict(found)}
        report["teams"] = [played[spec] for spec in TEAMS if spec in played]
        path.write_text(json.dumps(report, indent=1) + "\n")
    order = {n: i for i, n in reversed(list(enumerate([*LIMIT_TASKS, *TASKS])))}  # a name's first place
    try:
        reports = sorted((_earlier(p) for p in out.glob("*.json")), key=lambda r: order[r["task"]])
    except ValueError as err:
        parser.error(str(err))
    (out / "limits.md").write_text(markdown(reports) + "\n")
    print(markdown(reports))
    return reports


if __name__ == "__main__":
    main()
