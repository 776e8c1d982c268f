"""Dirichlet(concentration): a random probability vector on the simplex."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import standard_gamma_rsample

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """p(x) = prod_i x_i^(a_i - 1) / B(a), x on the (K-1)-simplex, B(a) = prod Gamma(a_i) /
    Gamma(a_0), a_0 = sum_i a_i.

    Mean a / a_0, variance a (a_0 - a) / (a_0^2 (a_0 + 1)), mode (a - 1) / (a_0 - K) (all
    a_i > 1; see ``mode`` otherwise), entropy
    log B(a) + (a_0 - K) psi(a_0) - sum_i (a_i - 1) psi(a_i). Draws normalise K Gamma draws,
    reparameterised through Gamma's implicit gradient (``rsample``).
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        return self._expanded(batch_shape, _instance, concentration=self.concentration)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """x = g / sum_j g_j, g_i ~ Gamma(a_i, 1) drawn with their implicit gradients: the
        pathwise gradient of this construction is exact (the g_i are independent, and x is a
        smooth function of them). Clamped into (0, 1) as a float of its dtype."""
        shape = self._extended_shape(sample_shape)
        g = standard_gamma_rsample(self.concentration.expand(*shape))
        # divided by the row's largest draw first (a constant: x does not depend on it), so
        # the quotient's backward never squares a sum of underflowed draws (1 / s^2 = inf)
        g = g / g.detach().amax(-1, keepdim=True)
        x = g / g.sum(-1, keepdim=True)
        tiny = float(np.finfo(x.dtype.numpy_dtype).tiny)
        return x.clamp(min=tiny, max=1 - tiny)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        a = self.concentration
        return (value.log() * (a - 1.0)).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """(a - 1)+ / sum_j (a_j - 1)+: (a - 1) / (a_0 - K) when all a_i > 1, 0 at the
        coordinates with a_i <= 1 otherwise. When every a_i < 1 the density is unbounded at
        every corner: the first corner e_0, as PyTorch (its argmax over that all-NaN row picks
        index 0). NaN (0 / 0) when no a_i exceeds 1 but some equals 1, as PyTorch."""
        a = self.concentration
        am1 = (a - 1).clamp(min=0.0)
        all_below = (a < 1).all(-1, keepdim=True)
        # 1 in the denominator of the rows replaced below: no 0 / 0 NaN in their gradient
        mode = am1 / am1.sum(-1, keepdim=True).masked_fill(all_below, 1.0)
        first_corner = a.new_zeros(a.shape[-1:])
        first_corner[0] = 1.0
        return mode.where(~all_below, first_corner)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1, keepdim=True)
        return a * (a0 - a) / (a0**2 * (a0 + 1))

    def entropy(self) -> Tensor:
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return (
            a.lgamma().sum(-1)
            - a0.lgamma()
            - (k - a0) * a0.digamma()
            - ((a - 1.0) * a.digamma()).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
