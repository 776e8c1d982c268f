"""nn.functional's pdist, fractional max pooling, the ``*_with_indices`` max poolings and the
in-place activations celu_, selu_, rrelu_ (eval: the mean slope) and threshold_.

The references are brute force in NumPy: each pair of rows' p-norm distance; each window's
maximum and the flat index (within the spatial dims) of its first maximum, the windows of
fractional pooling placed by Graham's formula.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .db_common_names import _activation_in_place, _f
from .simple import S, op

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _tuple(v, nd):
    return (v,) * nd if isinstance(v, int) else tuple(v)


def _windows(shape, nd, kernel, stride, padding=0, dilation=1, ceil_mode=False):
    """Each output position and its window's input positions (None outside the input)."""
    k, s = _tuple(kernel, nd), _tuple(stride if stride is not None else kernel, nd)
    p, d = _tuple(padding, nd), _tuple(dilation, nd)
    outs = []
    for n, kk, ss, pp, dd in zip(shape, k, s, p, d):
        span = n + 2 * pp - dd * (kk - 1) - 1
        o = (-(-span // ss) if ceil_mode else span // ss) + 1
        if ceil_mode and (o - 1) * ss >= n + pp:  # the last window must start inside
            o -= 1
        outs.append(o)
    for pos in itertools.product(*(range(o) for o in outs)):
        cells = []
        for off in itertools.product(*(range(kk) for kk in k)):
            idx = tuple(o * ss - pp + j * dd for o, ss, pp, j, dd in zip(pos, s, p, off, d))
            inside = all(0 <= i < n for i, n in zip(idx, shape))
            cells.append(idx if inside else None)
        yield pos, cells, outs


def _max_with_indices(nd):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, **_):
        x = _f(x)
        shape = x.shape[-nd:]
        outs = next(_windows(shape, nd, kernel_size, stride, padding, dilation, ceil_mode))[2]
        values = np.full(x.shape[:-nd] + tuple(outs), -np.inf)
        index = np.zeros(values.shape, np.int64)
        for pos, cells, _ in _windows(shape, nd, kernel_size, stride, padding, dilation,
                                      ceil_mode):  # fmt: skip
            for c in cells:
                if c is None:
                    continue
                v = x[(..., *c)]
                better = v > values[(..., *pos)]
                values[(..., *pos)] = np.where(better, v, values[(..., *pos)])
                index[(..., *pos)] = np.where(better, np.ravel_multi_index(c, shape),
                                              index[(..., *pos)])  # fmt: skip
        return values, index

    return ref


def _adaptive_max_with_indices(nd):
    def ref(x, output_size, return_indices=False):
        x = _f(x)
        shape = x.shape[-nd:]
        outs = _tuple(output_size, nd)
        values = np.full(x.shape[:-nd] + outs, -np.inf)
        index = np.zeros(values.shape, np.int64)
        for pos in itertools.product(*(range(o) for o in outs)):
            ranges = [range(i * n // o, -(-(i + 1) * n // o)) for i, n, o in zip(pos, shape, outs)]
            for c in itertools.product(*ranges):
                v = x[(..., *c)]
                better = v > values[(..., *pos)]
                values[(..., *pos)] = np.where(better, v, values[(..., *pos)])
                index[(..., *pos)] = np.where(better, np.ravel_multi_index(c, shape),
                                              index[(..., *pos)])  # fmt: skip
        return values, index

    return ref


def _pdist(x, p=2.0):
    x = _f(x)
    n = x.shape[0]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            d = np.abs(x[i] - x[j])
            if p == 0:
                out.append(float((d != 0).sum()))
            elif p == math.inf:
                out.append(float(d.max()) if d.size else 0.0)
            else:
                out.append(float((d**p).sum() ** (1 / p)))
    return np.array(out)


def _with_indices_entry(name, ref, samples):
    return op(f"F.{name}", ref, samples, method=False, dtype=lambda s: s.args[0].dtype)


ENTRIES = [
    op("F.pdist", _pdist, lambda m: [
        S(m(5, 3)),
        S(m(4, 6), 1.0),
        S(m(4, 3, layout="transposed"), 3.5, desc="transposed, p = 3.5"),
        S(m(4, 2), math.inf, desc="p = inf", gradgrad=False),
        S(m(3, 4), 0.0, desc="p = 0"),
        S(m(4, 3, dtype="float32")),
        S(m(1, 3), desc="one row: no pairs"),
        S(m.of([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]]), desc="equal rows", grad=False),
    ], method=False, dtype="same", errors=lambda m: [
        (S(m(2, 3, 4)), RuntimeError),
        (S(m(3, 2), -1.0), RuntimeError),
        (S(m(3, 2, dtype="int64")), RuntimeError),
    ]),
    _with_indices_entry("max_pool1d_with_indices", _max_with_indices(1), lambda m: [
        S(m(2, 3, 7), 3), S(m(2, 8), 3, 2, 1, desc="unbatched, padding"),
        S(m(1, 2, 9, dtype="float32"), 2, 2, 0, 2, True, desc="dilation, ceil_mode"),
    ]),
    _with_indices_entry("max_pool2d_with_indices", _max_with_indices(2), lambda m: [
        S(m(2, 2, 5, 6), (2, 3)), S(m(2, 5, 5, layout="transposed"), 3, 2, 1, desc="padding"),
        S(m(1, 1, 7, 7), 2, 2, 0, 2, return_indices=False, desc="dilation; indices anyway"),
    ]),
    _with_indices_entry("max_pool3d_with_indices", _max_with_indices(3), lambda m: [
        S(m(1, 2, 4, 4, 5), 2), S(m(2, 5, 4, 4), 3, 2, 1, desc="unbatched, padding"),
    ]),
    _with_indices_entry("adaptive_max_pool1d_with_indices", _adaptive_max_with_indices(1),
                        lambda m: [S(m(2, 3, 7), 3), S(m(3, 5, layout="transposed"), 2)]),
    _with_indices_entry("adaptive_max_pool2d_with_indices", _adaptive_max_with_indices(2),
                        lambda m: [S(m(2, 3, 5, 7), (2, 3)), S(m(3, 4, 5), 2)]),
    _with_indices_entry("adaptive_max_pool3d_with_indices", _adaptive_max_with_indices(3),
                        lambda m: [S(m(1, 2, 4, 5, 3), (2, 3, 2)), S(m(2, 3, 4, 5), 2)]),
]  # fmt: skip


def _celu(x, alpha=1.0):
    x = _f(x)
    return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(x / alpha))


def _selu(x):
    x = _f(x)
    return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))


ENTRIES += [
    _activation_in_place("F.celu_", _celu),
    _activation_in_place("F.celu_", lambda x, alpha: _celu(x, alpha), "alpha", alpha=0.5),
    _activation_in_place("F.selu_", _selu),
    _activation_in_place(
        "F.rrelu_", lambda x: np.where(_f(x) > 0, _f(x), (1 / 8 + 1 / 3) / 2 * _f(x))
    ),
    _activation_in_place(
        "F.threshold_", lambda x, threshold, value: np.where(_f(x) <= threshold, value, _f(x)),
        threshold=0.5, value=-2.0,
    ),
]  # fmt: skip


# ------------------------------------------------------------------ fractional max pooling
def _fractional_starts(u: float, n: int, m: int, k: int) -> list[int]:
    """Graham's pseudo-random window starts: floor((i + u) alpha) - floor(u alpha), i < m - 1,
    alpha = (n - k) / (m - 1); the last window ends at the input's end."""
    if m == 1:
        return [n - k]
    alpha = (n - k) / (m - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(m - 1)] + [n - k]


def _fractional(nd, always_indices=False):
    def ref(x, kernel_size, output_size=None, output_ratio=None, return_indices=False,
            _random_samples=None):  # fmt: skip
        x = _f(x)
        unbatched = x.ndim == nd + 1
        x = x[None] if unbatched else x
        shape = x.shape[2:]
        k = _tuple(kernel_size, nd)
        outs = (_tuple(output_size, nd) if output_size is not None
                else tuple(int(s * r) for s, r in zip(shape, output_ratio)))  # fmt: skip
        which = (1, 0) if nd == 2 else (0, 1, 2)  # PyTorch's sample per axis
        values = np.zeros(x.shape[:2] + outs)
        index = np.zeros(values.shape, np.int64)
        for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            starts = [_fractional_starts(float(_random_samples[b, c, which[a]]), shape[a],
                                         outs[a], k[a]) for a in range(nd)]  # fmt: skip
            for pos in itertools.product(*(range(o) for o in outs)):
                best, at = -np.inf, 0
                for off in itertools.product(*(range(kk) for kk in k)):
                    cell = tuple(starts[a][pos[a]] + off[a] for a in range(nd))
                    if x[(b, c, *cell)] > best:
                        best, at = x[(b, c, *cell)], np.ravel_multi_index(cell, shape)
                values[(b, c, *pos)], index[(b, c, *pos)] = best, at
        if unbatched:
            values, index = values[0], index[0]
        return (values, index) if return_indices or always_indices else values

    return ref


def _fractional_samples(nd):
    def samples(m):
        u = lambda *s: m(*s, lo=0.0, hi=1.0, grad=False)  # noqa: E731
        if nd == 2:
            return [
                S(m(2, 3, 9, 11), (2, 3), (4, 5), _random_samples=u(2, 3, 2)),
                S(m(3, 10, 10), 3, (5, 7), _random_samples=u(1, 3, 2), desc="unbatched"),
                S(m(1, 2, 8, 8), 2, None, (0.5, 0.75), True, _random_samples=u(1, 2, 2),
                  desc="output_ratio, return_indices"),
                S(m(1, 1, 5, 5), 2, (4, 4), _random_samples=u(1, 1, 2), desc="dense"),
            ]  # fmt: skip
        return [
            S(m(2, 2, 7, 8, 9), (2, 3, 2), (3, 4, 5), _random_samples=u(2, 2, 3)),
            S(m(2, 6, 6, 7), 2, (3, 3, 3), True, _random_samples=u(1, 2, 3), desc="unbatched"),
        ]

    return samples


def _fractional_errors(nd):
    def errors(m):
        big = (m(1, 1, 5, 5) if nd == 2 else m(1, 1, 5, 5, 5),)
        return [
            (S(*big, 2), ValueError),  # neither output_size nor output_ratio
            (S(*big, 4, 3), RuntimeError),  # window + output - 1 > input
        ] + ([(S(*big, 2, None, 0.5), TypeError)] if nd == 2 else [])  # 2-d F: a tuple of ratios

    return errors


ENTRIES += [
    op(f"F.fractional_max_pool{nd}d{tail}", _fractional(nd, bool(tail)),
       _fractional_samples(nd), method=False, dtype=lambda s: s.args[0].dtype,
       errors=_fractional_errors(nd))
    for nd in (2, 3) for tail in ("", "_with_indices")
]  # fmt: skip
