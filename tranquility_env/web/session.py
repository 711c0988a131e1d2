"""One game in the browser: a person's seat, bots at the others, and what the person may be shown.

Everything a page receives comes from ``TableSession.state``, built from the person's seat view
(``views.seat_view``): no other hand, no deck, and never the deal's seed (which would rebuild
every hidden card). Bots decide on a thread of their own, so a search of seconds blocks nobody;
the page sees ``thinking`` meanwhile. The game is written to a replay file as it goes, with what
each bot weighed (``replay.py``, version 2).
"""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from tranquility_env.arena import bot_action
from tranquility_env.bots import Bot
from tranquility_env.bots.reasons import top_choices
from tranquility_env.describe import cost, public
from tranquility_env.replay import ReplayWriter
from tranquility_env.rules import actions, board
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import ONGOING, Game, IllegalMove
from tranquility_env.views import seat_view

__all__ = ["MoveRefused", "TableSession", "why_lost"]

MAX_MOVE = 64  # characters of a move's text (the longest is under 30)


def why_lost(game: Game, names: list[str], human: int) -> str:
    """Why the team lost, in a sentence a player reads: who could not act (E2), with how many
    cards, and how far the mountain got (only what every seat may know)."""
    seat = game.current
    who = "You" if seat == human else f"Seat {seat} ({names[seat]})"
    cards = len(game.hands[seat])
    holding = f"holding {cards} card{'' if cards == 1 else 's'}" if cards else "with no card left"
    on = game.cards_on_mountain()
    if on < board.N_SLOTS:
        where = f"{board.N_SLOTS - on} of the mountain's {board.N_SLOTS} slots were still empty"
    elif not game.summit_goals_met():
        where = "the mountain was full, but a module's goal for the Summit was not met (E1)"
    else:
        where = "the mountain was full, but no Summit could be played (E1)"
    return f"{who}, {holding}, had no legal move (E2); {where}."


class MoveRefused(ValueError):
    """A move the session will not make; ``status`` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class TableSession:
    """A game with a person at ``human`` and ``bots`` (seat -> bot) at the other seats."""

    def __init__(
        self,
        config: Config,
        human: int,
        bots: dict[int, Bot],
        names: list[str],
        replays: Path,
        pace: float = 0.5,
        seed: int | None = None,
    ) -> None:
        self.id = uuid.uuid4().hex
        seed = secrets.randbits(64) if seed is None else seed  # too many deals to search from what a seat sees
        self.game = Game.new(config, seed)
        self.human, self.bots, self.names, self.pace = human, bots, names, pace
        self.writer = ReplayWriter(
            replays / f"web_{time.strftime('%Y%m%d_%H%M%S')}_{self.id[:8]}.jsonl", config, seed, names, human
        )
        self.events: list[dict[str, Any]] = []  # what the person saw happen, move by move
        self.thinking: int | None = None
        self.outcome: str | None = None  # "won", "lost" or "quit" once the game ended
        self.touched = time.monotonic()  # when the page last asked or moved
        self.lock = threading.Lock()
        self._runner: threading.Thread | None = None
        self._wake()

    @property
    def replay_name(self) -> str:
        return self.writer.path.name

    # ------------------------------------------------------------------ what the page sees
    def state(self, since: int = 0) -> dict[str, Any]:
        """The person's view of the table, the events after the first ``since``, and their legal
        moves with what each costs."""
        with self.lock:
            self.touched = time.monotonic()
            game = self.game
            mine = self.outcome is None and game.current == self.human
            moves = [
                {"move": actions.to_string(a, game.config.goats), "cost": cost(game, a)}
                for a in (game.legal_actions() if mine else [])
            ]
            view = seat_view(game, self.human)
            view.pop("legal_moves")
            return {
                "id": self.id,
                "view": view,
                "seats": self.names,
                "human": self.human,
                "moves": moves,
                "decision": len(self.events),
                "events": self.events[since:],
                "thinking": self.thinking,
                "pace": self.pace,
                "cards_on_mountain": game.cards_on_mountain(),
                "outcome": self.outcome,
                "why": why_lost(game, self.names, self.human) if self.outcome == "lost" else None,
                "replay": self.replay_name if self.outcome else None,
            }

    def summary(self) -> dict[str, Any]:
        """A line of the person's list of games (it does not count as looking at the game)."""
        with self.lock:
            return {
                "id": self.id,
                "players": self.game.config.players,
                "seat": self.human,
                "seats": self.names,
                "turn": self.game.turn,
                "decision": len(self.events),
                "outcome": self.outcome,
            }

    # ------------------------------------------------------------------ the person's moves
    def play(self, move: Any, decision: Any) -> None:
        """Make the person's ``move`` (N2 text), made when ``decision`` moves had been made (so a
        move sent for an older position is refused); ``MoveRefused`` says why, game unchanged."""
        if not isinstance(move, str) or not isinstance(decision, int) or isinstance(decision, bool):
            raise MoveRefused("a move is {'move': 'play G7 r1c1', 'decision': N} with N the moves made so far")
        if len(move) > MAX_MOVE:
            raise MoveRefused(f"malformed move {move[:MAX_MOVE]!r}...: no move is over {MAX_MOVE} characters")
        with self.lock:
            game = self.game
            if self.outcome:
                raise MoveRefused(f"the game is over ({self.outcome})", 409)
            if decision != len(self.events):
                raise MoveRefused(f"stale move: {len(self.events)} moves were made, not {decision}", 409)
            if game.current != self.human:
                raise MoveRefused(f"not your turn: seat {game.current} is to act", 409)
            try:
                game.apply(move)
            except IllegalMove as err:
                raise MoveRefused(str(err)) from None
            self._record(self.human, move, None)
        self._wake()

    def quit(self) -> None:
        """End the game where it stands (the replay says so)."""
        with self.lock:
            if self.outcome is None:
                self.outcome = "quit"
                self.writer.end("quit")

    # ------------------------------------------------------------------ the bots
    def _wake(self) -> None:
        """Let the bots play their seats, on a thread of their own, until the person is to act."""
        with self.lock:
            if self._runner and self._runner.is_alive():
                return
            if self.outcome or self.game.current == self.human:
                return
            self.thinking = self.game.current
            self._runner = threading.Thread(target=self._run_bots, daemon=True)
            self._runner.start()

    def _run_bots(self) -> None:
        while True:
            with self.lock:
                game = self.game
                if self.outcome or game.current == self.human:
                    self.thinking = None
                    return
                seat = game.current
                self.thinking = seat
            # Only this thread changes the game during a bot's turn, so the bot reads it unlocked.
            bot = self.bots[seat]
            action = bot_action(game, bot)
            why = top_choices(bot, game)
            time.sleep(self.pace)
            with self.lock:
                if self.outcome:  # the person left meanwhile
                    self.thinking = None
                    return
                move = actions.to_string(action, game.config.goats)
                game.apply_action(action)
                self._record(seat, move, why)

    def _record(self, seat: int, move: str, why: dict[str, Any] | None) -> None:
        """Log a move made (the lock held): the person sees their own moves and the public part of
        the bots' (T5)."""
        game = self.game
        self.events.append({"seat": seat, "text": move if seat == self.human else public(move), "turn": game.turn})
        self.writer.move(seat, move, why)
        if game.status != ONGOING:
            self.outcome = game.status
            self.writer.end(game.status)
