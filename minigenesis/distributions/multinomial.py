"""Multinomial(total_count, probs or logits): counts of n draws over K categories."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..random import generator_for
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial"]


class _MultinomialSupport(constraints.Constraint):
    """Nonnegative integer vectors whose entries add up to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return ((value >= 0) & (value % 1 == 0)).all(-1) & (value.sum(-1) <= self.upper_bound)


class Multinomial(Distribution):
    """P(x) = n! / prod_i x_i! prod_i p_i^(x_i), x_i >= 0 integers with sum_i x_i = n.

    log P(x) = lgamma(n + 1) - sum_i lgamma(x_i + 1) + sum_i x_i log p_i (0 log 0 = 0 where
    x_i = 0). Mean n p, variance n p (1 - p) (per category). Discrete: sample() only.
    Entropy n H(p) - log n! + sum_i E[log x_i!], each x_i ~ Binomial(n, p_i).
    ``total_count`` is one integer for the whole batch (as PyTorch).
    """

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = _instance if _instance is not None else object.__new__(type(self))
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        return _MultinomialSupport(self.total_count)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = self.probs.expand(*shape)._data
            xp = get_array_module(p)
            p64 = p.astype(xp.float64)
            p64 = p64 / p64.sum(-1, keepdims=True)  # exactly 1 in float64, as numpy requires
            draws = generator_for(xp).multinomial(self.total_count, p64)
            return Tensor._make(draws.astype(p.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        logits = self.logits
        # x_i log p_i with 0 * log 0 = 0: a category with p_i = 0 has logit -inf
        logits = logits.masked_fill((value == 0) & (logits == float("-inf")), 0.0)
        log_powers = (logits * value).sum(-1)
        # n! from the counts themselves (as PyTorch): the support admits sum_i x_i <= n, and a
        # count vector adding up to m < n gets the probability of m draws
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self) -> Tensor:
        """-E[log P(x)] = n H(Categorical(p)) - log n! + sum_i E[log x_i!], where the marginal
        count x_i is Binomial(n, p_i): E[log x_i!] = sum_{k=1..n} P(x_i = k) log k!
        (k = 0 adds log 0! = 0)."""
        n = self.total_count
        # (PyTorch takes lgamma of an integer tensor, so log n! in float32: ~1e-7 apart)
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        binomial = Binomial(n, self.probs, validate_args=False)
        support = binomial.enumerate_support(expand=False)[1:]  # (n, 1, ..., 1) over batch + K
        binomial_probs = binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        return term1 + (binomial_probs * weights).sum(0).sum(-1)
