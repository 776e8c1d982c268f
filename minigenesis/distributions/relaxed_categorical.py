"""RelaxedOneHotCategorical(temperature, probs or logits): the Concrete / Gumbel-softmax
relaxation of a one-hot draw, a point inside the simplex with reparameterised draws; and
ExpRelaxedCategorical, the law of its logarithm (where the density is computed)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import rand
from ..size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .relaxed_bernoulli import Relaxed
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a Concrete draw (Maddison et al. 2017; Jang et al. 2017): with tau the
    temperature, l the normalised logits and g_i iid Gumbel(0, 1),

        x = s - logsumexp(s),  s = (l + g) / tau,          (so sum_i e^(x_i) = 1)
        log p(x) = lgamma(K) + (K - 1) log tau + sum_i (l_i - tau x_i) - K logsumexp(l - tau x).

    event_shape (K,); the support is the (K-1)-dimensional set {x : logsumexp(x) = 0}, which
    validation checks only as real vectors (as PyTorch).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = _instance if _instance is not None else object.__new__(type(self))
        batch_shape = Size(tuple(batch_shape))
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(rand(*shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        k = self._categorical._num_events
        self._check_sample(value)
        logits, value = broadcast_all(self.logits, value)
        tau = self.temperature
        if isinstance(tau, Tensor):
            log_scale = tau.new_full(tuple(tau.shape), float(k)).lgamma() + (k - 1) * tau.log()
        else:
            log_scale = math.lgamma(k) + (k - 1) * math.log(tau)
        score = logits - value * tau
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(Relaxed):
    """exp(X) for X ~ ExpRelaxedCategorical(temperature, probs / logits): a point on the
    simplex, softmax((l + g) / tau), that tends to a one-hot draw as the temperature goes to 0.
    log p(y) is the log-space density minus sum_i log y_i (the Jacobian of exp)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)
