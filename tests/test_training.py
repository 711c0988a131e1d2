"""Bots, checkpoints, training and evaluation, end to end but small enough for CI."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from training.evaluate import seat_team
from tranquility_env import Config, Game, actions, board, bots, cards, encoding
from tranquility_env.arena import bot_action, play_until
from tranquility_env.bots import HeuristicBot, PolicyBot, RandomBot, _HeuristicTurn, make_bot
from tranquility_env.checkpoint import CheckpointError, load, save
from tranquility_env.mountain import EMPTY
from tranquility_env.views import sample_game, seat_view, unseen_cards, unseen_in_game


@pytest.mark.parametrize("config", [{"players": 1}, {"players": 4}, {"players": 3, "goats": True, "panoramas": 2,
                                                                      "green_path": True}])  # fmt: skip
def test_heuristic_bot_plays_legal_moves_to_the_end(config: dict) -> None:
    for seed in range(8):
        game = Game.new(config, seed)
        # Seeded bots and a bounded search keep this test's time fixed; any rollout count runs
        # the search path, and apply_action checks every move's legality.
        bots = [HeuristicBot(rollouts=24, seed=seat) for seat in range(game.config.players)]
        play_until(game, bots)
        assert game.status in ("won", "lost")


def test_heuristic_bot_is_far_better_than_random() -> None:
    def mean_cards(make) -> float:
        total = 0
        for seed in range(60):
            game = Game.new({"players": 3}, 700 + seed)
            play_until(game, [make() for _ in range(3)])
            total += game.cards_on_mountain()
        return total / 60

    assert mean_cards(lambda: HeuristicBot(rollouts=0)) > 35 > 15 > mean_cards(RandomBot)


def end_game(players: int, seed: int) -> Game:
    """A position from which HeuristicBot searches: 38+ cards on the mountain, a free choice."""
    while True:
        game, plain = Game.new({"players": players}, seed), HeuristicBot(rollouts=0)
        while game.status == "ongoing" and not (game.cards_on_mountain() >= 38 and game.pending == 0):
            game.apply_action(bot_action(game, plain))
        if game.status == "ongoing" and len(game.legal_actions()) > 2:
            return game
        seed += 1


@pytest.mark.parametrize("players", [1, 3])
def test_heuristic_search_sees_only_what_its_seat_may_know(players: int) -> None:
    game = end_game(players, 40)
    seat = game.current
    other = sample_game(seat_view(game, seat), random.Random(1))  # the same view, other hidden cards
    assert other.hands[seat] == game.hands[seat] and other.decks != game.decks
    chosen = [bot_action(g, HeuristicBot(seed=5)) for g in (game, other, game)]
    assert chosen[0] == chosen[1] == chosen[2] and chosen[0] in game.legal_actions()


@pytest.mark.parametrize("config", [{"players": 1}, {"players": 4}, {"players": 3, "goats": True, "panoramas": 2,
                                                                      "green_path": True}])  # fmt: skip
def test_heuristic_rollouts_read_the_game_as_the_seat_view_would(config: dict) -> None:
    """Rollouts build the bot's turn straight from the (sampled) game; it must equal the turn built
    from that seat's view, or the search would judge moves by another strategy (or peek)."""
    bot, checked = HeuristicBot(rollouts=0), 0
    for seed in range(4):
        game = Game.new(config, 300 + seed)
        while game.status == "ongoing":
            legal = game.legal_actions()
            for seat in range(game.config.players):
                counts = unseen_in_game(game, seat)
                assert {k: n for k, n in enumerate(counts) if n} == unseen_cards(seat_view(game, seat))
                assert counts.min() >= 0
            direct = _HeuristicTurn.from_game(game, legal, bot)
            viewed = _HeuristicTurn.from_view(seat_view(game, game.current), legal, bot)
            assert direct.ranked() == viewed.ranked()
            checked += len(legal) > 1
            game.apply_action(direct.ranked()[0])
    assert checked > 100


@pytest.mark.parametrize("left", [["G5"], ["G5", "CAMP-R"]])  # a campfire is skipped (C4)
def test_heuristic_bridge_lock_is_the_least_replacement_penalty(left: list[str]) -> None:
    """A card right of a bridge plays free (B2) but fixes the bridge's replacement (B3): the lock
    is the least penalty left for it, half the distance to the reference, rounded up."""
    mountain = [EMPTY] * board.N_POS
    for c, name in enumerate([*left, "BRIDGE"]):
        mountain[c] = cards.parse_card(name, goats=False)
    beside, after = len(left) + 1, len(left) + 2  # the slot right of the bridge, and one further
    hand = [cards.parse_card(name, goats=False) for name in ("B5", "B6", "B9", "R12")]
    turns = {w: _HeuristicTurn(HeuristicBot(rollouts=0, bridge_lock=w), [], mountain, hand, 0, [20, 20, 20], 0,
                               EMPTY, True, np.zeros(cards.N_KINDS)) for w in (0.0, 2.0)}  # fmt: skip
    locks = {cards.NAME[k]: turns[0.0].bridge_lock(k, beside) for k in hand}
    assert locks == {"B5": 0, "B6": 1, "B9": 2, "R12": 4}
    assert turns[0.0].bridge_lock(cards.parse_card("B9", goats=False), after) == 0  # no bridge to its left
    for name, lock in locks.items():
        card = cards.parse_card(name, goats=False)
        extra = turns[2.0].value_of_play(card, beside) - turns[0.0].value_of_play(card, beside)
        assert extra == pytest.approx(2.0 * lock)


def test_heuristic_reach_values_cards_by_the_empty_slots_they_may_fill() -> None:
    """With rows 1-3 full, a 4 may fill only row 4's empty slots (P1) while a 12 may fill every
    one, so a 4 is worth less and is given up first; with ``reach`` 0 both are worth the same."""
    mountain = [EMPTY] * board.N_POS
    colours = "GBR"
    for r in (1, 2, 3):
        for c in range(board.ROW_SLOTS[r]):
            mountain[board.ROW_START[r] + c] = cards.parse_card(f"{colours[c % 3]}{9 + (c % 2)}", goats=False)
    hand = [cards.parse_card(name, goats=False) for name in ("G4", "G12")]
    empty = sum(board.ROW_SLOTS[r] for r in range(4, board.ROWS + 1))
    for weight in (0.0, 0.3):
        turn = _HeuristicTurn(HeuristicBot(rollouts=0, reach=weight), [], mountain, hand, 0, [20, 20, 20], 0,
                              EMPTY, True, np.zeros(cards.N_KINDS))  # fmt: skip
        share = board.ROW_SLOTS[4] / empty
        assert turn.reach_factor(hand[0]) == pytest.approx(1 - weight * (1 - share))
        assert turn.reach_factor(hand[1]) == 1.0
        worth = {cards.NAME[k]: w for w, k in turn.worths(hand, turn.slots)}
        if weight:
            assert worth["G4"] < worth["G12"]
            assert turn.give_up(hand, 1, turn.slots) == [hand[0]]
        else:
            assert worth["G4"] == worth["G12"] == 1.0  # both play free on row 4's first slot


def test_heuristic_weights_by_player_count() -> None:
    """Solo the value model has its own ``reach``, ``open_bonus`` and ``steep`` (``_BY_PLAYERS``);
    a weight given to the constructor holds at every player count."""
    mountain = [EMPTY] * board.N_POS
    hand = [cards.parse_card(name, goats=False) for name in ("G4", "B5", "R6", "G7")]

    def turn(bot: HeuristicBot, holdings: list[int]) -> _HeuristicTurn:
        return _HeuristicTurn(bot, [], mountain, hand, 0, holdings, 0, EMPTY, True, np.zeros(cards.N_KINDS))

    for holdings, weights in (([30], (0.0, 0.0, 0.5)), ([20, 20], (0.3, 0.25, 1.0)), ([9] * 5, (0.3, 0.25, 1.0))):
        t = turn(HeuristicBot(rollouts=0), holdings)
        assert (t.reach, t.open_bonus, t.steep) == weights
        given = turn(HeuristicBot(rollouts=0, reach=0.1, open_bonus=0.5, steep=2.0), holdings)
        assert (given.reach, given.open_bonus, given.steep) == (0.1, 0.5, 2.0)
    # steep is what a fourth card paid costs beyond the worth of the cards given up
    flat, steep = (turn(HeuristicBot(rollouts=0, steep=w), [30]) for w in (0.0, 2.0))
    assert steep.after(hand, 4, steep.slots, 0) - flat.after(hand, 4, flat.slots, 0) == pytest.approx(2 * 2.0)


def tiny_tensors(hidden: list[int]) -> dict[str, np.ndarray]:
    from tranquility_env import encoding

    rng = np.random.default_rng(0)
    sizes = [encoding.OBSERVATION_SIZE, *hidden]
    tensors = {}
    for i in range(len(hidden)):
        tensors[f"layers.{i}.weight"] = rng.normal(size=(sizes[i + 1], sizes[i])) * 0.1
        tensors[f"layers.{i}.bias"] = rng.normal(size=sizes[i + 1]) * 0.1
    tensors["head.weight"] = rng.normal(size=(actions.N_ACTIONS, sizes[-1]))
    tensors["head.bias"] = rng.normal(size=actions.N_ACTIONS) * 0.1
    return tensors


def tiny_checkpoint(folder: Path, config: Config, hidden: list[int] | None = None, weights: str = "int8") -> Path:
    hidden = hidden or [8]
    return save(folder, tiny_tensors(hidden), config, hidden, "tanh", weights=weights, trainer="test")


@pytest.mark.parametrize("weights", ["int8", "float16"])
def test_checkpoint_weights_round_trip_within_their_storage_precision(tmp_path: Path, weights: str) -> None:
    tensors = tiny_tensors([8])
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2), weights=weights)
    about, layers, head = load(folder)
    assert (about["version"], about["weights"]) == (2, weights)
    for (weight, bias), name in zip([*layers, head], ["layers.0", "head"], strict=True):
        original = tensors[f"{name}.weight"]
        # int8: half a step of the row's scale (its largest magnitude / 127); float16: half a unit of
        # its 11 significant bits, or of its smallest subnormal
        if weights == "int8":
            half_step = np.abs(original).max(axis=1, keepdims=True) / 254
        else:
            half_step = np.abs(original) / 2048 + 2.0**-25
        assert np.all(np.abs(weight - original) <= half_step * 1.001)
        np.testing.assert_allclose(bias, tensors[f"{name}.bias"], rtol=1e-3)
    # Saving what was loaded stores the same bytes, so a run that starts from a bot starts from exactly it.
    loaded = {
        "layers.0.weight": layers[0][0],
        "layers.0.bias": layers[0][1],
        "head.weight": head[0],
        "head.bias": head[1],
    }
    again = save(tmp_path / "again", loaded, Config(players=2), [8], "tanh", weights=weights, trainer="test")
    assert (again / "policy.safetensors").read_bytes() == (folder / "policy.safetensors").read_bytes()
    with pytest.raises(ValueError, match="weights must be one of"):
        save(tmp_path / "bad", tensors, Config(players=2), [8], "tanh", weights="int4")
    assert not (tmp_path / "bad").exists()


def test_a_version_1_checkpoint_of_float16_weights_still_loads(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2), weights="float16")
    about = json.loads((folder / "bot.json").read_text())
    del about["weights"]
    (folder / "bot.json").write_text(json.dumps({**about, "version": 1}))
    old, new = load(folder), load(tiny_checkpoint(tmp_path / "new", Config(players=2), weights="float16"))
    assert all(np.array_equal(a, b) for pa, pb in zip([*old[1], old[2]], [*new[1], new[2]], strict=True)
               for a, b in zip(pa, pb, strict=True))  # fmt: skip


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
def test_shipped_bots_load_for_the_table_of_their_run_and_play_a_game(folder: Path) -> None:
    import yaml

    bot = PolicyBot.load(str(folder))
    run = yaml.safe_load((folder.parent / "train_config.yaml").read_text())
    # shipped bots play the base game of the player count their run's name starts with (p<P>_...)
    assert run["run"] == folder.parent.name and bot.config == Config(players=int(folder.parent.name[1]))
    assert run.get("players", bot.config.players) == bot.config.players  # distill's config has no table keys
    assert (folder / "policy.safetensors").stat().st_size < 1_000_000  # int8: shipped bots stay small
    built = []
    for deal in range(4):
        game = Game.new(bot.config, deal)
        play_until(game, [bot] * bot.config.players)
        assert game.status in ("won", "lost")
        built.append(game.cards_on_mountain())
    assert np.mean(built) > 30  # random play builds about 10 of the 44 (README, Results)


def test_every_player_count_has_a_shipped_bot_and_all_of_them_stay_a_few_mb() -> None:
    assert sorted(PolicyBot.load(str(f)).config.players for f in SHIPPED) == [1, 2, 3, 4, 5]
    assert sum(f.stat().st_size for bot in SHIPPED for f in bot.parent.rglob("*") if f.is_file()) < 5_000_000


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / "policy.safetensors").write_bytes((f / "policy.safetensors").read_bytes()[:-7] + b"0000000"),
         "damaged"),
        (lambda f: (f / "bot.json").write_text("{not json"), "not valid JSON"),
        (lambda f: edit_json(f, observation_size=99), "observations of size 99"),
        (lambda f: edit_json(f, n_actions=5), "made for 5 actions"),
        (lambda f: edit_json(f, format="pickle"), "format"),
        (lambda f: edit_json(f, version=3), "version 1 or 2"),
        (lambda f: edit_json(f, weights="int4"), "'weights' must be one of"),
        (lambda f: edit_json(f, weights="float16"), r"unexpected tensors \['head.weight_scale'"),
        (lambda f: edit_json(f, hidden=[16]), "layers.0"),
        (lambda f: edit_json(f, hidden=[]), "non-empty list of layer sizes"),
        (lambda f: edit_json(f, config={"players": 9}), "bad config"),
        (lambda f: (f / "policy.safetensors").unlink(), "not a bot checkpoint"),
    ],
)  # fmt: skip
def test_damaged_or_mismatched_checkpoints_are_refused(tmp_path: Path, damage, message: str) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3))
    damage(folder)
    with pytest.raises(CheckpointError, match=message):
        PolicyBot.load(str(folder))


def edit_json(folder: Path, **changes) -> None:
    about = json.loads((folder / "bot.json").read_text())
    about.update(changes)
    (folder / "bot.json").write_text(json.dumps(about))


def test_a_tampered_tensor_with_a_matching_hash_but_wrong_shape_is_refused(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3), hidden=[8])
    other = tiny_checkpoint(tmp_path / "other", Config(players=3), hidden=[4])
    shutil.copy(other / "policy.safetensors", folder / "policy.safetensors")
    edit_json(folder, weights_sha256=json.loads((other / "bot.json").read_text())["weights_sha256"])
    with pytest.raises(CheckpointError, match=r"layers\.0 must be"):
        PolicyBot.load(str(folder))


def test_float16_weights_claimed_as_int8_are_refused(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3), weights="float16")
    edit_json(folder, weights="int8")
    with pytest.raises(CheckpointError, match=r"layers\.0\.weight must be int8 with a weight_scale"):
        PolicyBot.load(str(folder))


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


def test_policy_logits_of_the_legal_actions_match_the_whole_head_and_pick_the_same_move() -> None:
    policy = PolicyBot.load(bots.shipped_bot(3))
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
    bot.play_out(games)
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

    real_search = bots.rollout_scores
    monkeypatch.setattr(bots, "rollout_scores", search)
    monkeypatch.setattr(_HeuristicTurn, "ranked", lambda self: pytest.fail("the value model was asked"))
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
    for name in ("clever", "policy:", "policy+search:", "policy+own-search:", "policy-search:x", "Heuristic",
                 "heuristic-"):  # fmt: skip
        with pytest.raises(ValueError, match="unknown bot"):
            make_bot(name)


def test_train_save_load_evaluate_and_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture) -> None:  # fmt: skip
    from training import evaluate, train

    monkeypatch.chdir(tmp_path)
    overrides = [
        "run=smoke", "total_steps=256", "n_steps=64", "batch_size=64", "n_epochs=1", "checkpoint_every=128",
        "eval_every=128", "eval_games=2", "final_eval_games=2", "hidden=[16]", "teammates={1: heuristic}",
        "pretrain_games=2", "pretrain_epochs=1", "dagger_rounds=1", "dagger_games=2", "dagger_epochs=1",
    ]  # fmt: skip
    train.main([*overrides, "--no-progress"])
    run = tmp_path / "checkpoints" / "smoke"
    assert {"final", "step_128", "step_256", "resume.zip", "train_config.yaml", "imitation", "dagger_0"} <= {
        p.name for p in run.iterdir()
    }
    assert list((tmp_path / "runs").glob("smoke_*/events.out.tfevents.*"))
    bot = PolicyBot.load(str(run / "final"))
    assert bot.about["steps"] == 256 and bot.config == Config(players=3)

    # a killed run resumes from its last checkpoint and goes on to the new total
    (run / "final").rename(run / "final_before")
    train.main(
        [*[o for o in overrides if not o.startswith("total_steps")], "total_steps=384", "--resume", "--no-progress"]
    )
    assert PolicyBot.load(str(run / "final")).about["steps"] == 384
    with pytest.raises(SystemExit):
        train.main([*overrides, "--resume", "gamma=0.5", "--no-progress"])  # not the same run
    assert "differs from the run's" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["colour=3"])
    assert "unknown train config key 'colour'" in capsys.readouterr().err

    results = evaluate.main(["--team", f"policy:{run / 'final'},heuristic,random", "--team", "heuristic",
                             "--games", "4", "--out", "results", "--cross-play", str(run / "final"),
                             str(run / "final_before")])  # fmt: skip
    assert [r.games for r in results] == [4, 4]
    report = json.loads((tmp_path / "results" / "evaluation_p3.json").read_text())
    assert len(report["cross_play"]["win_rate"]) == 2 and (tmp_path / "results" / "evaluation_p3.png").stat().st_size


def test_imitation_learns_the_teachers_choices(tmp_path: Path) -> None:
    """The warm start: after imitating the heuristic's value model on 60 games, the policy makes
    the teacher's choice far more often on new games than untrained."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.train import TrainConfig, imitate, teacher_games
    from tranquility_env import TeamEnv, encoding
    from tranquility_env.views import LazySeatView

    cfg = TrainConfig(players=2, hidden=[64], pretrain_games=60, pretrain_epochs=10, n_envs=1)
    obs, masks, chosen, returns = teacher_games(cfg, 0, 3)
    assert len(obs) == len(masks) == len(chosen) == len(returns) > 50 and obs.dtype == np.float16
    assert all(np.unpackbits(m)[a] for m, a in zip(masks, chosen, strict=True))  # the teacher's choices are legal

    def agreement(model) -> float:
        teacher, agree, total = HeuristicBot(rollouts=0), 0, 0
        for seed in range(3):
            game = Game.new(cfg.game_config(), 90_000 + seed)
            while not game.is_over:
                seat = game.current
                o, m = encoding.observation(game, seat), encoding.action_mask(game, seat)
                action = teacher.act(o, m, LazySeatView(game, seat))
                mine, _ = model.predict(o, action_masks=m.astype(bool), deterministic=True)
                agree, total = agree + (int(mine) == action) * (m.sum() > 1), total + (m.sum() > 1)
                game.apply_action(action)
        return agree / total

    kwargs = {"net_arch": [64], "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", TeamEnv(players=2), policy_kwargs=kwargs, seed=0)
    before = agreement(model)
    imitate(model, cfg, tmp_path)
    after = agreement(model)
    assert before < 0.25 and after > before + 0.15, (before, after)  # measured: 0.19 -> 0.40


def test_dagger_games_are_played_by_the_policy_and_labelled_by_the_teacher() -> None:
    from training.train import TrainConfig, teacher_games

    cfg = TrainConfig(players=2, n_envs=1)
    alone = teacher_games(cfg, 0, 2)
    # the teacher playing its own labels is plain cloning, decision for decision
    for mine, theirs in zip(alone, teacher_games(cfg, 0, 2, player="heuristic-no-search"), strict=True):
        assert np.array_equal(mine, theirs)
    # a random player reaches other states (and loses sooner); the labels are still the teacher's
    obs, masks, chosen, returns = teacher_games(cfg, 0, 2, player="random")
    assert len(obs) < len(alone[0]) and returns[0] < alone[3][0]
    assert all(np.unpackbits(m)[a] for m, a in zip(masks, chosen, strict=True))
    assert np.array_equal(obs[0], alone[0][0]) and chosen[0] == alone[2][0]  # the same first state and label


@pytest.mark.parametrize(("override", "message"), [
    ({"activation": "sigmoid"}, "'activation' must be one of"),
    ({"dagger_rounds": 1, "pretrain_games": 0}, "'dagger_rounds' needs 'pretrain_games' > 0"),
    ({"dagger_rounds": -1}, "'dagger_rounds' must be >= 0"),
    ({"dagger_games": 0}, "'dagger_games' must be at least 1"),
    ({"pretrain_teacher": "genius"}, "unknown bot 'genius'"),
    ({"pretrain_games": -1}, "'pretrain_games' must be >= 0"),
    ({"pretrain_epochs": 0}, "'pretrain_epochs' must be at least 1"),
    ({"hidden": [64, "wide"]}, "'hidden' must be list"),
])  # fmt: skip
def test_wrong_training_settings_are_refused(override: dict, message: str) -> None:
    from training.train import TrainConfig

    with pytest.raises(ValueError, match=message):
        TrainConfig(**override)


def test_a_teammate_or_teacher_policy_made_for_another_table_is_refused(tmp_path: Path) -> None:
    from training.mappo import MappoConfig
    from training.train import TrainConfig

    two = f"policy:{tiny_checkpoint(tmp_path / 'two', Config(players=2))}"
    assert TrainConfig(players=2, teammates={1: two}, pretrain_teacher=two).teammates == {1: two}
    for run in (TrainConfig, MappoConfig):
        with pytest.raises(CheckpointError, match="players"):
            run(players=3, teammates={1: two})
    with pytest.raises(CheckpointError, match="players"):
        TrainConfig(players=3, pretrain_teacher=two)


def test_config_files_are_valid() -> None:
    from training.common import load_config
    from training.mappo import MappoConfig
    from training.rllib_train import RllibConfig
    from training.train import TrainConfig

    for path in sorted(Path(__file__).resolve().parents[1].glob("configs/*.yaml")):
        kind = MappoConfig if "mappo" in path.name else RllibConfig if "rllib" in path.name else TrainConfig
        # a fine-tuning config starts from the bot an earlier step makes (checkpoints/p3/final, by
        # `make train`); a shipped bot of the same table and layers stands in for it here
        started = [f"init_actor={bots.shipped_bot(3)}"] if "finetune" in path.name else []
        load_config(kind, str(path), started)


def test_evaluation_does_not_depend_on_the_number_of_workers() -> None:
    from training.evaluate import evaluate

    config = Config(players=2)
    one, two = (evaluate("heuristic,random", config, 4, seed=9, workers=w) for w in (1, 2))
    assert one == two and one.games == 4
    with pytest.raises(ValueError, match="names 3 seats"):
        evaluate("random,random,random", config, 4, workers=2)


@pytest.mark.parametrize("progress", [True, False])
def test_evaluation_shows_its_progress_on_a_terminal_only_when_asked(monkeypatch: pytest.MonkeyPatch,
                                                                     progress: bool) -> None:  # fmt: skip
    import io
    import sys

    from training.evaluate import evaluate

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    if not progress:  # without the bar, evaluation needs no tqdm (the env alone does not install it)
        monkeypatch.setitem(sys.modules, "tqdm", None)
    for stream in (Terminal(), io.StringIO()):  # a terminal, then a log file
        monkeypatch.setattr(sys, "stderr", stream)
        evaluate("random", Config(players=2), 3, seed=9, progress=progress)
        shown = "3/3" in stream.getvalue() and "random" in stream.getvalue()
        assert shown == (progress and isinstance(stream, Terminal))


def test_wilson_interval() -> None:
    from training.evaluate import wilson

    low, high = wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert wilson(0, 300)[0] == 0.0 and wilson(0, 300)[1] > 0.0


def test_mappo_trains_exports_a_bot_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:  # fmt: skip
    import torch

    from training import mappo

    monkeypatch.chdir(tmp_path)
    overrides = ["run=m", "total_steps=128", "num_envs=4", "num_steps=16", "checkpoint_every=64", "eval_every=64",
                 "eval_games=2", "final_eval_games=2", "hidden=[16]", "critic_hidden=[16]", "players=2"]  # fmt: skip
    mappo.main(overrides)
    run = tmp_path / "checkpoints" / "m"
    bot = PolicyBot.load(str(run / "final"))
    assert bot.about["trainer"] == "MAPPO" and bot.about["steps"] == 128 and bot.config == Config(players=2)
    assert list((tmp_path / "runs" / "m").glob("events.out.tfevents.*"))
    # the resume file holds the sampling stream where the run stopped, and a resume goes on from it
    saved_rng = torch.load(run / "resume.pt", weights_only=True)["torch_rng"]
    torch.manual_seed(0)  # the run's seed: a resume that re-seeded would start here
    assert not torch.equal(saved_rng, torch.get_rng_state())
    restored = []
    monkeypatch.setattr(torch, "set_rng_state", lambda state: restored.append(state.clone()))
    threads = torch.get_num_threads()
    try:  # the thread count is the process's, not the run's: a resume may change it
        mappo.main([*[o for o in overrides if not o.startswith("total_steps")], "total_steps=192", "--resume",
                    "--threads", "1"])  # fmt: skip
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert len(restored) == 1 and torch.equal(restored[0], saved_rng)
    assert PolicyBot.load(str(run / "final")).about["steps"] == 192
    with pytest.raises(SystemExit):
        mappo.main([*overrides, "--resume", "vf_coef=0.1"])
    assert "differs from the run's" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mappo.main([*overrides, "--threads", "0"])
    assert "--threads must be at least 1, got 0" in capsys.readouterr().err


def test_mappo_starts_from_a_bot_checkpoint_and_warms_up_the_critic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training import mappo

    monkeypatch.chdir(tmp_path)
    start = tiny_checkpoint(tmp_path / "start", Config(players=2), hidden=[16])
    # 2 updates of 64 steps; no checkpoint or evaluation before the end
    common = ["total_steps=128", "num_envs=4", "num_steps=16", "checkpoint_every=1000", "eval_every=1000",
              "final_eval_games=1", "hidden=[16]", "critic_hidden=[16]", "players=2",
              f"init_actor={start}"]  # fmt: skip
    started = PolicyBot.load(str(start))

    def same_actor(run: str) -> bool:
        final = PolicyBot.load(str(tmp_path / "checkpoints" / run / "final"))
        pairs = [*zip(final.layers, started.layers, strict=True), (final.head, started.head)]
        return all(np.array_equal(a, b) for (wa, ba), (wb, bb) in pairs for a, b in ((wa, wb), (ba, bb)))

    mappo.main([*common, "run=warm", "critic_warmup=2"])  # both updates train the critic alone
    assert same_actor("warm")
    mappo.main([*common, "run=cold", "critic_warmup=1"])  # the second update trains the actor too
    assert not same_actor("cold")


@pytest.mark.parametrize(("override", "message"), [
    ({"hidden": [8]}, r"differs in \['hidden'\]"),
    ({"players": 3}, r"differs in \['config'\]"),
    ({"activation": "relu"}, r"differs in \['activation'\]"),
    ({"init_actor": "no/such/folder"}, "not a bot checkpoint"),
    ({"critic_warmup": -1}, "'critic_warmup' must be at least 0"),
])  # fmt: skip
def test_mappo_refuses_a_starting_actor_made_for_another_run(tmp_path: Path, override: dict, message: str) -> None:
    from training.mappo import MappoConfig

    start = tiny_checkpoint(tmp_path / "start", Config(players=2), hidden=[16])
    settings = {"players": 2, "hidden": [16], "activation": "tanh", "init_actor": str(start), **override}
    with pytest.raises(ValueError, match=message):
        MappoConfig(**settings)


def test_the_policy_benchmark_times_both_paths_and_they_agree(capsys: pytest.CaptureFixture[str]) -> None:
    from tranquility_env import bench

    bench.main(["--policy", "--games", "1", "--runs", "1"])
    printed = capsys.readouterr().out
    assert "ratio, dense to PolicyBot.act" in printed
    agree, positions = map(int, printed.split("same move on ")[1].split()[::2][:2])
    assert agree == positions > 20


def test_distill_collects_the_search_choices_fits_exports_and_reuses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from training import distill

    shipped = Path(bots.shipped_bot(2))  # plays far enough to search
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(bots._BY_PLAYERS["rollouts"], 2, 2)  # a cheap search; workers=1 plays in this process
    overrides = ["run=d", f"init_actor={shipped}", "games=3", "valid_games=1", "workers=1", "epochs=1",
                 "eval_games=2"]  # fmt: skip
    distill.main(overrides)
    printed = capsys.readouterr().out
    bot = PolicyBot.load("checkpoints/d/final")
    assert bot.config == Config(players=2) and bot.about["trainer"].startswith("search distillation (own-search)")
    assert "| policy:checkpoints/d/final |" in printed and f"| policy:{shipped} |" in printed
    with np.load("runs/d/decisions.npz") as data:
        masks = np.unpackbits(data["masks"], axis=1, count=actions.N_ACTIONS).astype(bool)
        assert masks[np.arange(len(masks)), data["chosen"]].all()  # every label is a legal action
        assert masks.sum(1).min() > 1  # forced moves are not kept
        assert data["searched"].any() and not data["searched"].all()
        assert set(data["deal"]) == {0, 1, 2} and len(data["won"]) == 3
    copied = shutil.copytree(shipped, tmp_path / "copy")
    distill.main([*overrides, "epochs=2", f"init_actor={copied}"])  # the same weights, another fit: reused
    assert "reusing the decisions" in capsys.readouterr().out
    Path("runs/d/decisions.npz").write_bytes(b"damaged")  # a damaged cache is collected anew, whole
    distill.main([*overrides, "epochs=2"])
    assert "decisions.npz is unreadable" in capsys.readouterr().out
    distill.main([*overrides, "epochs=2"])
    assert "reusing the decisions" in capsys.readouterr().out
    distill.main([*overrides, "teacher=search"])  # another teacher: collected anew
    printed = capsys.readouterr().out
    assert "reusing" not in printed
    assert PolicyBot.load("checkpoints/d/final").about["trainer"].startswith("search distillation (search)")


def test_distill_fit_moves_the_policy_to_the_labels_and_the_anchors_keep_the_rest(tmp_path: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from training import distill
    from training.mappo import Actor

    torch.manual_seed(0)
    start = Actor([32], "tanh")
    with torch.no_grad():
        start.head.weight.mul_(300)  # a policy with clear preferences, as a trained one has
    obs, masks, late = [], [], []  # random play's decisions; the "searched" ones late in the game, as in real use
    for deal in range(4):
        game = Game.new(Config(players=2), deal)
        while game.status == "ongoing":
            o, m = encoding.observation(game, game.current), encoding.action_mask(game, game.current)
            if m.sum() > 1:
                obs.append(o.astype(np.float16))
                masks.append(np.packbits(m))
                late.append(game.cards_on_mountain() >= 6)
            game.apply_action(random.Random(len(obs)).choice(game.legal_actions()))
    data = {"obs": np.array(obs), "masks": np.array(masks), "deal": np.arange(len(obs)) % 10}
    data["searched"] = np.array(late)
    with torch.no_grad():  # the labels: the legal action the starting policy likes second best
        legal = torch.as_tensor(np.unpackbits(data["masks"], axis=1, count=actions.N_ACTIONS).astype(bool))
        data["chosen"] = start(torch.as_tensor(data["obs"], dtype=torch.float32), legal).topk(2).indices[:, 1].numpy()
    data["candidates"] = np.full((len(obs), distill.MAX_CANDIDATES), -1)  # no scores: the choice is the target
    data["scores"] = np.zeros((len(obs), distill.MAX_CANDIDATES))
    labelled, anchors = np.flatnonzero(data["searched"]), np.flatnonzero(~data["searched"])
    assert distill.agreement(start, data, labelled) == 0.0
    kept = {}
    for weight in (3.0, 0.0):
        actor = Actor([32], "tanh")
        actor.load_state_dict(start.state_dict())
        cfg = distill.DistillConfig(init_actor=str(tiny_checkpoint(tmp_path / "t", Config(players=2))), games=10,
                                    valid_games=1, epochs=30, batch_size=32, learning_rate=3e-3,
                                    anchor_weight=weight)  # fmt: skip
        distill.fit(cfg, actor, data, SummaryWriter(tmp_path / "logs"))
        assert distill.agreement(actor, data, labelled) > 0.8
        kept[weight] = distill.agreement(actor, data, anchors, distill.likeliest(start, data, anchors))
    assert kept[3.0] > kept[0.0] + 0.2  # measured: 0.70 against 0.34


@pytest.mark.parametrize(("override", "message"), [
    ({"teacher": "oracle"}, "'teacher' must be one of"),
    ({"valid_games": 5, "games": 5}, "'valid_games' must be at least 1 and below"),
    ({"games": 0}, "'games' must be at least 1"),
    ({"init_actor": "no/such/folder"}, "not a bot checkpoint"),
    ({"epochs": "many"}, "'epochs' must be int"),
    ({"temperature": -1.0}, "'temperature' must be at least 0"),
])  # fmt: skip
def test_distill_refuses_wrong_settings(override: dict, message: str) -> None:
    from training.distill import DistillConfig

    with pytest.raises(ValueError, match=message):
        DistillConfig(**{"init_actor": bots.shipped_bot(2), **override})


def test_distill_targets_weigh_the_candidates_by_the_prior_and_their_rollout_scores() -> None:
    import torch

    from training.distill import MAX_CANDIDATES, targets

    pad = [-1] * (MAX_CANDIDATES - 3)
    data = {"candidates": np.array([[7, 3, 9, *pad], [-1, -1, -1, *pad]]), "chosen": np.array([3, 5]),
            "scores": np.array([[40.0, 41.0, 40.0, *[0.0] * len(pad)], [0.0] * MAX_CANDIDATES])}  # fmt: skip
    prior = torch.log_softmax(torch.zeros(2, actions.N_ACTIONS), 1)
    prior[0, 9] += np.log(2.0)  # the starting policy likes action 9 twice as much as 7 and 3
    ids, weights = targets(data, np.arange(2), 1.0, prior)
    e = np.exp(1.0)  # candidate 3 scored one point more
    assert ids[0, :3].tolist() == [7, 3, 9] and np.allclose(weights[0, :3], np.array([1, e, 2]) / (3 + e))
    assert weights[0, 3:].sum() == 0 and ids[1, 0] == 5 and weights[1].tolist() == [1.0] + [0.0] * (MAX_CANDIDATES - 1)
    ids, weights = targets(data, np.arange(2), 0.0, prior)  # the search's choice alone
    assert ids[0, 0] == 3 and weights[0, 0] == 1.0 and weights[0, 1:].sum() == 0
