"""Poisson(rate): counts of events at a constant rate."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..random import generator_for
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, xlogy

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """P(k) = lambda^k e^-lambda / k!, k = 0, 1, 2, ...;  lambda = rate.

    Mean and variance lambda, mode floor(lambda). An exponential family with natural parameter
    log lambda and log-normaliser e^theta. Discrete: sample() only. (No entropy, as PyTorch:
    the carrier measure's mean E[log k!] has no closed form.)
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return self._expanded(batch_shape, _instance, rate=self.rate)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.detach().floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            lam = self.rate.expand(*shape)._data
            xp = get_array_module(lam)
            draws = generator_for(xp).poisson(xp.asarray(lam, dtype=xp.float64))
            return Tensor._make(draws.astype(lam.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        rate = self.rate
        return xlogy(value, rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.exp()
