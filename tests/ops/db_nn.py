"""nn.functional's layers that are not convolutions or pools: linear / bilinear, embedding,
one_hot, pad, the pixel / channel shuffles, the normalizations (layer, rms, group, instance,
batch in training and eval, local response, F.normalize), the distances (cosine_similarity,
pairwise_distance), scaled dot-product attention and dropout where it is a function (p = 0, or
not training).

The references are the definitions in NumPy: a mean and a variance over the named axes, a sum
over a window of channels, softmax(q k^T / sqrt(d) + mask) v.
"""

from __future__ import annotations

import numpy as np

from .core import T
from .simple import S, op

LOOSE = {
    "float64": (1e-9, 1e-11),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}


# Shapes that do not fit: PyTorch raises RuntimeError; linear, layer_norm, rms_norm and attention
# raise ValueError here. Either is accepted (a difference of exception type, not of behaviour)
SHAPE_ERROR = (ValueError, RuntimeError)


def _f(x):
    return np.asarray(x, np.float64)


# -------------------------------------------------------------------------- linear, embedding
def _linear(x, w, b=None):
    y = _f(x) @ _f(w).T
    return y if b is None else y + b


def _bilinear(x1, x2, w, b=None):
    y = np.einsum("...i,oij,...j->...o", _f(x1), _f(w), _f(x2))
    return y if b is None else y + b


def _embedding(idx, w, padding_idx=None, **_):
    return _f(w)[idx]


def _embedding_bag(idx, w, offsets=None, mode="mean", per_sample_weights=None,
                   include_last_offset=False, padding_idx=None, **_):  # fmt: skip
    """Each bag's rows (padding entries left out) summed, averaged or maxed; empty bags 0."""
    idx, w = np.asarray(idx), _f(w)
    if idx.ndim == 2:
        bounds = [i * idx.shape[1] for i in range(len(idx) + 1)]
        idx = idx.reshape(-1)
    else:
        bounds = list(np.asarray(offsets)) + ([] if include_last_offset else [idx.size])
    psw = np.ones(idx.size) if per_sample_weights is None else _f(per_sample_weights).reshape(-1)
    out = np.zeros((len(bounds) - 1, w.shape[1]))
    for b, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        pos = [p for p in range(lo, hi) if idx[p] != padding_idx]
        if pos:
            rows = w[idx[pos]] * psw[pos][:, None]
            out[b] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0)}[mode]
    return out


def _one_hot(t, num_classes=-1):
    n = int(t.max()) + 1 if num_classes == -1 else num_classes
    return (np.asarray(t)[..., None] == np.arange(n)).astype(np.int64)


# ---------------------------------------------------------------------------------------- pad
def _pad(x, pad, mode="constant", value=None):
    x = _f(x)
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode == "constant":
        cut = tuple(
            slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in widths
        )  # negative padding crops
        widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
        return np.pad(x[cut], widths, constant_values=0.0 if value is None else value)
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(x, widths, mode=np_mode)


# --------------------------------------------------------------------------------- shuffles
def _pixel_shuffle(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    y = np.moveaxis(y, (-4, -3), (-2, -1))  # (.., c', h, w, r, r) -> interleave
    y = np.swapaxes(y, -3, -2)  # (.., c', h, r, w, r)
    return y.reshape(*b, c // (r * r), h * r, w * r)


def _pixel_unshuffle(x, r):
    *b, c, h, w = x.shape
    y = x.reshape(*b, c, h // r, r, w // r, r)
    y = np.moveaxis(y, (-3, -1), (-4, -3))  # (.., c, r, r, h', w')
    return y.reshape(*b, c * r * r, h // r, w // r)


def _channel_shuffle(x, groups):
    n, c = x.shape[:2]
    return x.reshape(n, groups, c // groups, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


# ----------------------------------------------------------------------------- normalizations
def _standardize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def _affine(y, w, b, channel_axis=None):
    if channel_axis is not None:
        shape = [1] * y.ndim
        shape[channel_axis] = -1
        w = None if w is None else np.reshape(w, shape)
        b = None if b is None else np.reshape(b, shape)
    y = y if w is None else y * w
    return y if b is None else y + b


def _layer_norm(x, shape, weight=None, bias=None, eps=1e-5):
    x = _f(x)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    return _affine(_standardize(x, axes, eps), weight, bias)


def _rms_norm(x, shape, weight=None, eps=None):
    x = _f(x)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    eps = np.finfo(np.float32).eps if eps is None else eps  # the input dtype's; float32 here
    y = x / np.sqrt((x * x).mean(axis=axes, keepdims=True) + eps)
    return _affine(y, weight, None)


def _group_norm(x, groups, weight=None, bias=None, eps=1e-5):
    x = _f(x)
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    y = _standardize(g, (2,), eps).reshape(x.shape)
    return _affine(y, weight, bias, 1)


def _instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, **kw):
    x = _f(x)
    y = _standardize(x, tuple(range(2, x.ndim)), kw.get("eps", 1e-5))
    return _affine(y, weight, bias, 1)


def _batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
                momentum=0.1, eps=1e-5):  # fmt: skip
    x = _f(x)
    axes = (0, *range(2, x.ndim))
    if training:
        y = _standardize(x, axes, eps)
    else:
        shape = [1, -1] + [1] * (x.ndim - 2)
        y = (x - running_mean.reshape(shape)) / np.sqrt(running_var.reshape(shape) + eps)
    return _affine(y, weight, bias, 1)


def _local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0):
    x = _f(x)
    sq = x * x
    c = x.shape[1]
    acc = np.zeros_like(x)
    for i in range(c):  # channels i - size//2 ... i + (size-1)//2, zero outside
        lo, hi = max(0, i - size // 2), min(c, i + (size - 1) // 2 + 1)
        acc[:, i] = sq[:, lo:hi].sum(axis=1)
    return x / (k + alpha / size * acc) ** beta


def _normalize(x, p=2.0, dim=1, eps=1e-12):
    x = _f(x)
    norm = np.linalg.norm(x, ord=p, axis=dim, keepdims=True) if x.ndim else np.abs(x)
    return x / np.maximum(norm, eps)


def _cosine_similarity(a, b, dim=1, eps=1e-8):
    a, b = np.broadcast_arrays(_f(a), _f(b))
    na = np.maximum(np.linalg.norm(a, axis=dim), eps)
    nb = np.maximum(np.linalg.norm(b, axis=dim), eps)
    return (a * b).sum(axis=dim) / (na * nb)


def _pairwise_distance(a, b, p=2.0, eps=1e-6, keepdim=False):
    d = _f(a) - _f(b) + eps
    return np.linalg.norm(d, ord=p, axis=-1, keepdims=keepdim)


def _sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **_):
    q, k, v = _f(q), _f(k), _f(v)
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        keep = np.tril(np.ones(s.shape[-2:], bool))
        s = np.where(keep, s, -np.inf)
    if attn_mask is not None:
        s = np.where(attn_mask, s, -np.inf) if attn_mask.dtype == bool else s + attn_mask
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def _mask(m):
    """A random bool attention mask that keeps each query's own key (no row all False)."""
    return T((m.rng.random((3, 3)) < 0.5) | np.eye(3, dtype=bool), "bool", grad=False)


def _params(m, c, dtype="float64"):
    return {"weight": m(c, dtype=dtype, lo=0.5, hi=1.5), "bias": m(c, dtype=dtype)}


ENTRIES = [
    op(
        "F.linear",
        _linear,
        lambda m: [
            S(m(3, 4), m(2, 4), m(2)),
            S(m(2, 3, 4), m(2, 4), desc="batched, no bias"),
            S(m(4), m(2, 4), m(2), desc="a vector"),
            S(m(3, 4, layout="transposed"), m(2, 4, layout="transposed"), desc="transposed"),
            S(m(0, 4), m(2, 4), m(2), desc="size-0"),
            S(m(3, 4, dtype="float32"), m(2, 4, dtype="float32"), m(2, dtype="float32")),
            S(m(3, 4, dtype="bfloat16"), m(2, 4, dtype="bfloat16")),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [
            (S(m(3, 4), m(2, 3)), SHAPE_ERROR),
            (S(m(3, 4, dtype="float32"), m(2, 4)), RuntimeError),
        ],
    ),
    op(
        "F.bilinear",
        _bilinear,
        lambda m: [
            S(m(3, 4), m(3, 2), m(5, 4, 2), m(5)),
            S(m(2, 3, 4, layout="strided"), m(2, 3, 2), m(5, 4, 2), desc="batched, no bias"),
            S(m(2, 4, dtype="float32"), m(2, 2, dtype="float32"), m(3, 4, 2, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [(S(m(3, 4), m(3, 2), m(5, 3, 2)), RuntimeError)],
    ),
    op(
        "F.embedding",
        _embedding,
        lambda m: [
            S(m.ints(0, 5, 3), m(5, 4)),
            S(m.ints(0, 5, 2, 3), m(5, 4, layout="transposed"), desc="2-d indices"),
            S(
                m.of([0, 2, 2, 1], "int64", grad=False),
                m(5, 4),
                padding_idx=2,
                desc="padding row: no gradient",
                grad=False,
            ),
            S(m.of(3, "int64", grad=False), m(5, 4), desc="0-d index"),
            S(m.ints(0, 5, 0), m(5, 4), desc="size-0"),
            S(m.ints(0, 5, 3, dtype="int32"), m(5, 4, dtype="float32")),
        ],
        method=False,
        dtype=lambda s: s.args[1].dtype,
        errors=lambda m: [
            (S(m.of([0, 5], "int64", grad=False), m(5, 4)), (IndexError, RuntimeError)),
            (S(m(2, grad=False), m(5, 4)), (TypeError, RuntimeError)),
        ],
    ),
    op(
        "F.embedding_bag",
        _embedding_bag,
        lambda m: [
            S(
                m.of([4, 1, 3, 2, 2, 0], "int64", grad=False),
                m(5, 3),
                m.of([0, 3, 5], "int64", grad=False),
                desc="offsets, mean",
            ),
            S(
                m.of([4, 1, 3, 2, 2, 0], "int64", grad=False),
                m(5, 3),
                m.of([0, 3, 3, 5], "int64", grad=False),
                mode="sum",
                desc="an empty bag",
            ),
            S(
                m.of([4, 1, 3, 2, 2, 0], "int64", grad=False),
                m(5, 3),
                m.of([0, 2, 6], "int64", grad=False),
                mode="max",
                include_last_offset=True,
                desc="max, closing offset",
            ),
            S(
                m.of([4, 1, 3, 2, 2, 0], "int64", grad=False),
                m(5, 3),
                m.of([0, 3], "int64", grad=False),
                mode="sum",
                per_sample_weights=m(6),
                desc="per-sample weights",
            ),
            S(m.ints(0, 5, 2, 3), m(5, 3), padding_idx=2, desc="2-d input, padding"),
            S(m.ints(0, 5, 2, 3, dtype="int32"), m(5, 3, dtype="float32"), mode="sum"),
        ],
        method=False,
        dtype=lambda s: s.args[1].dtype,
        errors=lambda m: [
            (
                S(m.ints(0, 5, 4), m(5, 3), m.of([0, 2], "int64", grad=False), mode="median"),
                ValueError,
            ),
            (S(m.ints(0, 5, 2, 2), m(5, 3), m.of([0], "int64", grad=False)), ValueError),
        ],
    ),
    op(
        "F.one_hot",
        _one_hot,
        lambda m: [
            S(m.ints(0, 4, 5)),
            S(m.ints(0, 3, 2, 3), num_classes=5),
            S(m.of(2, "int64", grad=False), num_classes=3, desc="0-d"),
            S(m.ints(0, 3, 0), num_classes=3, desc="size-0"),
        ],
        method=False,
        dtype="int64",
        differentiable=False,
        errors=lambda m: [
            (S(m.of([0, 3], "int64", grad=False), num_classes=3), RuntimeError),
            (S(m(3, grad=False)), RuntimeError),
        ],
    ),
    op(
        "F.pad",
        _pad,
        lambda m: [
            S(m(2, 3), (1, 2)),
            S(m(2, 3, 4), (1, 0, 2, 1), value=-1.5, desc="two dims, a value"),
            S(m(2, 3, 4, layout="transposed"), (2, -1), desc="crop"),
            S(m(1, 2, 5), (2, 3), mode="reflect"),
            S(m(1, 2, 3, 4), (1, 2, 2, 1), mode="reflect", desc="reflect 2-d"),
            S(m(1, 2, 3), (2, 3), mode="replicate"),
            S(m(1, 2, 3, 4), (1, 1, 2, 0), mode="replicate", desc="replicate 2-d"),
            S(m(1, 2, 4), (2, 3), mode="circular"),
            S(m(1, 2, 3, 4), (1, 2, 2, 1), mode="circular", desc="circular 2-d"),
            S(m(2, 0), (1, 1), desc="size-0"),
            S(m(2, 3, dtype="float32"), (1, 1)),
            S(m(2, 3, dtype="int64"), (1, 1), value=7, desc="int64"),
        ],
        method=False,
        errors=lambda m: [
            (S(m(1, 2, 3), (3, 0), mode="reflect"), (ValueError, RuntimeError)),
            (S(m(2, 3), (1, 2, 3)), (ValueError, RuntimeError)),
        ],
    ),
    op(
        "F.pixel_shuffle",
        _pixel_shuffle,
        lambda m: [
            S(m(1, 8, 2, 3), 2),
            S(m(9, 2, 2, layout="transposed"), 3, desc="unbatched, transposed"),
            S(m(2, 0, 4, 1, 1), 2, desc="size-0"),
        ],
        method=False,
        errors=lambda m: [(S(m(1, 6, 2, 2), 2), RuntimeError)],
    ),
    op(
        "F.pixel_unshuffle",
        _pixel_unshuffle,
        lambda m: [S(m(1, 2, 4, 6), 2), S(m(3, 6, 3, layout="strided"), 3, desc="unbatched")],
        method=False,
        errors=lambda m: [(S(m(1, 2, 3, 4), 2), RuntimeError)],
    ),
    op(
        "F.channel_shuffle",
        _channel_shuffle,
        lambda m: [S(m(2, 6, 3), 3), S(m(1, 4, 2, 2, layout="transposed"), 2)],
        method=False,
        errors=lambda m: [(S(m(1, 5, 2), 2), RuntimeError)],
    ),
    op(
        "F.layer_norm",
        _layer_norm,
        lambda m: [
            S(m(3, 4), (4,), **_params(m, 4)),
            S(m(2, 3, 4), (3, 4), desc="two dims, no affine"),
            S(m(3, 4, layout="transposed"), (4,), weight=m(4), desc="weight only"),
            S(m(2, 3, 4), (4,), bias=m(4), eps=0.1, desc="bias, eps"),
            S(m(0, 4), (4,), **_params(m, 4), desc="size-0"),
            S(m(3, 4, dtype="float32"), (4,), **_params(m, 4, "float32")),
            S(m(3, 4, dtype="bfloat16"), (4,), **_params(m, 4, "float32"), desc="bf16, f32 w"),
            S(m.of([[1.0, 1.0, 1.0]]), (3,), desc="constant row", gradgrad=False),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [
            (S(m(3, 4), (3,)), SHAPE_ERROR),
            (S(m(3, 4, dtype="float32"), (4,), weight=m(4)), RuntimeError),
            (S(m(3, 4, dtype="float32"), (4,), bias=m(4)), RuntimeError),
        ],
    ),
    op(
        "F.rms_norm",
        _rms_norm,
        lambda m: [
            S(m(3, 4), (4,), m(4), eps=1e-6),
            S(m(2, 3, 4, layout="transposed"), (3, 4), eps=1e-6, desc="two dims"),
            S(m(3, 4, dtype="float32"), (4,), m(4, dtype="float32")),
            S(m(0, 4), (4,), eps=1e-6, desc="size-0"),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [(S(m(3, 4), (3,)), SHAPE_ERROR)],
    ),
    op(
        "F.group_norm",
        _group_norm,
        lambda m: [
            S(m(2, 4, 3), 2, **_params(m, 4)),
            S(m(2, 6, 2, 2), 3, desc="2-d, no affine"),
            S(m(3, 4, 2, layout="transposed"), 4, weight=m(4), desc="a group per channel"),
            S(m(2, 4, 3, dtype="float32"), 1, **_params(m, 4, "float32")),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [
            (S(m(2, 4, 3), 3), RuntimeError),
            (S(m(2, 4, 3, dtype="float32"), 2, weight=m(4)), RuntimeError),
        ],
    ),
    op(
        "F.instance_norm",
        _instance_norm,
        lambda m: [
            S(m(2, 3, 4), **_params(m, 3)),
            S(m(2, 3, 2, 3, layout="transposed"), desc="2-d, no affine"),
            S(m(2, 3, 4, dtype="float32"), weight=m(3, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [(S(m(2, 3, 4, dtype="float32"), weight=m(3)), RuntimeError)],
    ),
    op(
        "F.batch_norm",
        _batch_norm,
        lambda m: [
            S(m(4, 3), None, None, **_params(m, 3), training=True, desc="training"),
            S(m(2, 3, 4, layout="transposed"), None, None, training=True, desc="1-d, no affine"),
            S(
                m(2, 3, 2, 2),
                m(3, grad=False),
                m(3, lo=0.5, hi=2, grad=False),
                **_params(m, 3),
                desc="eval",
            ),
            S(m(4, 3, dtype="float32"), None, None, **_params(m, 3, "float32"), training=True),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [
            (S(m(4, 3, dtype="float32"), None, None, weight=m(3), training=True), RuntimeError),
            (S(m(1, 3), None, None, training=True), ValueError),
        ],
    ),
    op(
        "F.local_response_norm",
        _local_response_norm,
        lambda m: [
            S(m(2, 5, 3), 3, alpha=0.5),
            S(m(1, 4, 2, 3, layout="transposed"), 2, alpha=0.3, beta=0.5, k=2.0, desc="2-d"),
            S(m(2, 3, 4, dtype="float32"), 4, alpha=0.5),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.normalize",
        _normalize,
        lambda m: [
            S(m(3, 4)),
            S(m(3, 4), p=1.0, dim=0),
            S(m(2, 3, 4, layout="transposed"), p=3.0, dim=-1, desc="p = 3"),
            S(m.of([[0.0, 0.0], [3.0, 4.0]]), dim=1, desc="a zero row", grad=False),
            S(m(2, 3, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.cosine_similarity",
        _cosine_similarity,
        lambda m: [
            S(m(3, 4), m(3, 4)),
            S(m(3, 4), m(4), dim=-1, desc="broadcast"),
            S(m(2, 3, layout="transposed"), m(2, 3, layout="strided"), dim=0),
            S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.pairwise_distance",
        _pairwise_distance,
        lambda m: [
            S(m(3, 4), m(3, 4)),
            S(m(3, 4), m(4), p=1.0, keepdim=True, desc="broadcast, p = 1"),
            S(m(3, 4, layout="transposed"), m(3, 4), p=3.0),
            S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32")),
        ],
        method=False,
        tol=LOOSE,
    ),
    op(
        "F.scaled_dot_product_attention",
        _sdpa,
        lambda m: [
            S(m(2, 3, 4), m(2, 5, 4), m(2, 5, 2)),
            S(m(1, 2, 3, 4), m(1, 2, 3, 4), m(1, 2, 3, 4), is_causal=True, desc="causal"),
            S(m(2, 3, 4), m(2, 3, 4), m(2, 3, 4), attn_mask=_mask(m), desc="bool mask"),
            S(m(2, 3, 4), m(2, 4, 4), m(2, 4, 4), attn_mask=m(3, 4), scale=0.3, desc="float mask"),
            S(m(3, 4, layout="transposed"), m(5, 4), m(5, 2), desc="unbatched, views"),
            S(
                m(2, 3, 4, dtype="float32"),
                m(2, 3, 4, dtype="float32"),
                m(2, 3, 4, dtype="float32"),
            ),
        ],
        method=False,
        tol=LOOSE,
        errors=lambda m: [(S(m(2, 3, 4), m(2, 3, 5), m(2, 3, 4)), SHAPE_ERROR)],
    ),
    op(
        "F.dropout",
        lambda x, p=0.5, training=True: _f(x),
        lambda m: [
            S(m(3, 4), p=0.0),
            S(m(3, 4, layout="transposed"), p=0.7, training=False, desc="eval"),
            S(m(2, 3, dtype="float32"), p=0.0),
        ],
        method=False,
        errors=lambda m: [(S(m(3), p=1.5), ValueError)],
    ),
]
