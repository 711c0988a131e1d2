"""``MaskedOncePolicy``: sb3-contrib's ``MaskableActorCriticPolicy`` with a faster masked
categorical.

sb3-contrib's ``MaskableCategorical`` normalises the logits with ``logsumexp`` when it is made,
and again when the mask is applied; on the masked logits (-1e8 at every illegal action, most of
3,962) torch's CPU ``exp`` takes a slow path, and the two passes, forward and backward, were the
largest cost of ``MaskablePPO.learn`` after the backward pass. ``masked_categorical`` masks
first and normalises once, with ``log_softmax``, whose kernel does not slow down: the same
probabilities, log-probabilities, entropy and samples (``tests/test_train.py`` holds it to
sb3-contrib's).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch.distributions import Distribution

__all__ = ["MaskedOncePolicy"]


def masked_categorical(logits: torch.Tensor, masks: Any) -> MaskableCategorical:
    """A ``MaskableCategorical`` over ``logits`` (one row per state) with ``masks`` applied
    (``None``: no mask), its logits normalised once, by ``log_softmax``."""
    made = MaskableCategorical.__new__(MaskableCategorical)
    made.masks, made._original_logits = None, logits
    if masks is not None:
        made.masks = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
        logits = torch.where(made.masks, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
    # What Categorical.__init__ sets, with its normalisation (logits - logsumexp) as log_softmax.
    made.logits = made._param = logits.log_softmax(-1)
    made._num_events = logits.size(-1)
    Distribution.__init__(made, logits.size()[:-1])
    return made


class MaskedOnce(MaskableCategoricalDistribution):
    """``MaskableCategoricalDistribution`` whose distribution is made once the mask comes (or,
    with no mask, when first used), by ``masked_categorical``."""

    raw_logits: torch.Tensor | None = None  # the last ``proba_distribution``'s, unnormalised

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedOnce:
        self.raw_logits = action_logits.view(-1, self.action_dim)
        self._made = None
        return self

    def apply_masking(self, masks: Any) -> None:
        self._made = masked_categorical(self.raw_logits, masks)

    @property
    def distribution(self) -> MaskableCategorical | None:
        if self._made is None and self.raw_logits is not None:
            self._made = masked_categorical(self.raw_logits, None)
        return self._made

    @distribution.setter
    def distribution(self, value: MaskableCategorical | None) -> None:
        self._made = value


class MaskedOncePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (the same networks and parameters) with ``MaskedOnce``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.action_dist = MaskedOnce(int(self.action_space.n))
