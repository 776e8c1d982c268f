"""The functional forms at the top level: ``mg.exp(x)``, ``mg.cat([a, b])``, ``mg.where(c, x, y)``.

Most are the Tensor methods under another spelling (``mg.floor(x)`` is ``x.floor()``,
``mg.roll(x, 1)`` is ``x.roll(1)``); ``cat``, ``stack``, ``hstack`` / ``vstack`` / ``column_stack``,
``meshgrid`` and ``allclose`` take several tensors and so live only here. One file per family,
as the Tensor's methods are split: ``_common.py`` (``out=`` and argument handling, which every
file uses and which uses none of them), ``arithmetic.py``, ``pointwise.py``, ``reductions.py``,
``indexing.py``, ``shapes.py``, ``joining.py``, ``matrices.py``; this file gathers them into one
namespace, which ``minigenesis/__init__.py`` re-exports as ``mg.*``.
"""

from ._common import _with_out  # (the out= mechanism, for code that wraps a function of its own)

# the names packed, as a reader scans them
# fmt: off
from .arithmetic import (
    add, clamp, clamp_max, clamp_min, clip, div, divide, float_power, fmax, fmin, fmod, maximum,
    minimum, mul, multiply, neg, negative, pow, remainder, square, sub, subtract, true_divide
)
from .pointwise import (
    abs, acos, arccos, arcsin, arctan, arctan2, asin, atan, atan2, bitwise_and, bitwise_not,
    bitwise_or, bitwise_xor, ceil, copysign, cos, cosh, deg2rad, digamma, erf, erfc, erfinv,
    exp, exp2, expm1, fix, floor, frac, frexp, heaviside, hypot, i0, is_complex,
    is_floating_point, isclose, isfinite, isinf, isnan, ldexp, lerp, lgamma, log, log10, log1p,
    log2, log_softmax, logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor,
    logit, nan_to_num, polygamma, rad2deg, reciprocal, relu, round, rsqrt, sgn, sigmoid, sign,
    signbit, sin, sinc, sinh, softmax, sqrt, tan, tanh, trunc, xlogy
)
from .reductions import (
    all, allclose, amax, amin, any, argmax, argmin, argsort, bincount, cummax, cummin, cumprod,
    cumsum, equal, histc, logsumexp, max, mean, min, multinomial, norm, prod, sort, std, sum,
    topk, unique, var
)
from .indexing import (
    gather, index_add, index_copy, index_fill, index_reduce, index_select, masked_fill,
    masked_select, nonzero, scatter, scatter_add, scatter_reduce, take_along_dim, where
)
from .shapes import (
    as_tensor, broadcast_to, chunk, clone, diag, diag_embed, diagflat, dsplit, flatten, flip,
    fliplr, flipud, hsplit, is_tensor, moveaxis, movedim, narrow, numel, permute, ravel, select,
    repeat_interleave, reshape, roll, rot90, split, squeeze, swapaxes, swapdims, t,
    tensor_split, tile, transpose, tril, triu, unbind, unflatten, unsqueeze, vsplit
)
from .joining import (
    atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod, cat, column_stack,
    combinations, concat, concatenate, dstack, hstack, meshgrid, row_stack, stack, vander,
    vstack
)
from .matrices import (
    addmm, baddbmm, bmm, cdist, cholesky, cholesky_inverse, cholesky_solve, cross, det,
    diagonal, dot, einsum, ger, inverse, kron, logdet, matmul, matrix_exp, matrix_power, mm, mv,
    outer, pinverse, qr, slogdet, svd, tensordot, trace
)
from .integration import cumulative_trapezoid, trapezoid, trapz
# fmt: on
