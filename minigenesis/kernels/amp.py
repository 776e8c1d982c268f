"""GradScaler's GPU path (``amp/grad_scaler.py``) as fused kernels, each the arithmetic of its
array code there: one launch per gradient to check and unscale it, one for 1 / scale, one for
the scale's update.
"""

from __future__ import annotations

import numpy as np

from ..backend import get_array_module
from .cuda import ElementwiseKernel, kernel_fits


def unscale_and_check(arrays: list, inv_scale, flags: dict, device) -> bool:
    """Each gradient array times ``inv_scale``, in place, one launch each, raising the flag of
    ``device`` in ``flags`` (made here at first) where one holds an inf or NaN; False (nothing
    done) unless all are float32/float64 on a GPU (their dtypes may differ: a kernel each)."""
    if not all(kernel_fits(a) for a in arrays):
        return False
    if device not in flags:
        flags[device] = get_array_module(arrays[0]).zeros(1, dtype=np.float32)
    for a in arrays:
        _UNSCALE_AND_CHECK(inv_scale, a, flags[device])
    return True


def inverse_scale(scale):
    """1 / scale in float64, rounded to float32, in one launch."""
    return _INVERSE_SCALE(scale)


def update_scale(found_inf, interval: int, growth: float, backoff: float, scale, tracker) -> None:
    """GradScaler._update_scale in one launch: ``scale`` and ``tracker`` written in place."""
    _UPDATE_SCALE(found_inf, interval, growth, backoff, scale, tracker)


# One launch per gradient instead of 2 (and no concatenation, isfinite, all, ... per group): the
# gradient's inf/NaN check and its unscaling. A non-finite element sets the device's flag found[0]
# to 1 (checked before unscaling, as PyTorch checks the scaled values); several elements writing
# it at once is safe, as they all write the same value. Finite elements write nothing.
_UNSCALE_AND_CHECK = ElementwiseKernel(
    "unscale_and_check",
    "float32 inv_scale",
    "T g, raw float32 found",  # an output: CuPy passes inputs as const
    "if (!isfinite(g)) found[0] = 1;\ng = g * (T)inv_scale;",
)

# 1 / scale in float64, rounded to float32: one launch instead of 3
_INVERSE_SCALE = ElementwiseKernel(
    "inverse_scale", "float32 scale", "float32 inv", "inv = (float)(1.0 / (double)scale);"
)

# _update_scale's arithmetic in one launch instead of about 20
_UPDATE_SCALE = ElementwiseKernel(
    "update_scale",
    "float32 found, int32 interval, float64 growth, float64 backoff",
    "float32 scale, int32 tracker",
    """
    bool skipped = found > (float)0;
    int successful = tracker + 1;
    bool grow = skipped ? (bool)0 : successful == interval;
    float grown = (float)((double)scale * growth);
    grown = isfinite(grown) ? grown : scale;
    float kept = grow ? grown : scale;
    float backed_off = (float)((double)scale * backoff);
    scale = skipped ? backed_off : kept;
    int counted = grow ? 0 : successful;
    tracker = skipped ? 0 : counted;
    """,
)
