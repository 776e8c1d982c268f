"""Categorical(probs or logits): one of K categories, {0, ..., K-1}."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..dtypes import finfo
from ..size import Size
from . import constraints
from .bernoulli import _probs_or_logits
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """P(x = k) = probs[k], the last dimension indexing the K categories (the rest is batch).

    ``probs`` are normalised to sum to 1; ``logits`` are normalised log-probabilities
    (logits - logsumexp(logits)), so ``probs = softmax(logits)``. Entropy -sum p log p. Mean and
    variance are undefined (NaN), as in PyTorch.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _probs_or_logits(probs, logits, type(self).__name__)
        given = probs if probs is not None else logits
        if not isinstance(given, Tensor) or given.dim() < 1:
            raise ValueError(
                f"{type(self).__name__}: `{'probs' if probs is not None else 'logits'}` must be "
                f"a Tensor with at least one dimension (the categories)"
            )
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    def _param(self) -> Tensor:
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @property
    def param_shape(self) -> Size:
        return self._param().shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        name = "probs" if "probs" in self.__dict__ else "logits"
        new = self._expanded(batch_shape, _instance, **{name: self.__dict__[name]})
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:
        return self._param().new_full(self._batch_shape, float("nan"))

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self._param().new_full(self._batch_shape, float("nan"))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Category indices (int64) of shape sample_shape + batch_shape."""
        sample_shape = Size(tuple(sample_shape))
        n = int(np.prod(sample_shape, dtype=np.int64))
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            draws = probs_2d.multinomial(n, True).t()  # (n, batch elements)
        return draws.reshape(*self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """log probs[value], broadcasting value against the batch."""
        self._check_sample(value)
        index = value.long().unsqueeze(-1)
        shape = np.broadcast_shapes(tuple(index.shape), tuple(self.logits.shape)[:-1] + (1,))
        logits = self.logits.expand(*shape[:-1], self._num_events)
        return logits.gather(-1, index.expand(*shape)).squeeze(-1)

    def entropy(self) -> Tensor:
        # logits are -inf where a probability is 0: clamp so that 0 * log 0 counts as 0
        floor = float(finfo(self.logits.dtype).min)
        return -(self.logits.clamp(min=floor) * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = self._param().new_tensor(np.arange(self._num_events)).long()
        values = values.reshape(-1, *([1] * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values
