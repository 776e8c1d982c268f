"""GeneralizedPareto(loc, scale, concentration): the law of exceedances over a high threshold
(peaks-over-threshold); Exponential (concentration 0), Pareto (concentration > 0) and
Uniform (concentration -1) are special cases."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """With z = (x - loc) / scale and xi = concentration,

        survival  S(x) = (1 + xi z)^(-1/xi)         (e^(-z) at xi = 0),
        log p(x)  = -log scale - (1/xi + 1) log(1 + xi z)   (-log scale - z at xi = 0),

    on x >= loc (and x <= loc - scale / xi for xi < 0). icdf(u) = loc + scale ((1 - u)^(-xi)
    - 1) / xi, so draws are reparameterised. Mean loc + scale / (1 - xi) (NaN for xi >= 1),
    variance scale^2 / ((1 - xi)^2 (1 - 2 xi)) (NaN for xi >= 1/2), entropy log scale + xi + 1,
    mode loc. xi counts as 0 where it is close to 0 (``isclose``, PyTorch's test).
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(
        self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None
    ) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        return self._expanded(
            batch_shape,
            _instance,
            loc=self.loc,
            scale=self.scale,
            concentration=self.concentration,
        )

    def _zero_and_safe_concentration(self) -> tuple[Tensor, Tensor]:
        """Where xi is (close to) 0, and xi with 1 there: the xi != 0 formulas divide by xi,
        and a 0 / 0 would send NaN through ``where`` into the gradient."""
        xi = self.concentration
        eq_zero = xi.isclose(xi.new_zeros(()))
        return eq_zero, xi.where(~eq_zero, 1.0)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        z = self._z(value)
        eq_zero, safe = self._zero_and_safe_concentration()
        y = 1 / safe + 1  # (zero at xi = -1, the uniform, whose log-density is flat)
        nonzero = (y * (safe * z).log1p()).where(y != 0, y)
        return -self.scale.log() - z.where(eq_zero, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """log S(x) = -log(1 + xi z) / xi  (-z at xi = 0)."""
        self._check_sample(value)
        z = self._z(value)
        eq_zero, safe = self._zero_and_safe_concentration()
        return (-z).where(eq_zero, -(safe * z).log1p() / safe)

    def log_cdf(self, value: Tensor) -> Tensor:
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        eq_zero, safe = self._zero_and_safe_concentration()
        logu = (-value).log1p()
        nonzero = self.loc + self.scale / safe * (-safe * logu).expm1()
        return (self.loc - self.scale * logu).where(eq_zero, nonzero)

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        safe = self.concentration.where(valid, 0.5)
        return (self.loc + self.scale / (1 - safe)).where(valid, math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        safe = self.concentration.where(valid, 0.25)
        return (self.scale**2 / ((1 - safe) ** 2 * (1 - 2 * safe))).where(valid, math.nan)

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).expand(*self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        lower = self.loc
        upper = (lower - self.scale / self.concentration).where(self.concentration < 0, math.inf)
        return constraints.interval(lower, upper)
