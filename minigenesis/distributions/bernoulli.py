"""Bernoulli(probs or logits): one coin flip, 1 with probability p."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..creation import rand
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits, softplus

__all__ = ["Bernoulli"]


def _probs_or_logits(probs: Any, logits: Any, name: str) -> None:
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}: pass either `probs` or `logits`, exactly one of them")


class Bernoulli(Distribution):
    """P(x = 1) = p = sigmoid(logits).

    In logits, log P(x) = x l - softplus(l) (the negative of binary cross-entropy with logits:
    stable for any l); entropy = softplus(l) - p l. Mean p, variance p (1 - p). Not
    reparameterisable (a discrete draw): sample() only.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _probs_or_logits(probs, logits, "Bernoulli")
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

    @property
    def param_shape(self) -> Size:
        return self._given().shape

    def _given(self) -> Tensor:
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        name = "probs" if "probs" in self.__dict__ else "logits"
        return self._expanded(batch_shape, _instance, **{name: self.__dict__[name]})

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = self.probs.expand(*shape)
            return (rand(*shape, dtype=p.dtype, device=p.device) < p).to(p.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - softplus(logits)

    def entropy(self) -> Tensor:
        return softplus(self.logits) - self.probs * self.logits

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = self._given().new_tensor([0.0, 1.0]).reshape(2, *([1] * len(self._batch_shape)))
        return values.expand(2, *self._batch_shape) if expand else values
