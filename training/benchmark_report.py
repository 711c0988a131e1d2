"""The benchmark's report: from the cells of a run (``benchmark.run_cell``) to the rows, the
aggregate across tasks, ``results.{md,csv,json}`` and the curves.

Every table leads with both metrics: the graded score (cards on the mountain plus 1 for a won
game, 0-45) with its 95% interval over seeds, which tells weak methods apart, and the win rate
with its Wilson interval over every game of every seed, which tells strong ones apart. Beside
them: the score normalised between random's and the heuristic's, the env steps each run took to
reach 30, 40 and 43 cards, the training's CPU-hours and how games were lost. Across tasks, each
algorithm's interquartile mean of the normalised score with a stratified bootstrap interval, as
rliable reports a suite (Agarwal et al., 2021).
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from pathlib import Path

import numpy as np

__all__ = ["CARDS", "aggregate", "curves", "iqm", "score", "summarise", "write_tables"]

CARDS = (30, 40, 43)  # the time-to-score marks: env steps to this many cards on the mountain
BOOTSTRAP = 2000  # resamples of the aggregate's interval


def score(cell: dict) -> float:
    """A cell's graded score: the mean over its games of the cards on the mountain (0-44) plus 1
    for a won game, so 0-45. It tells weak methods apart where the win rate is 0 for all."""
    return cell["mean_cards"] + cell["win_rate"]


def steps_to(curve: list[list[float]], cards: int) -> int | None:
    """The env steps of a run's first periodic evaluation with at least ``cards`` cards on the
    mountain; None if none had (or the curve has no cards: cells of protocol 2)."""
    return next((int(p[0]) for p in curve if len(p) > 3 and p[3] >= cards), None)


def summarise(results: list[dict]) -> list[dict]:
    """Per task and algorithm: the mean score over seeds with a 95% interval over seeds (t), the
    win rate (its mean over seeds, the t half-width, and a Wilson interval over every game of
    every seed, a fixed bot's games counted once), the score normalised between random's (0) and
    the heuristic's (1) on the same task when both ran, each seed's steps to ``CARDS``, the
    training CPU-hours per seed, the losses summed over seeds and, for a warm start, the score and
    win rate of its step 0."""
    from tranquility_env.training.evaluate import wilson

    rows = []
    for task_name in dict.fromkeys(r["task"] for r in results):
        for algo in dict.fromkeys(r["algorithm"] for r in results if r["task"] == task_name):
            cells = [r for r in results if r["task"] == task_name and r["algorithm"] == algo]
            scores, score_half = _mean_and_half_width([score(c) for c in cells])
            rate, half = _mean_and_half_width([c["win_rate"] for c in cells])
            played = {c.get("bot"): c for c in cells}.values()  # a fixed bot's seeds play the same games
            games = sum(c.get("games", 0) for c in played)
            wins = round(sum(c["win_rate"] * c.get("games", 0) for c in played))
            losses: dict[str, int] = {}
            for c in cells:
                for reason, n in c.get("losses", {}).items():
                    losses[reason] = losses.get(reason, 0) + n
            starts = [c["start"] for c in cells if c.get("start")]
            rows.append(
                {
                    "task": task_name,
                    "algorithm": algo,
                    "seeds": len(cells),
                    "budget_steps": cells[0]["budget_steps"],
                    "score": scores,
                    "score_half_width": score_half,
                    "win_rate": rate,
                    "half_width": half,
                    "win_rate_ci95": list(wilson(wins, games)) if games else None,
                    "warm_start": cells[0].get("teacher", ""),
                    "limit": cells[0].get("limit", ""),
                    "games": cells[0].get("games"),
                    "steps_to_cards": {str(n): [steps_to(c.get("curve", []), n) for c in cells] for n in CARDS},
                    "first_evaluation": [c["curve"][0][0] if c.get("curve") else None for c in cells],
                    "cpu_hours": statistics.fmean(c.get("train_cpu_seconds", 0.0) for c in cells) / 3600,
                    "losses": losses,
                    "start_score": statistics.fmean(score(s) for s in starts) if starts else None,
                    "start_win_rate": statistics.fmean(s["win_rate"] for s in starts) if starts else None,
                }
            )
    for row in rows:
        low, high = _ends(rows, row["task"])
        row["normalised_score"] = (row["score"] - low) / (high - low) if low is not None else None
    return rows


def _ends(rows: list[dict], task: str) -> tuple[float | None, float | None]:
    """Random's and the heuristic's mean score on ``task``, the 0 and 1 of the normalised score;
    (None, None) where either did not run or the heuristic is not above random."""
    ends = {r["algorithm"]: r["score"] for r in rows if r["task"] == task}
    low, high = ends.get("random"), ends.get("heuristic")
    return (low, high) if low is not None and high is not None and high > low else (None, None)


def _mean_and_half_width(values: list[float]) -> tuple[float, float]:
    half = _t95(len(values)) * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return statistics.fmean(values), half


def _t95(n: int) -> float:
    """Student's t at 97.5% for ``n - 1`` degrees of freedom (n seeds)."""
    table = {2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}
    return table.get(n, 1.96)


def iqm(values: np.ndarray) -> float:
    """The interquartile mean: the mean of the middle half of the values (as scipy's
    ``trim_mean(values, 0.25)``), robust to an outlying run where the median wastes most runs."""
    ordered = np.sort(values)
    cut = int(0.25 * len(ordered))
    return float(ordered[cut : len(ordered) - cut].mean())


def aggregate(results: list[dict], rows: list[dict], seed: int = 0) -> list[dict]:
    """Per algorithm, across the tasks where its normalised score exists: the IQM of its runs'
    normalised scores and of their win rates, each with a 95% percentile interval from a
    stratified bootstrap (runs resampled within each task, ``BOOTSTRAP`` times)."""
    rng = np.random.default_rng(seed)
    out = []
    for algo in dict.fromkeys(r["algorithm"] for r in results):
        per_task = {}
        for task in dict.fromkeys(r["task"] for r in results if r["algorithm"] == algo):
            low, high = _ends(rows, task)
            if low is None:
                continue
            cells = [c for c in results if c["task"] == task and c["algorithm"] == algo]
            per_task[task] = np.array([[(score(c) - low) / (high - low), c["win_rate"]] for c in cells])
        if not per_task:
            continue
        runs = np.concatenate(list(per_task.values()))
        draws = np.empty((BOOTSTRAP, 2))
        for b in range(BOOTSTRAP):
            resampled = np.concatenate([v[rng.integers(0, len(v), len(v))] for v in per_task.values()])
            draws[b] = [iqm(resampled[:, 0]), iqm(resampled[:, 1])]
        low_ci, high_ci = np.percentile(draws, [2.5, 97.5], axis=0)
        out.append(
            {
                "algorithm": algo,
                "tasks": list(per_task),
                "runs": len(runs),
                "iqm_normalised_score": iqm(runs[:, 0]),
                "iqm_normalised_score_ci95": [float(low_ci[0]), float(high_ci[0])],
                "iqm_win_rate": iqm(runs[:, 1]),
                "iqm_win_rate_ci95": [float(low_ci[1]), float(high_ci[1])],
            }
        )
    return out


def write_tables(
    out: Path,
    results: list[dict],
    rows: list[dict],
    teams: list[dict] | None = None,
    *,
    protocol: int,
    tier: str = "",
) -> None:
    """``results.json`` (cells, rows, aggregate, teamwork), ``results.csv`` (the rows) and
    ``results.md``: the methods from scratch, the warm starts, the limits, the losses, the
    aggregate across tasks and the teamwork tables; ``protocol`` and ``tier`` label them."""
    teams = teams or []
    overall = aggregate(results, rows)
    kept = {"protocol": protocol, "tier": tier, "cells": results, "rows": rows, "aggregate": overall, "teamwork": teams}
    (out / "results.json").write_text(json.dumps(kept, indent=1))
    with (out / "results.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({k: json.dumps(v) if isinstance(v, dict) else v for k, v in r.items()} for r in rows)
    lines = [
        "score: cards on the mountain plus 1 for a won game (0-45), mean over seeds ± the half-width of a 95% "
        "interval over seeds (Student's t); win rate: mean over seeds, with a 95% Wilson interval over every "
        "game of every seed; normalised score: (score - random's) / (heuristic's - random's) on the same task; "
        f"steps to {', '.join(map(str, CARDS))} cards: the first periodic evaluation (tuning deals) at that many "
        "cards, median over the seeds that reached it (how many did, if not all; ≤ where each had it at its first "
        "evaluation); CPU-h: training, per seed.",
        "",
    ]
    groups = (  # (which rows, the line above their table, the extra column: its title and how it reads a row)
        (lambda r: not r["warm_start"] and not r.get("limit"), "", None),
        (
            lambda r: r["warm_start"],
            "Warm-started (not comparable with the rows above: each starts from a teacher):",
            ("starts from; its step 0: score, win rate", _start),
        ),
        (
            lambda r: r.get("limit"),
            "The limits of the game (not methods: each cheats or searches at play time; on the first deals only):",
            ("what it is", lambda r: r["limit"]),
        ),
    )
    for belongs, title, extra in groups:
        chosen = [r for r in rows if belongs(r)]
        if not chosen:
            continue
        if title:
            lines += ["", title, ""]
        marks = " | ".join(f"steps to {n}" for n in CARDS)
        lines += [
            f"| task | algorithm | seeds | budget (env steps) | score (0-45) | win rate | normalised score | {marks} "
            "| CPU-h |" + (f" {extra[0]} |" if extra else ""),
            "|---|---|---:|---:|---:|---:|---:|" + "---:|" * (len(CARDS) + 1) + ("---|" if extra else ""),
        ]
        for r in chosen:
            cells = [
                r["task"],
                r["algorithm"] + (f" ({r['games']} deals)" if r.get("limit") else ""),
                r["seeds"],
                f"{r['budget_steps']:,}",
                f"{r['score']:.1f} ± {_half(r['score_half_width'], '.1f')}",
                _rate(r),
                "-" if r["normalised_score"] is None else f"{r['normalised_score']:.2f}",
                *(_steps(r.get("steps_to_cards", {}).get(str(n), []), r.get("first_evaluation", [])) for n in CARDS),
                f"{r.get('cpu_hours', 0.0):.2f}",
            ]
            lines.append("| " + " | ".join(str(c) for c in cells + ([extra[1](r)] if extra else [])) + " |")
    lines += _loss_lines(rows) + _aggregate_lines(overall)
    commits = ", ".join(dict.fromkeys(r["commit"] for r in results))
    hours = (sum(r.get("seconds", 0) for r in results) + sum(t.get("seconds", 0) for t in teams)) / 3600
    cpu = sum(r.get("train_cpu_seconds", 0.0) for r in results) / 3600
    lines += [
        "",
        f"hardware: {results[0]['hardware']}; commit {commits}; protocol {protocol}"
        + (f", {tier} tier" if tier else "")
        + f"; wall-clock {hours:.2f} h (training, evaluation and teamwork, summed over cells); "
        f"training {cpu:.2f} CPU-hours",
    ]
    (out / "results.md").write_text("\n".join(lines + teamwork_lines(teams)) + "\n")


def _rate(row: dict) -> str:
    ci = row.get("win_rate_ci95")
    return f"{row['win_rate']:.1%}" + (f" ({ci[0]:.1%}-{ci[1]:.1%})" if ci else "")


def _steps(per_seed: list[int | None], firsts: list[int | None]) -> str:
    """The median of the seeds' steps to a score; "≤" where every seed had it at its first
    evaluation, so the curve cannot say how much sooner."""
    reached = [s for s in per_seed if s is not None]
    if not reached:
        return "-"
    at_first = all(s == f for s, f in zip(per_seed, firsts, strict=False) if s is not None) and len(firsts) > 0
    median = ("≤" if at_first else "") + f"{statistics.median(reached) / 1e6:.2g}M"
    return median if len(reached) == len(per_seed) else f"{median} ({len(reached)}/{len(per_seed)})"


def _start(row: dict) -> str:
    if row.get("start_score") is None:
        return row["warm_start"]
    return f"{row['warm_start']}; {row['start_score']:.1f}, {row['start_win_rate']:.1%}"


def _half(value: float, spec: str) -> str:
    return "-" if math.isnan(value) else format(value, spec)


def _loss_lines(rows: list[dict]) -> list[str]:
    """How games were lost: per row, each category's share of all its games."""
    reasons = sorted({reason for r in rows for reason in r.get("losses", {})})
    if not reasons:
        return []
    lines = [
        "",
        "How games were lost (share of every game of every seed):",
        "",
        "| task | algorithm | " + " | ".join(reasons) + " |",
        "|---|---|" + "---:|" * len(reasons),
    ]
    for r in rows:
        games = (r.get("games") or 0) * r["seeds"]
        shares = [f"{r['losses'].get(reason, 0) / games:.1%}" if games else "-" for reason in reasons]
        lines.append(f"| {r['task']} | {r['algorithm']} | " + " | ".join(shares) + " |")
    return lines


def _aggregate_lines(overall: list[dict]) -> list[str]:
    if not overall:
        return []
    lines = [
        "",
        "Across tasks (rliable style): the interquartile mean over every run (task x seed) of the normalised",
        f"score and of the win rate, each with a 95% stratified-bootstrap interval ({BOOTSTRAP:,} resamples).",
        "",
        "| algorithm | tasks | runs | IQM normalised score | IQM win rate |",
        "|---|---:|---:|---:|---:|",
    ]
    for a in overall:
        s, w = a["iqm_normalised_score_ci95"], a["iqm_win_rate_ci95"]
        lines.append(
            f"| {a['algorithm']} | {len(a['tasks'])} | {a['runs']} | {a['iqm_normalised_score']:.2f} "
            f"({s[0]:.2f}-{s[1]:.2f}) | {a['iqm_win_rate']:.1%} ({w[0]:.1%}-{w[1]:.1%}) |"
        )
    return lines


def teamwork_lines(teams: list[dict]) -> list[str]:
    """The ad-hoc table (per partner: the algorithm's bot with the partner, mean over seeds, and the
    partner's own team) and the cross-play table (self-play against mixed seeds)."""
    if not teams:
        return []
    partners = list(teams[0]["partners"])
    lines = [
        "",
        f"Ad-hoc teamwork ({teams[0]['games']} deals): one seat the algorithm's bot, the others the test",
        "partner; each cell the mixed team's win rate (mean over seeds), the partner's own team in brackets.",
        "",
        "| task | algorithm | " + " | ".join(partners) + " | mean difference |",
        "|---|---|" + "---:|" * (len(partners) + 1),
    ]
    for t in teams:
        cells = [f"{p['mean']:.1%} ({p['alone']:.1%})" for p in t["partners"].values()]
        gap = statistics.fmean(p["mean"] - p["alone"] for p in t["partners"].values())
        lines.append(f"| {t['task']} | {t['algorithm']} | " + " | ".join(cells) + f" | {100 * gap:+.1f} points |")
    crossed = [t for t in teams if t["cross_play"]]
    if crossed:
        lines += [
            "",
            "Cross-play across seeds: each pair of seeds' bots mixed (matrices in results.json), in every seating",
            "where both play (`every`), or with even seats one bot and odd seats the other (`even/odd`, runs made",
            "before every seating was played). The largest gap: the seating furthest from either bot's self-play.",
            "",
            "| task | algorithm | seatings | self-play (diagonal) | cross-play (off the diagonal) | difference "
            "| largest gap |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        for t in crossed:
            c = t["cross_play"]
            m = c["win_rate"]
            own = statistics.fmean(m[i][i] for i in range(len(m)))
            mixed = statistics.fmean(m[i][j] for i in range(len(m)) for j in range(len(m)) if i != j)
            largest = "-" if c.get("largest_gap") is None else f"{100 * c['largest_gap']:.1f} points"
            lines.append(
                f"| {t['task']} | {t['algorithm']} | {c['seatings']} | {own:.1%} | {mixed:.1%} "
                f"| {100 * (mixed - own):+.1f} points | {largest} |"
            )
    return lines


def curves(out: Path, results: list[dict]) -> list[Path]:
    """Per task, the learning algorithms' win rate and cards on the mountain on tuning deals during
    training (``eval/win_rate``, ``eval/cards_on_mountain``) against env steps and against
    wall-clock: one colour an algorithm, one line (and marker) a seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    colours = plt.get_cmap("tab10").colors
    markers = "osD^v"
    names = list(dict.fromkeys(r["algorithm"] for r in results))
    made = []
    for task_name in dict.fromkeys(r["task"] for r in results):
        drawn = [r for r in results if r["task"] == task_name and r.get("curve")]
        if not drawn:
            continue
        fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex="col")
        named = set()
        for r in drawn:
            style = {
                "color": colours[names.index(r["algorithm"]) % len(colours)],
                "marker": markers[r["seed"] % len(markers)],
                "alpha": 0.8,
            }
            label = r["algorithm"] if r["algorithm"] not in named else None  # one legend entry an algorithm
            named.add(r["algorithm"])
            steps, minutes, rates = (list(v) for v in zip(*(p[:3] for p in r["curve"]), strict=True))
            cards = [p[3] if len(p) > 3 else math.nan for p in r["curve"]]  # protocol 2 kept no cards
            for column, x in enumerate((steps, minutes)):
                axes[0][column].plot(x, rates, label=label if column == 0 else None, **style)
                axes[1][column].plot(x, cards, **style)
        for column, xlabel in enumerate(("env steps", "wall-clock minutes")):
            axes[0][column].set_ylim(0, 1)
            axes[0][column].set_ylabel("win rate (tuning deals)")
            axes[1][column].set_ylim(0, 44)
            axes[1][column].set_ylabel("cards on the mountain")
            axes[1][column].set_xlabel(xlabel)
            for row in axes:
                row[column].grid(alpha=0.3)
        axes[1][0].xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1e6:g}M"))
        axes[0][0].legend(fontsize=7)
        fig.suptitle(f"{task_name}: time to score")
        path = out / f"curves_{task_name}.png"
        fig.savefig(path, dpi=100, bbox_inches="tight")
        made.append(path)
        plt.close(fig)
    return made
