"""Constraints: the set a parameter or a sample must lie in (``torch.distributions.constraints``).

A constraint's ``check(value)`` returns a bool tensor of the batch shape: True where the value is
inside the set. A constraint on events (a simplex, a lower-triangular matrix) reduces over its
``event_dim`` rightmost dimensions, so one answer per event. ``Distribution`` uses them for
``validate_args`` (parameters and ``log_prob``'s value); ``arg_constraints`` and ``support`` name
them as PyTorch does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import to_numpy

__all__ = [
    "Constraint",
    "boolean",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_semidefinite",
    "positive_integer",
    "real",
    "real_vector",
    "simplex",
    "square",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A region of values. ``is_discrete``: integers; ``event_dim``: how many rightmost
    dimensions make one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A support that depends on the parameters (Uniform's [low, high)): not checked itself."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, *, is_discrete: bool = False, event_dim: int = 0) -> _Dependent:
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class dependent_property(property, _Dependent):  # noqa: N801  (PyTorch's name)
    """A property whose value is the support: ``Distribution.support`` on the class is a
    dependent constraint, on an instance the actual region."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Any) -> dependent_property:
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only at NaN


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """(-inf, upper_bound): Uniform's ``low`` is ``less_than(high)``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    """[lower_bound, upper_bound]"""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        name = type(self).__name__.lstrip("_")
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """[lower_bound, upper_bound)"""

    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: int) -> None:
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        return ((value >= 0).all(-1)) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).all(-1).all(-1)
        eye = value.new_ones(value.shape[-1]).diag()
        positive_diag = ((value * eye).sum(-1) > 0).all(-1)
        return lower & positive_diag


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower-triangular, positive diagonal, and every
    row of unit length (so L L^T has ones on its diagonal)."""

    event_dim = 2

    def check(self, value):
        tol = float(np.finfo(value.dtype.numpy_dtype).eps) * value.shape[-1] * 10
        unit_rows = ((value.detach().norm(dim=-1) - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _PositiveDefinite(Constraint):
    """Symmetric matrices whose eigenvalues are all positive."""

    event_dim = 2

    def check(self, value):
        # read once as float64 NumPy: a check, no gradient flows through it
        m = to_numpy(value.detach()._data).astype(np.float64)
        symmetric = np.isclose(m, np.swapaxes(m, -1, -2), atol=1e-6).all((-1, -2))
        positive = np.linalg.eigvalsh(np.where(symmetric[..., None, None], m, 0)).min(-1) > 0
        return value.new_tensor(symmetric & positive).bool()


def _float64(value) -> np.ndarray:
    """The matrix values read once as float64 NumPy: a check, no gradient flows through it."""
    return to_numpy(value.detach()._data).astype(np.float64)


class _Square(Constraint):
    """Matrices with as many rows as columns (one answer per matrix of the batch)."""

    event_dim = 2

    def check(self, value):
        square = value.shape[-2] == value.shape[-1]
        return value.new_tensor(np.full(tuple(value.shape[:-2]), square)).bool()


class _Symmetric(_Square):
    """Square matrices equal to their transpose (to within 1e-6, as PyTorch checks)."""

    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        m = _float64(value)
        return value.new_tensor(
            np.isclose(m, np.swapaxes(m, -1, -2), atol=1e-6).all((-1, -2))
        ).bool()


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all >= 0."""

    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return value.new_tensor(np.linalg.eigvalsh(_float64(value)).min(-1) >= 0).bool()


class _LowerTriangular(Constraint):
    """Square matrices whose entries above the diagonal are 0."""

    event_dim = 2

    def check(self, value):
        return (value.tril() == value).all(-1).all(-1)


class _IndependentConstraint(Constraint):
    """``base`` applied elementwise and reduced over ``reinterpreted_batch_ndims`` more
    rightmost dimensions (the constraint of an Independent distribution's support)."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


# The names PyTorch exports: instances for fixed sets, classes for parameterised ones
dependent = _Dependent()
real = _Real()
real_vector = _IndependentConstraint(real, 1)
boolean = _Boolean()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveSemidefinite()
square = _Square()
symmetric = _Symmetric()
lower_triangular = _LowerTriangular()
independent = _IndependentConstraint
