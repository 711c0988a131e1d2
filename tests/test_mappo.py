"""``tranquility mappo``: training, export, resume, starting from a bot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

from tranquility_env import Config
from tranquility_env.bots import PolicyBot

from tiny_bots import tiny_checkpoint


def test_mappo_trains_exports_a_bot_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import torch

    from tranquility_env.training import mappo

    monkeypatch.chdir(tmp_path)
    overrides = [
        "run=m",
        "total_steps=128",
        "num_envs=4",
        "num_steps=16",
        "checkpoint_every=64",
        "eval_every=64",
        "eval_games=2",
        "final_eval_games=2",
        "hidden=[16]",
        "critic_hidden=[16]",
        "players=2",
    ]
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
        mappo.main(
            [
                *[o for o in overrides if not o.startswith("total_steps")],
                "total_steps=192",
                "--resume",
                "--threads",
                "1",
            ]
        )
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import torch

    from tranquility_env.training import mappo

    monkeypatch.chdir(tmp_path)
    start = tiny_checkpoint(tmp_path / "start", Config(players=2), hidden=[16])
    # 2 updates of 64 steps; no checkpoint or evaluation before the end
    common = [
        "total_steps=128",
        "num_envs=4",
        "num_steps=16",
        "checkpoint_every=1000",
        "eval_every=1000",
        "final_eval_games=0",  # a step of a recipe: no closing table
        "hidden=[16]",
        "critic_hidden=[16]",
        "players=2",
        f"init_actor={start}",
    ]
    started = PolicyBot.load(str(start))

    def same_actor(run: str) -> bool:
        final = PolicyBot.load(str(tmp_path / "checkpoints" / run / "final"))
        pairs = [*zip(final.layers, started.layers, strict=True), (final.head, started.head)]
        return all(np.array_equal(a, b) for (wa, ba), (wb, bb) in pairs for a, b in ((wa, wb), (ba, bb)))

    mappo.main([*common, "run=warm", "critic_warmup=2"])  # both updates train the critic alone
    assert same_actor("warm")
    assert "win rate" not in capsys.readouterr().out
    mappo.main([*common, "run=cold", "critic_warmup=1"])  # the second update trains the actor too
    assert not same_actor("cold")
    mappo.main([*common, "run=rates", "critic_warmup=2", "learning_rate=0.0001", "critic_learning_rate=0.002"])
    groups = torch.load(tmp_path / "checkpoints" / "rates" / "resume.pt", weights_only=True)["optimizer"][
        "param_groups"
    ]
    assert [g["lr"] for g in groups] == [0.0001, 0.002]  # the actor's, then the critic's own


def test_mappo_stops_at_its_minutes_over_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from tranquility_env.training import mappo

    monkeypatch.chdir(tmp_path)
    common = ["run=m", "num_envs=4", "num_steps=16", "hidden=[16]", "critic_hidden=[16]", "players=2"]
    common += ["final_eval_games=0", "eval_every=1000", "checkpoint_every=1000"]
    mappo.main([*common, "total_steps=128"])  # no limit: every step
    assert PolicyBot.load(str(tmp_path / "checkpoints" / "m" / "final")).about["steps"] == 128
    spent = torch.load(tmp_path / "checkpoints" / "m" / "resume.pt", weights_only=True)["minutes"]
    assert 0 < spent < 5
    # a resume file saved before the critic had its own optimizer group (and its minutes) still resumes
    saved = torch.load(tmp_path / "checkpoints" / "m" / "resume.pt", weights_only=True)
    actor_group, critic_group = saved["optimizer"]["param_groups"]
    saved["optimizer"]["param_groups"] = [{**actor_group, "params": actor_group["params"] + critic_group["params"]}]
    del saved["minutes"]
    torch.save(saved, tmp_path / "checkpoints" / "m" / "resume.pt")
    mappo.main([*common, "total_steps=192", "--resume"])
    assert PolicyBot.load(str(tmp_path / "checkpoints" / "m" / "final")).about["steps"] == 192
    spent = torch.load(tmp_path / "checkpoints" / "m" / "resume.pt", weights_only=True)["minutes"]
    # resumed with a limit below the minutes already spent: it ends before another update
    mappo.main([*common, "total_steps=256", f"max_minutes={spent / 2}", "--resume"])
    assert PolicyBot.load(str(tmp_path / "checkpoints" / "m" / "final")).about["steps"] == 192


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"hidden": [8]}, r"differs in \['hidden'\]"),
        ({"players": 3}, r"differs in \['config'\]"),
        ({"activation": "relu"}, r"differs in \['activation'\]"),
        ({"init_actor": "no/such/folder"}, "not a bot checkpoint"),
        ({"critic_warmup": -1}, "'critic_warmup' must be at least 0"),
        ({"max_minutes": -1}, "'max_minutes' must be at least 0"),
        ({"device": "tpu"}, "'device' must be 'auto', 'cpu' or 'cuda'"),
    ],
)
def test_mappo_refuses_a_starting_actor_made_for_another_run(tmp_path: Path, override: dict, message: str) -> None:
    from tranquility_env.training.mappo import MappoConfig

    start = tiny_checkpoint(tmp_path / "start", Config(players=2), hidden=[16])
    settings = {"players": 2, "hidden": [16], "activation": "tanh", "init_actor": str(start), **override}
    with pytest.raises(ValueError, match=message):
        MappoConfig.make(**settings)


def test_ippo_gives_each_seats_critic_its_own_observation_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from tranquility_env import encoding
    from tranquility_env.envs.vector import TeamBatch
    from tranquility_env.training import mappo

    games = TeamBatch(2, players=3)
    games.reset([0, 1])
    games.observe()
    games.step([np.flatnonzero(m)[0] for m in games.masks])  # the games now at different seats
    games.observe()
    local = mappo.critic_inputs(mappo.IppoConfig.make(players=3), games)
    assert np.array_equal(local, games.observations)
    central = mappo.critic_inputs(mappo.MappoConfig.make(players=3), games)
    for i, row in enumerate(central):  # the full state, then which seat acts
        game = games.batch.game(i)
        assert np.array_equal(row[: encoding.STATE_SIZE], encoding.state(game))
        assert np.flatnonzero(row[encoding.STATE_SIZE :]).tolist() == [game.current]
    with pytest.raises(ValueError, match="'critic' must be one of"):
        mappo.MappoConfig(critic="both")

    monkeypatch.chdir(tmp_path)
    mappo.ippo_main(
        [
            "players=2",
            "total_steps=64",
            "num_envs=2",
            "num_steps=16",
            "hidden=[16]",
            "critic_hidden=[16]",
            "eval_games=2",
            "final_eval_games=2",
        ]
    )
    run = tmp_path / "checkpoints" / "p2_ippo"
    assert PolicyBot.load(str(run / "final")).about["trainer"] == "IPPO"
    critic = torch.load(run / "resume.pt", weights_only=True)["critic"]
    assert critic["net.0.0.weight"].shape[1] == encoding.OBSERVATION_SIZE


def test_the_sparse_legal_only_networks_are_the_dense_masked_ones() -> None:
    """Same weights, same positions (every module on): the same log-probability of every legal
    action, the same entropy and the same gradients as the dense network with masked logits."""
    import torch

    from tranquility_env import Game, encoding
    from tranquility_env.batch.layout import MAX_LEGAL
    from tranquility_env.training.mappo import Actor, padded

    torch.manual_seed(0)
    actor = Actor([32, 16], "relu")
    with torch.no_grad():
        actor.head.weight.normal_()  # logits far apart, so that a wrong one shows
    obs, masks = [], []
    for seed in range(4):
        game = Game.new({"players": 3, "goats": True, "panoramas": 2, "green_path": True}, seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            obs.append(encoding.observation(game, game.current))
            masks.append(encoding.action_mask(game, game.current).astype(bool))
            game.apply_action(int(rng.choice(game.legal_actions())))
    rows = np.zeros((len(masks), MAX_LEGAL), dtype=np.int64)  # as GameBatch.legal_ids gives them
    for row, mask in zip(rows, masks, strict=True):
        row[: mask.sum()] = np.flatnonzero(mask)
    counts = np.array([m.sum() for m in masks])
    obs, masks = torch.as_tensor(np.array(obs)), torch.as_tensor(np.array(masks))
    legal, valid = padded(rows, counts, torch.device("cpu"))
    assert torch.equal(valid.sum(1), masks.sum(1)) and bool((masks.gather(1, legal) | ~valid).all())

    chosen = torch.multinomial(masks.float(), 1).squeeze(1)  # one legal action a row
    dense = torch.distributions.Categorical(logits=actor(obs, masks))
    dense_loss = dense.log_prob(chosen).sum() + dense.entropy().sum()
    dense_grads = torch.autograd.grad(dense_loss, list(actor.parameters()))
    sparse = actor.legal_dist(obs, legal, valid)
    position = (legal == chosen[:, None]).int().argmax(1)
    sparse_loss = sparse.log_prob(position).sum() + sparse.entropy().sum()
    sparse_grads = torch.autograd.grad(sparse_loss, list(actor.parameters()))

    by_id = dense.logits.gather(1, legal)
    assert torch.allclose(sparse.logits[valid], by_id[valid], atol=1e-5)
    assert torch.allclose(sparse.entropy(), dense.entropy(), atol=1e-5)
    for mine, theirs in zip(sparse_grads, dense_grads, strict=True):
        assert torch.allclose(mine, theirs, atol=1e-4, rtol=1e-4)

    # The rollout's player, a numpy copy over the batch's live inputs: the same log-probabilities,
    # the padding left out.
    from tranquility_env.training.mappo import Critic, MappoConfig, live_inputs, rollout_policy

    cfg = MappoConfig.make(players=3, hidden=[32, 16], activation="relu")
    played = torch.as_tensor(rollout_policy(actor, cfg).legal_logits(obs.numpy(), rows, counts)).log_softmax(1)
    assert played.shape == legal.shape and bool((played[~valid] < -1e7).all())
    assert torch.allclose(played[valid], sparse.logits.log_softmax(1)[valid], atol=1e-4)

    # The updates' first layer, over the inputs non-zero somewhere in the batch only: the same
    # log-probabilities and gradients for the actor, the same values and gradients for the
    # critic, and no gradient at all for the weights of the inputs left out.
    inputs, cut = live_inputs(obs.numpy(), torch.device("cpu"))
    assert 0 < len(inputs) < encoding.OBSERVATION_SIZE and torch.equal(cut, obs[:, inputs])
    assert not obs[:, np.setdiff1d(np.arange(encoding.OBSERVATION_SIZE), inputs.numpy())].any()
    live = actor.legal_dist(cut, legal, valid, inputs)
    live_loss = live.log_prob(position).sum() + live.entropy().sum()
    live_grads = torch.autograd.grad(live_loss, list(actor.parameters()))
    assert torch.allclose(live.logits[valid], sparse.logits[valid], atol=1e-5)
    for mine, theirs in zip(live_grads, sparse_grads, strict=True):
        assert torch.allclose(mine, theirs, atol=1e-4, rtol=1e-4)
    critic = Critic(encoding.OBSERVATION_SIZE, [32, 8], "relu")
    dense_value, live_value = critic(obs), critic(cut, inputs=inputs)
    assert torch.allclose(live_value, dense_value, atol=1e-5)
    first = critic.net[0][0].weight
    (dense_grad,), (live_grad,) = (torch.autograd.grad(v.sum(), [first]) for v in (dense_value, live_value))
    assert torch.allclose(live_grad, dense_grad, atol=1e-5)
    assert not live_grad[:, np.setdiff1d(np.arange(encoding.OBSERVATION_SIZE), inputs.numpy())].any()


def test_rollout_sampling_draws_each_action_as_often_as_its_probability() -> None:
    """``sample`` (the Gumbel-max trick): each legal position drawn at its softmax probability,
    a padded one (-1e8) never, and the log-probability returned is the drawn one's."""
    from tranquility_env.training.mappo import sample

    logits = np.tile(np.array([[0.5, -1.0, 1.5, -1e8]], dtype=np.float32), (40_000, 1))
    choice, logprob = sample(logits, np.random.default_rng(0))
    probs = np.exp(logits[0, :3] - logits[0, :3].max())
    probs /= probs.sum()
    assert np.abs(np.bincount(choice, minlength=4) / len(choice) - [*probs, 0.0]).max() < 0.01
    assert np.allclose(logprob, np.log(probs)[choice], atol=1e-5)


def test_other_play_shows_each_seat_its_own_renaming_of_the_game_and_plays_the_real_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``other_play``: at every step the actor sees the acting seat's observation and legal ids
    under one colour renaming, the same for that seat all game, and the game gets the real move
    of the renamed one drawn."""
    from tranquility_env.envs.vector import TeamBatch
    from tranquility_env.symmetry import action_image, colour_symmetries, observation_index
    from tranquility_env.training import mappo

    shown, drawn, real = [], [], []
    make_policy, draw, step = mappo.rollout_policy, mappo.sample, TeamBatch.step

    def recording_policy(actor, cfg):  # what the actor is shown
        policy = make_policy(actor, cfg)
        legal_logits = policy.legal_logits
        policy.legal_logits = lambda obs, ids, counts: (
            shown.append((obs.copy(), ids.copy(), counts.copy())) or (legal_logits(obs, ids, counts))
        )
        return policy

    def recording_sample(logits, rng):
        choice, logprob = draw(logits, rng)
        drawn.append(choice.copy())
        return choice, logprob

    def recording_step(self, ids):  # what the games are, and the move each gets
        legal, current = self.batch.legal_ids()[0].copy(), self.batch.current.copy()
        rewards, terminated, refusals = step(self, ids)
        real.append((self.observations_before, legal, np.asarray(ids).copy(), current, terminated.copy()))
        return rewards, terminated, refusals

    observe = TeamBatch.observe

    def recording_observe(self, masks=True):
        observe(self, masks)
        self.observations_before = self.observations.copy()

    monkeypatch.setattr(mappo, "rollout_policy", recording_policy)
    monkeypatch.setattr(mappo, "sample", recording_sample)
    monkeypatch.setattr(TeamBatch, "step", recording_step)
    monkeypatch.setattr(TeamBatch, "observe", recording_observe)
    monkeypatch.chdir(tmp_path)
    overrides = ["run=op", "total_steps=512", "num_envs=4", "num_steps=128", "hidden=[16]", "critic_hidden=[16]"]
    mappo.main([*overrides, "players=3", "other_play=true", "eval_games=1", "final_eval_games=0", "eval_every=1000"])
    symmetries, naming, renamed = colour_symmetries(Config(players=3)), {}, 0
    assert len(shown) == 128
    for (obs, ids, counts), choice, (true_obs, true_legal, played, current, ended) in zip(
        shown, drawn, real, strict=True
    ):
        for g in range(4):
            n = counts[g]
            matches = [
                s
                for s in symmetries
                if (obs[g] == true_obs[g][observation_index(s)]).all()
                and (ids[g, :n] == action_image(s)[true_legal[g, :n]]).all()
            ]
            assert played[g] == true_legal[g, choice[g]]
            # one renaming per seat and game (a position may look alike under several)
            naming[g, current[g]] = naming.get((g, current[g]), set(symmetries)) & set(matches)
            assert naming[g, current[g]]
            renamed += (0, 1, 2) not in matches
            if ended[g]:
                naming = {key: value for key, value in naming.items() if key[0] != g}
    assert renamed > 200
