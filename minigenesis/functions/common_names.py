"""``mg.*`` names common PyTorch programs use: the comparisons as functions (``mg.eq``,
``mg.greater`` ... with ``out=``), ``rsub``, ``dist``, ``gcd`` / ``lcm``, ``detach``, and two
questions about shapes and dtypes that compute nothing: ``result_type`` and
``broadcast_shapes``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..promotion import refuse_sequence
from ..promotion import result_type as _promoted
from ..size import Size, python_number
from ._common import _check, _with_out

__all__ = [
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "rsub", "dist", "gcd", "lcm", "detach", "result_type", "broadcast_shapes",
]  # fmt: skip


def _comparison(method: str, name: str):
    """``mg.name(input, other, *, out=None)``: ``input.method(other)``, a bool tensor."""

    def compare(input: Tensor, other: Any) -> Tensor:  # noqa: A002
        return getattr(_check(input, name), method)(other)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Elementwise ``input.{method}(other)`` (broadcast), a bool tensor."
    return _with_out(compare)


eq = _comparison("eq", "eq")
ne = _comparison("ne", "ne")
lt = _comparison("lt", "lt")
le = _comparison("le", "le")
gt = _comparison("gt", "gt")
ge = _comparison("ge", "ge")
greater = _comparison("gt", "greater")
greater_equal = _comparison("ge", "greater_equal")
less = _comparison("lt", "less")
less_equal = _comparison("le", "less_equal")
not_equal = _comparison("ne", "not_equal")


@_with_out
def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """other - alpha * input (``sub`` with its operands swapped)."""
    _check(input, "rsub")
    refuse_sequence("rsub", other, 2)
    if isinstance(other, Tensor):
        return other.sub(input, alpha=alpha)
    return (input if alpha == 1 else input * alpha).__rsub__(other)


@_with_out
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """||input - other||_p over all elements (see Tensor.dist)."""
    return _check(input, "dist").dist(other, p)


@_with_out
def gcd(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The greatest common divisor of each pair of integers (see Tensor.gcd)."""
    return _check(input, "gcd").gcd(other)


@_with_out
def lcm(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The least common multiple of each pair of integers (see Tensor.lcm)."""
    return _check(input, "lcm").lcm(other)


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """The same memory, cut from the graph (``input.detach()``)."""
    return _check(input, "detach").detach()


def result_type(tensor1: Any, tensor2: Any) -> _dt.DType:
    """The dtype ``tensor1 op tensor2`` computes in (PyTorch's promotion): dims-carrying tensors
    decide, 0-d tensors and Python numbers only raise the category (bool < int < float)."""
    # a NumPy scalar is the Python number it holds, as in arithmetic
    operands = (python_number(tensor1), python_number(tensor2))
    for o in operands:
        if not isinstance(o, (Tensor, bool, int, float)):
            raise TypeError(
                f"result_type(): argument must be Tensor or Number, not {type(o).__name__}"
            )
    if any(isinstance(o, Tensor) for o in operands):
        return _promoted(*operands)
    out = _dt.bool_  # two Python numbers: the category of the higher one
    for o in operands:
        out = _dt.scalar_result_type(out, o)
    return out


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The shape the given shapes broadcast to: aligned at the right, each dim the one size
    that is not 1 (a 1 stretches), without making any tensor."""
    sizes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    out = [1] * max((len(s) for s in sizes), default=0)
    for index, shape in enumerate(sizes):
        for at in range(-1, -len(shape) - 1, -1):
            n = shape[at]
            if n < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if n != out[at] and n != 1:
                if out[at] != 1:
                    raise RuntimeError(
                        f"Attempting to broadcast a dimension of length {n} at {at}! "
                        f"Mismatching argument at index {index} had {shape}; but expected "
                        f"shape should be broadcastable to {out}"
                    )
                out[at] = n
    return Size(out)
