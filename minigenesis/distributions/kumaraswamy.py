"""Kumaraswamy(concentration1, concentration0): a Beta-like law on (0, 1) with a closed-form
cdf, so its draws are reparameterised."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moments(a: Tensor, b: Tensor, n: int) -> Tensor:
    """E[X^n] = b B(1 + n/a, b) = b exp(lgamma(1 + n/a) + lgamma(b) - lgamma(1 + n/a + b))."""
    arg1 = 1 + n / a
    log_value = arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()
    return b * log_value.exp()


class Kumaraswamy(TransformedDistribution):
    """p(x) = a b x^(a-1) (1 - x^a)^(b-1) on (0, 1), a = concentration1, b = concentration0;
    cdf 1 - (1 - x^a)^b, so X = (1 - U^(1/b))^(1/a) for U ~ Uniform(0, 1) (built as these
    transforms of a Uniform, hence log_prob by the change of variables).

    Mean b B(1 + 1/a, b), variance b B(1 + 2/a, b) - mean^2, mode
    ((a - 1) / (a b - 1))^(1/a) (NaN unless a, b >= 1), entropy
    (1 - 1/b) + (1 - 1/a) H_b - log(a b) with H_b = psi(b + 1) + gamma_E (harmonic number).
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
        base = Uniform(
            self.concentration0.new_zeros(self.concentration0.shape),
            self.concentration0.new_ones(self.concentration0.shape),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        new = _instance if _instance is not None else object.__new__(type(self))
        new.concentration1 = self.concentration1.expand(*batch_shape)
        new.concentration0 = self.concentration0.expand(*batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """((a - 1) / (a b - 1))^(1/a) for a, b >= 1 (0 at a = 1, 1 at b = 1; NaN for the
        uniform a = b = 1 and where a or b < 1, whose density is unbounded at an end).
        PyTorch 2.13 returns NaN for every parameter here (its formula takes log1p(-b) for
        log(a - 1)); this is the mode of the density."""
        a, b = self.concentration1, self.concentration0
        log_mode = ((a - 1).log() - (a * b - 1).log()) / a
        log_mode = log_mode.masked_fill((b < 1) | (a < 1), float("nan"))
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - self.mean**2

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        t1 = 1 - a.reciprocal()
        t0 = 1 - b.reciprocal()
        harmonic = (b + 1).digamma() + _EULER
        return t0 + t1 * harmonic - a.log() - b.log()
