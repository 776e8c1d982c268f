"""Gamma(concentration, rate): positive values; the conjugate prior of a Poisson rate."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..random import generator_for
from ..special import gammainc
from . import constraints
from .distribution import Distribution
from .gamma_grad import StandardGamma
from .utils import broadcast_all, xlogy

__all__ = ["Gamma"]


def standard_gamma(concentration: Tensor) -> Tensor:
    """Draws of Gamma(concentration, 1), one per element, from the current generator (NumPy's
    or CuPy's standard_gamma), as tiny positive numbers rather than 0 when they underflow."""
    with no_grad():
        arr = concentration._data
        xp = get_array_module(arr)
        draws = generator_for(xp).standard_gamma(arr.astype(xp.float64))
        tiny = float(np.finfo(arr.dtype).tiny)
        return Tensor._make(xp.maximum(draws, tiny).astype(arr.dtype))


def standard_gamma_rsample(concentration: Tensor) -> Tensor:
    """Draws of Gamma(concentration, 1) as ``standard_gamma``'s, carrying the implicit gradient
    dz/da = -(dP/da)(a, z) / f(z) in the concentration (``gamma_grad.py``): the building block
    of the reparameterised Beta, Dirichlet, StudentT and FisherSnedecor draws."""
    return StandardGamma.apply(concentration, standard_gamma(concentration.detach()))


class Gamma(Distribution):
    """p(x) = rate^a x^(a-1) e^(-rate x) / Gamma(a), x > 0, a = concentration.

    Mean a / rate, variance a / rate^2, entropy a - log(rate) + lgamma(a) + (1 - a) digamma(a).
    ``rsample`` draws are differentiable: in the rate through x = z / rate, in the concentration
    implicitly through the CDF, dz/da = -(dP/da)(a, z) / f(z) (``gamma_grad.py`` derives it).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expanded(
            batch_shape, _instance, concentration=self.concentration, rate=self.rate
        )

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate**2

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """z ~ Gamma(a, 1) carrying its implicit gradient in a, then z / rate; draws are clamped
        to the dtype's smallest positive number (as ``sample``'s are)."""
        shape = self._extended_shape(sample_shape)
        z = standard_gamma_rsample(self.concentration.expand(*shape))
        return z / self.rate.expand(*shape)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        a, b = self.concentration, self.rate
        return xlogy(a, b) + xlogy(a - 1, value) - b * value - a.lgamma()

    def cdf(self, value: Tensor) -> Tensor:
        """F(x) = P(a, b x), the regularized lower incomplete gamma function (differentiable in
        x and the rate, as PyTorch's gammainc; NaN for x < 0 when not validating)."""
        self._check_sample(value)
        return gammainc(self.concentration, value * self.rate)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()
