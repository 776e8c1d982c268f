"""Transforms: invertible maps y = f(x) with log |det df/dx| (``torch.distributions.transforms``).

A TransformedDistribution pushes a base density through them by the change of variables

    log p_Y(y) = log p_X(x) - log |det J_f(x)|,     x = f^-1(y).

Each transform names its ``domain`` and ``codomain`` (constraints), whether it is ``bijective``,
the ``sign`` of its derivative when it is monotone and elementwise, and ``event_dim``: how many
rightmost dimensions one application acts on jointly (0 elementwise, 1 for the simplex maps).
``log_abs_det_jacobian(x, y)`` returns one number per event of that size, so of shape
``x.shape[: x.dim() - event_dim]``. ``cache_size=1`` remembers the last (x, y) pair, so
``inv(f(x))`` returns the very x (no round-off, the graph kept).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import nn
from .._tensor import Tensor
from . import constraints
from .utils import broadcast_all, softplus, sum_rightmost

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "ComposeTransform",
    "ExpTransform",
    "IndependentTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """The base: ``__call__`` maps x -> y, ``inv`` is the inverse transform, and
    ``log_abs_det_jacobian(x, y)`` is log |det dy/dx| per event."""

    bijective = False
    domain: constraints.Constraint = constraints.real
    codomain: constraints.Constraint = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Transform | None = None

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse map y -> x (sharing this transform's cache)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self) -> int:
        """+1 for an increasing, -1 for a decreasing elementwise bijection."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> Any:
        """The shape of y for an x of ``shape`` (unchanged for most transforms)."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: calls swap, the log-det changes sign."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self._inv).__name__}().inv"


class ComposeTransform(Transform):
    """f_n o ... o f_1 for ``parts = [f_1, ..., f_n]``; the log-det is the sum of the parts',
    each summed down to the composition's event_dim."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # the domain must be wide enough for the event the later parts act on
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> int:
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return x.new_zeros(x.shape[: x.dim() - self.domain.event_dim])
        # the intermediate values, reused from the parts' caches where they have them
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return total

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"ComposeTransform(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base`` with ``reinterpreted_batch_ndims`` more rightmost dimensions treated as one
    event: the same map, its log-det summed over those dimensions."""

    def __init__(
        self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> int:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return sum_rightmost(
            self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims
        )

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dimensions to ``out_shape`` (same number of
    elements): volume-preserving, log-det 0."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(*batch, *self.out_shape)

    def _inverse(self, y: Tensor) -> Tensor:
        batch = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(*batch, *self.in_shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x.new_zeros(tuple(x.shape[: x.dim() - len(self.in_shape)]))

    def forward_shape(self, shape: Any) -> Any:
        shape = tuple(shape)
        cut = len(shape) - len(self.in_shape)
        if cut < 0 or shape[cut:] != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.in_shape}")
        return shape[:cut] + self.out_shape

    def inverse_shape(self, shape: Any) -> Any:
        shape = tuple(shape)
        cut = len(shape) - len(self.out_shape)
        if cut < 0 or shape[cut:] != self.out_shape:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.out_shape}")
        return shape[:cut] + self.in_shape


# ------------------------------------------------------------------------ elementwise maps
class ExpTransform(Transform):
    """y = e^x;  log |dy/dx| = x."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """y = x^k on x > 0;  log |dy/dx| = log |k y / x|."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return tuple(np.broadcast_shapes(tuple(shape), tuple(self.exponent.shape)))

    inverse_shape = forward_shape


def _clipped_sigmoid(x: Tensor) -> Tensor:
    """sigmoid(x) kept inside [tiny, 1 - eps], so its logit stays finite."""
    finfo = np.finfo(x.dtype.numpy_dtype)
    return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))


class SigmoidTransform(Transform):
    """y = 1 / (1 + e^-x);  log |dy/dx| = log y + log(1 - y) = -softplus(-x) - softplus(x)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = np.finfo(y.dtype.numpy_dtype)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """y = tanh x onto (-1, 1);  log |dy/dx| = log(1 - tanh^2 x) = 2 (log 2 - x - softplus(-2x)),
    the stable form (1 - y^2 underflows for large |x|)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        # atanh, not clipped: a y of exactly +-1 maps to +-inf (use cache_size=1 to keep x)
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """y = log(1 + e^x) onto (0, inf);  x = y + log(1 - e^-y) = log(expm1(y));
    log |dy/dx| = log sigmoid(x) = -softplus(-x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x)


class AbsTransform(Transform):
    """y = |x|: not injective, so no log-det; its ``inv`` returns y itself (the positive
    preimage)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """y = loc + scale * x on events of ``event_dim`` dimensions;
    log |det dy/dx| = sum over the event of log |scale|."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return self.domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, (int, float)):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, (int, float)):
            result = x.new_full(shape, math.log(abs(scale)))
        else:
            result = scale.abs().log()
            if tuple(result.shape) != shape:
                result = result.expand(*shape)
        if self.event_dim:
            result = sum_rightmost(result, self.event_dim)
        return result

    def forward_shape(self, shape: Any) -> Any:
        shapes = [tuple(shape)]
        shapes += [tuple(getattr(p, "shape", ())) for p in (self.loc, self.scale)]
        return tuple(np.broadcast_shapes(*shapes))

    inverse_shape = forward_shape


# ------------------------------------------------------------------------------ simplex maps
class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dimension: real vectors onto the simplex. Not bijective
    (adding a constant to x changes nothing), so no log-det; inverse log y (up to a constant)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x: Tensor) -> Tensor:
        logprobs = x - x.max(-1, keepdim=True).values
        probs = logprobs.exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()


class StickBreakingTransform(Transform):
    """R^(K-1) -> the K-simplex by breaking a stick: z_i = sigmoid(x_i - log(K - 1 - i)),
    y_i = z_i prod_{j<i} (1 - z_j), y_K = prod_j (1 - z_j). The offset makes x = 0 the
    simplex's centre. Bijective; log |det| = sum_i (log z_i + log(1 - z_i) + log of the stick
    left before i), with log z + log(1 - z) = -softplus(-x') - softplus(x')."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset(x: Tensor) -> Tensor:
        k = x.shape[-1]
        return (x.new_ones(k).cumsum(-1) * -1 + (k + 1)).log()  # log(K-1-i), i = 0..K-2

    def _call(self, x: Tensor) -> Tensor:
        z = _clipped_sigmoid(x - self._offset(x))
        z_cumprod = (1 - z).cumprod(-1)
        return nn.functional.pad(z, (0, 1), value=1.0) * nn.functional.pad(
            z_cumprod, (1, 0), value=1.0
        )

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = np.finfo(y.dtype.numpy_dtype)
        y_crop = y[..., :-1]
        k = y_crop.shape[-1]
        offset = (y.new_ones(k).cumsum(-1) * -1 + (k + 1)).log()
        sf = (1 - y_crop.cumsum(-1)).clamp(min=float(finfo.tiny))
        # the stick left before i: 1 - sum_{j<i} y_j; z_i = y_i / that
        x = y_crop.clamp(min=float(finfo.tiny)).log() - sf.log() + offset
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x = x - self._offset(x)
        # log z + log(1 - z) + log(stick left before i) = log(y_i) + log(1 - z_i), written as
        # -x + log_sigmoid(x) + log y_i  (log y_i already holds log z_i and the stick)
        log_y = y[..., :-1].log()
        return (-x + -softplus(-x) + log_y).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return (*tuple(shape)[:-1], shape[-1] + 1)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return (*tuple(shape)[:-1], shape[-1] - 1)
