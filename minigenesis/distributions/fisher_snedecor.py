"""FisherSnedecor(df1, df2): the F distribution, the ratio of two scaled chi-squares."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.round_once import same_two_byte_float, widen
from . import constraints
from .distribution import Distribution
from .gamma import standard_gamma_rsample
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """p(x) = Gamma((d1+d2)/2) / (Gamma(d1/2) Gamma(d2/2)) (d1/d2)^(d1/2) x^(d1/2 - 1)
    (1 + d1 x / d2)^(-(d1+d2)/2), x > 0.

    Mean d2 / (d2 - 2) (d2 > 2, else NaN), mode (d1 - 2) / d1 * d2 / (d2 + 2) (d1 > 2, else
    NaN), variance 2 d2^2 (d1 + d2 - 2) / (d1 (d2 - 2)^2 (d2 - 4)) (d2 > 4, else NaN). Draws
    (V1 / d1) / (V2 / d2) for V_i ~ Chi2(d_i) = 2 Gamma(d_i / 2, 1), reparameterised through
    Gamma's implicit gradient (``rsample``).
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        return self._expanded(batch_shape, _instance, df1=self.df1, df2=self.df2)

    @property
    def mean(self) -> Tensor:
        df2 = self.df2
        bad = df2 <= 2
        return (df2 / (df2 - 2).masked_fill(bad, 1.0)).masked_fill(bad, float("nan"))

    def _float32(self) -> FisherSnedecor | None:
        """A float32 copy (differentiable casts) where df1 and df2 are float16 (or bfloat16):
        the mode's and variance's products (2 d2^2 (d1 + d2 - 2), and num / denom^2 in the
        backward) overflow float16 and round at every step; PyTorch's kernels compute them in
        float32 and round once."""
        if not same_two_byte_float(self.df1, self.df2):
            return None
        return FisherSnedecor(widen(self.df1), widen(self.df2), validate_args=False)

    @property
    def mode(self) -> Tensor:
        if (wide := self._float32()) is not None:
            return wide.mode.to(self.df1.dtype)
        d1, d2 = self.df1, self.df2
        bad = d1 <= 2
        return ((d1 - 2) / d1 * d2 / (d2 + 2)).masked_fill(bad, float("nan"))

    @property
    def variance(self) -> Tensor:
        if (wide := self._float32()) is not None:
            return wide.variance.to(self.df1.dtype)
        d1, d2 = self.df1, self.df2
        bad = d2 <= 4
        denom = (d1 * (d2 - 2) ** 2 * (d2 - 4)).masked_fill(bad, 1.0)
        return (2 * d2**2 * (d1 + d2 - 2) / denom).masked_fill(bad, float("nan"))

    @property
    def stddev(self) -> Tensor:
        if (wide := self._float32()) is not None:  # the square root in float32 too
            return wide.variance.sqrt().to(self.df1.dtype)
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """(V1 / d1) / (V2 / d2), V_i = 2 G_i, G_i ~ Gamma(d_i / 2, 1) drawn with their implicit
        gradients, so the draw is differentiable in both degrees of freedom; clamped to the
        dtype's smallest positive number (an underflowed ratio stays in the support)."""
        shape = self._extended_shape(sample_shape)
        d1, d2 = self.df1.expand(*shape), self.df2.expand(*shape)
        x1 = 2 * standard_gamma_rsample(0.5 * d1) / d1
        x2 = 2 * standard_gamma_rsample(0.5 * d2) / d2
        tiny = float(np.finfo(x1.dtype.numpy_dtype).tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3
