"""NegativeBinomial(total_count, probs or logits): the number of successes before
``total_count`` failures."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..random import generator_for
from . import constraints
from .binomial import CountAndProbability
from .gamma import standard_gamma
from .utils import softplus

__all__ = ["NegativeBinomial"]


class NegativeBinomial(CountAndProbability):
    """P(k) = Gamma(k + r) / (k! Gamma(r)) p^k (1 - p)^r, k = 0, 1, ...; r = total_count > 0
    (real), p = probs = sigmoid(logits) the success probability.

    log P(k) = lgamma(k + r) - lgamma(k + 1) - lgamma(r) - r softplus(l) - k softplus(-l)
    (0 at k = r = 0). Mean r p / (1 - p) = r e^l, variance mean / (1 - p), mode
    floor((r - 1) e^l)+. Draws Poisson(Gamma(r, scale e^l)); discrete: sample() only.
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        total_count: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(total_count, probs, logits, validate_args)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0).detach()

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            rate = standard_gamma(self.total_count.expand(*shape)) * self.logits.exp()
            lam = rate._data
            xp = get_array_module(lam)
            draws = generator_for(xp).poisson(lam.astype(xp.float64))
            return Tensor._make(draws.astype(lam.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        r, logits = self.total_count, self.logits
        log_unnormalized = -r * softplus(logits) - value * softplus(-logits)
        log_normalization = -(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma()
        # k = r = 0 is the certain outcome: its normaliser is 0 (lgamma(0) = inf cancels)
        log_normalization = log_normalization.masked_fill((r + value) == 0, 0.0)
        return log_unnormalized - log_normalization
