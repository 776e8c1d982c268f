"""Exponential(rate): waiting times of a Poisson process."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..creation import rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    """p(x) = rate e^(-rate x) for x >= 0.

    rsample by inversion: -log(1 - u) / rate, u ~ U[0, 1). Mean 1/rate, variance 1/rate^2,
    entropy 1 - log(rate).
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return self._expanded(batch_shape, _instance, rate=self.rate)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return self.rate.new_zeros(self.rate.shape)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate ** (-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(*shape, dtype=self.rate.dtype, device=self.rate.device)
        return -(-u).log1p() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()
