"""``F.affine_grid`` and ``F.grid_sample``: spatial transformers (reading an image at points).

``affine_grid(theta, size)`` gives, for every output pixel, the point of the input to read: the
normalised output coordinates (x, y[, z]) in [-1, 1] (PyTorch's ``linspace(-1, 1, n)``, shrunk
by (n - 1) / n when ``align_corners=False`` so that they name pixel centres) mapped by theta:

    grid[n, h, w] = theta[n] @ (x_w, y_h, 1)            (2-D: theta is N x 2 x 3)

``grid_sample(input, grid)`` reads input (N, C, H, W) at the points grid (N, H', W', 2), whose
last dim holds (x, y) normalised to [-1, 1]. A normalised coordinate g is first unnormalised to
a pixel coordinate of a dim of size n:

    align_corners=True:   i = (g + 1) / 2 * (n - 1)      (-1 and 1 are the corner pixels' centres)
    align_corners=False:  i = ((g + 1) * n - 1) / 2      (-1 and 1 are the corner pixels' edges)

then ``padding_mode`` says what lies outside: ``zeros`` reads 0 there; ``border`` clamps i to
[0, n - 1]; ``reflection`` mirrors i about the borders (about the pixel centres 0 and n - 1, or
the edges -0.5 and n - 0.5 without align_corners) as often as needed, then clamps. The modes:

    nearest:   input at round(i) (half to even); no gradient to the grid
    bilinear:  sum over the 2^d corners floor(i) + {0, 1} of prod_k (1 - |i_k - corner_k|) * value
    bicubic:   4 x 4 taps floor(i) - 1 .. floor(i) + 2 weighted by the cubic convolution kernel
               (a = -0.75), each tap's index padded on its own (4-D input only)

Both are compositions of differentiable tensor ops (a gather of the flattened input at the corner
positions, times weights computed from the grid), so the gradient to the input is the scatter-add
of dL/dy times the weights, and the gradient to the grid comes from the weights' derivatives,
exactly as PyTorch's kernels compute them (corners read as 0 contribute nothing; a clamped
coordinate has zero gradient outside; a reflection flips its sign).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from ...backend import get_array_module, quiet_fp
from ...creation import linspace
from ...ops.round_once import in_float32, same_two_byte_float

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)
_CUBIC_A = -0.75  # PyTorch's cubic convolution coefficient (as in interpolate's bicubic)


def _align(align_corners: Any) -> bool:
    """None means False with PyTorch's warning that the default changed."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


# --- affine_grid -------------------------------------------------------------------------------


def _base_coords(steps: int, align_corners: bool, like: Tensor) -> Any:
    """linspace(-1, 1, steps), times (steps - 1) / steps without align_corners; [0] for one step.

    Rounded as PyTorch rounds them (its linspace, then ``range * (steps - 1) / steps``: a product
    and a quotient, each in the dtype): the identity map lands on pixel centres up to rounding,
    where one ulp more or less moves bilinear's floor to the next pixel and the gradient with
    respect to the grid (one-sided there) to the next pair of pixels: a spatial transformer
    starting at the identity takes PyTorch's first step only with PyTorch's coordinates."""
    xp = get_array_module(like._data)
    if steps <= 1:
        return xp.zeros(1, dtype=like._data.dtype)
    coords = linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)._data
    if align_corners:
        return coords
    kind = coords.dtype.type
    return (coords * kind(steps - 1)) / kind(steps)


def affine_grid(theta: Tensor, size: Any, align_corners: Any = None) -> Tensor:
    """The sampling grid of the affine maps theta (N, 2, 3) for size (N, C, H, W), or theta
    (N, 3, 4) for (N, C, D, H, W): grid[n, ..., :] = theta[n] @ (x, y[, z], 1), where (x, y, z)
    are the output pixel's normalised coordinates (the last dim of the result is (x, y[, z]))."""
    align_corners = _align(align_corners)
    if not isinstance(theta, Tensor):
        raise TypeError(f"affine_grid(): theta must be a Tensor, got {type(theta).__name__}")
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"affine_grid(): expected theta's batch size {theta.shape[0]} to equal size[0] "
            f"= {size[0]}"
        )
    xp = get_array_module(theta._data)
    # coordinates per spatial dim, innermost (x, the last dim) first: (x, y[, z], 1)
    axes = [_base_coords(s, align_corners, theta) for s in reversed(spatial)]
    mesh = xp.meshgrid(*reversed(axes), indexing="ij")  # each (D?, H, W)
    base = xp.stack([*reversed(mesh), xp.ones_like(mesh[0])], axis=-1)
    base_t = Tensor._make(base.reshape(1, -1, len(spatial) + 1), False)
    grid = base_t @ theta.transpose(1, 2)  # (N, prod(spatial), d)
    return grid.reshape(size[0], *spatial, len(spatial))


# --- grid_sample -------------------------------------------------------------------------------


def _check_sample_args(input: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:  # noqa: A002
    """PyTorch's checks, in its order and with its exception types."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if not isinstance(input, Tensor) or not isinstance(grid, Tensor):
        raise TypeError("grid_sample(): input and grid must be Tensors")
    if input.device != grid.device:
        raise RuntimeError(
            "grid_sampler(): expected input and grid to be on same device, but input is on "
            f"{input.device} and grid is on {grid.device}"
        )
    shapes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.ndim < 1 or grid.ndim < 1 or input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {shapes}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {list(grid.shape)}"
        )
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got {shapes}"
        )
    for d in range(2, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                f"has sizes {list(input.shape)} with dimension {d} being empty"
            )
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        raise NotImplementedError(f'"grid_sampler" not implemented for {input.dtype}')
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have same dtype, but input has "
            f"{input.dtype} and grid has {grid.dtype}"
        )


def _unnormalize(g: Tensor, n: int, align_corners: bool, d: int) -> Tensor:
    """A normalised coordinate in [-1, 1] as a pixel coordinate of a dim of size n, rounded as
    PyTorch's CPU kernels round it: (g + 1) * s - 0.5 or (g + 1) * s (s = n / 2 or (n - 1) / 2)
    in 2-D, ((g + 1) * n - 1) / 2 or (g + 1) / 2 * (n - 1) in 3-D (equal but for the last bit,
    which decides float32's nearest ties)."""
    if d == 2:
        return (g + 1) * ((n - 1) / 2) if align_corners else (g + 1) * (n / 2) - 0.5
    if align_corners:
        return (g + 1) / 2 * (n - 1)
    return ((g + 1) * n - 1) / 2


def _reflect(i: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """i mirrored into [low, high] (bounds given doubled, to stay integers): with span =
    high - low and t = |i - low|, the result is low + t mod span after an even number of
    reflections floor(t / span), low + span - t mod span after an odd one. The signs and the
    multiples of span taken off are constants, so the gradient is +1 or -1 (PyTorch's)."""
    if twice_low == twice_high:
        return i * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    xp = get_array_module(i._data)
    dt = i._data.dtype
    shifted = i._data - low
    t_data = xp.abs(shifted)
    flips = xp.floor(t_data / span)
    odd = (flips % 2) == 1
    sign = xp.where(shifted < 0, -1.0, 1.0) * xp.where(odd, -1.0, 1.0)
    # even: low + (t - flips span); odd: low + span - (t - flips span)
    offset = xp.where(odd, low + span + flips * span, low - flips * span)
    return (i - low) * Tensor._make(sign.astype(dt), False) + Tensor._make(offset.astype(dt), False)


def _clip(i: Tensor, n: int) -> Tensor:
    """i clamped to [0, n - 1], with gradient 1 strictly inside and 0 on or beyond the borders
    (PyTorch's grid sampler counts the borders as outside for the gradient)."""
    xp = get_array_module(i._data)
    dt = i._data.dtype
    inside = (i._data > 0) & (i._data < n - 1)
    rest = xp.where(inside, 0.0, xp.clip(i._data, 0, n - 1)).astype(dt)
    return i * Tensor._make(inside.astype(dt), False) + Tensor._make(rest, False)


def _pad_coordinate(i: Tensor, n: int, padding_mode: str, align_corners: bool) -> Tensor:
    """border: clamp to [0, n - 1]; reflection: mirror about the borders, then clamp (rounding
    may leave a hair outside); zeros: unchanged (out-of-range reads give 0 later)."""
    if padding_mode == "border":
        return _clip(i, n)
    if padding_mode == "reflection":
        i = _reflect(i, 0, 2 * (n - 1)) if align_corners else _reflect(i, -1, 2 * n - 1)
        return _clip(i, n)
    return i


def _read(flat: Tensor, spatial: tuple, corner: list, xp: Any) -> Tensor:
    """flat (N, C, prod(spatial)) read at integer positions corner[k] (N, P) per dim: the
    values (N, C, P), 0 where a position falls outside the input."""
    inside = xp.ones(corner[0].shape, dtype=bool)
    index = xp.zeros(corner[0].shape, dtype=xp.int64)
    for k, n in enumerate(spatial):
        inside &= (corner[k] >= 0) & (corner[k] < n)
        index = index * n + xp.clip(corner[k], 0, n - 1).astype(xp.int64)
    batch, channels = flat.shape[:2]
    index = xp.ascontiguousarray(
        xp.broadcast_to(index[:, None, :], (batch, channels, index.shape[1]))
    )
    values = flat.gather(2, Tensor._make(index, False))
    if bool(inside.all()):
        return values
    return values * Tensor._make(inside[:, None, :].astype(flat._data.dtype), False)


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """The cubic convolution weights of the taps at distances 1 + t, t, 1 - t, 2 - t."""
    a = _CUBIC_A

    def near(x: Tensor) -> Tensor:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


@quiet_fp  # NaN or far-out grid points: NaN or 0 samples, silently, as in PyTorch
def grid_sample(
    input: Tensor,  # noqa: A002
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: Any = None,
) -> Tensor:
    """input (N, C, H, W) [or (N, C, D, H, W)] read at grid (N, H', W', 2) [(N, D', H', W', 3)],
    whose last dim holds normalised (x, y[, z]): the result is (N, C, H', W') [(N, C, D', H',
    W')]. See the module docstring for the unnormalisation, padding and interpolation rules."""
    _check_sample_args(input, grid, mode, padding_mode)
    if same_two_byte_float(input, grid):  # float32 inside, rounded once, as PyTorch's kernel
        return in_float32(grid_sample, input, grid, mode, padding_mode, align_corners)
    align_corners = _align(align_corners)
    xp = get_array_module(input._data)
    d = input.ndim - 2
    spatial = tuple(input.shape[2:])  # (D,) H, W
    out_spatial = tuple(grid.shape[1:-1])
    batch, channels = input.shape[:2]
    points = math.prod(out_spatial)
    flat = input.reshape(batch, channels, math.prod(spatial))
    g = grid.reshape(batch, points, d)
    # grid's last dim is (x, y[, z]): x indexes the last spatial dim, so reverse it
    coords = [_unnormalize(g[..., d - 1 - k], spatial[k], align_corners, d) for k in range(d)]
    if mode == "bicubic":
        out = _bicubic(flat, spatial, coords, padding_mode, align_corners, xp)
    else:
        coords = [
            _pad_coordinate(c, n, padding_mode, align_corners) for c, n in zip(coords, spatial)
        ]
        if mode == "nearest":
            corner = [xp.round(c._data) for c in coords]  # half to even, as nearbyint
            out = _read(flat, spatial, corner, xp)
            if grid.requires_grad:  # PyTorch gives the grid a zero gradient, not none
                finite = Tensor._make(xp.isfinite(g._data).all(-1), False)
                out = out + (g.sum(-1) * 0).where(finite, 0.0).unsqueeze(1)
        else:
            out = _multilinear(flat, spatial, coords, xp)
    return out.reshape(batch, channels, *out_spatial)


def _multilinear(flat: Tensor, spatial: tuple, coords: list, xp: Any) -> Tensor:
    """Sum over the 2^d corners of the cell holding each point of weight x value, the weight
    being prod_k (1 - t_k) or t_k (t_k = i_k - floor(i_k)) as the corner is low or high in dim k."""
    lows = [xp.floor(c._data) for c in coords]
    fracs = [c - Tensor._make(lo, False) for c, lo in zip(coords, lows)]
    out = None
    for bits in range(2 ** len(spatial)):
        high = [(bits >> (len(spatial) - 1 - k)) & 1 for k in range(len(spatial))]
        weight = None
        for t, h in zip(fracs, high):
            w = t if h else 1 - t
            weight = w if weight is None else weight * w
        corner = [lo + h for lo, h in zip(lows, high)]
        term = _read(flat, spatial, corner, xp) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(
    flat: Tensor, spatial: tuple, coords: list, padding_mode: str, align_corners: bool, xp: Any
) -> Tensor:
    """4 x 4 taps around each point, weighted by the cubic kernel of the fractional parts; each
    tap's integer position is padded on its own (so the grid gradient comes from the weights)."""
    (h, w), (iy, ix) = spatial, coords
    y0, x0 = xp.floor(iy._data), xp.floor(ix._data)
    wy = _cubic_weights(iy - Tensor._make(y0, False))
    wx = _cubic_weights(ix - Tensor._make(x0, False))

    def padded(pos: Any, n: int) -> Any:
        p = _pad_coordinate(Tensor._make(pos, False), n, padding_mode, align_corners)._data
        return p.astype(xp.int64) if padding_mode != "zeros" else pos

    out = None
    for r in range(4):
        row = None
        yr = padded(y0 - 1 + r, h)
        for c in range(4):
            term = _read(flat, spatial, [yr, padded(x0 - 1 + c, w)], xp) * wx[c].unsqueeze(1)
            row = term if row is None else row + term
        term = row * wy[r].unsqueeze(1)
        out = term if out is None else out + term
    return out
