"""Conv3d and ConvTranspose3d: the layers over ``F.conv3d`` / ``F.conv_transpose3d``
(``functional/conv3d.py``), for volumes (N, C, D, H, W). They are ``_ConvNd`` /
``_ConvTransposeNd`` (``conv.py``, ``conv_variants.py``) with triples of sizes: the weight is
(C_out, C_in/groups, kd, kh, kw) (transposed: (C_in, C_out/groups, kd, kh, kw)), initialised as
the other convolutions are, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = weight.shape[1] *
kd * kh * kw.
"""

from __future__ import annotations

from typing import Any

from ..ops.windows_nd import ntuple
from . import functional as F
from .conv import _ConvNd
from .conv_variants import _ConvTransposeNd


def _triple(value: Any, name: str) -> tuple[int, int, int]:
    return ntuple(value, 3, name)  # type: ignore[return-value]


class Conv3d(_ConvNd):
    """Applies ``F.conv3d`` to a (N, C_in, D, H, W) or (C_in, D, H, W) input with a learned
    weight (C_out, C_in/groups, kd, kh, kw) and bias (C_out,)."""

    _conv = staticmethod(F.conv3d)
    _ntuple = staticmethod(_triple)


class ConvTranspose3d(_ConvTransposeNd):
    """Applies ``F.conv_transpose3d`` with a learned weight (C_in, C_out/groups, kd, kh, kw) and
    bias (C_out,). ``forward(input, output_size=None)``: an output_size picks the output_padding."""

    _conv_transpose = staticmethod(F.conv_transpose3d)
    _ntuple = staticmethod(_triple)
