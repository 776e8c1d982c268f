"""OneHotCategorical(probs or logits): Categorical's draws as one-hot vectors."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    """A Categorical whose draws are one-hot vectors of length K (event_shape (K,)).

    log P(x) = log probs[argmax x]; mean probs, variance probs (1 - probs).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(
            self._categorical.batch_shape,
            self._categorical.param_shape[-1:],
            validate_args=validate_args,
        )

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = _instance if _instance is not None else object.__new__(type(self))
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, Size(tuple(batch_shape)), self._event_shape, False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return self._one_hot(self.probs.argmax(-1))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def _one_hot(self, index: Tensor) -> Tensor:
        k = self._event_shape[0]
        eye = self.probs.new_ones(k).diag()
        return eye[index]

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        k = self._event_shape[0]
        values = self.probs.new_ones(k).diag().reshape(k, *([1] * len(self._batch_shape)), k)
        return values.expand(k, *self._batch_shape, k) if expand else values
