"""Play in the terminal with bot teammates, and step through replays.

``tranquility play --players 3 --seat 0 --bots policy,heuristic`` seats a person at ``--seat``
and bots at the other seats, in seat order (one name fills them all; ``policy`` is the strongest
shipped learned bot for that player count, ``policy+search`` the same with the heuristic's end-game
search, ``policy+own-search`` the same with that search over its own rollouts, ``policy:PATH`` any
checkpoint). The screen shows only what
the person's seat may know: bots' discards and payments are face down, so they are shown as
"discards two cards" and "pays a card". Every game is written to a replay file under
``--replays`` (JSON lines, ``replay.py``); ``tranquility replay FILE`` steps through it.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from tranquility_env import render
from tranquility_env.arena import bot_action
from tranquility_env.bots import Bot, make_bot, resolve
from tranquility_env.describe import cost, public
from tranquility_env.replay import ReplayWriter, read
from tranquility_env.rules import actions
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import ONGOING, Game, IllegalMove
from tranquility_env.table_args import add_table_arguments, table_from_args
from tranquility_env.views import seat_view

__all__ = ["main", "replay_main", "seat_bots"]


def seat_bots(names: list[str], config: Config, human: int, seed: int) -> tuple[dict[int, Bot], list[str]]:
    """The bots of the seats other than ``human`` and every seat's name (``policy`` is the shipped
    bot for the table, ``policy+search`` and ``policy+own-search`` the same with an end-game search)."""
    seats = [s for s in range(config.players) if s != human]
    if len(names) == 1:
        names = names * len(seats)
    if len(names) != len(seats):
        raise ValueError(f"--bots names {len(names)} bots for {len(seats)} seats")
    bots: dict[int, Bot] = {}
    seat_names = ["human"] * config.players
    for seat, name in zip(seats, names, strict=True):
        name = resolve(name, config)
        bot = make_bot(name, seed + seat, table=config)
        bots[seat], seat_names[seat] = bot, name
    return bots, seat_names


class Table:
    """One game in the terminal: the person's decisions and the bots' turns."""

    def __init__(
        self, game: Game, human: int, bots: dict[int, Bot], writer: ReplayWriter, delay: float, console: Console
    ) -> None:
        self.game, self.human, self.bots, self.writer, self.delay, self.console = (
            game,
            human,
            bots,
            writer,
            delay,
            console,
        )

    def run(self) -> str:
        game = self.game
        while game.status == ONGOING:
            if game.current == self.human:
                if not self.human_decision():
                    self.writer.end("quit")
                    self.console.print("You left the game.")
                    return "quit"
            else:
                seat = game.current
                move = actions.to_string(bot_action(game, self.bots[seat]), game.config.goats)
                self.console.print(f"seat {seat} ({type(self.bots[seat]).__name__}): {public(move)}")
                game.apply(move)
                self.writer.move(seat, move)
                if self.delay:
                    time.sleep(self.delay)
        self.console.print(render.table(seat_view(game, self.human)))
        self.console.print(
            Text(
                f"\nThe team {'WON' if game.status == 'won' else 'lost'} after {game.turn} turns, "
                f"{game.cards_on_mountain()} cards on the mountain.",
                style="bold",
            )
        )
        self.writer.end(game.status)
        return game.status

    def human_decision(self) -> bool:
        """Ask until a legal move is given; False when the person quits."""
        game = self.game
        self.console.print()
        self.console.print(render.table(seat_view(game, self.human)))
        legal = game.legal_actions()
        moves = [actions.to_string(a, game.config.goats) for a in legal]
        self.console.print("Your moves:")
        for i, (a, move) in enumerate(zip(legal, moves, strict=True), start=1):
            self.console.print(f"  {i:>3}. {move}  ({cost(game, a)})")
        while True:
            try:
                answer = self.console.input("Your move (number or text, q to quit): ").strip()
            except EOFError:
                return False
            if answer.lower() == "q":
                try:
                    if self.console.input("Really quit this game? (y/n): ").strip().lower() in ("y", "yes"):
                        return False
                except EOFError:
                    return False
                continue
            move = self.parse(answer, moves)
            if move is None:
                continue
            try:
                game.apply(move)
            except IllegalMove as err:
                self.console.print(f"[red]{err}[/red]")
                continue
            self.writer.move(self.human, move)
            return True

    def parse(self, answer: str, moves: list[str]) -> str | None:
        if not answer:
            self.console.print("[red]Type the number of a move, or the move itself (e.g. 'play G7 r2c3').[/red]")
            return None
        if answer.isdigit():
            if 1 <= int(answer) <= len(moves):
                return moves[int(answer) - 1]
            self.console.print(f"[red]{answer} is not a listed number: choose 1 to {len(moves)}.[/red]")
            return None
        return " ".join(answer.split())


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(prog="tranquility play", description=__doc__.splitlines()[0])
    add_table_arguments(parser)
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 plays first)")
    parser.add_argument("--bots", default="policy", help="bots of the other seats, comma-separated (default policy)")
    parser.add_argument("--seed", type=int, help="the deal (default: a random one)")
    parser.add_argument("--delay", type=float, default=0.6, help="seconds to pause after each bot decision")
    parser.add_argument("--replays", default="replays", help="folder for the replay file (default replays/)")
    parser.add_argument("--no-color", action="store_true")
    args = parser.parse_args(argv)
    try:
        config = table_from_args(args)
        if not 0 <= args.seat < config.players:
            raise ValueError(f"--seat must be from 0 to {config.players - 1}")
        if args.delay < 0:
            raise ValueError("--delay must be >= 0")
        seed = args.seed if args.seed is not None else random.randrange(2**31)
        bots, names = seat_bots(args.bots.split(","), config, args.seat, seed)
    except ValueError as err:
        parser.error(str(err))
    console = Console(no_color=args.no_color, highlight=False)
    path = Path(args.replays) / f"game_{time.strftime('%Y%m%d_%H%M%S')}_{seed}.jsonl"
    writer = ReplayWriter(path, config, seed, names, args.seat)
    console.print(f"Tranquility: The Ascent, {config.players} players, you are seat {args.seat}, deal {seed}.")
    outcome = Table(Game.new(config, seed), args.seat, bots, writer, args.delay, console).run()
    console.print(f"Replay saved: {path}   (tranquility replay {path})", soft_wrap=True)
    return outcome


def replay_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tranquility replay", description="Step through a replay file.")
    parser.add_argument("file")
    parser.add_argument("--seat", type=int, help="whose view to show (default: the person who played)")
    parser.add_argument("--delay", type=float, help="advance by itself after this many seconds (default: Enter)")
    parser.add_argument("--no-color", action="store_true")
    args = parser.parse_args(argv)
    console = Console(no_color=args.no_color, highlight=False)
    try:
        replay = read(args.file)
        moves, end = replay.moves, replay.end
        seat = args.seat if args.seat is not None else (replay.header.get("human") or 0)
        positions = replay.games()
        next(positions)  # the deal, before the first move
        for number, ((mover, move, _), game) in enumerate(zip(moves, positions, strict=True), start=1):
            console.print(f"\nmove {number}/{len(moves)}: seat {mover}: {move if mover == seat else public(move)}")
            console.print(render.table(seat_view(game, seat)))
            if args.delay is not None:
                time.sleep(args.delay)
            elif number < len(moves) and console.input("Enter: next move, q: stop ").strip().lower() == "q":
                return
    except (ValueError, OSError) as err:
        parser.error(str(err))
    except EOFError:
        return
    console.print(f"\nend of the replay: {end or 'unfinished'}")
