"""StudentT(df, loc, scale): a Normal whose precision is itself Gamma-distributed; heavier
tails than the Normal for small df."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import randn
from . import constraints
from .distribution import Distribution
from .gamma import standard_gamma_rsample
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """p(x) = Gamma((nu+1)/2) / (Gamma(nu/2) sqrt(nu pi) sigma) (1 + z^2 / nu)^(-(nu+1)/2),
    z = (x - mu) / sigma, nu = df.

    Mean mu for nu > 1 (else NaN), mode mu, variance sigma^2 nu / (nu - 2) for nu > 2 (infinite
    for 1 < nu <= 2, NaN below), entropy
    log sigma + (nu+1)/2 (psi((nu+1)/2) - psi(nu/2)) + log(sqrt(nu) B(nu/2, 1/2)).
    Draws mu + sigma X / sqrt(V / nu), X ~ N(0, 1), V ~ Chi2(nu) = 2 Gamma(nu / 2, 1),
    reparameterised (``rsample``): pathwise in mu and sigma, implicitly through V in nu.
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(
        self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        return self._expanded(batch_shape, _instance, df=self.df, loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        return self.loc.masked_fill(self.df <= 1, float("nan"))

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        # df - 2 replaced where it is not used, so no 1/0 reaches a gradient
        var = self.scale**2 * df / (df - 2).masked_fill(df <= 2, 1.0)
        var = var.masked_fill((df <= 2) & (df > 1), float("inf"))
        return var.masked_fill(df <= 1, float("nan"))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """mu + sigma X sqrt(nu / V), X ~ N(0, 1) and V = 2 G, G ~ Gamma(nu / 2, 1) drawn with
        its implicit gradient, so the draw is differentiable in df, loc and scale."""
        shape = self._extended_shape(sample_shape)
        x = randn(*shape, dtype=self.df.dtype, device=self.df.device)
        v = 2 * standard_gamma_rsample(0.5 * self.df.expand(*shape))  # Chi2(df)
        return self.loc + self.scale * x * (self.df / v).sqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * df).lgamma()
            - (0.5 * (df + 1.0)).lgamma()
        )
        return -0.5 * (df + 1.0) * (y**2 / df).log1p() - z

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )
