"""VonMises(loc, concentration): the circular normal distribution of an angle."""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import rand
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4: polynomials for I_0 and I_1, in (x / 3.75)^2 below 3.75 and
# in 3.75 / x above it (relative error ~1e-7), PyTorch's coefficients (so its values).
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [
    0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
    -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2,
]  # fmt: skip
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_COEF_LARGE = [
    0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
    0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2,
]  # fmt: skip
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _eval_poly(y: Tensor, coef: list[float]) -> Tensor:
    """sum_i coef[i] y^i by Horner's rule."""
    result = y.new_full(tuple(y.shape), coef[-1]) if coef else y * 0
    for c in reversed(coef[:-1]):
        result = result * y + c
    return result


def log_modified_bessel(x: Tensor, order: int = 0) -> Tensor:
    """log I_order(x) for x > 0, order 0 or 1 (differentiable: a polynomial, then its log):
    small x: log(x^order p(y)), y = (x / 3.75)^2;  large x: x - log(x) / 2 + log q(3.75 / x)."""
    if order not in (0, 1):
        raise ValueError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75) ** 2
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return small.where(x < 3.75, large)


def _rejection_sample(loc: Tensor, concentration: Tensor, proposal_r: Tensor, x: Tensor) -> Tensor:
    """Best and Fisher (1979): propose f = cos of a wrapped Cauchy angle, accept with the
    envelope test, repeat for the entries not yet accepted; then shift by loc into [-pi, pi)."""
    done = x.new_zeros(tuple(x.shape)).bool()
    while not bool(done.all()):
        u1, u2, u3 = rand(3, *x.shape, dtype=loc.dtype, device=loc.device).unbind()
        z = (math.pi * u1).cos()
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = ((u3 - 0.5).sign() * f.acos()).where(accept, x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """p(x) = exp(k cos(x - mu)) / (2 pi I_0(k)), an angle x (any real, read modulo 2 pi),
    mu = loc, k = concentration. Mean and mode are loc (the circular mean); the circular
    variance is 1 - I_1(k) / I_0(k). Draws by rejection (sample only, no rsample), computed in
    float64 and returned in loc's dtype, in [-pi, pi)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        return self._expanded(
            batch_shape, _instance, loc=self.loc, concentration=self.concentration
        )

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        log_prob = self.concentration * (value - self.loc).cos()
        return log_prob - math.log(2 * math.pi) - log_modified_bessel(self.concentration, order=0)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        """r = (1 + rho^2) / (2 rho), rho = (tau - sqrt(2 tau)) / (2k), tau = 1 + sqrt(1 + 4k^2)
        (1/k + k below k = 1e-5, where rho's formula cancels)."""
        kappa = self.concentration.to(_dt.float64)
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        return proposal_r.where(kappa >= 1e-5, 1 / kappa + kappa)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """In float64 throughout: in float32 the rejection loop stalls for small
        concentrations (its acceptance test loses its precision)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            loc = self.loc.to(_dt.float64)
            kappa = self.concentration.to(_dt.float64)
            x = loc.new_zeros(tuple(shape))
            return _rejection_sample(loc, kappa, self._proposal_r, x).to(self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        """The circular mean: loc."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance 1 - I_1(k) / I_0(k)."""
        k = self.concentration
        return 1 - (log_modified_bessel(k, order=1) - log_modified_bessel(k, order=0)).exp()
