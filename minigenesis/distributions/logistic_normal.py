"""LogisticNormal(loc, scale): a point on the simplex whose stick-breaking logits are normal."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Y = StickBreakingTransform(X) for X ~ Normal(loc, scale) over R^(K-1) (the last dimension
    of loc / scale becomes the event, of size K on the simplex). log p(y) is the Normal's
    log-density of the preimage minus the stick-breaking log |det J|. Reparameterised."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:  # a scalar: one stick break, an event of size 2
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.base_dist.scale
