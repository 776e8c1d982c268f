"""float32 <-> bfloat16 and float16 conversions, each one compiled pass (where Numba is installed).

Autocast's step converts ~34 M numbers a char GPT step: every Linear's output and dL/dx
rounded to bfloat16, its x, W and dL/dy widened to float32 (NumPy has no 2-byte BLAS). NumPy
hands bfloat16 to ml_dtypes, whose rounding runs element by element (0.56-0.72 ns a number on a
2-core Xeon); NumPy's own float16 casts here are scalar too (2.4 ns a rounding, 1.3 a widening).
The loops below do the same on the integer bits, which the compiler vectorises: a rounding
0.23 ns in cache, 0.28-0.46 from memory. Widening a bfloat16 is a shift, as in ml_dtypes, whose
loop is as fast (both 0.25-0.43 ns from memory); it is here for float16 and for symmetry.

The arithmetic, on the bits u of a float32 (sign, 8 exponent bits, 23 fraction bits):

- **bfloat16** is the top half of a float32. Rounding to nearest, ties to even, adds 0x7fff plus
  the lowest kept bit (the 16th) and keeps the top 16 bits: below half a unit the carry does not
  reach the kept bits, above it does, and at exactly half it does only where the kept part is
  odd. A carry out of the fraction increments the exponent (correct: the next binade), and out
  of the largest finite number gives 0x7f80, infinity, as it should. A NaN (exponent all ones,
  fraction not 0) could round to infinity that way, so it becomes the quiet NaN 0x7fc0 with its
  sign, as ml_dtypes (Eigen's conversion) makes it. Widening shifts the 16 bits back up: exact.
- **float16** (IEEE half: 5 exponent bits, bias 15, 10 fraction bits) keeps 13 fewer fraction
  bits and a smaller exponent range: a normal result re-biases the exponent (127 -> 15) and
  rounds off 13 bits the same way; below 2^-14 the result is subnormal, so the 24-bit
  significand (the implicit 1 made explicit) is shifted right by more, and rounded to nearest
  even on all the bits shifted out; below 2^-25 it is a signed zero (half of the smallest
  subnormal and less; exactly 2^-25 ties to even, 0); above 65504 + half a unit it is infinity;
  a NaN keeps the top 10 bits of its payload (and stays a NaN), as NumPy's conversion does.
  Widening reverses it exactly: a subnormal half is normalised by its leading zeros.

Each kernel is tested bit for bit against ``astype``: every one of the 65,536 2-byte patterns
widened, and float32 patterns rounded (every tie, subnormals, overflow, NaNs with payloads).

Where more than a conversion is done, the pass does it too: ``linear_rounded`` adds a Linear
layer's bias while it rounds the product (see there).

Break-even: a call here costs ~3 us more than ``astype`` (Numba's dispatch, the output's views),
so arrays below ``CAST_MIN`` elements keep ``astype``; bfloat16 rounding at 4,096 elements 4.4
against 2.9 us, 8,192 5.2 against 5.2, 16,384 6.7 against 9.8 (one thread, the same Xeon; the
ops guard with it, see ARCHITECTURE.md "The speed layer").
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..backend import quiet_fp
from . import cpu_jit

CAST_MIN = 8192  # elements from which the compiled conversion beats astype

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def astype(a: np.ndarray, dtype) -> np.ndarray | None:
    """``a.astype(dtype)`` for a float32 array and a 2-byte float dtype, or the other way round,
    by one compiled loop, in a's layout; None where that does not apply (Numba missing or switched
    off, another pair of dtypes, elements that are not one dense block), and the caller runs
    ``astype``."""
    kernel = _KERNELS.get((a.dtype, np.dtype(dtype)))
    if kernel is None or not cpu_jit.available():
        return None
    if a.flags.c_contiguous:
        out = np.empty(a.shape, dtype)
        kernel(_bits(a), _bits(out))
        return out
    # a dense block in another axis order (attention's heads, a transpose): converted as that
    # block, and returned in a's layout, as astype's order="K" keeps it
    order = sorted(range(a.ndim), key=lambda i: -a.strides[i])
    dense = a.transpose(order)
    if not dense.flags.c_contiguous:
        return None
    out = np.empty(dense.shape, dtype)
    kernel(_bits(dense), _bits(out))
    return out.transpose(np.argsort(order))


@quiet_fp  # (a product may overflow to inf, quietly as gemm does)
def linear_rounded(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, dtype) -> np.ndarray | None:
    """round(x w^T + b) to bfloat16 for float32 x (M, K), w (N, K), b (N,) or None: autocast's
    Linear output. NumPy's product (gemm writing a fresh array), then ONE pass that adds the bias
    and rounds, where the plain path fills the output with b, has gemm add into it (reading it
    back), and rounds in a third pass: 5-10% of the layer's forward at a GPT's and an MLP's
    shapes. The float32 sum is the same terms added in another order where gemm splits K in
    blocks (b + s1 + s2 against s1 + s2 + b: 1 bfloat16 in 20,000-60,000 differs by one unit at
    K = 512, none at K = 128). None where the compiled loops do not apply (float16: its own
    rounding runs after the plain product)."""
    if np.dtype(dtype) != _BF16 or not cpu_jit.available():
        return None
    if b is not None and b.shape != (w.shape[0],):  # (the loop reads b[j] unchecked)
        return None
    y = x.dot(w.T)
    out = np.empty(y.shape, _BF16)
    if b is None:
        _round_bfloat16(_bits(y), _bits(out))
    else:
        _add_round_bfloat16(y, b, out.view(np.uint16))
    return out


def widen_with_column_sums(g: np.ndarray) -> tuple | None:
    """(g widened to float32, the sums of its rows) for a 2-D C-contiguous bfloat16 g: autocast's
    Linear backward, where g = dL/dy is widened for its products and summed over rows for dL/db.
    One pass, where the plain path widens and then reads the float32 copy again (BLAS's ones @ g):
    1024 x 512 184 against 211 us, 1024 x 128 47 against 70. The sums accumulate in float64 and
    are rounded once (closer to the exact sum than float32 partial sums). None where it does not
    apply (another dtype or layout, the compiled loops off)."""
    if g.dtype != _BF16 or g.ndim != 2 or not g.flags.c_contiguous or not cpu_jit.available():
        return None
    out, sums = np.empty(g.shape, np.float32), np.zeros(g.shape[1], np.float64)
    _widen_bfloat16_sums(g.view(np.uint16), out.view(np.uint32), out, sums)
    return out, sums.astype(np.float32)


def _bits(a: np.ndarray) -> np.ndarray:
    """A C-contiguous float array's elements as unsigned integers of its width, flat (a view)."""
    return a.reshape(-1).view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


@cpu_jit.cpu_kernel()
def _round_bfloat16(src, dst):
    """dst[i] = float32 bits src[i] rounded to bfloat16 (nearest, ties to even; NaN -> quiet)."""
    for i in range(src.size):
        u = src[i]
        if (u & 0x7FFFFFFF) > 0x7F800000:  # NaN: the quiet NaN of its sign
            dst[i] = ((u >> 16) & 0x8000) | 0x7FC0
        else:
            dst[i] = (u + 0x7FFF + ((u >> 16) & 1)) >> 16


@cpu_jit.cpu_kernel()
def _add_round_bfloat16(y, b, dst):
    """dst[i, j] = float32 y[i, j] + b[j] rounded to bfloat16, as _round_bfloat16."""
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            u = np.float32(y[i, j] + b[j]).view(np.uint32)
            if (u & 0x7FFFFFFF) > 0x7F800000:
                dst[i, j] = ((u >> 16) & 0x8000) | 0x7FC0
            else:
                dst[i, j] = (u + 0x7FFF + ((u >> 16) & 1)) >> 16


@cpu_jit.cpu_kernel()
def _widen_bfloat16(src, dst):
    """dst[i] = bfloat16 bits src[i] as float32 bits: the same number (exact)."""
    for i in range(src.size):
        dst[i] = np.uint32(src[i]) << 16


@cpu_jit.cpu_kernel()
def _round_float16(src, dst):
    """dst[i] = float32 bits src[i] rounded to IEEE half (nearest, ties to even)."""
    for i in range(src.size):
        u = src[i]
        sign = (u >> 16) & 0x8000
        a = u & 0x7FFFFFFF
        if a >= 0x47800000:  # 2^16 and above, inf, NaN
            if a > 0x7F800000:  # NaN: the top of its payload, kept a NaN
                h = 0x7C00 | ((a >> 13) & 0x3FF)
                dst[i] = sign | (h if h != 0x7C00 else 0x7C01)
            else:  # overflow (rounding to 2^16 and above), inf
                dst[i] = sign | 0x7C00
        elif a >= 0x38800000:  # 2^-14 and above: a normal half (or, rounded up, infinity)
            r = a - 0x38000000  # the exponent re-biased, 127 -> 15, in place
            dst[i] = sign | ((r + 0xFFF + ((r >> 13) & 1)) >> 13)
        elif a >= 0x33000000:  # 2^-25 to 2^-14: a subnormal half (or, rounded up, 2^-14)
            shift = 126 - (a >> 23)  # 14..24 bits to drop from the 24-bit significand
            m = (a & 0x7FFFFF) | 0x800000
            half = np.uint32(1) << (shift - 1)
            dst[i] = sign | ((m + half - 1 + ((m >> shift) & 1)) >> shift)
        else:  # below 2^-25 (at most half the smallest subnormal, not a tie above): zero
            dst[i] = sign


@cpu_jit.cpu_kernel()
def _widen_float16(src, dst):
    """dst[i] = IEEE half bits src[i] as float32 bits: the same number (exact)."""
    for i in range(src.size):
        h = np.uint32(src[i])
        sign = (h & 0x8000) << 16
        e = (h >> 10) & 0x1F
        m = h & 0x3FF
        if e == 0x1F:  # inf, NaN (the payload kept)
            dst[i] = sign | 0x7F800000 | (m << 13)
        elif e != 0:  # normal: exponent re-biased 15 -> 127
            dst[i] = sign | ((h & 0x7FFF) + 0x1C000) << 13
        elif m == 0:
            dst[i] = sign
        else:  # subnormal m 2^-24: normalised (as float32 it is normal)
            k = 0
            while m & 0x400 == 0:
                m <<= 1
                k += 1
            dst[i] = sign | ((113 - k) << 23) | ((m & 0x3FF) << 13)


@cpu_jit.cpu_kernel()
def _widen_bfloat16_sums(src, dst_bits, dst, sums):
    """Row by row: dst = the bfloat16 bits src widened (dst_bits is dst's memory as uint32),
    then each column's float64 sum += the row just written (still in cache)."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst_bits[i, j] = np.uint32(src[i, j]) << 16
        for j in range(src.shape[1]):
            sums[j] += dst[i, j]


_KERNELS = {
    (_F32, _BF16): _round_bfloat16,
    (_BF16, _F32): _widen_bfloat16,
    (_F32, _F16): _round_float16,
    (_F16, _F32): _widen_float16,
}
