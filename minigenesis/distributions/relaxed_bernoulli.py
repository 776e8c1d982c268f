"""RelaxedBernoulli(temperature, probs or logits): the binary Concrete / Gumbel-softmax
relaxation of a coin flip, a value in (0, 1) with reparameterised draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..creation import rand
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    softplus,
)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli (Maddison et al. 2017): with tau = temperature and
    l = logits, x = (l + log u - log(1 - u)) / tau for u ~ Uniform(0, 1), whose density is

        p(x) = tau e^(l - tau x) / (1 + e^(l - tau x))^2,
        log p(x) = log tau + d - 2 softplus(d),   d = l - tau x.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        self.temperature = temperature
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        name = "probs" if "probs" in self.__dict__ else "logits"
        new = self._expanded(batch_shape, _instance, **{name: self.__dict__[name]})
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(*shape))
        u = clamp_probs(rand(*shape, dtype=probs.dtype, device=probs.device))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        tau = self.temperature
        log_tau = tau.log() if isinstance(tau, Tensor) else float(np.log(tau))
        return log_tau + diff - 2 * softplus(diff)


class Relaxed(TransformedDistribution):
    """A relaxed distribution as a transform of its base (the logit or log-space one): its
    temperature and probs / logits are the base's."""

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs


class RelaxedBernoulli(Relaxed):
    """sigmoid(X) for X ~ LogitRelaxedBernoulli(temperature, probs / logits): a value in (0, 1)
    that tends to a Bernoulli draw as the temperature goes to 0. Its log-density is the
    logit's minus log(y (1 - y)) (the change of variables through the sigmoid)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)
