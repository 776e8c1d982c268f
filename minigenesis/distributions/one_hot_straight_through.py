"""OneHotCategoricalStraightThrough: one-hot draws whose gradient is the probabilities'."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from .one_hot_categorical import OneHotCategorical

__all__ = ["OneHotCategoricalStraightThrough"]


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """rsample returns the one-hot draw s in the forward pass and differentiates as if it were
    the probabilities p (the straight-through estimator, Bengio et al. 2013):
    s + p - stop_gradient(p) equals s in value and has d/dtheta = dp/dtheta."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached, so the same graph for every draw
        return samples + (probs - probs.detach())
