"""Beta(concentration1, concentration0): a probability in (0, 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .gamma import standard_gamma_rsample
from .utils import broadcast_all, xlogy

__all__ = ["Beta"]


def log_beta(a: Tensor, b: Tensor) -> Tensor:
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)."""
    return a.lgamma() + b.lgamma() - (a + b).lgamma()


class Beta(Distribution):
    """p(x) = x^(a-1) (1-x)^(b-1) / B(a, b) on [0, 1], a = concentration1, b = concentration0.

    Mean a / (a + b), variance ab / ((a + b)^2 (a + b + 1)), entropy
    log B(a, b) - (a-1) psi(a) - (b-1) psi(b) + (a+b-2) psi(a+b). Draws X / (X + Y) with
    X ~ Gamma(a), Y ~ Gamma(b), reparameterised through Gamma's implicit gradient (``rsample``).
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, concentration1: Any, concentration0: Any, validate_args: bool | None = None
    ) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        return self._expanded(
            batch_shape,
            _instance,
            concentration1=self.concentration1,
            concentration0=self.concentration0,
        )

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """(a - 1) / (a + b - 2) for a, b >= 1 (not both 1); with one concentration below 1
        and the other above, the density peaks at that end: (a - 1)+ / ((a - 1)+ + (b - 1)+)
        is 0 or 1. With both below 1 the density is unbounded at both ends: 1, as PyTorch
        (Beta's mode is Dirichlet([a, b])'s first coordinate, and that puts the all-below-1
        mode on the first corner). 0 / 0 = NaN where neither exceeds 1 otherwise (a = b = 1,
        or one of them exactly 1 and the other below), as PyTorch."""
        a, b = self.concentration1, self.concentration0
        a1, b1 = (a - 1).clamp(min=0), (b - 1).clamp(min=0)
        both_below = (a < 1) & (b < 1)
        # 1 in the denominator where both are below 1: that branch is replaced below, and a
        # 0 / 0 there would send NaN into the gradient through where
        mode = a1 / (a1 + b1).masked_fill(both_below, 1.0)
        return mode.masked_fill(both_below, 1.0)

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total**2 * (total + 1))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """X / (X + Y), X ~ Gamma(a, 1), Y ~ Gamma(b, 1) drawn with their implicit gradients,
        so the draw is differentiable in both concentrations (the first coordinate of
        Dirichlet([a, b]), as PyTorch's); clamped into (0, 1) as a float of its dtype."""
        shape = self._extended_shape(sample_shape)
        x = standard_gamma_rsample(self.concentration1.expand(*shape))
        y = standard_gamma_rsample(self.concentration0.expand(*shape))
        # both divided by the larger draw first (a constant: x / (x + y) does not depend on
        # it), so the backward never squares a sum of underflowed draws (1 / (x + y)^2 = inf)
        m = x.detach().maximum(y.detach())
        x, y = x / m, y / m
        eps = float(np.finfo(x.dtype.numpy_dtype).eps)
        tiny = float(np.finfo(x.dtype.numpy_dtype).tiny)
        return (x / (x + y)).clamp(min=tiny, max=1 - eps)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        a, b = self.concentration1, self.concentration0
        return xlogy(a - 1, value) + xlogy(b - 1, 1 - value) - log_beta(a, b)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        return (
            log_beta(a, b)
            - (a - 1) * a.digamma()
            - (b - 1) * b.digamma()
            + (a + b - 2) * (a + b).digamma()
        )
