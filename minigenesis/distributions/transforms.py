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

from .._tensor import Tensor
from ..functions.joining import cat
from . import constraints
from .transform_base import (
    ComposeTransform,
    IndependentTransform,
    ReshapeTransform,
    Transform,
    identity_transform,
)
from .transforms_matrix import (
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
)
from .utils import broadcast_all, softplus, sum_rightmost

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
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
        one = z.new_ones(*z.shape[:-1], 1)
        # y = (z_1, ..., z_{K-1}, 1) * (1, stick_1, ..., stick_{K-1})
        return cat([z, one], -1) * cat([one, z_cumprod], -1)

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
