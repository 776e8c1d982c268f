"""Random configurations of convolutions, pooling, padding, upsampling and pixel shuffles for the
nn differential test (``nn_diff``). Each generator takes a NumPy Generator and returns a Case;
most configurations are valid, a few are drawn just outside the valid range on purpose so that
the error behaviour is compared too."""

from __future__ import annotations

import numpy as np

from .nn_diff import Case, T


def dtype(rng: np.random.Generator) -> str:
    return str(rng.choice(["float32", "float64"]))


def _tup(rng, d, lo, hi):
    """An int or a d-tuple of ints in [lo, hi]."""
    if rng.random() < 0.5:
        return int(rng.integers(lo, hi + 1))
    return tuple(int(v) for v in rng.integers(lo, hi + 1, d))


def _batch(rng, d, c, lo=3, hi=7):
    """An input shape (N, C, *spatial) or, one time in six, the unbatched (C, *spatial)."""
    spatial = tuple(int(v) for v in rng.integers(lo, hi + 1, d))
    if rng.random() < 1 / 6:
        return (c, *spatial)
    return (int(rng.integers(1, 3)), c, *spatial)


def conv(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    groups = int(rng.choice([1, 1, 2, 3]))
    cin = groups * int(rng.integers(1, 3))
    cout = groups * int(rng.integers(1, 3))
    if rng.random() < 0.05:
        cout += 1  # not divisible by groups: both must refuse
    k = _tup(rng, d, 1, 3)
    kw = {"stride": _tup(rng, d, 1, 2), "dilation": _tup(rng, d, 1, 2), "groups": groups}
    kw["bias"] = bool(rng.random() < 0.7)
    r = rng.random()
    if r < 0.2:
        kw["padding"] = str(rng.choice(["same", "valid"]))
        if kw["padding"] == "same" and rng.random() < 0.8:
            kw["stride"] = 1  # 'same' with stride > 1 must raise
    else:
        kw["padding"] = _tup(rng, d, 0, 2)
    kw["padding_mode"] = str(rng.choice(["zeros", "zeros", "reflect", "replicate", "circular"]))
    shape = _batch(rng, d, cin, 4, 7)
    return Case(
        f"nn.Conv{d}d", (cin, cout, k), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng)
    )


def conv_transpose(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    groups = int(rng.choice([1, 1, 2]))
    cin = groups * int(rng.integers(1, 3))
    cout = groups * int(rng.integers(1, 3))
    k = _tup(rng, d, 1, 3)
    stride = _tup(rng, d, 1, 3)
    dilation = _tup(rng, d, 1, 2)
    s = stride if isinstance(stride, tuple) else (stride,) * d
    dl = dilation if isinstance(dilation, tuple) else (dilation,) * d
    # output_padding must be < stride or < dilation; draw within (and sometimes one past) that
    op = tuple(
        int(rng.integers(0, max(a, b) + (1 if rng.random() < 0.05 else 0))) for a, b in zip(s, dl)
    )
    kw = {
        "stride": stride,
        "padding": _tup(rng, d, 0, 1),
        "output_padding": op,
        "groups": groups,
        "bias": bool(rng.random() < 0.7),
        "dilation": dilation,
    }
    shape = _batch(rng, d, cin, 2, 5)
    call = {}
    if rng.random() < 0.3:  # output_size: the smallest size plus 0 .. stride - 1 (or one past)
        per = [v if isinstance(v, tuple) else (v,) * d for v in (k, kw["padding"])]
        low = [(n - 1) * st - 2 * pd + dd * (kk - 1) + 1
               for n, st, pd, dd, kk in zip(shape[-d:], s, per[1], dl, per[0])]  # fmt: skip
        extra = [int(rng.integers(0, st + (1 if rng.random() < 0.05 else 0))) for st in s]
        call = {"output_size": [lo + e for lo, e in zip(low, extra)]}
    return Case(
        f"nn.ConvTranspose{d}d",
        (cin, cout, k),
        kw,
        [T(rng.standard_normal(shape))],
        call,
        dtype=dtype(rng),
    )


def max_pool(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    k = _tup(rng, d, 1, 3)
    kmax = max(k) if isinstance(k, tuple) else k
    kw = {
        "stride": None if rng.random() < 0.3 else _tup(rng, d, 1, 3),
        "padding": int(rng.integers(0, kmax // 2 + 1 + (rng.random() < 0.05))),
        "dilation": _tup(rng, d, 1, 2),
        "ceil_mode": bool(rng.random() < 0.5),
        "return_indices": bool(rng.random() < 0.3),
    }
    shape = _batch(rng, d, int(rng.integers(1, 3)), 3, 7)
    x = rng.permutation(np.prod(shape)).reshape(shape) / 7.0  # no ties: one argmax per window
    return Case(f"nn.MaxPool{d}d", (k,), kw, [T(x)], dtype=dtype(rng))


def avg_pool(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    k = _tup(rng, d, 1, 3)
    kmin = min(k) if isinstance(k, tuple) else k
    kw = {
        "stride": None if rng.random() < 0.3 else _tup(rng, d, 1, 3),
        "padding": int(rng.integers(0, kmin // 2 + 1 + (rng.random() < 0.05))),
        "ceil_mode": bool(rng.random() < 0.5),
        "count_include_pad": bool(rng.random() < 0.5),
    }
    if d > 1 and rng.random() < 0.3:
        kw["divisor_override"] = int(rng.integers(1, 5))
    shape = _batch(rng, d, int(rng.integers(1, 3)), 3, 7)
    return Case(f"nn.AvgPool{d}d", (k,), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def adaptive_pool(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    kind = str(rng.choice(["Avg", "Max"]))
    out = _tup(rng, d, 1, 5)
    if isinstance(out, tuple) and rng.random() < 0.2:
        out = tuple(None if rng.random() < 0.5 else o for o in out)
    kw = {"return_indices": bool(rng.random() < 0.3)} if kind == "Max" else {}
    shape = _batch(rng, d, int(rng.integers(1, 3)), 2, 8)
    x = rng.permutation(np.prod(shape)).reshape(shape) / 7.0
    return Case(f"nn.Adaptive{kind}Pool{d}d", (out,), kw, [T(x)], dtype=dtype(rng))


def max_unpool(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    k = int(rng.integers(2, 4))
    s = int(rng.integers(1, k + 1))
    shape = _batch(rng, d, 2, k, k + 4)
    x = rng.permutation(np.prod(shape)).reshape(shape) / 7.0
    return Case("X.max_unpool", (d, k, s), {}, [T(x)], dtype=dtype(rng))


def pad(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    mode = str(rng.choice(["Constant", "Zero", "Reflection", "Replication", "Circular"]))
    shape = _batch(rng, d, 2, 3, 5)
    hi = 2 if mode == "Reflection" else 3
    p = (
        int(rng.integers(0, hi + 1))
        if rng.random() < 0.4
        else tuple(int(v) for v in rng.integers(-1 if mode != "Reflection" else 0, hi + 1, 2 * d))
    )
    if mode == "Reflection" and rng.random() < 0.05:
        p = 5  # past the input size: must raise
    args = (p, 1.5) if mode == "Constant" else (p,)
    return Case(f"nn.{mode}Pad{d}d", args, {}, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def f_pad(rng: np.random.Generator) -> Case:
    nd = int(rng.integers(2, 6))
    shape = tuple(int(v) for v in rng.integers(2, 5, nd))
    mode = str(rng.choice(["constant", "reflect", "replicate", "circular"]))
    npairs = (
        int(rng.integers(1, min(3, nd - 1) + 1))
        if mode != "constant"
        else int(rng.integers(1, nd + 1))
    )
    lo = -1 if mode in ("constant", "circular") else 0
    p = tuple(int(v) for v in rng.integers(lo, 3, 2 * npairs))
    kw = {"mode": mode}
    if mode == "constant":
        kw["value"] = float(rng.choice([0.0, -2.5]))
    return Case("F.pad", (p,), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def interpolate(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    modes = {
        1: ["nearest", "nearest-exact", "linear", "area"],
        2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
        3: ["nearest", "nearest-exact", "trilinear", "area"],
    }[d]
    mode = str(rng.choice(modes))
    shape = (int(rng.integers(1, 3)), 2, *(int(v) for v in rng.integers(2, 6, d)))
    kw: dict = {"mode": mode}
    if rng.random() < 0.5:
        kw["size"] = _tup(rng, d, 1, 9)
    else:
        sf = [float(rng.choice([0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0])) for _ in range(d)]
        kw["scale_factor"] = sf[0] if rng.random() < 0.5 else tuple(sf)
        if rng.random() < 0.5:
            kw["recompute_scale_factor"] = bool(rng.random() < 0.5)
    if mode in ("linear", "bilinear", "bicubic", "trilinear"):
        kw["align_corners"] = bool(rng.random() < 0.5)
    elif rng.random() < 0.05:
        kw["align_corners"] = True  # not allowed for this mode: must raise
    if mode in ("bilinear", "bicubic") and rng.random() < 0.3:
        kw["antialias"] = True
    return Case("F.interpolate", (), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def upsample(rng: np.random.Generator) -> Case:
    d = 2
    shape = (1, 2, int(rng.integers(2, 5)), int(rng.integers(2, 5)))
    name = str(rng.choice(["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]))
    kw = {"size": _tup(rng, d, 2, 7)} if rng.random() < 0.5 else {"scale_factor": 2.0}
    if name == "Upsample":
        kw["mode"] = str(rng.choice(["nearest", "bilinear", "bicubic"]))
        if kw["mode"] != "nearest":
            kw["align_corners"] = bool(rng.random() < 0.5)
    return Case(f"nn.{name}", (), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def pixel_shuffle(rng: np.random.Generator) -> Case:
    r = int(rng.integers(1, 4))
    lead = tuple(int(v) for v in rng.integers(1, 3, int(rng.integers(0, 3))))
    if rng.random() < 0.5:
        c = int(rng.integers(1, 3)) * r * r + (1 if rng.random() < 0.05 else 0)
        shape = (*lead, c, int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        return Case("nn.PixelShuffle", (r,), {}, [T(rng.standard_normal(shape))], dtype=dtype(rng))
    h, w = (r * int(rng.integers(1, 3)) for _ in range(2))
    shape = (*lead, int(rng.integers(1, 3)), h, w)
    return Case("nn.PixelUnshuffle", (r,), {}, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def channel_shuffle(rng: np.random.Generator) -> Case:
    g = int(rng.integers(1, 4))
    shape = (2, g * int(rng.integers(1, 3)), 3, 2)
    return Case("nn.ChannelShuffle", (g,), {}, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def lp_pool(rng: np.random.Generator) -> Case:
    d = int(rng.integers(1, 4))
    k = int(rng.integers(1, 4)) if d == 1 else _tup(rng, d, 1, 3)
    stride = (
        None if rng.random() < 0.4 else (int(rng.integers(1, 4)) if d == 1 else _tup(rng, d, 1, 3))
    )
    p = float(rng.choice([1.0, 2.0, 3.0, 1.5]))
    shape = _batch(rng, d, int(rng.integers(1, 3)), 3, 6)
    x = rng.standard_normal(shape)
    x = np.abs(x) + 0.1 if p == 1.5 else x  # a fractional power of a negative number is NaN
    return Case(f"nn.LPPool{d}d", (p, k), {"stride": stride, "ceil_mode": bool(rng.random() < 0.4)},
                [T(x)], dtype=dtype(rng))  # fmt: skip


def fold_unfold(rng: np.random.Generator) -> Case:
    """nn.Unfold on an image, or nn.Fold of columns drawn for a matching image size."""
    k, dl, pd, st = (_tup(rng, 2, lo, hi) for lo, hi in ((1, 3), (1, 2), (0, 1), (1, 2)))
    per = [v if isinstance(v, tuple) else (v, v) for v in (k, dl, pd, st)]
    size = tuple(int(v) for v in rng.integers(3, 7, 2))
    kw = {"dilation": dl, "padding": pd, "stride": st}
    c = int(rng.integers(1, 3))
    lead = () if rng.random() < 0.2 else (int(rng.integers(1, 3)),)
    if rng.random() < 0.5:
        shape = (*lead, c, *size)
        return Case("nn.Unfold", (k,), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))
    blocks = [(n + 2 * p - d * (kk - 1) - 1) // s + 1 for n, kk, d, p, s in zip(size, *per)]
    length = blocks[0] * blocks[1] + (1 if rng.random() < 0.05 else 0)  # one too many: raise
    shape = (*lead, c * per[0][0] * per[0][1], max(length, 1))
    return Case("nn.Fold", (size, k), kw, [T(rng.standard_normal(shape))], dtype=dtype(rng))


def grid_sample(rng: np.random.Generator) -> Case:
    """Points inside, outside and far outside (reflection wraps several times), both
    align_corners, 2-D and 3-D; now and then a mode, padding or grid PyTorch refuses."""
    d = int(rng.choice([2, 2, 3]))
    mode = str(
        rng.choice(["bilinear", "nearest", "bicubic"] if d == 2 else ["bilinear", "nearest"])
    )
    pm = str(rng.choice(["zeros", "border", "reflection"]))
    if rng.random() < 0.03:
        mode = "bicubic"  # 3-D bicubic, or fine in 2-D
    if rng.random() < 0.03:
        pm = "circular"  # not a grid_sample padding: both raise ValueError
    n = int(rng.integers(1, 3))
    spatial = tuple(int(v) for v in rng.integers(1, 6, d))
    out = tuple(int(v) for v in rng.integers(1, 5, d))
    reach = float(rng.choice([1.0, 1.5, 4.0]))
    grid = rng.uniform(-reach, reach, (n, *out, d))
    if rng.random() < 0.03:
        grid = grid[..., :1]  # the last dim must be the input's spatial rank
    x = T(rng.standard_normal((n, int(rng.integers(1, 4)), *spatial)))
    kw = {"mode": mode, "padding_mode": pm, "align_corners": bool(rng.random() < 0.5)}
    return Case("F.grid_sample", (), kw, [x, T(grid)], dtype=dtype(rng))


def affine_grid(rng: np.random.Generator) -> Case:
    """2-D and 3-D sizes, unit sizes, both align_corners; now and then a theta of the wrong
    shape or a size of 0 (both raise)."""
    d = int(rng.choice([2, 3]))
    n = int(rng.integers(1, 3))
    size = (n, int(rng.integers(1, 4)), *(int(v) for v in rng.integers(1, 6, d)))
    theta = rng.standard_normal((n, d, d + 1))
    if rng.random() < 0.04:
        theta = theta[..., :d]  # not N x d x (d + 1)
    if rng.random() < 0.04:
        size = (*size[:-1], 0)
    kw = {"align_corners": bool(rng.random() < 0.5)}
    return Case("F.affine_grid", (size,), kw, [T(theta)], dtype=dtype(rng))


GENERATORS = {
    "conv": conv,
    "conv_transpose": conv_transpose,
    "max_pool": max_pool,
    "avg_pool": avg_pool,
    "adaptive_pool": adaptive_pool,
    "max_unpool": max_unpool,
    "pad": pad,
    "f_pad": f_pad,
    "interpolate": interpolate,
    "upsample": upsample,
    "pixel_shuffle": pixel_shuffle,
    "channel_shuffle": channel_shuffle,
    "fold_unfold": fold_unfold,
    "lp_pool": lp_pool,
    "grid_sample": grid_sample,
    "affine_grid": affine_grid,
}
