"""The exact GELU of a float32 array as one compiled loop (Numba, see cpu_jit.py): y = gelu(x)
and its slope gelu'(x) from one read of each element, where ``gelu.py``'s NumPy form makes
~27 passes over blocks of the array and one NumPy exp.

The math is ``gelu.py``'s (read its notes first): with a = min(|x|, 15) and the normal tail

    E = Phi(-a) = e^(-a^2/2) R(a),   R = P/Q (the wide fit: degrees 4 and 5, 6e-9 relative)
    Phi(x) = |[x >= 0] - E|,   gelu(x) = x Phi(x),   gelu'(x) = Phi(x) + x e^(-a^2/2) / sqrt(2 pi)

each element computed in float64 and rounded once to float32. In float64 none of the float32
path's roundings add up, so the result is within the fit's error of the true value: at most
0.84 ulp from the float64 erfc on a grid over [-30, 30] and a million normal draws (the NumPy
path: up to 66 ulp in the negative tail), the slope within 6.2e-8 (NumPy path: 1.6e-7).

Why a loop written here, not ``math.exp``: Numba compiles ``math.exp`` to a call of the C
library's exp, one element at a time, and the loop then is not vectorised (8.6 ms on
16 x 64 x 512 elements against 1.2 ms). e^(-a^2/2) is written instead from + - * only, so LLVM
turns the loop into SIMD code (4 doubles per instruction), and the error model is NumPy's (a
division by zero gives inf) so no Python exception check stops it either:

    e^u = (e^(u / 1024))^(2^10),   u / 1024 = c + t,  c = -7/128,  |t| <= 0.055

with e^t by its Taylor polynomial of degree 6 (error t^7/7! < 3e-13), times e^c, squared ten
times (each squaring doubles the relative error: at most 1024 * 3.3e-13 = 3.4e-10 in the end,
a 170th of float32's resolution). u >= -112.5 keeps every step normal in float64. For a >= 15,
e^(-a^2/2) < 1.9e-49 is 0 in float32, and E too: both are set to 0 there (and infinite x gives
y = inf or NaN, slope NaN, as ``gelu.py`` and PyTorch do).

Measured on 16 x 64 x 512 float32 (the char GPT's GELU; Xeon with AVX-512, one core): y and
slope 1.2 ms, against 2.8 ms by the NumPy blocks (PyTorch's forward, y only: 0.39 ms).
Why float64 and not float32 (8 lanes): in float32 the Horner sums of P and Q and the division
alone are 4 ulp off, and every further rounding adds up to half an ulp; an all-float32 loop was
7 ulp off at 0.65x this loop's time, and float32 variants within 1.3-1.5 ulp were no faster
(BENCHMARKS.md, "a float32 GELU loop").
"""

from __future__ import annotations

import math

import numpy as np

from . import cpu_jit

# The loop is faster from a few elements on (16: 3.6 us against the NumPy path's 20 us, Xeon;
# mostly the call's fixed costs on either side); below, neither does real work.
GELU_LOOP_MIN = 16

_P = (48.45803, 42.478283, 17.758734, 3.9381046, 0.3989469)  # gelu.py's wide fit
_Q = (96.91606, 162.28444, 116.54321, 45.500042, 9.871989)  # and a^5: Q is monic
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_E_C = math.exp(-7 / 128)  # e^c


@cpu_jit.cpu_kernel(error_model="numpy")
def _gelu_loop(x, y, slope, want_slope):  # pragma: no cover  (compiled; tested through gelu)
    p0, p1, p2, p3, p4 = _P
    q0, q1, q2, q3, q4 = _Q
    for i in range(x.size):
        v = np.float64(x[i])
        a = abs(v)
        far = not a < 15.0  # (and NaN: y stays NaN through x)
        a = 15.0 if far else a
        t = a * a * (-1.0 / 2048) + 7 / 128  # -a^2/2 / 1024 - c
        e = 1.0 + t * (1.0 + t * (1 / 2 + t * (1 / 6 + t * (1 / 24 + t * (1 / 120 + t / 720)))))
        e *= _E_C
        for _ in range(10):
            e *= e
        e = 0.0 if far else e  # e^(-x^2/2)
        p = p0 + a * (p1 + a * (p2 + a * (p3 + a * p4)))
        q = q0 + a * (q1 + a * (q2 + a * (q3 + a * (q4 + a))))
        cdf = abs((1.0 if v >= 0.0 else 0.0) - e * p / q)  # Phi(x) = |[x >= 0] - E|
        # |x| < 2^-60: Phi(x) is 1/2 in float64 (E's relative error, 3.4e-10, is larger than
        # 0.4 x there): a subnormal x/2 halfway between two floats rounds to even, as the float64
        # definition and PyTorch give it
        cdf = 0.5 if a < 2.0**-60 else cdf
        y[i] = v * cdf
        if want_slope:
            slope[i] = cdf + v * e * _INV_SQRT_2PI


def gelu(xf, want_slope: bool) -> tuple | None:
    """(gelu(x), gelu'(x) or None) of a float32 NumPy array in x's shape, as float32; None where
    the compiled loop does not apply (no Numba, another dtype, fewer than GELU_LOOP_MIN
    elements)."""
    if type(xf) is not np.ndarray or xf.dtype != np.float32 or xf.size < GELU_LOOP_MIN:
        return None
    if not cpu_jit.available():
        return None
    x = np.ascontiguousarray(xf).reshape(-1)
    y = _empty_apart(x, 2048)
    # slope is a distinct array even when it is not wanted (then never written, so its pages are
    # never touched): LLVM's vector loop first checks that the arrays it writes do not overlap
    # and runs the scalar loop where they do; y passed as slope cost 6.4 ms against 1.6 ms.
    slope = _empty_apart(x, 1024)
    _gelu_loop(x, y, slope, want_slope)
    return y.reshape(xf.shape), slope.reshape(xf.shape) if want_slope else None


def _empty_apart(x, bytes_apart: int):
    """An uninitialised float32 array of x's size that starts ``bytes_apart`` bytes after x
    modulo 4 KiB (a view into a buffer 4 KiB larger).

    Why: the loop reads x[i] and writes y[i] and slope[i]. A load whose address matches a
    pending store's in the low 12 bits waits for that store (the CPU compares only those bits
    first: "4K aliasing"). Arrays allocated one after another from the heap are a few MiB plus
    16 bytes apart, so x[i + 4] matched y[i] on every vector: 10.9 ms against 2.7 ms on
    16 x 64 x 1024 float32 (Xeon). 1-2 KiB apart, the stores x[i] could wait on were written
    hundreds of elements earlier and have long left the store buffer."""
    buf = np.empty(x.size + 1024, np.float32)
    shift = (x.ctypes.data + bytes_apart - buf.ctypes.data) % 4096 // 4  # in elements
    return buf[shift : shift + x.size]
