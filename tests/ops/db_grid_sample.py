"""F.grid_sample and F.affine_grid: each output point read on its own by the loop references of
``references_grid.py`` (PyTorch's unnormalisation, padding and interpolation rules). The grids
keep their points off integer pixel coordinates, where the sampler has kinks, so that finite
differences check the gradients to both the input and the grid."""

from __future__ import annotations

import numpy as np

from .core import T
from .db_nn import LOOSE
from .references_grid import affine_grid_ref, grid_sample_ref
from .simple import S, op


def _sample_ref(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    x, grid = np.asarray(x, np.float64), np.asarray(grid, np.float64)
    return grid_sample_ref(x, grid, mode, padding_mode, bool(align_corners))


def _affine_ref(theta, size, align_corners=None):
    return affine_grid_ref(np.asarray(theta, np.float64), tuple(size), bool(align_corners))


def _grid(m, *shape, dtype="float64"):
    """Points in [-1.6, 1.6] (some outside the image) midway between multiples of 1/60: the
    pixel coordinates and borders of sizes 2 to 6 (where the sampler has kinks) fall on such
    multiples for both align_corners, so no point sits on a kink."""
    v = m.rng.uniform(-1.6, 1.6, shape)
    return T(np.round(v * 60) / 60 + 1 / 120, dtype)  # midway between multiples of 1/60


def _samples(m):
    return [
        S(m(1, 2, 3, 4), _grid(m, 1, 2, 3, 2), align_corners=False),
        S(m(2, 1, 4, 3), _grid(m, 2, 3, 2, 2), "bilinear", "border", True),
        S(m(1, 2, 3, 5), _grid(m, 1, 2, 2, 2), "bilinear", "reflection", False),
        S(m(1, 1, 4, 4), _grid(m, 1, 2, 2, 2), "bicubic", "zeros", True),
        S(m(1, 1, 3, 4), _grid(m, 1, 2, 2, 2), "bicubic", "reflection", False),
        S(m(1, 2, 3, 3, 4), _grid(m, 1, 2, 2, 2, 3), "bilinear", "reflection", True),
        S(m(1, 2, 3, 4), _grid(m, 1, 2, 2, 2), "nearest", "border", False, gradgrad=False),
        S(
            m(1, 2, 3, 4, dtype="float32"),
            _grid(m, 1, 2, 3, 2, dtype="float32"),
            align_corners=True,
            grad=False,
        ),
    ]


ENTRIES = [
    op("F.grid_sample", _sample_ref, _samples, method=False, tol=LOOSE),
    op(
        "F.affine_grid",
        _affine_ref,
        lambda m: [
            S(m(2, 2, 3), (2, 3, 4, 5), align_corners=False),
            S(m(1, 2, 3), (1, 1, 1, 3), align_corners=False),
            S(m(1, 3, 4), (1, 2, 2, 3, 2), align_corners=True),
            S(m(2, 2, 3, dtype="float32"), (2, 1, 3, 3), align_corners=True),
        ],
        method=False,
        tol=LOOSE,
    ),
]
