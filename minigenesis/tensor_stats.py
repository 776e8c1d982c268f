"""The Tensor's statistics: order statistics (median, nanmedian, kthvalue, mode, quantile,
nanquantile), NaN-skipping reductions (nanmean, nansum), count_nonzero, histogram, diff, and
the covariance and correlation matrices (cov, corrcoef).

Every statistic that picks elements (median, kthvalue, mode, quantile) sorts along the dim (NaN
sorts as the largest, as in PyTorch), chooses a position per slice on the arrays, and then
gathers the values from the input with ``GatherAlongDim``: so the gradient goes to the element
that was picked (quantile's linear interpolation splits it between the two neighbours), which is
PyTorch's rule. The composed ones (nanmean, diff, cov ...) get their gradients from the ops they
are built of.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from . import return_types
from .autograd.tensor_base import TensorBase
from .backend import get_array_module, quiet_fp, to_numpy
from .dtypes import promote_types, scalar_type_name
from .ops import shape as S
from .ops import sorting as SO
from .ops.round_once import in_float32, is_two_byte_float
from .ops.selection import quickselect_index
from .ops.stl_order import median_pick, mode_indices, replayable
from .promotion import FLOAT_KINDS, float_in
from .size import norm_dim, plain_int

Histogram = return_types.histogram

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _one_dim(t: Any, dim: int, name: str) -> int:
    dim = plain_int(dim)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return norm_dim(dim, t.ndim)[0]


def _pick(
    x: Any, d: int, positions: Any, keepdim: bool, name: str, select: int | None = None
) -> tuple:
    """Sort x along d, take the sorted ``positions`` (an int array shaped like x with d of size
    1): (values gathered from x, so differentiable; their indices in x, int64).

    ``select=k``: the index among equal values is the one PyTorch's quickselect for place k
    picks (kthvalue), not the stable sort's."""
    order = SO.sort_indices(x._data, d, False)
    xp = get_array_module(x._data)
    idx = xp.take_along_axis(order, positions.astype(np.int64), axis=d).astype(np.int64)
    if select is not None:
        idx = _quickselect_ties(x._data, d, idx, select)
    values = SO.GatherAlongDim.apply(x, idx, d, False)
    indices = x._make(idx, False)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return getattr(return_types, name)(values, indices)


def _quickselect_ties(a: Any, d: int, idx: Any, k: int) -> Any:
    """``idx`` (the stable sort's pick, d of size 1) with each slice whose picked value occurs
    more than once replayed by PyTorch's quickselect (``ops/selection.py``)."""
    xp = get_array_module(a)
    picked = xp.take_along_axis(a, idx, axis=d)
    same = a == picked
    if a.dtype.kind in FLOAT_KINDS:
        same |= xp.isnan(a) & xp.isnan(picked)
    ties = to_numpy(same.sum(axis=d, keepdims=True) > 1)
    if not ties.any():
        return idx
    rows = np.moveaxis(to_numpy(a), d, -1)
    out = np.moveaxis(to_numpy(idx), d, -1).copy()
    tie_rows = np.moveaxis(ties, d, -1)[..., 0]
    for r in np.ndindex(tie_rows.shape):  # (the rows with ties are few: see selection.py)
        if tie_rows[r]:
            row = rows[r].astype(np.float64) if a.dtype.kind in FLOAT_KINDS else rows[r]
            out[r + (0,)] = quickselect_index(row.tolist(), k)  # (ints stay exact)
    return xp.asarray(np.moveaxis(out, -1, d))


def _linspace_edges(lo: float, hi: float, steps: int, dtype: Any) -> np.ndarray:
    """linspace(lo, hi, steps) in a float dtype as PyTorch's kernel computes it (and
    ``mg.linspace``): step = (hi - lo) / (steps - 1) rounded to the dtype, the first half
    lo + i * step, the second half hi - (steps - 1 - i) * step, each rounded once (2-byte floats
    round the product too). histogram's edges are this linspace."""
    lo_d, hi_d = np.asarray(lo).astype(dtype), np.asarray(hi).astype(dtype)
    step = float(((hi_d - lo_d).astype(dtype) / dtype.type(max(steps - 1, 1))).astype(dtype))
    i = np.arange(steps, dtype=np.float64)
    k = np.where(i < steps // 2, i, i - (steps - 1))
    base = np.where(i < steps // 2, float(lo_d), float(hi_d))
    prod = step * k
    if dtype.itemsize == 2:
        prod = prod.astype(dtype).astype(np.float64)
    return (base + prod).astype(dtype)


def _signed_zero_median(a: Any, md: Any, skip_nan: bool) -> Any:
    """The median of all elements ``md``, with the sign of the zero PyTorch's CPU kernel picks
    when the median is 0 and both -0.0 and 0.0 occur (its nth_element's choice; replayed)."""
    xp = get_array_module(a)
    if xp is not np or bool(md != 0):
        return md
    flat = (a.astype(np.float32) if a.dtype.kind == "V" else a).reshape(-1)
    zeros = flat == 0
    negative = zeros & np.signbit(flat)
    if not (negative.any() and (zeros & ~negative).any()) or not replayable(1, flat.size):
        return md
    pick = median_pick(flat, skip_nan)
    return np.asarray(a.reshape(-1)[pick]).reshape(md.shape)


def _nan_count(x: Any, d: int) -> Any:
    xp = get_array_module(x._data)
    if x._data.dtype.kind not in FLOAT_KINDS:
        return xp.zeros(x.shape[:d] + (1,) + x.shape[d + 1 :], np.int64)
    return xp.isnan(x._data).sum(axis=d, keepdims=True)


def _as_1d(x: Any) -> Any:
    return x.reshape(1) if x.ndim == 0 else x


class TensorStatistics:
    """Mixin of Tensor: statistics built from sorting, gathering and existing reductions."""

    __slots__ = ()

    # ------------------------------------------------------------------ order statistics
    def median(self, dim=None, keepdim: bool = False):
        """The lower median ((n-1)//2-th smallest; NaN if the slice has a NaN). Without ``dim``
        one value, whose gradient is shared evenly among the elements equal to it; with
        ``dim`` (values, indices), the gradient going to the chosen element."""
        return self._median("median", dim, keepdim, skip_nan=False)

    def nanmedian(self, dim=None, keepdim: bool = False):
        """median ignoring NaN (NaN only where a slice is all NaN)."""
        return self._median("nanmedian", dim, keepdim, skip_nan=True)

    def _median(self, name: str, dim, keepdim: bool, skip_nan: bool):
        if self._data.dtype.kind == "b":  # PyTorch's median kernels have no bool instance
            kernel = "median_cpu" if dim is None else "median_out"
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if dim is None:
            flat = self.reshape(-1)
            if flat.shape[0] == 0:  # NaN; an integer dtype gets NaN's cast, as PyTorch's
                xp = get_array_module(self._data)
                with np.errstate(invalid="ignore"):
                    return self._make(xp.asarray(xp.nan).astype(self._data.dtype), False)
            m = flat._median(name, 0, False, skip_nan).values
            if self._data.dtype.kind not in FLOAT_KINDS:  # no gradient to share
                return m
            # value exactly m (inf too); gradient 1/count on each element equal to m
            xp = get_array_module(self._data)
            md = _signed_zero_median(self._data, m._data, skip_nan)
            same = (
                xp.isnan(self._data)
                if md.dtype.kind in FLOAT_KINDS and bool(xp.isnan(md))
                else (self._data == md)
            )
            return SO.ShareAmongEqual.apply(self, md, same)
        d = _one_dim(self, dim, name)
        x = _as_1d(self)
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"{name}(): cannot compute {name} over dim {dim} of size 0")
        nans = _nan_count(x, d)
        xp = get_array_module(x._data)
        if skip_nan:
            pos = xp.maximum((n - nans - 1) // 2, 0)
        else:  # any NaN: the first NaN (NaN sorts last)
            pos = xp.where(nans > 0, n - nans, (n - 1) // 2)
        out = _pick(x, d, pos, keepdim or self.ndim == 0, name)
        return self._squeeze_0d(out)

    def _squeeze_0d(self, out):
        if self.ndim == 0:
            return type(out)(out.values.reshape(()), out.indices.reshape(()))
        return out

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        """(values, indices) of the k-th smallest element (k = 1 is the smallest) along dim."""
        d, k = _one_dim(self, dim, "kthvalue"), plain_int(k)
        x = _as_1d(self)
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"kthvalue(): cannot compute kthvalue over dim {dim} of size 0")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k={k!r} out of range [1, {n}]")
        pos = get_array_module(x._data).full(x.shape[:d] + (1,) + x.shape[d + 1 :], k - 1)
        return self._squeeze_0d(_pick(x, d, pos, keepdim or self.ndim == 0, "kthvalue", k - 1))

    def mode(self, dim: int = -1, keepdim: bool = False):
        """(values, indices) of the most frequent value along dim (the smallest of equally
        frequent ones; each NaN counts once) and the index PyTorch's CPU kernel returns: the
        last of its run after an unstable sort (the last occurrence up to 16 elements)."""
        d = _one_dim(self, dim, "mode")
        x = _as_1d(self)
        xp = get_array_module(x._data)
        rows = xp.moveaxis(x._data, d, -1)
        if rows.shape[-1] == 0:  # (before the reshape: -1 cannot be inferred next to a 0)
            raise IndexError(f"mode(): cannot compute mode over dim {dim} of size 0")
        flat = rows.reshape(-1, rows.shape[-1])
        picks = np.empty(flat.shape[0], np.int64)
        host = to_numpy(flat)
        replay = xp is np and replayable(*host.shape)  # (else the rule below: see stl_order)
        if host.dtype.kind == "V":  # bfloat16: its exact float32 values
            host = host.astype(np.float32)
        replayed = []
        for r, row in enumerate(host):  # one slice at a time, on the host
            values, counts = np.unique(row, return_counts=True)
            best = int(np.argmax(counts))
            no_nan = row.dtype.kind not in FLOAT_KINDS or not np.isnan(values).any()
            if (no_nan and (counts[best] == 1 or row.size <= 16)) or not replay:
                # one answer, or PyTorch's sort of <= 16 elements is an insertion sort, which
                # is stable: the last occurrence of the smallest most frequent value
                # (a GPU tensor keeps this rule: PyTorch's CUDA kernel sorts otherwise; so
                # does a call too large to replay)
                same = row == values[best]
                if not no_nan:
                    same |= np.isnan(row) & np.isnan(values[best])
                picks[r] = np.flatnonzero(same)[-1]
            else:  # its introsort's choice among equal values (and NaN's own runs): replayed
                replayed.append(r)
        if replayed:  # all such slices at once (compiled where Numba runs)
            picks[replayed] = mode_indices(host[replayed])
        idx = xp.asarray(picks).reshape(rows.shape[:-1] + (1,))
        idx = xp.moveaxis(idx, -1, d)
        values = SO.GatherAlongDim.apply(x, idx, d, False)
        indices = x._make(idx, False)
        if not (keepdim or self.ndim == 0):
            values, indices = values.squeeze(d), indices.squeeze(d)
        return self._squeeze_0d(return_types.mode(values, indices))

    def quantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        """The q-th quantiles along dim (of all elements without dim): position q (n - 1) in the
        sorted slice, between two elements interpolated as ``interpolation`` says; NaN where the
        slice has a NaN. A 1-D q puts one result per q in a new leading dim."""
        return self._quantile("quantile", q, dim, keepdim, interpolation, skip_nan=False)

    def nanquantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        """quantile ignoring NaN (NaN only where a slice is all NaN)."""
        return self._quantile("nanquantile", q, dim, keepdim, interpolation, skip_nan=True)

    def _quantile(self, name, q, dim, keepdim, interpolation, skip_nan):
        if self._data.dtype not in (np.float32, np.float64):
            raise RuntimeError(
                f"{name}() input tensor must be either float or double dtype, got {self.dtype.name}"
            )
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(
                f"{name}() interpolation must be one of {', '.join(_INTERPOLATIONS)}, "
                f"got {interpolation!r}"
            )
        xp = get_array_module(self._data)
        if isinstance(q, TensorBase):
            if q.ndim > 1:
                raise RuntimeError(f"{name}() q must be a scalar or 1D tensor, got {q.ndim}-D")
            if q.dtype is not self.dtype:
                raise RuntimeError(
                    f"{name}() q tensor must be same dtype as the input tensor "
                    f"({self.dtype.name}), got {q.dtype.name}"
                )
            qs, scalar_q = xp.asarray(q._data, xp.float64).reshape(-1), q.ndim == 0
        elif isinstance(q, (int, float, np.integer, np.floating)) and not isinstance(q, bool):
            qs, scalar_q = xp.asarray([float(q)]), True
        else:
            raise TypeError(
                f"{name}(): argument 'q' must be a float or a Tensor, got {type(q).__name__}"
            )
        if qs.size and not bool(((qs >= 0) & (qs <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        if dim is None:
            x, d = self.reshape(-1), 0
        else:
            x, d = _as_1d(self), _one_dim(self, dim, name)
        n = x.shape[d]
        if n == 0:
            raise IndexError(f"{name}() input tensor must be non-empty")
        # positions per (q, slice), on the arrays: q (n_valid - 1) in the sorted slice
        nans = _nan_count(x, d)
        valid = n - nans
        last = xp.where(nans > 0, n - nans, n - 1)  # a NaN position (or the last one)
        qb = qs.reshape((-1,) + (1,) * x.ndim)
        pos = qb * xp.maximum(valid - 1, 0) if skip_nan else qb * (n - 1)
        lo, hi = xp.floor(pos).astype(xp.int64), xp.ceil(pos).astype(xp.int64)
        if interpolation == "nearest":
            lo = hi = xp.round(pos).astype(xp.int64)  # half to even, as torch.round
        elif interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        weight = pos - lo if interpolation == "linear" else xp.full(pos.shape, 0.5)
        nan_slice = (valid == 0) if skip_nan else (nans > 0)
        lo, hi = xp.where(nan_slice, last, lo), xp.where(nan_slice, last, hi)
        big = x.unsqueeze(0).expand((qs.size,) + tuple(x.shape))
        order = SO.sort_indices(x._data, d, False)
        order = xp.broadcast_to(order[None], (qs.size,) + tuple(x.shape))

        def gather(pos_):  # the sorted elements at pos_, gathered from x (so differentiable)
            idx = xp.take_along_axis(order, xp.broadcast_to(pos_, lo.shape), axis=d + 1)
            return SO.GatherAlongDim.apply(big, idx.astype(xp.int64), d + 1, False)

        v_lo = gather(lo)
        if interpolation in ("lower", "higher", "nearest"):
            out = v_lo
        else:
            w = x._make(xp.asarray(weight, dtype=x._data.dtype), False)
            if interpolation == "linear" and isinstance(q, TensorBase) and q.requires_grad:
                # the weight pos - lo as a function of q, so q gets d out / dq = span (hi - lo)
                span = xp.maximum(valid - 1, 0) if skip_nan else xp.full(valid.shape, n - 1)
                span = x._make(xp.where(nan_slice, 0, span).astype(x._data.dtype), False)
                w = q.reshape((-1,) + (1,) * x.ndim) * span - x._make(
                    lo.astype(x._data.dtype), False
                )
            # PyTorch's lerp: from the nearer end, so an infinite neighbour gives +-inf or NaN
            # as PyTorch's does (a + w (b - a) below w = 0.5, b - (1 - w)(b - a) from there)
            v_hi = gather(hi)
            step = v_hi - v_lo
            out = (v_lo + step * w).where(w < 0.5, v_hi - step * (1 - w))
        if dim is None:
            out = out.reshape((qs.size,) + ((1,) * self.ndim if keepdim else ()))
        elif not keepdim or self.ndim == 0:
            out = out.squeeze(d + 1)
        return out.squeeze(0) if scalar_q else out

    # ------------------------------------------------------------------ NaN-skipping reductions
    def nansum(self, dim=None, keepdim: bool = False, *, dtype=None):
        """sum treating NaN as 0."""
        if self._data.dtype.kind not in FLOAT_KINDS:
            return self.sum(dim, keepdim, dtype=dtype)
        return self.where(self.isnan().logical_not(), 0.0).sum(dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim: bool = False, *, dtype=None):
        """The mean of the non-NaN elements: nansum / their count (NaN where there are none);
        the gradient is 1/count on each non-NaN element and 0 on the NaNs (also in an all-NaN
        slice, where PyTorch's gradient is NaN)."""
        if self._data.dtype.kind not in FLOAT_KINDS:  # checked before dtype= casts, as PyTorch
            raise RuntimeError(
                "nanmean(): expected input to have floating point or complex dtype but got "
                f"{scalar_type_name(self.dtype)}"
            )
        x = self if dtype is None else self.to(dtype)
        keep = x.isnan().logical_not()
        count = keep.sum(dim, keepdim)._cast(x._data.dtype)
        with np.errstate(invalid="ignore"):  # 0 / 0 for an all-NaN slice: NaN, as PyTorch
            return x.where(keep, 0.0).sum(dim, keepdim) / count

    def count_nonzero(self, dim=None):
        """How many elements are nonzero (over ``dim``, an int or a tuple, or all): int64."""
        axis = norm_dim(dim, self.ndim)
        if not self.ndim or axis == ():  # dim=() counts over every dim, as sum(dim=()) sums
            axis = None
        xp = get_array_module(self._data)
        return self._make(xp.asarray(xp.count_nonzero(self._data, axis=axis), np.int64), False)

    # ------------------------------------------------------------------ histogram and differences
    @quiet_fp  # a range of +-3e38 overflows NumPy's bin width: inf/NaN, silently as PyTorch
    def histogram(self, bins=100, *, range=None, weight=None, density: bool = False):  # noqa: A002
        """(hist, bin_edges) of the flattened tensor: ``bins`` equal bins over ``range`` (the
        min and max by default) or the given increasing edges; the last bin includes its right
        edge. Counts (or summed ``weight``) in the input's dtype; ``density`` normalises the
        histogram to integrate to 1. Not differentiable."""
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise RuntimeError(
                f"histogram(): input tensor must be floating point, got {self.dtype.name}"
            )
        data = to_numpy(self._data).reshape(-1)  # counted on the host
        if isinstance(bins, TensorBase):
            edges = to_numpy(bins._data)
            if edges.ndim != 1 or edges.size < 1:
                raise RuntimeError("histogram(): bins must be a 1-D tensor with at least 1 edge")
        elif isinstance(bins, int) and not isinstance(bins, bool):
            if bins < 1:
                raise RuntimeError(f"histogram(): bins must be > 0, got {bins}")
            if range is None:
                # no elements: the edges span [0, 1] (PyTorch's and NumPy's default range)
                lo, hi = (float(data.min()), float(data.max())) if data.size else (0.0, 1.0)
            else:
                lo, hi = (float(v) for v in range)
                if lo > hi:
                    raise ValueError(f"histogram(): max must be larger than min, got {range}")
            if not (np.isfinite(lo) and np.isfinite(hi)):  # a NaN or inf in the data too
                raise RuntimeError(f"histogram(): range [{lo:g}, {hi:g}] is not finite")
            if lo == hi:  # no width: widen by 1/2 on each side (PyTorch's and NumPy's rule)
                lo, hi = lo - 0.5, hi + 0.5
            edges = _linspace_edges(lo, hi, bins + 1, data.dtype)
        else:
            raise TypeError(f"histogram(): bins must be an int or a Tensor, got {type(bins)}")
        w = None if weight is None else to_numpy(weight._data).reshape(-1)
        if w is not None and w.shape != data.shape:
            raise RuntimeError("histogram(): weight must have the same shape as the input")
        hist, _ = np.histogram(data, bins=edges.astype(np.float64), weights=w, density=density)
        xp = get_array_module(self._data)
        to = self._data.dtype
        return Histogram(
            self._make(xp.asarray(hist.astype(to)), False),
            self._make(xp.asarray(edges.astype(to)), False),
        )

    def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None):
        """The n-th forward difference along dim: out_i = x_(i+1) - x_i, applied n times, after
        ``prepend`` / ``append`` are concatenated along dim (logical xor for bool tensors)."""
        if self.ndim == 0:
            raise RuntimeError("diff(): expected input to be at least one-dimensional")
        d, n = _one_dim(self, dim, "diff"), plain_int(n)
        if not isinstance(n, int) or n < 0:
            raise RuntimeError(f"diff(): order n must be non-negative, got {n!r}")
        parts = [p for p in (prepend, self, append) if p is not None]
        x = self
        if len(parts) > 1:
            parts = [p if isinstance(p, TensorBase) else self._make(np.asarray(p), False)
                     for p in parts]  # fmt: skip
            for p in parts:
                if p.ndim != self.ndim:
                    raise RuntimeError(
                        f"diff(): prepend and append must have as many dims as the input "
                        f"({self.ndim}), got {p.ndim}"
                    )
            target = functools.reduce(promote_types, (p.dtype for p in parts))  # as in cat
            x = S.Cat.apply(d, *(p._cast(target.numpy_dtype) for p in parts))
        for _ in builtins.range(n):
            length = x.shape[d]
            if length == 0:
                break
            a, b = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
            x = a.logical_xor(b) if x._data.dtype == np.bool_ else a - b
        return x

    # ------------------------------------------------------------------ covariance
    def cov(self, *, correction: int = 1, fweights=None, aweights=None):
        """The covariance matrix of the variables in the rows (observations in the columns):
        C = (X - mean) diag(w) (X - mean)^T / (sum w - correction * sum(w a) / sum w), with
        w = fweights * aweights (1 when not given); a 0-d tensor for one variable."""
        if self.ndim > 2:
            raise ValueError(
                f"cov(): expected input to have two or fewer dimensions but got an input with "
                f"{self.ndim} dimensions"
            )
        x = float_in(self)
        x = x.reshape(1, -1) if x.ndim < 2 else x
        n_obs = x.shape[1]
        w = None
        for name, wt in (("fweights", fweights), ("aweights", aweights)):
            if wt is None:
                continue
            if wt.ndim > 1 or wt.numel() != n_obs:
                raise ValueError(
                    f"cov(): expected {name} to have one dimension and {n_obs} elements, got "
                    f"shape {tuple(wt.shape)}"
                )
            if name == "fweights" and wt._data.dtype.kind not in "iu":
                raise ValueError(
                    f"cov(): expected fweights to have integral dtype, got {wt.dtype.name}"
                )
            if bool((wt._data < 0).any()):
                raise ValueError(f"cov(): {name} cannot be negative")
            wt = wt.reshape(-1)._cast(x._data.dtype)
            w = wt if w is None else w * wt
        if w is None:
            avg = x.mean(1, keepdim=True)
            norm = n_obs - correction
        else:
            w_sum = w.sum()
            avg = (x * w).sum(1, keepdim=True) / w_sum
            if aweights is None or correction == 0:
                norm = w_sum - correction
            else:
                a = aweights.reshape(-1)._cast(x._data.dtype)
                norm = w_sum - correction * (w * a).sum() / w_sum
        centered = x - avg
        weighted = centered if w is None else centered * w
        c = weighted.matmul(centered.transpose(0, 1))
        if isinstance(norm, TensorBase):
            norm = norm.clamp(min=0)
        else:
            norm = builtins.max(norm, 0)
        return (c / norm).squeeze()

    def corrcoef(self):
        """Pearson correlation coefficients: C_ij / sqrt(C_ii C_jj) of the covariance matrix C,
        clipped to [-1, 1]; float16/bfloat16 in float32, rounded once."""
        if is_two_byte_float(self):
            return in_float32(TensorStatistics.corrcoef, self)
        c = self.cov()
        with np.errstate(divide="ignore", invalid="ignore"):  # a constant variable: NaN, quietly
            if c.ndim == 0:
                return c / c
            std = c.diagonal().sqrt()
            c = c / std.unsqueeze(1)
            c = c / std.unsqueeze(0)
        return c.clamp(-1, 1)
