"""ContinuousBernoulli(probs or logits): the continuous Bernoulli on [0, 1] (Loaiza-Ganem and
Cunningham, 2019), the properly normalised density behind a VAE's "Bernoulli" loss on
continuous pixels."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import rand
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    softplus,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """p(x) = C(l) l^x (1 - l)^(1 - x) on [0, 1], l = probs, with the normaliser

        C(l) = 2 atanh(1 - 2l) / (1 - 2l) = |log(1 - l) - log l| / |1 - 2l|   (C(1/2) = 2).

    ``probs`` is not a probability, nor ``logits`` a log-odds: they only share Bernoulli's names.
    Mean l / (2l - 1) + 1 / (log(1 - l) - log l), variance
    l (l - 1) / (1 - 2l)^2 + 1 / (log(1 - l) - log l)^2, cdf
    (l^x (1 - l)^(1 - x) + l - 1) / (2l - 1). Near l = 1/2 these are 0 / 0: inside ``lims``
    (PyTorch's (0.499, 0.501)) their Taylor series in (l - 1/2) replace them. Draws are
    icdf(u), u ~ Uniform(0, 1): reparameterised.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple[float, float] = (0.499, 0.501),
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (probs,) = broadcast_all(probs)
            # checked before the clamp below, which would make every value pass
            if validate_args is not None and not bool(
                self.arg_constraints["probs"].check(probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        name = "probs" if "probs" in self.__dict__ else "logits"
        new = self._expanded(batch_shape, _instance, **{name: self.__dict__[name]})
        new._lims = self._lims
        new._param = new.__dict__[name]
        return new

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Any:
        return self._param.shape

    # ------------------------------------------------------------------ the stable region
    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """probs, with lims[0] inside the unstable region: the exact formulas then see a safe
        value (their result there is replaced by the Taylor series, and a 0 / 0 would send NaN
        into the gradient through ``where``)."""
        return self.probs.where(self._outside_unstable_region(), self._lims[0])

    def _cont_bern_log_norm(self) -> Tensor:
        """log C(l) = log|log(1 - l) - log l| - log|1 - 2l|; log 2 + (4/3 + 104/45 x) x with
        x = (l - 1/2)^2 near l = 1/2."""
        cut = self._cut_probs()
        below = cut.where(cut <= 0.5, 0.0)
        above = cut.where(cut >= 0.5, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - (-2.0 * below).log1p().where(
            cut <= 0.5, (2.0 * above - 1.0).log()
        )
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return log_norm.where(self._outside_unstable_region(), taylor)

    # ------------------------------------------------------------------ moments
    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x**2) * x
        return mus.where(self._outside_unstable_region(), taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / ((-cut).log1p() - cut.log()) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return var.where(self._outside_unstable_region(), taylor)

    # ------------------------------------------------------------------ draws and densities
    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(*shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        """x log l + (1 - x) log(1 - l) + log C(l) = x t - softplus(t) + log C, t = logits."""
        self._check_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - softplus(logits) + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        cut = self._cut_probs()
        cdfs = (cut**value * (1.0 - cut) ** (1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = cdfs.where(self._outside_unstable_region(), value)
        # 0 at and below 0, 1 at and above 1; a NaN value compares false both ways and stays NaN
        inside = unbounded.masked_fill(value >= 1.0, 1.0)
        return inside.masked_fill(value <= 0.0, 0.0)

    def icdf(self, value: Tensor) -> Tensor:
        """x = (log(1 - l + u (2l - 1)) - log(1 - l)) / (log l - log(1 - l)) (u near l = 1/2)."""
        cut = self._cut_probs()
        exact = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p()
        )
        return exact.where(self._outside_unstable_region(), value)

    def entropy(self) -> Tensor:
        """-E[log p(x)] = mean (log(1 - l) - log l) - log C(l) - log(1 - l)."""
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    # ------------------------------------------------------------------ exponential family
    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """log((e^t - 1) / t) for the natural parameter t; 0.5 t + t^2 / 24 - t^4 / 2880 near 0."""
        unstable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = x.where(unstable, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x**2 / 24.0 - x**4 / 2880.0
        return log_norm.where(unstable, taylor)
