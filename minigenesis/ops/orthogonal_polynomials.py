"""The classical orthogonal polynomials of mg.special on arrays: p_n(x) for float64 arrays x and
n (n truncated to an integer, as PyTorch does; p_n = 0 for n < 0). PyTorch gives them no
gradient, so these are array functions, not ops.

Each is its three-term recurrence p_{k+1} = (a_k x + b_k) p_k - c_k p_{k-1}, run to the largest
n of the array, each element keeping the step where k reaches its own n. The recurrences are the
textbook ones (DLMF 18.9): Chebyshev T, U, V, W (T_{k+1} = 2x T_k - T_{k-1}, the four differ in
p_1), Hermite H (2x H_k - 2k H_{k-1}) and He (x He_k - k He_{k-1}), Laguerre
((2k + 1 - x) L_k - k L_{k-1}) / (k + 1), Legendre ((2k + 1) x P_k - k P_{k-1}) / (k + 1).
The shifted Chebyshev polynomials are the Chebyshev ones at 2x - 1.
"""

from __future__ import annotations

from ..backend import get_array_module, quiet_fp

MAX_DEGREE = 1_000_000  # the largest n computed (one vectorised step per degree)

# p_1 of each family and its step (k, x, p_k, p_{k-1}) -> p_{k+1}
_FAMILIES = {
    "chebyshev_t": (lambda x: x, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_u": (lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_v": (lambda x: 2 * x - 1, lambda k, x, p, q: 2 * x * p - q),
    "chebyshev_w": (lambda x: 2 * x + 1, lambda k, x, p, q: 2 * x * p - q),
    "hermite_h": (lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_he": (lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_l": (lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_p": (lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


@quiet_fp  # large |x| or n overflow to +-inf (and inf - inf to NaN), as in PyTorch
def polynomial(family: str, x, n):
    """p_n(x) of the family ("chebyshev_t" ... "legendre_p", or "shifted_chebyshev_t" ...),
    x and n float64 arrays of one (broadcast) shape."""
    xp = get_array_module(x)
    if family.startswith("shifted_"):
        return polynomial(family[len("shifted_") :], 2 * x - 1, n)
    first, step = _FAMILIES[family]
    n = xp.trunc(xp.where(xp.isnan(n), -1.0, n))
    top = float(n.max()) if n.size else 0.0
    if top > MAX_DEGREE:  # (the recurrence takes n steps: a degree of 1e30 would never end)
        raise ValueError(
            f"{family}: degree n = {top:g} is above {MAX_DEGREE:,}; the three-term recurrence "
            f"runs n steps"
        )
    top = int(top)
    prev, cur = 1.0 + 0 * x, first(x)
    out = xp.where(n == 0, prev, xp.where(n == 1, cur, 0.0 * x))
    for k in range(1, top):
        prev, cur = cur, step(k, x, cur, prev)
        out = xp.where(n == k + 1, cur, out)
    return xp.where(n < 0, 0.0, out)
