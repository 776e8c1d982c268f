"""A compact way to write entries for the families past the pointwise ones (shapes, indexing,
linear algebra, nn.functional, statistics): each entry lists a few hand-made samples, each a
call with its tensors built by ``tensor`` from a seeded generator, and a NumPy reference.

The samples are chosen per family (a contiguous case, a non-contiguous view, a size-0 or size-1
dim, 0-d where the op takes it, a low-precision dtype, the edge values) and kept few: a shape op
is the same code for every size, and the heavy checks (second derivatives) run over all of
them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

import minigenesis as mg

from .core import FLOATS, OpEntry, Sample, T


class Maker:
    """Tensor specs drawn from one seeded generator: ``m(2, 3)`` is a float64 (2, 3) tensor with
    values in [-2, 2]; keywords pick the dtype, the layout, the range, the gradient flag."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(
        self,
        *shape: int,
        dtype: str = "float64",
        layout: str = "contiguous",
        lo: float = -2.0,
        hi: float = 2.0,
        grad: bool = True,
        expand: tuple | None = None,
    ) -> T:
        if dtype == "bool":
            v = self.rng.random(shape) < 0.5
        elif dtype in FLOATS:
            v = self.rng.uniform(lo, hi, shape)
        else:
            v = self.rng.integers(int(lo), int(hi) + 1, shape)
        return T(v, dtype, layout, grad and dtype in FLOATS, expand)

    def ints(self, lo: int, hi: int, *shape: int, dtype: str = "int64") -> T:
        """An index tensor with values in [lo, hi)."""
        return T(self.rng.integers(lo, hi, shape), dtype, grad=False)

    def mask(self, *shape: int) -> T:
        return T(self.rng.random(shape) < 0.5, "bool", grad=False)

    def of(self, values, dtype: str = "float64", **k) -> T:
        """A tensor of given values."""
        arr = np.asarray(values, bool if dtype == "bool" else np.float64)
        return T(arr if dtype in FLOATS or dtype == "bool" else arr.astype(np.int64), dtype, **k)


def S(*args, desc: str = "", grad: bool = True, gradgrad: bool = True, ref: bool = True, **kw):
    """A sample: positional args, keyword args (``desc``/``grad``/``gradgrad``/``ref`` are the
    sample's own flags)."""
    return Sample(tuple(args), kw, desc, grad, gradgrad, ref)


def op(
    name: str,
    ref: Callable | None,
    samples: Callable[[Maker], Iterable[Sample]],
    *,
    method: str | None | bool = True,
    inplace: str | None = None,
    dtype="same",
    errors: Callable[[Maker], Iterable[tuple]] | None = None,
    **extra,
) -> OpEntry:
    """An entry for ``name`` whose samples are ``samples(maker)``; ``method=True`` finds the
    Tensor method of the same name (for a plain ``mg.<name>``)."""
    short = name.rpartition(".")[2]
    if method is True:
        method = short if "." not in name and hasattr(mg.Tensor, short) else None
    elif method is False:
        method = None

    def gen():
        return list(samples(Maker(entry.rng().integers(1 << 30))))

    def errs():
        return list(errors(Maker(1)))

    entry = OpEntry(
        name=name,
        samples=gen,
        ref=ref,
        method=method,
        inplace=inplace,
        dtype=dtype,
        errors=errs if errors else None,
        **extra,
    )
    return entry


def f64(x) -> np.ndarray:
    return np.asarray(x, np.float64)
