"""Independent(base, n): reinterpret the n rightmost batch dimensions of ``base`` as event
dimensions (a diagonal Normal over vectors is Independent(Normal(loc, scale), 1))."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """log_prob and entropy are the base's, summed over the reinterpreted dimensions (the
    events' coordinates are independent); draws and moments are the base's."""

    arg_constraints: dict = {}

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: bool | None = None,
    ) -> None:
        n = reinterpreted_batch_ndims
        if not 0 <= n <= len(base_distribution.batch_shape):
            raise ValueError(
                f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(base_distribution.batch_shape)}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = n + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        super().__init__(
            shape[: len(shape) - event_dim], shape[len(shape) - event_dim :], validate_args
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        batch_shape = Size(tuple(batch_shape))
        new = _instance if _instance is not None else object.__new__(type(self))
        inner = tuple(self.base_dist.batch_shape)[
            len(self.base_dist.batch_shape) - self.reinterpreted_batch_ndims :
        ]
        new.base_dist = self.base_dist.expand(batch_shape + inner)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        base = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            return constraints.independent(base, self.reinterpreted_batch_ndims)
        return base

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
