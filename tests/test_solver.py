"""The omniscient solver (``batch/solver.py``, ``bots/omniscient.py``), ``PimcBot`` and
``tranquility limits``: every winning line the solver finds is replayed in ``Game``, its proofs
and prunings are checked against states known to be winnable or lost, and pimc never reads a
card its seat cannot see."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tranquility_env.arena import bot_action, play_until
from tranquility_env.batch import GameBatch, rules, solver, value_model
from tranquility_env.batch import layout as L
from tranquility_env.batch.engine import finish_rope
from tranquility_env.bots import HeuristicBot, OmniscientBot, PimcBot, make_bot
from tranquility_env.bots.omniscient import solve
from tranquility_env.rules import actions, cards
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game
from tranquility_env.training import evaluate, limits
from tranquility_env.views import LazySeatView, seat_view

DEALS = range(500_000, 500_004)  # tuning deals


def row_of(game: Game) -> tuple[np.ndarray, GameBatch]:
    batch = GameBatch(game.config, 1, threads=1)
    batch.load(0, game)
    return batch.rows[0], batch


@pytest.mark.parametrize(
    "config", [Config(players=3), Config(players=1), Config(players=2, green_path=True), Config(players=4)]
)
def test_every_winning_line_wins_in_game(config: Config) -> None:
    """The solver works on the compiled rules; ``Game`` (solo's ropes included) must agree that
    each line it returns wins."""
    for deal in DEALS:
        found = solve(Game.new(config, deal), budget=200_000)
        assert found.outcome == "won", (config, deal, found)
        game = Game.new(config, deal)
        for action in found.line:
            game.apply_action(action)
        assert game.status == "won"


def test_the_solver_is_deterministic_and_stops_at_its_budget() -> None:
    game = Game.new(Config(players=3, panoramas=3), 500_001)
    first, second = solve(game, budget=3_000), solve(game, budget=3_000)
    assert (first.outcome, first.line, first.moves_made) == (second.outcome, second.line, second.moves_made)
    assert solve(game, budget=1).outcome == "undecided"
    assert solve(game, budget=1).moves_made == 1


def without_summits(game: Game) -> Game:
    """``game`` with every Summit moved from the hands and decks to seat 0's discard pile."""
    state = game.to_dict()
    for p in state["players"]:
        for pile in ("hand", "deck"):
            gone = [c for c in p[pile] if c == "SUMMIT"]
            p[pile] = [c for c in p[pile] if c != "SUMMIT"]
            state["players"][0]["discard"] += gone
    return Game.from_dict(state)


def test_a_deal_without_a_summit_left_is_proven_unwinnable() -> None:
    found = solve(without_summits(Game.new(Config(players=3), 500_000)), budget=100_000)
    assert found.outcome == "unwinnable" and found.line == []


def test_an_end_game_short_of_high_cards_is_proven_unwinnable() -> None:
    """A won game rewound to the turn before its last row-8 card, with every card that could
    still go to row 8 (numbered 8 or more, or a campfire) moved to a discard pile: the cards
    prove it lost, however the search orders its moves."""
    config = Config(players=3)
    game = Game.new(config, 500_000)
    line = solve(game, budget=200_000).line
    top = [i for i, a in enumerate(line) if actions.DECODE[a][0] == actions.PLAY and actions.DECODE[a][2] >= 42]
    for action in line[: top[0]]:
        game.apply_action(action)
    state = game.to_dict()
    high = {n for n in cards.NAME if n.startswith("CAMP")} | {
        cards.NAME[k] for k in range(cards.N_ASCENT) if cards.NUMBER[k] >= 8
    }
    for p in state["players"]:
        for pile in ("hand", "deck"):
            state["players"][0]["discard"] += [c for c in p[pile] if c in high]
            p[pile] = [c for c in p[pile] if c not in high]
    stripped = Game.from_dict(state)
    assert stripped.status == "ongoing"
    assert solve(stripped, budget=100_000).outcome == "unwinnable"


def test_no_state_of_a_won_game_is_dead() -> None:
    """The prunings are necessary conditions of a win: they must hold at every state of every
    won game, the solver's lines and the heuristic's games alike."""
    checked = 0
    for config in (Config(players=3), Config(players=1), Config(players=3, goats=True, goats_needed=2)):
        for deal in DEALS:
            game = Game.new(config, deal)
            line = solve(game, budget=200_000).line
            if not line:
                play = Game.new(config, deal)
                line = play_until(play, [HeuristicBot(seed=deal, rollouts=0)] * config.players)
                if play.status != "won":
                    continue
            row, batch = row_of(game)
            for action in line[:-1]:
                rules.apply(row, batch.cfg, action)
                if row[L.ROPE_SHUFFLE]:
                    finish_rope(row, batch.cfg)
                assert not solver.dead(row, batch.cfg), (config, deal)
                checked += 1
    assert checked > 500


def test_the_table_key_sees_what_the_game_goes_on_with_and_nothing_else() -> None:
    row, batch = row_of(Game.new(Config(players=3), 500_002))
    key = solver.state_key(row, batch.cfg)
    changed = row.copy()
    changed[L.DISCARD + L.MAX_PILE] = cards.SUMMIT  # a discard pile is never read again
    changed[L.DISCARD_LEN + 1] = 1
    changed[L.TURN] += 3  # nor the turn, without ropes
    assert solver.state_key(changed, batch.cfg) == key
    for field, at in ((L.HAND, 0), (L.DECK_LEN, 2), (L.MOUNTAIN, 0), (L.CURRENT, 0)):
        changed = row.copy()
        changed[field + at] += 1
        assert solver.state_key(changed, batch.cfg) != key, field


def test_a_payment_is_searched_in_kind_order_only() -> None:
    """Paying A then B ends where B then A ends: below the floor nothing is offered, and the
    value model's own payment comes first, in kind order."""
    config = Config(players=3)
    game = Game.new(config, 500_000)
    bot = HeuristicBot(rollouts=0)
    while not (game.pending == 1 and game.owed >= 2):  # a payment of two or more cards
        game.apply_action(bot_action(game, bot))
        if game.status != "ongoing":
            pytest.skip("no payment of two cards in this deal")
    row, batch = row_of(game)
    s = value_model.settings(bot, 3)
    out = np.empty(L.MAX_LEGAL, dtype=np.int64)
    n = solver.order(row, batch.cfg, batch.deck_counts, *s, 0, out)
    kinds = [actions.DECODE[a][1] for a in out[:n]]
    assert sorted(kinds) == sorted(set(game.hands[game.current]))
    floor = sorted(kinds)[1]
    n = solver.order(row, batch.cfg, batch.deck_counts, *s, floor, out)
    assert all(actions.DECODE[a][1] >= floor for a in out[:n])


def test_bad_input_is_refused() -> None:
    game = Game.new(Config(players=3), 500_000)
    with pytest.raises(ValueError, match="budget"):
        solve(game, budget=0)
    found = solve(game, budget=100_000)
    for action in found.line:
        game.apply_action(action)
    with pytest.raises(ValueError, match="won"):
        solve(game)
    row, batch = row_of(game)
    for call in (solver.ordered_moves, solver.solve_row):
        with pytest.raises(ValueError, match="over"):  # compiled code would read past the legal moves
            call(row, batch.cfg, batch.deck_counts, HeuristicBot(), *([1] if call is solver.solve_row else []))
    for name in ("pimc:depth=3", "omniscient:samples=2", "pimc:budget=x", "pimc:budget=-1", "pimc:margin=1,margin=2"):
        with pytest.raises(ValueError, match="options"):
            make_bot(name)
    for name, field in (("pimc:samples=0", "samples"), ("omniscient:budget=0", "budget")):
        with pytest.raises(ValueError, match=field):
            make_bot(name)
    assert make_bot("pimc:margin=0,search_from=0").margin == 0
    with pytest.raises(ValueError, match="cheats"):
        evaluate.partner_list("omniscient")
    with pytest.raises(ValueError, match="cheats"):
        evaluate.adhoc("omniscient", ["heuristic"], Config(players=3), 1)


def test_the_omniscient_bot_plays_the_line_it_found_and_needs_the_whole_game() -> None:
    config = Config(players=3)
    game = Game.new(config, 500_003)
    play_until(game, [make_bot("omniscient", seed=i) for i in range(3)])
    assert game.status == "won"
    fresh = Game.new(config, 500_003)
    view = seat_view(fresh, 0)
    with pytest.raises(ValueError, match="whole game"):
        OmniscientBot().act(np.zeros(1), np.ones(actions.N_ACTIONS, dtype=bool), view)
    from tranquility_env.web.game_routes import BOT_NAMES

    assert not any(name.startswith(("omniscient", "pimc")) for name in BOT_NAMES)


def with_hidden_cards_swapped(game: Game) -> Game:
    """``game`` with a card of seat 1's hand and a different card of seat 2's deck swapped:
    seat 0 sees the same table."""
    state = game.to_dict()
    hand, deck = state["players"][1]["hand"], state["players"][2]["deck"]
    j = next(j for j, c in enumerate(deck) if c != hand[0])
    hand[0], deck[j] = deck[j], hand[0]
    state["players"][1]["hand"] = sorted(hand, key=lambda c: cards.parse_card(c, False))
    return Game.from_dict(state)


def test_pimc_decides_from_what_its_seat_sees() -> None:
    """Two games that seat 0 sees alike (other hidden cards) give pimc the same move and the
    same search; and a seed makes it repeat itself."""
    config = Config(players=3)
    game = Game.new(config, 500_001)
    bot = HeuristicBot(rollouts=0)
    while game.status == "ongoing" and (game.turn < 40 or game.current != 0 or len(game.legal_actions()) < 2):
        game.apply_action(bot_action(game, bot))  # on to the end game, where pimc's candidates differ
    assert game.status == "ongoing"
    other = with_hidden_cards_swapped(game)
    assert seat_view(other, 0) == seat_view(game, 0) and other.to_dict() != game.to_dict()
    moves = []
    for g in (game, other, game):
        pimc = PimcBot(samples=4, candidates=3, budget=500, margin=0, search_from=0, seed=7)
        moves.append((bot_action(g, pimc), pimc.last_search))
    assert moves[0] == moves[1] == moves[2]
    assert moves[0][0] in game.legal_actions() and moves[0][1]
    assert isinstance(LazySeatView(game, 0).whole_game(), Game)


def test_limits_writes_each_task_and_the_table(tmp_path) -> None:
    args = ["--task", "p3-v1", "--games", "3", "--team-games", "1", "--teams", "heuristic", "--workers", "1"]
    reports = limits.main([*args, "--out", str(tmp_path)])
    report = json.loads((tmp_path / "p3-v1.json").read_text())
    assert report["ceiling"]["games"] == 3 and report["ceiling"]["won"] == 3
    assert [t["team"] for t in report["teams"]] == ["heuristic"]
    table = (tmp_path / "limits.md").read_text()
    assert "| p3-v1 | 3 (100.0%) | 0 (0.0%) | 0 (0.0%) |" in table and reports == [report]
    assert "none" in table  # pimc and the learned bot did not play


def test_limits_keeps_a_ceiling_made_alike_and_refuses_a_damaged_report(tmp_path, capsys) -> None:
    """A stopped run goes on where it stopped: a task's report made on as many deals with the
    same budget keeps its ceiling (here numbers no solver made, to tell them apart)."""
    kept = {"games": 3, "won": 1, "unwinnable": 1, "undecided": 1, "budget": 5}
    kept |= {"median_seconds": 1.0, "max_seconds": 2.0}
    report = {"task": "p3-v1", "config": Config(players=3).to_dict(), "ceiling": kept, "teams": []}
    (tmp_path / "p3-v1.json").write_text(json.dumps(report))
    args = ["--task", "p3-v1", "--games", "3", "--budget", "5", "--teams", "", "--workers", "1", "--out", str(tmp_path)]
    assert limits.main(args)[0]["ceiling"] == kept
    assert limits.main([*args, "--fresh"])[0]["ceiling"]["undecided"] == 3  # five moves decide nothing
    (tmp_path / "p3-v1.json").write_text('{"task": "p3-v1", "ceiling": {"games": 3}')
    with pytest.raises(SystemExit):
        limits.main(args)
    assert "is not a limits report" in capsys.readouterr().err
