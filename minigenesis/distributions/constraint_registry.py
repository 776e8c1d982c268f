"""biject_to / transform_to: from a constraint to a transform that maps unconstrained reals
into it (``torch.distributions.constraint_registry``).

``biject_to(c)`` is a bijection R^n -> c (for optimising a constrained parameter through an
unconstrained one, with a log-det for densities); ``transform_to(c)`` only has to land in c
(the simplex gets softmax there, stick-breaking here). Both dispatch on the constraint's class,
so ``greater_than(3.0)`` and ``positive`` share a factory that reads the bound.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import constraints, transforms
from .transforms_matrix import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint classes to factories ``constraint -> Transform``."""

    def __init__(self) -> None:
        self._registry: dict[type, Callable] = {}

    def register(self, constraint: Any, factory: Callable | None = None) -> Any:
        """``registry.register(constraints.positive, fn)`` or as a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(
                f"Expected constraint to be either a Constraint subclass or instance, but got "
                f"{constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: constraints.Constraint) -> transforms.Transform:
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints"
            ) from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _to_real(constraint: Any) -> transforms.Transform:
    return transforms.identity_transform


def _biject_to_independent(constraint: Any) -> transforms.Transform:
    base = biject_to(constraint.base_constraint)
    return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)


def _transform_to_independent(constraint: Any) -> transforms.Transform:
    base = transform_to(constraint.base_constraint)
    return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)


def _to_greater_than(constraint: Any) -> transforms.Transform:
    """x -> lower_bound + e^x."""
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)]
    )


def _to_interval(constraint: Any) -> transforms.Transform:
    """x -> low + (high - low) sigmoid(x) (sigmoid alone onto [0, 1])."""
    lower_is_0 = isinstance(constraint.lower_bound, (int, float)) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, (int, float)) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return transforms.SigmoidTransform()
    loc, scale = constraint.lower_bound, constraint.upper_bound - constraint.lower_bound
    return transforms.ComposeTransform(
        [transforms.SigmoidTransform(), transforms.AffineTransform(loc, scale)]
    )


for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _to_real)
    _registry.register(constraints.greater_than, _to_greater_than)
    _registry.register(constraints.greater_than_eq, _to_greater_than)
    _registry.register(constraints.interval, _to_interval)
    _registry.register(constraints.half_open_interval, _to_interval)
biject_to.register(constraints.independent, _biject_to_independent)
transform_to.register(constraints.independent, _transform_to_independent)
biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
# (not bijections onto these sets: transform_to only, as PyTorch)
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
biject_to.register(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
transform_to.register(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
