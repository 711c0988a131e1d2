"""The policy runtime: a learned bot from a checkpoint (``checkpoint.py``), played with numpy alone."""

from __future__ import annotations

import contextlib
import copy
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from tranquility_env import checkpoint, symmetry
from tranquility_env.rules.config import Config

__all__ = ["PolicyBot", "load_policy", "one_blas_thread"]


class PolicyBot:
    """A learned policy loaded from a bot checkpoint (``checkpoint.py``): an MLP over the
    observation whose logits are masked to the legal actions. Plays with numpy alone.

    ``deterministic`` picks the most likely legal action; otherwise it samples (``seed``). A
    checkpoint marked ``symmetrised`` plays the mean log-probability of its network over the
    table's colour symmetries (``symmetry.py``): the network seen under every naming of the
    colours at once, so that no move rests on which colour is called which."""

    def __init__(
        self,
        about: dict[str, Any],
        layers: list[tuple[np.ndarray, np.ndarray]],
        head: tuple[np.ndarray, np.ndarray],
        deterministic: bool = True,
        seed: int | None = None,
        path: str = "",
    ) -> None:
        self.about, self.layers, self.head, self.path = about, layers, head, path
        self.first_by_input = np.ascontiguousarray(layers[0][0].T)  # a row per observation entry
        self.activation = checkpoint.ACTIVATIONS[about["activation"]]
        self.config = Config.from_dict(about["config"])
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.symmetries = symmetry.colour_symmetries(self.config) if about.get("symmetrised") else ()
        # symmetrised: the first layer's rows as each symmetry's relabelled observation meets them
        first = [self.first_by_input[np.argsort(symmetry.observation_index(s))] for s in self.symmetries]
        self.first_each = np.concatenate(first, axis=1) if first else None
        self.image_each = np.stack([symmetry.action_image(s) for s in self.symmetries]) if first else None

    @classmethod
    def load(cls, path: str, deterministic: bool = True, seed: int | None = None) -> PolicyBot:
        about, layers, head = checkpoint.load(path)
        return cls(about, layers, head, deterministic, seed, str(path))

    def with_seed(self, seed: int | None) -> PolicyBot:
        """The same policy, sharing its (read-only) weights, with a random stream of its own."""
        twin = copy.copy(self)
        twin.rng = np.random.default_rng(seed)
        return twin

    def check_table(self, config: Any) -> None:
        """Refuse a table whose config differs from the one this policy was trained for."""
        config = Config.coerce(config)
        if config != self.config:
            differs = {k: v for k, v in config.to_dict().items() if self.config.to_dict()[k] != v}
            raise checkpoint.CheckpointError(
                f"{self.path or 'policy'} was trained for {self.config.to_dict()}; this table differs in {differs}"
            )

    def logits(self, observation: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The head's logits for every action, or for the action ids in ``legal`` only (in that
        order: the cheap call, since the head is most of the network's weights); symmetrised,
        the mean log-probabilities among them."""
        if self.symmetries:
            x = np.asarray(observation, dtype=np.float32)
            present = np.flatnonzero(x)
            x = self.activation(
                (x[present] @ self.first_each[present]).reshape(len(self.symmetries), -1) + self.layers[0][1]
            )
            ids = self.image_each if legal is None else self.image_each[:, legal]
            return _mean_log_softmax(self._head_each(x, ids))
        # The first layer sums only the rows of the observation's non-zero entries, from the
        # transposed weights; the head computes only the rows asked for. Each product is an einsum
        # rather than @: multi-threaded BLAS slows down badly when other processes hold the cores
        # (evaluation workers, training), einsum's single-threaded loop does not.
        x = np.asarray(observation, dtype=np.float32)
        present = np.flatnonzero(x)
        x = self.activation(np.einsum("i,ij->j", x[present], self.first_by_input[present]) + self.layers[0][1])
        for weight, bias in self.layers[1:]:
            x = self.activation(np.einsum("ij,j->i", weight, x) + bias)
        weight, bias = self.head
        if legal is None:
            return np.einsum("ij,j->i", weight, x) + bias
        return np.einsum("ij,j->i", weight[legal], x) + bias[legal]

    def choose(self, observation: np.ndarray, legal: np.ndarray) -> int:
        """The action among the ids ``legal`` (ascending) this policy takes."""
        return self._pick(self.logits(observation, legal), legal)

    def choose_each(
        self, observations: np.ndarray, legal: list[np.ndarray], rows: np.ndarray | None = None
    ) -> list[int]:
        """``choose`` for a batch: for row i of ``observations`` (or row ``rows[i]``, when only
        some rows decide), the action among the ids ``legal[i]`` (ascending). One matrix product
        a layer for the whole batch, so deciding in hundreds of games at once (a search's
        rollouts) costs little more than in one."""
        observations = np.asarray(observations, dtype=np.float32)
        sizes = np.fromiter(map(len, legal), dtype=np.int64, count=len(legal))
        ids = np.zeros((len(legal), sizes.max()), dtype=np.int64)  # the rows of legal, padded
        ids[np.arange(ids.shape[1]) < sizes[:, None]] = np.concatenate(legal)
        logits = self.legal_logits(observations if rows is None else observations[rows], ids, sizes)
        if self.deterministic:  # each game's first best id, as np.argmax over its own ids
            return ids[np.arange(len(ids)), logits.argmax(1)].tolist()
        return [self._pick(row[:n], own[:n]) for row, own, n in zip(logits, ids, sizes, strict=True)]

    def hidden(self, observations: np.ndarray) -> np.ndarray:
        """The last hidden layer for each row of a float32 batch of observations. The first
        layer runs over the inputs non-zero in some row only: in a batch of games of one config
        most inputs are zero in every row, and contribute nothing."""
        live = np.flatnonzero(observations.any(0))
        x = self.activation(observations[:, live] @ self.first_by_input[live] + self.layers[0][1])
        for weight, bias in self.layers[1:]:
            x = self.activation(x @ weight.T + bias)
        return x

    def legal_logits(self, observations: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """For each row of a float32 batch of observations, the logits of its legal ids
        ``ids[i, :counts[i]]`` (rows padded as ``GameBatch.legal_ids`` gives them), in a
        ``(batch, counts.max())`` array whose padding holds -1e8. The head's rows of those ids
        only, each against its own game's row: a few thousand of the batch x 3,962 products of
        the whole head."""
        width = int(counts.max())
        ids, padding = ids[:, :width], np.arange(width) >= counts[:, None]
        if not self.symmetries:
            logits = np.einsum("nlj,nj->nl", self.head[0][ids], self.hidden(observations)) + self.head[1][ids]
            logits[padding] = -1e8
            return logits
        # every row under every symmetry at once (a block of rows per symmetry)
        n, count = len(ids), len(self.symmetries)
        live = np.flatnonzero(observations.any(0))
        x = observations[:, live] @ self.first_each[live]
        x = self.activation(x.reshape(n, count, -1).transpose(1, 0, 2).reshape(count * n, -1) + self.layers[0][1])
        logits = self._head_each(x, self.image_each[:, ids].reshape(count * n, width))
        logits[np.tile(padding, (count, 1))] = -np.inf
        mean = _mean_log_softmax(logits.reshape(count, n, width))
        mean[padding] = -1e8
        return mean

    def _head_each(self, x: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """The logits of ``ids`` (a row each) from the first hidden layer's rows ``x``."""
        for weight, bias in self.layers[1:]:
            x = self.activation(x @ weight.T + bias)
        return np.einsum("nlj,nj->nl", self.head[0][ids], x) + self.head[1][ids]

    def _pick(self, logits: np.ndarray, legal: np.ndarray) -> int:
        if self.deterministic:
            return int(legal[np.argmax(logits)])  # ties go to the lowest id, as over the whole mask
        p = np.exp(logits - logits.max())
        return int(legal[self.rng.choice(len(p), p=p / p.sum())])

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        return self.choose(observation, np.flatnonzero(action_mask))


def _mean_log_softmax(logits: np.ndarray) -> np.ndarray:
    """The mean over the first axis of log-softmax over the last."""
    logits = logits - logits.max(-1, keepdims=True)
    return (logits - np.log(np.exp(logits).sum(-1, keepdims=True))).mean(0)


def load_policy(path: str, seed: int | None = None) -> PolicyBot:
    """``PolicyBot.load(path, seed=seed)``, reading each checkpoint once per process: evaluation
    and DAgger seat new bots every deal, and loading costs more than a game. The copy kept is
    keyed by the folder's file names, sizes and modification times, so a checkpoint rewritten in
    place (a training run's ``final/``) is read again."""
    folder = Path(path).resolve()
    try:
        stats = ((f.name, f.stat()) for f in sorted(folder.iterdir()))
        stamp = tuple((name, stat.st_size, stat.st_mtime_ns) for name, stat in stats)
    except OSError:  # missing or unreadable: let the loader say what is wrong
        return PolicyBot.load(path, seed=seed)
    policy = _policy_once(str(folder), stamp).with_seed(seed)
    policy.path = str(path)  # as the caller named it, for messages
    return policy


@functools.lru_cache(maxsize=16)
def _policy_once(folder: str, stamp: tuple[tuple[str, int, int], ...]) -> PolicyBot:
    policy = PolicyBot.load(folder)
    for array in (
        policy.first_by_input,
        *([policy.first_each, policy.image_each] if policy.symmetries else []),
        *(a for layer in (*policy.layers, policy.head) for a in layer),
    ):
        array.setflags(write=False)  # shared by every bot made from it
    return policy


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context in which numpy's BLAS runs on one thread, for the batched passes (a search's
    rollouts, a trainer's): they are big enough for OpenBLAS to split over threads, which then
    wait on each other whenever other threads or processes hold the cores (torch's, evaluation
    workers)."""
    return _blas().limit(limits=1, user_api="blas")


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()
