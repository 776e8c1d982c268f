"""MixtureSameFamily(mixture, components): a mixture of K distributions of one family.

The rightmost batch dimension of ``component_distribution`` (size K) indexes the components;
``mixture_distribution`` is a Categorical over them, with weights pi_k:

    p(x) = sum_k pi_k p_k(x)
    log p(x) = logsumexp_k (log pi_k + log p_k(x))         (summed in log space: no underflow)
    E[x] = sum_k pi_k mu_k                                  (the law of total expectation)
    Var[x] = sum_k pi_k (sigma_k^2 + mu_k^2) - E[x]^2       (the law of total variance)

A draw picks a component k ~ Categorical(pi), then x ~ p_k. A mixture density network puts a
network's outputs into the weights and the components' parameters and trains by -log p(y | x).
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """batch_shape = the components' batch shape without its last (component) dimension;
    event_shape = the components' event shape. No reparameterised draws (picking a component is
    discrete), so ``has_rsample`` is False."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                "The Mixture distribution needs to be an instance of "
                "torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution need to be an instance of "
                "torch.distributions.Distribution"
            )
        mixture_batch = tuple(mixture_distribution.batch_shape)
        component_batch = tuple(component_distribution.batch_shape)[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({Size(mixture_batch)}) is not "
                    f"compatible with `component_distribution.batch_shape`"
                    f"({Size(component_batch)})"
                )
        k_mixture = mixture_distribution.logits.shape[-1]
        k_component = component_distribution.batch_shape[-1]
        if k_mixture != k_component:
            raise ValueError(
                f"`mixture_distribution component` ({k_mixture}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({k_component})"
            )
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mixture
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        batch_shape = tuple(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,)
        )
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component, new._event_ndims = self._num_component, self._event_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        return self._component_distribution.support

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        """A dimension for the components, left of the event dimensions: (..., E) -> (..., 1, E)."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _weights(self) -> Tensor:
        """pi_k shaped to broadcast against the components' (..., K, *event) tensors."""
        probs = self._mixture_distribution.probs
        return probs.reshape(*probs.shape, *([1] * self._event_ndims))

    @property
    def mean(self) -> Tensor:
        """sum_k pi_k mu_k."""
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """sum_k pi_k sigma_k^2 (the mean of the variances) + sum_k pi_k (mu_k - E[x])^2 (the
        variance of the means)."""
        pi, dim = self._weights(), -1 - self._event_ndims
        comp = self._component_distribution
        mean_of_var = (pi * comp.variance).sum(dim)
        var_of_mean = (pi * (comp.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return mean_of_var + var_of_mean

    def cdf(self, x: Tensor) -> Tensor:
        """sum_k pi_k F_k(x)."""
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        """logsumexp_k (log pi_k + log p_k(x)): one number per event, sample + batch shape."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))  # (S, B, K)
        log_mix = self._mixture_distribution.logits.log_softmax(-1)  # (B, K)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draw every component, then keep the one the mixture picked for each position."""
        sample_shape = Size(tuple(sample_shape))
        with no_grad():
            picked = self._mixture_distribution.sample(sample_shape)  # (S, B)
            drawn = self._component_distribution.sample(sample_shape)  # (S, B, K, E)
            index = picked.reshape(*picked.shape, 1, *([1] * self._event_ndims))
            index = index.expand(*picked.shape, 1, *self._event_shape)
            return drawn.gather(-1 - self._event_ndims, index).squeeze(-1 - self._event_ndims)

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n"
            f"  {self._component_distribution!r})"
        )
