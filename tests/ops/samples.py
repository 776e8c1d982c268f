"""Sample-input generators shared by the database's families.

Every generator yields the same kinds of samples, so each op meets them whoever wrote its entry:
a 0-d tensor, an ordinary matrix, its transposed, strided-slice and expanded views, size-0 and
size-1 dims, each supported dtype, and the edge values of the op (NaN, +-inf, +-0, ties, the
boundary of its domain) where gradients are compared with PyTorch only, not with finite
differences.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from .core import FLOATS, Sample, T

EDGES = (float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -1.0)


def values(
    rng: np.random.Generator,
    shape: tuple,
    lo: float = -2.0,
    hi: float = 2.0,
    dtype: str = "float64",
) -> np.ndarray:
    """Host values in [lo, hi] for a dtype: uniform floats, integers in the range, random bools."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in FLOATS:
        return rng.uniform(lo, hi, shape)
    low = max(int(np.ceil(lo)), 0 if dtype == "uint8" else -4)
    high = min(int(np.floor(hi)), 4)
    return rng.integers(low, max(high, low) + 1, shape)


def layouts(rng: np.random.Generator, lo: float, hi: float, dtype: str = "float64") -> Iterator:
    """(description, T): the same op input as a 0-d tensor, a matrix in each layout, size-0 and
    size-1 dims."""
    yield "0-d", T(values(rng, (), lo, hi, dtype), dtype)
    yield "matrix", T(values(rng, (3, 4), lo, hi, dtype), dtype)
    yield "transposed", T(values(rng, (3, 4), lo, hi, dtype), dtype, "transposed")
    yield "strided", T(values(rng, (2, 3), lo, hi, dtype), dtype, "strided")
    yield "expanded", T(values(rng, (2, 1), lo, hi, dtype), dtype, "expanded", expand=(2, 3))
    yield "size-0", T(values(rng, (0, 3), lo, hi, dtype), dtype)
    yield "size-1", T(values(rng, (1, 1, 2), lo, hi, dtype), dtype)


def unary(
    rng: np.random.Generator,
    lo: float = -2.0,
    hi: float = 2.0,
    dtypes: Iterable[str] = FLOATS,
    edges: Iterable[float] = EDGES,
    kwargs: dict | None = None,
) -> Iterator[Sample]:
    """Samples of a pointwise op of one tensor with values in [lo, hi]."""
    kw = dict(kwargs or {})
    for desc, t in layouts(rng, lo, hi):
        yield Sample((t,), dict(kw), desc)
    for dtype in dtypes:
        if dtype != "float64":
            yield Sample((T(values(rng, (2, 3), lo, hi, dtype), dtype),), dict(kw), dtype)
    edges = np.array(list(edges), dtype=np.float64)
    if edges.size:
        for dtype in ("float64", "float32"):
            yield Sample((T(edges, dtype),), dict(kw), f"edges {dtype}", grad=False, gradgrad=False)


def binary(
    rng: np.random.Generator,
    lo: float = -2.0,
    hi: float = 2.0,
    lo2: float | None = None,
    hi2: float | None = None,
    dtypes: Iterable[str] = FLOATS,
    scalars: bool = True,
    edges: Iterable[tuple] = (),
    kwargs: dict | None = None,
    mixed: bool = True,
) -> Iterator[Sample]:
    """Samples of a pointwise op of two tensors: same shape, broadcasting both ways, a 0-d or
    Python-number partner, non-contiguous operands, size-0, mixed and low-precision dtypes."""
    lo2 = lo if lo2 is None else lo2
    hi2 = hi if hi2 is None else hi2
    kw = dict(kwargs or {})

    def a(shape: tuple, dtype: str = "float64", layout: str = "contiguous", **k) -> T:
        return T(values(rng, shape, lo, hi, dtype), dtype, layout, **k)

    def b(shape: tuple, dtype: str = "float64", layout: str = "contiguous", **k) -> T:
        return T(values(rng, shape, lo2, hi2, dtype), dtype, layout, **k)

    yield Sample((a((3, 4)), b((3, 4))), dict(kw), "same shape")
    yield Sample((a((3, 4)), b((4,))), dict(kw), "broadcast row")
    yield Sample((a((3, 1)), b((1, 4))), dict(kw), "broadcast both")
    yield Sample((a(()), b((3,))), dict(kw), "0-d with vector")
    yield Sample((a((3, 4), layout="transposed"), b((3, 4), layout="strided")), dict(kw), "views")
    yield Sample((a((2, 1), layout="expanded", expand=(2, 3)), b((2, 3))), dict(kw), "expanded")
    yield Sample((a((0, 3)), b((3,))), dict(kw), "size-0")
    yield Sample((a((1, 2)), b((2, 1))), dict(kw), "size-1")
    if scalars:
        s = float(np.round(values(rng, (), lo2, hi2), 2)) or 0.5
        yield Sample((a((2, 3)), s), dict(kw), "python float")
        yield Sample((a((2, 3), "float32"), s), dict(kw), "float32 with python float")
    for dtype in dtypes:
        if dtype != "float64":
            yield Sample((a((2, 3), dtype), b((2, 3), dtype)), dict(kw), dtype)
    if "float32" in dtypes and mixed:
        yield Sample((a((2, 3), "float32"), b((2, 3))), dict(kw), "float32 with float64")
        yield Sample((a((2, 3), "float32"), b((), "float64")), dict(kw), "float32 with 0-d float64")
    for dtype in dtypes:
        if dtype in ("int64", "int32") and "float32" in dtypes and mixed:
            yield Sample(
                (a((2, 3), dtype), b((2, 3), "float32")), dict(kw), f"{dtype} with float32"
            )
    edges = list(edges)
    if edges:
        x = np.array([e[0] for e in edges], np.float64)
        y = np.array([e[1] for e in edges], np.float64)
        for dtype in ("float64", "float32"):
            yield Sample(
                (T(x, dtype), T(y, dtype)), dict(kw), f"edges {dtype}", grad=False, gradgrad=False
            )


def grid_edges(points: Iterable[float]) -> list[tuple]:
    """Every pair of the edge points: the edge sample of a binary op."""
    points = list(points)
    return [(p, q) for p in points for q in points]


def reduction(
    rng: np.random.Generator,
    lo: float = -2.0,
    hi: float = 2.0,
    dtypes: Iterable[str] = FLOATS,
    dims: bool = True,
    empty: bool = True,
    ties: bool = True,
    dims_tuple: bool = True,
) -> Iterator[Sample]:
    """Samples of a reduction: all dims, one dim (negative too), keepdim, a dims tuple, 0-d,
    non-contiguous, size-0 (where the op has an identity) and a sample with tied values."""

    def x(shape: tuple, dtype: str = "float64", layout: str = "contiguous", **k) -> T:
        return T(values(rng, shape, lo, hi, dtype), dtype, layout, **k)

    yield Sample((x((3, 4)),), {}, "all")
    yield Sample((x(()),), {}, "0-d")
    if dims:
        yield Sample((x((3, 4)),), {"dim": 1}, "dim 1")
        yield Sample((x((3, 4)),), {"dim": -2, "keepdim": True}, "dim -2 keepdim")
        if dims_tuple:
            yield Sample((x((2, 3, 2)),), {"dim": (0, 2)}, "dims tuple")
        yield Sample((x(()),), {"dim": 0}, "0-d dim 0")
        yield Sample((x((3, 4), layout="transposed"),), {"dim": 0}, "transposed")
        yield Sample((x((2, 3), layout="strided"),), {"dim": -1}, "strided")
        # reduced across the expanded rows, not along one (equal values: std's kink at 0)
        yield Sample((x((2, 1), layout="expanded", expand=(2, 3)),), {"dim": 0}, "expanded")
        yield Sample((x((1, 3)),), {"dim": 0}, "size-1 dim")
        if empty:
            yield Sample((x((0, 3)),), {"dim": 0}, "size-0 dim")
    if empty:
        yield Sample((x((0, 3)),), {}, "size-0")
    for dtype in dtypes:
        if dtype != "float64":
            yield Sample((x((2, 3), dtype),), {"dim": 1} if dims else {}, dtype)
    if ties:
        tied = np.array([[1.0, 3.0, 3.0], [-1.0, -1.0, 0.5]])
        kw = {"dim": 1} if dims else {}
        yield Sample((T(tied),), kw, "ties", grad=False, gradgrad=False)
        nan = np.array([[1.0, float("nan"), 3.0], [float("inf"), -float("inf"), 0.0]])
        yield Sample((T(nan),), kw, "nan/inf", grad=False, gradgrad=False)
