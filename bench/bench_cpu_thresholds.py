"""Where the CPU fast paths of the speed layer start to pay: each against the plain NumPy code an
op runs below its threshold, over sizes around it (one BLAS thread, float32 and float64, best of
nine repeats, microseconds a call).

- the column sums of a bias's gradient: ``kernels.blas.column_sum`` (``ones @ g``) against
  ``g.sum(axis=0)``, by rows (``blas.COLUMN_SUM_MIN_ROWS``);
- the select of ReLU's and max pooling's gradients: ``kernels.elementwise.where_or_zero`` (bit
  arithmetic) against ``np.where`` on a random mask, by elements (``elementwise.SELECT_BITS_MIN``);
- the affine map: the bias filled in and BLAS's gemm adding the product into it against NumPy's
  product and an add, by outputs (``blas.LINEAR_MIN_OUTPUT``).

    python bench/bench_cpu_thresholds.py

A ratio above 1 means the fast path is faster; each threshold sits where the ratio crosses 1.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import platform  # noqa: E402
import sys  # noqa: E402
import timeit  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from minigenesis import kernels  # noqa: E402

RNG = np.random.default_rng(0)


def _us(f, number: int = 2000) -> float:
    return min(timeit.repeat(f, number=number, repeat=9)) / number * 1e6


def _row(label: str, plain: float, fast: float) -> None:
    print(f"  {label:28s} plain {plain:7.2f}  fast {fast:7.2f}  plain/fast {plain / fast:5.2f}")


def column_sums() -> None:
    print(f"column sums (COLUMN_SUM_MIN_ROWS = {kernels.blas.COLUMN_SUM_MIN_ROWS}):")
    for dtype in (np.float32, np.float64):
        for rows in (8, 32, 64, 128, 256):
            g = RNG.standard_normal((rows, 16)).astype(dtype)
            plain = _us(lambda g=g: g.sum(axis=0))
            fast = _us(lambda g=g: kernels.blas.column_sum(g))
            _row(f"{np.dtype(dtype).name} {rows} x 16", plain, fast)


def select() -> None:
    print(f"select (SELECT_BITS_MIN = {kernels.elementwise.SELECT_BITS_MIN}):")
    for dtype in (np.float32, np.float64):
        for size in (128, 1024, 4096, 16384):
            a = RNG.standard_normal(size).astype(dtype)
            keep, zero = RNG.random(size) < 0.5, np.zeros((), dtype)
            plain = _us(lambda k=keep, a=a, z=zero: np.where(k, a, z))
            fast = _us(lambda k=keep, a=a: kernels.elementwise.where_or_zero(k, a))
            _row(f"{np.dtype(dtype).name} {size}", plain, fast)


def linear() -> None:
    print(f"affine map (LINEAR_MIN_OUTPUT = {kernels.blas.LINEAR_MIN_OUTPUT}):")
    threshold = kernels.blas.LINEAR_MIN_OUTPUT
    kernels.blas.LINEAR_MIN_OUTPUT = 0  # gemm at every size, to time it
    try:
        for rows, n in ((32, 128), (64, 256), (128, 256), (256, 128), (64, 512), (256, 512)):
            x = RNG.standard_normal((rows, 128)).astype(np.float32)
            w = RNG.standard_normal((n, 128)).astype(np.float32)
            b = RNG.standard_normal(n).astype(np.float32)

            def plain(x=x, w=w, b=b):
                y = x.dot(w.T)
                y += b
                return y

            fast = _us(lambda x=x, w=w, b=b: kernels.blas.linear(x, w, b), 300)
            _row(f"float32 ({rows}, 128) -> {n}: {rows * n}", _us(plain, 300), fast)
    finally:
        kernels.blas.LINEAR_MIN_OUTPUT = threshold


if __name__ == "__main__":
    print(f"numpy {np.__version__} on {platform.processor() or platform.machine()}, one thread")
    column_sums()
    select()
    linear()
