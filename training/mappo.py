"""MAPPO and IPPO: ``tranquility mappo|ippo [--config configs/mappo.yaml|ippo.yaml] [key=value ...]``.

CleanRL style, one file read top to bottom: the config, the networks, many ``TeamEnv`` copies
stepped together, GAE on a normalised value target, minibatched PPO updates, charts and
checkpoints. The actor is shared by every policy seat and sees only its seat's observation
(masked logits); the critic sees the full-information global state (``encoding.state``: every
hand and deck) and which seat acts, as in MAPPO (Yu et al., 2022). Cooperative play under
partial observability is where such a critic pays off: it judges positions by what is really
in the hands, while the actor stays decentralized. ``critic=local`` (``tranquility ippo``) gives
each seat's critic that seat's observation alone, as in IPPO (de Witt et al., 2020): the
baseline that tells what the global state adds.

``other_play`` is Other-Play (Hu et al., 2020): each seat of each game sees the whole game under a
colour renaming of its own (``symmetry.py``), drawn when the game is dealt, and its moves are
renamed back before they are played. No convention tied to a colour's name can then be shared
between seats, so none pays; only play that strangers can follow does.

``init_actor`` starts the actor from a bot checkpoint (say an imitation bot of ``train.py``),
and ``critic_warmup`` trains the fresh critic alone for that many updates first: its first
advantages are noise, and policy steps on noise would undo the play the actor started with.

Writes the same TensorBoard charts and bot checkpoints as ``train.py``; ``--resume`` reads
``checkpoints/<run>/resume.pt``, tensors and numbers only, loaded with ``weights_only=True``.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from tranquility_env import Config, checkpoint, encoding, symmetry
from tranquility_env.batch.layout import MAX_LEGAL
from tranquility_env.bots import make_bot
from tranquility_env.bots.policy import PolicyBot, one_blas_thread
from tranquility_env.envs.vector import ENGINES, TeamBatch
from tranquility_env.rules import actions
from tranquility_env.tasks import training_deal
from tranquility_env.training.common import (
    RunConfig,
    check_resume,
    export_actor,
    final_table,
    legal_head_logits,
    log_evaluation,
    run_trainer,
    save_config,
    torch_activation,
    trainer_parser,
    weight_pairs,
)

__all__ = [
    "Actor",
    "Critic",
    "IppoConfig",
    "MappoConfig",
    "critic_inputs",
    "ippo_main",
    "live_inputs",
    "main",
    "padded",
    "rollout_policy",
    "sample",
    "train",
]

# ------------------------------------------------------------------------------ the config
# What the critic sees -> its input size: the global state and the acting seat, or the seat's observation.
CRITICS = {"global": encoding.STATE_SIZE + encoding.MAX_PLAYERS, "local": encoding.OBSERVATION_SIZE}


@dataclass
class MappoConfig(RunConfig):
    """The shared run fields (``common.RunConfig``) and MAPPO's own."""

    RUN_SUFFIX = "_mappo"
    critic_hidden: list[int] = field(default_factory=lambda: [256, 256])
    num_envs: int = 64  # games stepped together in this process (one batched inference for all)
    num_steps: int = 32  # steps per game and update
    num_minibatches: int = 4
    update_epochs: int = 4
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    init_actor: str = ""  # a bot checkpoint the actor starts from (its game, hidden and activation)
    critic_warmup: int = 0  # first updates that train the critic alone, so a started actor keeps its play
    critic_learning_rate: float = 0.0  # the critic's own rate (0: learning_rate): a fresh critic beside a started actor
    max_minutes: float = 0.0  # 0: none; else the run ends at the first update past this many minutes of training
    critic: str = (
        "global"  # what the critic sees: "global" (the full state: MAPPO) or "local" (the seat's observation: IPPO)
    )
    device: str = "auto"  # where the networks run: "auto" (CUDA when torch sees one), "cpu" or "cuda"
    engine: str = "batch"  # the games: "batch" (compiled, batched) or "game" (Game objects one by one: the reference)
    other_play: bool = False  # each seat of each game sees its table under a colour renaming drawn at the deal

    AT_LEAST_ONE = (*RunConfig.AT_LEAST_ONE, "num_envs", "num_steps", "num_minibatches", "update_epochs")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("critic_warmup", "critic_learning_rate", "max_minutes"):
            if getattr(self, name) < 0:
                raise ValueError(f"train config {name!r} must be at least 0")
        if self.critic not in CRITICS:
            raise ValueError(f"train config 'critic' must be one of {list(CRITICS)}, got {self.critic!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"train config 'engine' must be one of {list(ENGINES)}, got {self.engine!r}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"train config 'device' must be 'auto', 'cpu' or 'cuda', got {self.device!r}")
        if self.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("train config 'device' is 'cuda', but torch sees no CUDA device here")
        if self.init_actor:
            starting_actor(self)  # refuses a missing, damaged or mismatched checkpoint before any training


# ------------------------------------------------------------------------------ the networks
def mlp(sizes: list[int], activation: str, gain: float = np.sqrt(2)) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        linear = nn.Linear(a, b)
        nn.init.orthogonal_(linear.weight, gain)
        nn.init.zeros_(linear.bias)
        layers += [linear, torch_activation(activation)()]
    return nn.Sequential(*layers)


def first_layer(layer: nn.Linear, x: torch.Tensor, inputs: torch.Tensor | None = None) -> torch.Tensor:
    """``layer(x)``; with ``inputs``, x holds only these input columns of the layer, every other
    one being zero in every row (``live_inputs``), and the product runs over them alone. In a
    training batch of one config about two thirds of the inputs are zero in every row (seats and
    modules the config lacks, and more); the dense product over the rest keeps the fast matrix
    kernels, forward and backward, where a gather of weight rows would not."""
    if inputs is not None:
        return nn.functional.linear(x, layer.weight.index_select(1, inputs), layer.bias)
    return layer(x)


def live_inputs(x: np.ndarray, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """The columns of x that are non-zero in some row, and x cut to them, on ``device``:
    ``first_layer``'s ``inputs``."""
    columns = torch.as_tensor(np.flatnonzero(x.any(0)), device=device)
    return columns, torch.as_tensor(x, device=device).index_select(1, columns)


class Actor(nn.Module):
    """Observation -> masked action logits; the layers a bot checkpoint holds.

    ``forward`` is the plain dense network. The updates call ``legal_logits`` instead, which
    computes the same logits without paying for what it does not use: the head computes the
    logits of the legal actions only (a few dozen of 3,962), and the first layer runs over the
    inputs live in the batch only (``first_layer``). The rollout plays a numpy copy
    (``rollout_policy``)."""

    def __init__(self, hidden: list[int], activation: str) -> None:
        super().__init__()
        self.body = mlp([encoding.OBSERVATION_SIZE, *hidden], activation)
        self.head = nn.Linear(hidden[-1], actions.N_ACTIONS)
        nn.init.orthogonal_(self.head.weight, 0.01)
        nn.init.zeros_(self.head.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(obs)).masked_fill(~mask, -1e8)

    def legal_logits(
        self,
        obs: torch.Tensor,
        legal: torch.Tensor,
        valid: torch.Tensor,
        inputs: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The masked logits of each row's legal actions ``legal[i, :]`` (``padded``; ``valid`` marks
        the real ones): ``forward``'s logits at those ids. ``inputs``: see ``first_layer``."""
        return legal_head_logits(self.head, self.body[1:](first_layer(self.body[0], obs, inputs)), legal, valid)

    def legal_dist(
        self, obs: torch.Tensor, legal: torch.Tensor, valid: torch.Tensor, inputs: torch.Tensor | None = None
    ) -> torch.distributions.Categorical:
        """``legal_logits`` as a distribution over positions in ``legal``."""
        return torch.distributions.Categorical(logits=self.legal_logits(obs, legal, valid, inputs))

    def load_pairs(self, pairs: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Set the (weight, bias) pairs of a bot checkpoint: hidden layers, then the head."""
        with torch.no_grad():
            for linear, (weight, bias) in zip([*self.body[::2], self.head], pairs, strict=True):
                linear.weight.copy_(torch.as_tensor(weight))
                linear.bias.copy_(torch.as_tensor(bias))


def padded(legal: np.ndarray, counts: np.ndarray, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Rows of legal ids (``GameBatch.legal_ids``) cut to the longest row: (ids, which are real)."""
    width = int(counts.max())
    ids = torch.as_tensor(legal[:, :width], device=device)
    return ids, torch.arange(width, device=device) < torch.as_tensor(counts, device=device)[:, None]


def rollout_policy(actor: Actor, cfg: MappoConfig) -> PolicyBot:
    """The actor as a ``PolicyBot`` on its weights (``weight_pairs``): the rollout's player. Its
    batched numpy pass (``PolicyBot.legal_logits``) costs a fraction of torch's per-call overhead
    on a few dozen observations a step. Make it anew for each rollout: the updates change the
    weights."""
    *layers, head = weight_pairs([*actor.body[::2], actor.head])
    return PolicyBot({"activation": cfg.activation, "config": cfg.config.to_dict()}, layers, head)


def sample(logits: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A draw from each row's categorical distribution over ``logits`` (the Gumbel-max trick),
    and its log-probability."""
    choice = (logits + rng.gumbel(size=logits.shape)).argmax(1)
    top = logits.max(1)
    log_total = np.log(np.exp(logits - top[:, None]).sum(1)) + top
    return choice, logits[np.arange(len(logits)), choice] - log_total


def starting_actor(cfg: MappoConfig) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight, bias) pairs of ``cfg.init_actor``, hidden layers then head, checked against the run."""
    about, layers, head = checkpoint.load(cfg.init_actor)
    mine = {"config": cfg.config, "hidden": cfg.hidden, "activation": cfg.activation}
    theirs = {"config": Config.from_dict(about["config"]), "hidden": about["hidden"], "activation": about["activation"]}
    differs = [k for k in mine if mine[k] != theirs[k]]
    if differs:
        got = {k: theirs[k].to_dict() if k == "config" else theirs[k] for k in differs}
        raise checkpoint.CheckpointError(
            f"init_actor {cfg.init_actor} was made for {got}; this run differs in {differs}"
        )
    return [*layers, head]


class Critic(nn.Module):
    """What the critic sees (``CRITICS``) -> normalised value."""

    def __init__(self, inputs: int, hidden: list[int], activation: str) -> None:
        super().__init__()
        layers = mlp([inputs, *hidden], activation)
        self.net = nn.Sequential(layers, nn.Linear(hidden[-1], 1))

    def forward(self, state: torch.Tensor, inputs: torch.Tensor | None = None) -> torch.Tensor:
        """``inputs``: see ``first_layer``."""
        layers = self.net[0]
        return self.net[1](layers[1:](first_layer(layers[0], state, inputs=inputs))).squeeze(-1)


class ValueNorm:
    """Running mean and variance of the value targets: the critic learns them normalised."""

    def __init__(self) -> None:
        self.mean, self.var, self.count = 0.0, 1.0, 1e-4

    def update(self, x: np.ndarray) -> None:
        mean, var, n = float(x.mean()), float(x.var()), x.size
        delta, total = mean - self.mean, self.count + n
        self.mean += delta * n / total
        self.var = (self.var * self.count + var * n + delta**2 * self.count * n / total) / total
        self.count = total

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        return (x - self.mean) / np.sqrt(self.var + 1e-8)

    def denormalize(self, x: torch.Tensor) -> torch.Tensor:
        return x * np.sqrt(self.var + 1e-8) + self.mean


def critic_inputs(cfg: MappoConfig, games: TeamBatch, out: np.ndarray | None = None) -> np.ndarray:
    """What the critic sees in each game: the acting seat's observation (IPPO), or the global
    state and which seat acts (MAPPO); written into ``out`` when given."""
    if out is None:
        out = np.empty((games.num_envs, CRITICS[cfg.critic]), dtype=np.float32)
    if cfg.critic == "local":
        out[:] = games.observations
        return out
    out[:, : encoding.STATE_SIZE] = games.batch.states()
    out[:, encoding.STATE_SIZE :] = 0
    out[np.arange(len(out)), encoding.STATE_SIZE + games.batch.current] = 1
    return out


def pick_device(name: str) -> torch.device:
    return torch.device("cuda" if name == "cuda" or (name == "auto" and torch.cuda.is_available()) else "cpu")


# ------------------------------------------------------------------------------ the loop
def train(cfg: MappoConfig, resume: bool = False) -> Path:
    torch.manual_seed(cfg.seed)
    run_dir = Path(cfg.checkpoints_dir) / cfg.run
    run_dir.mkdir(parents=True, exist_ok=True)
    device = pick_device(cfg.device)
    actor, norm = Actor(cfg.hidden, cfg.activation), ValueNorm()
    critic = Critic(CRITICS[cfg.critic], cfg.critic_hidden, cfg.activation)
    actor.to(device)
    critic.to(device)
    groups = [
        {"params": [*actor.parameters()]},
        {"params": [*critic.parameters()], "lr": cfg.critic_learning_rate or cfg.learning_rate},
    ]
    optimizer = torch.optim.Adam(groups, lr=cfg.learning_rate, eps=1e-5, fused=True)
    global_step, minutes_before = 0, 0.0  # minutes: of training, in the runs this one resumes
    if cfg.init_actor and not resume:
        actor.load_pairs(starting_actor(cfg))
    if resume:
        if not (run_dir / "resume.pt").is_file():
            raise FileNotFoundError(f"--resume: no {run_dir / 'resume.pt'} (has this run saved a checkpoint yet?)")
        check_resume(cfg, run_dir)
        saved = torch.load(run_dir / "resume.pt", weights_only=True, map_location="cpu")
        actor.load_state_dict(saved["actor"])
        critic.load_state_dict(saved["critic"])
        state = saved["optimizer"]
        if len(state["param_groups"]) == 1:  # saved when actor and critic shared one group: split it
            only, k = state["param_groups"][0], len(list(actor.parameters()))
            state["param_groups"] = [{**only, "params": only["params"][:k]}, {**only, "params": only["params"][k:]}]
        optimizer.load_state_dict(state)
        norm.mean, norm.var, norm.count = saved["norm"]
        global_step, minutes_before = int(saved["global_step"]), float(saved.get("minutes", 0.0))
        if "torch_rng" in saved:  # so the resumed run samples on from where it stopped, not from cfg.seed again
            torch.set_rng_state(saved["torch_rng"])
        else:  # saved before the stream was stored: at least not the start's stream again
            torch.manual_seed(cfg.seed + global_step)
        print(f"resuming {cfg.run} at step {global_step}")
    save_config(cfg, run_dir)

    def minutes() -> float:  # of training, this run's and those it resumes
        return minutes_before + (time.time() - start) / 60

    def save_resume() -> None:
        state = {
            "actor": actor.state_dict(),
            "critic": critic.state_dict(),
            "optimizer": optimizer.state_dict(),
            "norm": [norm.mean, norm.var, norm.count],
            "global_step": global_step,
            "minutes": minutes(),
            "torch_rng": torch.get_rng_state(),
        }
        torch.save(state, run_dir / "resume.tmp.pt")
        (run_dir / "resume.tmp.pt").replace(run_dir / "resume.pt")  # atomic

    def export(name: str) -> Path:
        return export_actor(list(actor.body[::2]), actor.head, cfg, run_dir / name, global_step, TRAINERS[cfg.critic])

    # The games, stepped together by the batched engine; teammate seats play inside each step.
    teammates = {seat: make_bot(spec, cfg.seed + seat) for seat, spec in cfg.teammates.items()}
    T, N = cfg.num_steps, cfg.num_envs
    games = TeamBatch(N, teammates, engine=cfg.engine, reward_shaping=cfg.reward_shaping, **cfg.config.to_dict())
    games.reset([training_deal(cfg.seed, global_step + i) for i in range(N)])  # never an evaluation deal
    games.observe()
    b_obs = np.zeros((T, N, encoding.OBSERVATION_SIZE), dtype=np.float32)
    b_legal = np.zeros((T, N, MAX_LEGAL), dtype=np.int64)  # each game's legal ids, padded
    b_count = np.zeros((T, N), dtype=np.int64)  # how many are real
    b_state = np.zeros((T, N, CRITICS[cfg.critic]), dtype=np.float32)
    b_choice, b_logprob = np.zeros((T, N), dtype=np.int64), np.zeros((T, N), dtype=np.float32)  # choice: in legal
    b_reward, b_done, b_value = (np.zeros((T, N), dtype=np.float32) for _ in range(3))
    # Other-Play: per game and seat, the renaming it sees (an index into ``symmetries``)
    symmetries = symmetry.colour_symmetries(cfg.config) if cfg.other_play else (symmetry.IDENTITY,)
    seen_at = np.stack([symmetry.observation_index(s) for s in symmetries])
    renamed = np.stack([symmetry.action_image(s) for s in symmetries])
    naming = np.random.default_rng(cfg.seed + global_step).integers(len(symmetries), size=(N, cfg.players))
    played = np.zeros_like(b_legal[0])  # the real legal ids of the step under way

    writer = SummaryWriter(Path(cfg.logs_dir) / cfg.run)
    finished: list[dict] = []
    next_checkpoint = (global_step // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    next_eval = (global_step // cfg.eval_every + 1) * cfg.eval_every
    start, start_step = time.time(), global_step
    rollout_time = update_time = 0.0
    bar = tqdm(total=cfg.total_steps, initial=global_step, unit="step", dynamic_ncols=True)
    while global_step < cfg.total_steps:
        if cfg.max_minutes and minutes() >= cfg.max_minutes:
            print(f"{cfg.run}: {cfg.max_minutes} minutes of training reached at step {global_step}")
            break
        # --- rollout
        began = time.time()
        policy = rollout_policy(actor, cfg)
        rng = np.random.default_rng(int(torch.randint(2**62, ())))  # from torch's stream, which a resume restores
        with one_blas_thread():  # torch's threads hold the cores
            for t in range(T):
                b_obs[t] = games.observations
                _, b_count[t] = games.batch.legal_ids(out=played)
                b_legal[t] = played
                if cfg.other_play:  # the acting seat's view: its observation and legal ids renamed
                    k = naming[np.arange(N), games.batch.current]
                    b_obs[t] = np.take_along_axis(b_obs[t], seen_at[k], axis=1)
                    b_legal[t] = renamed[k[:, None], played]
                critic_inputs(cfg, games, out=b_state[t])
                b_choice[t], b_logprob[t] = sample(policy.legal_logits(b_obs[t], b_legal[t], b_count[t]), rng)
                b_reward[t], done, _ = games.step(played[np.arange(N), b_choice[t]])
                b_done[t] = done
                ended = np.flatnonzero(done)
                finished += [games.episode_stats(i) for i in ended]
                if ended.size:
                    games.reset([None] * ended.size, ended)
                    if cfg.other_play:
                        naming[ended] = rng.integers(len(symmetries), size=(ended.size, cfg.players))
                games.observe(masks=False)  # the legal ids come from the engine
                global_step += N
        # The critic's values, which do not steer the play: one pass over the whole rollout, over
        # the inputs live in it (``first_layer``); the updates below train on the same cut.
        state_inputs, state = live_inputs(b_state.reshape(T * N, -1), device)
        with torch.no_grad():
            b_value[:] = norm.denormalize(critic(state, inputs=state_inputs)).cpu().numpy().reshape(T, N)
        bar.update(T * N)
        rollout_time += time.time() - began

        # --- GAE on the denormalised values; the critic then learns the normalised returns
        began = time.time()
        with torch.no_grad():
            next_state = torch.as_tensor(critic_inputs(cfg, games), device=device)
            next_value = norm.denormalize(critic(next_state)).cpu().numpy()
        advantages = np.zeros((T, N), dtype=np.float32)
        last = np.zeros(N, dtype=np.float32)
        for t in reversed(range(T)):
            following = next_value if t == T - 1 else b_value[t + 1]
            alive = 1.0 - b_done[t]
            delta = b_reward[t] + cfg.gamma * following * alive - b_value[t]
            last = delta + cfg.gamma * cfg.gae_lambda * alive * last
            advantages[t] = last
        returns = advantages + b_value
        norm.update(returns)

        # --- minibatched PPO updates, the first layers over the inputs live in this batch only
        obs_inputs, obs = live_inputs(b_obs.reshape(T * N, -1), device)
        flat = {
            "obs": obs,
            "legal": b_legal.reshape(T * N, -1),
            "count": b_count.reshape(-1),
            "state": state,
            "choice": torch.as_tensor(b_choice.reshape(-1), device=device),
            "logprob": torch.as_tensor(b_logprob.reshape(-1), device=device),
            "adv": torch.as_tensor(advantages.reshape(-1), device=device),
            "target": norm.normalize(torch.as_tensor(returns.reshape(-1), device=device)),
        }
        size = T * N // cfg.num_minibatches
        warm = global_step > cfg.critic_warmup * T * N  # past the critic's warm-up updates
        for _ in range(cfg.update_epochs):
            for idx in torch.randperm(T * N, device=device).split(size):
                legal, valid = padded(flat["legal"][idx.cpu()], flat["count"][idx.cpu()], device)
                dist = actor.legal_dist(flat["obs"][idx], legal, valid, obs_inputs)
                logprob = dist.log_prob(flat["choice"][idx])
                ratio = (logprob - flat["logprob"][idx]).exp()
                adv = flat["adv"][idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_range, 1 + cfg.clip_range)).mean()
                v_loss = 0.5 * (critic(flat["state"][idx], inputs=state_inputs) - flat["target"][idx]).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = cfg.vf_coef * v_loss
                if warm:
                    loss = loss + pg_loss - cfg.ent_coef * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], cfg.max_grad_norm)
                optimizer.step()

        update_time += time.time() - began

        # --- charts, checkpoints, evaluation
        recent = finished[-100:]
        if recent:
            writer.add_scalar("charts/win_rate", np.mean([g["won"] for g in recent]), global_step)
            writer.add_scalar(
                "charts/cards_on_mountain", np.mean([g["cards_on_mountain"] for g in recent]), global_step
            )
            writer.add_scalar("charts/episode_length", np.mean([g["decisions"] for g in recent]), global_step)
            writer.add_scalar("charts/penalty_discards", np.mean([g["penalty_discards"] for g in recent]), global_step)
        writer.add_scalar("charts/SPS", (global_step - start_step) / (time.time() - start), global_step)
        # The update loop alone (what SPS would be with free envs and inference) and the share
        # of the time the games and the rollout's inference take.
        writer.add_scalar("charts/SPS_update_only", (global_step - start_step) / update_time, global_step)
        writer.add_scalar("charts/rollout_share", rollout_time / (rollout_time + update_time), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy.item(), global_step)
        if global_step >= next_checkpoint:
            next_checkpoint += cfg.checkpoint_every
            folder = export(f"step_{global_step}")
            save_resume()
            if global_step >= next_eval:
                next_eval += cfg.eval_every
                log_evaluation(cfg, folder, writer, global_step)
    bar.close()
    writer.close()
    final = export("final")
    save_resume()
    final_table(cfg, final)
    return final


@dataclass
class IppoConfig(MappoConfig):
    """MAPPO's config with each seat's critic on that seat's observation alone."""

    RUN_SUFFIX = "_ippo"
    critic: str = "local"


TRAINERS = {"global": "MAPPO", "local": "IPPO"}


def main(argv: list[str] | None = None, kind: type[MappoConfig] = MappoConfig) -> None:
    name = "ippo" if kind is IppoConfig else "mappo"
    parser = trainer_parser(f"tranquility {name}", __doc__, resume_file="resume.pt")
    # Not a config key: it changes the speed, not the run (a rerun with the same thread count
    # gives the same weights; another count may round sums differently).
    parser.add_argument(
        "--threads", type=int, default=2, help="torch threads (default 2); two runs side by side: 1 each"
    )
    args = parser.parse_intermixed_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")
    torch.set_num_threads(args.threads)
    run_trainer(parser, args.config, args.overrides, kind, lambda cfg: train(cfg, resume=args.resume))


def ippo_main(argv: list[str] | None = None) -> None:
    """``tranquility ippo``: ``main`` with ``IppoConfig``."""
    main(argv, IppoConfig)


if __name__ == "__main__":
    main()
