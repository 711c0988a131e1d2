"""Learned bots: the numpy policy runtime, the policy with an end-game search, the shipped bots, bot names."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tranquility_env import Config, Game, bots, encoding
from tranquility_env.arena import bot_action, play_until
from tranquility_env.batch import GameBatch
from tranquility_env.batch.layout import MAX_LEGAL
from tranquility_env.bots import EarlySearch, HeuristicBot, PolicyBot, ValueModel, make_bot
from tranquility_env.bots import search as search_module
from tranquility_env.checkpoint import CheckpointError, copy, save
from tranquility_env.cli import main
from tranquility_env.rules import board
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.symmetry import action_image, observation_index
from tranquility_env.training.evaluate import seat_team
from tranquility_env.views import seat_view

from tiny_bots import edit_json, tiny_checkpoint, tiny_tensors


def test_policy_bot_loads_plays_legal_moves_and_refuses_another_table(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2))
    bot = PolicyBot.load(str(folder))
    game = Game.new({"players": 2}, 3)
    play_until(game, [bot, bot])
    assert game.status in ("won", "lost")
    with pytest.raises(CheckpointError, match="players"):
        bot.check_table({"players": 3})
    with pytest.raises(CheckpointError, match="players"):
        seat_team(f"policy:{folder}", Config(players=3))
    assert isinstance(make_bot(f"policy:{folder}"), PolicyBot)


def test_a_policy_is_read_once_per_process_until_its_files_change(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2))
    first, second = make_bot(f"policy:{folder}", 1), make_bot(f"policy:{folder}", 2)
    assert first.head[0] is second.head[0] and not first.head[0].flags.writeable  # shared, read-only
    assert first.path == second.path == str(folder) and first.rng is not second.rng
    # rewritten in place (as a training run rewrites final/): the new weights, not the kept ones
    save(folder, {k: v * 2 for k, v in tiny_tensors([8]).items()}, Config(players=2), [8], "tanh", trainer="test")
    again = make_bot(f"policy:{folder}", 1)
    assert not np.array_equal(again.head[1], first.head[1])
    np.testing.assert_array_equal(again.head[1], PolicyBot.load(str(folder)).head[1])
    edit_json(folder, observation_size=99)  # damaged after it was read: still refused
    with pytest.raises(CheckpointError, match="observations of size 99"):
        make_bot(f"policy:{folder}")


SHIPPED = [Path(bots.shipped_bot(players)) for players in sorted(bots.SHIPPED_BOTS)]


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda f: f.parent.name)
def test_shipped_bots_load_for_the_table_their_folder_names_and_play_a_game(folder: Path) -> None:
    bot = PolicyBot.load(str(folder))
    # shipped bots play the base game of the player count their folder's name starts with (p<P>_...)
    assert bot.config == Config(players=int(folder.parent.name[1]))
    assert bots.SHIPPED_BOTS[bot.config.players] == folder.parent.name  # the registry seats it at its table
    assert bot.about["made_by"].startswith("tranquility ")  # the command of its last step
    assert (folder / "policy.safetensors").stat().st_size < 1_000_000  # int8: shipped bots stay small
    built = []
    for deal in range(4):
        game = Game.new(bot.config, deal)
        play_until(game, [bot] * bot.config.players)
        assert game.status in ("won", "lost")
        built.append(game.cards_on_mountain())
    assert np.mean(built) > 30  # random play builds about 10 of the 44 (docs/results.md)


def test_every_player_count_has_a_shipped_bot_and_all_of_them_stay_a_few_mb() -> None:
    assert sorted(PolicyBot.load(str(f)).config.players for f in SHIPPED) == [1, 2, 3, 4, 5]
    assert sum(f.stat().st_size for bot in SHIPPED for f in bot.parent.rglob("*") if f.is_file()) < 5_000_000


def test_policy_with_search_plays_the_policy_until_the_heuristic_would_search() -> None:
    folder = bots.shipped_bot(3)
    bot = make_bot(f"policy+search:{folder}", seed=5)
    policy, heuristic = PolicyBot.load(folder), HeuristicBot(seed=5)
    game, sources = Game.new({"players": 3}, 11), set()
    while game.status == "ongoing":
        action = bot_action(game, bot)
        filled = board.N_SLOTS - game.mountain[: board.N_SLOTS].count(EMPTY)
        expert = heuristic if filled >= heuristic.setting("search_from", 3) else policy
        assert action == bot_action(game, expert)
        sources.add(type(expert).__name__)
        game.apply_action(action)
    assert sources == {"PolicyBot", "HeuristicBot"}  # this deal reaches the search
    with pytest.raises(CheckpointError, match="players"):
        seat_team(f"policy+search:{folder}", Config(players=2))


@pytest.fixture
def plain_3(tmp_path: Path) -> str:
    """The shipped 3-player bot's network alone, not played over the colour symmetries: for the
    tests of one pass of the network."""
    return str(copy(bots.shipped_bot(3), tmp_path / "plain", symmetrised=False))


def test_policy_logits_of_the_legal_actions_match_the_whole_head_and_pick_the_same_move(plain_3: str) -> None:
    policy = PolicyBot.load(plain_3)
    game, decisions = Game.new({"players": 3}, 4), 0
    while game.status == "ongoing":
        seat = game.current_player
        observation, mask = encoding.observation(game, seat), encoding.action_mask(game, seat)
        legal = np.flatnonzero(mask)
        # the whole head, through every dense layer, as a reference
        x = observation
        for weight, bias in policy.layers:
            x = policy.activation(weight @ x + bias)
        whole = policy.head[0] @ x + policy.head[1]
        assert np.allclose(policy.logits(observation), whole, atol=1e-4)
        assert np.allclose(policy.logits(observation, legal), whole[legal], atol=1e-4)
        action = policy.act(observation, mask, seat_view(game, seat))
        assert action == legal[np.argmax(whole[legal])]
        decisions += len(legal) > 1
        game.apply_action(action)
    assert decisions > 30


def test_a_symmetrised_bot_plays_the_mean_log_probability_over_the_colour_symmetries(
    tmp_path: Path, plain_3: str
) -> None:
    """Marked ``symmetrised`` (``tranquility symmetrise``), a checkpoint plays the mean over the
    table's symmetries of the network's log-probabilities in the relabelled game; so relabelling
    the game relabels its logits, which the network alone does not do."""
    plain = PolicyBot.load(plain_3)
    main(["symmetrise", plain_3, str(tmp_path / "sym")])
    assert (tmp_path / "sym" / "policy.safetensors").read_bytes() == Path(plain.path, "policy.safetensors").read_bytes()
    symmetrised = make_bot(f"policy:{tmp_path / 'sym'}")
    assert len(symmetrised.symmetries) == 6 and not plain.symmetries
    assert symmetrised.about["source_made_by"] == plain.about["made_by"]  # the command that trained it
    game, rng, unequal = Game.new({"players": 3}, 2), np.random.default_rng(0), 0
    for _ in range(25):
        observation, legal = encoding.observation(game, game.current), np.asarray(game.legal_actions())
        expected = 0
        for sigma in symmetrised.symmetries:
            z = plain.logits(observation[observation_index(sigma)], action_image(sigma)[legal])
            expected = expected + (z - z.max() - np.log(np.exp(z - z.max()).sum())) / 6
        assert np.allclose(symmetrised.logits(observation, legal), expected, atol=1e-4)
        sigma = symmetrised.symmetries[3]
        seen, ids = observation[observation_index(sigma)], action_image(sigma)[legal]
        assert np.allclose(symmetrised.logits(seen, ids), symmetrised.logits(observation, legal), atol=1e-4)
        unequal += not np.allclose(plain.logits(seen, ids), plain.logits(observation, legal), atol=1e-2)
        game.apply_action(int(rng.choice(legal)))
    assert unequal > 20
    with pytest.raises(SystemExit):
        main(["symmetrise", str(tmp_path / "missing"), str(tmp_path / "out")])
    assert not (tmp_path / "out").exists()


def test_choose_each_decides_as_choose_for_all_rows_or_some() -> None:
    """A batched pass over many games (all rows, or the ``rows`` asked for) picks in each game
    the move ``choose`` picks alone: the first layer over the batch's live inputs only changes
    nothing."""
    policy = PolicyBot.load(bots.shipped_bot(3))
    rng = np.random.default_rng(0)
    observations, legal = [], []
    for deal in range(12):
        game = Game.new({"players": 3}, deal)
        for _ in range(int(rng.integers(0, 40))):
            game.apply_action(int(rng.choice(game.legal_actions())))
        observations.append(encoding.observation(game, game.current_player))
        legal.append(np.asarray(game.legal_actions()))
    observations = np.array(observations)
    alone = [policy.choose(o, ids) for o, ids in zip(observations, legal, strict=True)]
    assert policy.choose_each(observations, legal) == alone
    rows = np.array([1, 4, 5, 9])
    assert policy.choose_each(observations, [legal[i] for i in rows], rows) == [alone[i] for i in rows]
    assert len(set(alone)) > 3  # different positions, different moves: a wrong row would show


@pytest.mark.parametrize("symmetrised", [False, True])
def test_legal_logits_of_a_batch_are_each_rows_logits_padded(tmp_path: Path, plain_3: str, symmetrised: bool) -> None:
    """``PolicyBot.legal_logits`` on padded rows of legal ids (as ``GameBatch.legal_ids`` gives
    them): row i holds ``logits`` of its own observation at its own ids, then -1e8."""
    policy = PolicyBot.load(str(copy(plain_3, tmp_path / "sym", symmetrised=True)) if symmetrised else plain_3)
    rng = np.random.default_rng(1)
    observations, ids, counts = [], np.zeros((10, MAX_LEGAL), dtype=np.int64), np.zeros(10, dtype=np.int64)
    for deal in range(10):
        game = Game.new({"players": 3}, deal)
        for _ in range(int(rng.integers(0, 40))):
            game.apply_action(int(rng.choice(game.legal_actions())))
        observations.append(encoding.observation(game, game.current_player))
        legal = game.legal_actions()
        ids[deal, : len(legal)], counts[deal] = legal, len(legal)
    logits = policy.legal_logits(np.array(observations), ids, counts)
    assert logits.shape == (10, counts.max()) and len(set(counts)) > 2
    for row, observation, legal, n in zip(logits, observations, ids, counts, strict=True):
        assert np.allclose(row[:n], policy.logits(observation, legal[:n]), atol=1e-5)
        assert (row[n:] == -1e8).all()


def test_own_search_rollouts_played_together_end_as_when_played_one_move_at_a_time() -> None:
    """``PolicyWithSearchBot.play_out`` moves its games together, one batched pass a move
    (``PolicyBot.choose_each``); each game must end exactly as the policy playing it alone."""
    folder = bots.shipped_bot(3)
    bot, policy = make_bot(f"policy+own-search:{folder}", seed=5), PolicyBot.load(folder)
    games = []
    for deal in range(6):  # the policy's games cut at different points, so they end at different times
        game = Game.new({"players": 3}, deal)
        for _ in range(12 * deal):
            game.apply_action(bot_action(game, policy))
        games.append(game)
    assert all(game.status == "ongoing" for game in games)
    alone = [game.clone() for game in games]
    batch = GameBatch(games[0].config, len(games))
    for i, game in enumerate(games):
        batch.load(i, game)
    bot.play_out(batch)
    games = [batch.game(i) for i in range(len(games))]
    for game in alone:
        while game.status == "ongoing":
            legal = game.legal_actions()
            observation = encoding.observation(game, game.current_player)
            game.apply_action(legal[0] if len(legal) == 1 else policy.choose(observation, np.asarray(legal)))
    assert [g.to_dict() for g in games] == [g.to_dict() for g in alone]
    assert all(g.status != "ongoing" for g in games) and len({g.turn for g in games}) > 1


def test_policy_with_its_own_search_never_asks_the_value_model(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = bots.shipped_bot(3)
    bot = make_bot(f"policy+own-search:{folder}", seed=5)
    policy, heuristic = PolicyBot.load(folder), HeuristicBot(seed=5, rollouts=4)
    bot.heuristic = heuristic  # 4 rollouts a candidate: the same search, quick enough for CI
    searched: list[list[int]] = []

    def search(view, candidates, rollouts, seed, play_out) -> list[float]:
        assert rollouts == 4 and play_out == bot.play_out
        searched.append(candidates)
        return real_search(view, candidates, rollouts, seed, play_out)

    real_search = search_module.rollout_scores
    monkeypatch.setattr(search_module, "rollout_scores", search)
    monkeypatch.setattr(ValueModel, "ranked", lambda self: pytest.fail("the value model was asked"))
    game = Game.new({"players": 3}, 11)
    while game.status == "ongoing":
        seat = game.current_player
        observation, mask = encoding.observation(game, seat), encoding.action_mask(game, seat)
        legal = np.flatnonzero(mask)
        searched_before = len(searched)
        action = bot_action(game, bot)
        filled = board.N_SLOTS - game.mountain[: board.N_SLOTS].count(EMPTY)
        if filled < heuristic.setting("search_from", 3):
            assert action == bot_action(game, policy) and len(searched) == searched_before
        elif len(legal) > 1:  # the policy's likeliest moves, likeliest first, are the candidates
            likeliest = legal[np.argsort(-policy.logits(observation, legal), kind="stable")][: heuristic.candidates]
            assert searched[-1] == likeliest.tolist() and action in searched[-1]
            scores = bot.last_search  # what distillation learns from: every candidate's mean score
            assert list(scores) == searched[-1] and scores[action] == max(scores.values())
        game.apply_action(action)
    assert searched  # this deal reaches the search
    with pytest.raises(CheckpointError, match="players"):
        seat_team(f"policy+own-search:{folder}", Config(players=2))


def test_bot_names() -> None:
    searching, plain = make_bot("heuristic"), make_bot("heuristic-no-search")
    assert searching.setting("rollouts", 3) > 0 and plain.setting("rollouts", 3) == 0
    assert searching.setting("rollouts", 5) == searching.setting("rollouts", 1) > searching.setting("rollouts", 3)
    for name in (
        "clever",
        "policy:",
        "policy+search:",
        "policy+own-search:",
        "policy+expert:",
        "policy-search:x",
        "Heuristic",
        "heuristic-",
    ):
        with pytest.raises(ValueError, match="unknown bot"):
            make_bot(name)


def test_the_expert_searches_every_decision_and_leaves_the_policy_only_past_the_margin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = bots.shipped_bot(3)
    bot = make_bot(f"policy+expert:{folder}", seed=5)
    assert bot.early == EarlySearch()
    policy, bot.heuristic = PolicyBot.load(folder), HeuristicBot(seed=5, rollouts=4)  # quick enough for CI
    bot.early = EarlySearch(candidates=2, rollouts=2, margin=2.0)
    searched: list[tuple[list[int], list[float]]] = []

    def search(view, candidates, rollouts, seed, play_out) -> list[float]:
        scores = real_search(view, candidates, rollouts, seed, play_out)
        searched.append((candidates, scores))
        return scores

    real_search = search_module.rollout_scores
    monkeypatch.setattr(search_module, "rollout_scores", search)
    game, outcomes = Game.new({"players": 3}, 11), set()
    while game.status == "ongoing":
        seat = game.current_player
        observation, mask = encoding.observation(game, seat), encoding.action_mask(game, seat)
        legal = np.flatnonzero(mask)
        action = bot_action(game, bot)
        filled = board.N_SLOTS - game.mountain[: board.N_SLOTS].count(EMPTY)
        if len(legal) > 1 and filled < bot.heuristic.setting("search_from", 3):  # the early search decides
            candidates, scores = searched[-1]
            assert candidates == legal[np.argsort(-policy.logits(observation, legal), kind="stable")][:2].tolist()
            gain = scores[1] - scores[0]
            assert action == (candidates[1] if gain >= 2.0 else candidates[0])
            assert bot.last_search == dict(zip(candidates, scores, strict=True))
            outcomes.add("left" if gain >= 2.0 else "kept though scored lower" if gain > 0 else "kept")
        game.apply_action(action)
    assert outcomes == {"left", "kept though scored lower", "kept"}  # this deal meets every case
    with pytest.raises(ValueError, match="own_search"):
        bots.PolicyWithSearchBot(policy, HeuristicBot(), own_search=False, early=EarlySearch())
    with pytest.raises(ValueError, match="candidates >= 2"):
        EarlySearch(candidates=1)
