"""``cupyx`` of the stand-in: ``scatter_add`` / ``scatter_max`` / ``scatter_min`` and
``scipy.special.erf`` / ``erfc`` / ``erfinv``."""

from __future__ import annotations

import types

import numpy as np

from . import _unwrap, _wrap


def scatter_add(a, slices, value) -> None:
    """``a[slices] += value`` with repeated indices accumulated (CuPy's unbuffered add)."""
    np.add.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def scatter_max(a, slices, value) -> None:
    """``a[slices] = max(a[slices], value)``, every value of a repeated index taken (unbuffered)."""
    np.maximum.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def scatter_min(a, slices, value) -> None:
    """``a[slices] = min(a[slices], value)``, every value of a repeated index taken (unbuffered)."""
    np.minimum.at(_unwrap(a), _unwrap(slices, host_ok=True), _unwrap(value))


def _erf(x):
    from math import erf as _scalar_erf

    data = _unwrap(x)
    out = np.vectorize(_scalar_erf, otypes=[np.float64])(data)
    return _wrap(out.astype(data.dtype if data.dtype.kind == "f" else np.float64))


def _erfc(x):
    from math import erfc as _scalar_erfc

    data = _unwrap(x)
    out = np.vectorize(_scalar_erfc, otypes=[np.float64])(data)
    return _wrap(out.astype(data.dtype if data.dtype.kind == "f" else np.float64))


def _erfinv(y):
    from math import erf as _scalar_erf
    from math import exp, pi, sqrt

    def one(v: float) -> float:
        if abs(v) >= 1:
            return float("inf") * v if abs(v) == 1 else float("nan")
        x = 0.0
        for _ in range(60):  # Newton on erf(x) - v
            x -= (_scalar_erf(x) - v) / (2 / sqrt(pi) * exp(-x * x))
        return x

    data = _unwrap(y)
    out = np.vectorize(one, otypes=[np.float64])(data)
    return _wrap(out.astype(data.dtype if data.dtype.kind == "f" else np.float64))


scipy = types.SimpleNamespace(special=types.SimpleNamespace(erf=_erf, erfc=_erfc, erfinv=_erfinv))
