"""Binomial(total_count, probs or logits): the number of successes in n independent trials."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..creation import arange
from ..random import generator_for
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits, softplus

__all__ = ["Binomial"]


class CountAndProbability(Distribution):
    """A count of trials ``total_count`` and a success probability, given as ``probs`` or as
    ``logits`` (one of them; the other is made from it on first use), broadcast to one batch
    shape: the parameters of Binomial and NegativeBinomial."""

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            shape = self.probs.shape
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    def expand(self, batch_shape: Any, _instance: Any = None) -> CountAndProbability:
        name = "probs" if "probs" in self.__dict__ else "logits"
        return self._expanded(
            batch_shape, _instance, total_count=self.total_count, **{name: self.__dict__[name]}
        )


class Binomial(CountAndProbability):
    """P(k) = C(n, k) p^k (1 - p)^(n - k), k = 0..n;  n = total_count, p = sigmoid(logits).

    In logits, log P(k) = log C(n, k) + k l - n softplus(l) (stable for any l). Mean n p,
    variance n p (1 - p), mode floor((n + 1) p) (at most n); the entropy sums over the support
    (one total_count for the whole batch). Discrete: sample() only.
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        n = self.total_count
        return ((n + 1) * self.probs).floor().clamp(max=n).detach()

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            n = self.total_count.expand(*shape)._data
            p = self.probs.expand(*shape)._data
            xp = get_array_module(p)
            draws = generator_for(xp).binomial(n.astype(xp.int64), p.astype(xp.float64))
            return Tensor._make(draws.astype(p.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        return log_choose + value * logits - n * softplus(logits)

    def entropy(self) -> Tensor:
        """-sum_k P(k) log P(k) over k = 0..n (n the same for every batch element)."""
        n = int(self.total_count.max())
        if not int(self.total_count.min()) == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = int(self.total_count.max())
        if not int(self.total_count.min()) == n:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = arange(1 + n, dtype=self.total_count.dtype, device=self.total_count.device)
        values = values.reshape(-1, *(1,) * len(self._batch_shape))
        return values.expand(-1, *self._batch_shape) if expand else values
