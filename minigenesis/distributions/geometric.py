"""Geometric(probs or logits): the number of failures before the first success."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import rand
from ..dtypes import finfo
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """P(k) = (1 - p)^k p, k = 0, 1, 2, ...;  p = probs = sigmoid(logits), 0 < p <= 1.

    Mean 1/p - 1, mode 0, variance (1/p - 1) / p, entropy -log p - (1 - p) log(1 - p) / p (a
    Bernoulli's entropy per expected trial). Draws floor(log u / log(1 - p)) (inverse cdf);
    discrete.
    """

    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # p = 0 never succeeds: not a distribution (PyTorch's check too)
            if not bool((self.probs > 0).all()):
                raise ValueError(
                    f"Expected parameter probs of distribution {self!r} to be positive but "
                    f"found invalid values:\n{self.probs}"
                )

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        name = "probs" if "probs" in self.__dict__ else "logits"
        return self._expanded(batch_shape, _instance, **{name: self.__dict__[name]})

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return self.probs.new_zeros(Size(self._batch_shape))

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            tiny = float(finfo(self.probs.dtype).tiny)
            u = rand(*shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        """k log(1 - p) + log p, with 0 log 0 = 0 at p = 1, k = 0."""
        self._check_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs_fail = probs.masked_fill((probs == 1) & (value == 0), 0.0)
        return value * (-probs_fail).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        """H = (-p log p - (1 - p) log(1 - p)) / p = -log p - (1 - p) log1p(-p) / p, from
        probs alone: logits derived from probs are clamped (p >= eps), and mixing them with
        an unclamped tiny p (float32, p = 1e-12) gave eps / p instead of about 1 - log p.
        (1 - p) log1p(-p) / p -> -1 as p -> 0, and is 0 at p = 1 (the certain first success)."""
        p = self.probs
        certain = p == 1
        p_safe = p.masked_fill(certain, 0.5)  # no 0 * log 0 = NaN, in the value or its gradient
        fail_term = ((1 - p_safe) * (-p_safe).log1p() / p_safe).masked_fill(certain, 0.0)
        return -p.log() - fail_term
