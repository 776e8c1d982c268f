"""Shapes and views: reshape/view, permutations, squeeze/expand, joining and splitting, flips and
rolls, repeats, triangles and diagonals, and the small constructions on tensors (block_diag,
cartesian_prod, meshgrid, kron, vander, diff).

References are NumPy's own shape functions. Samples: a contiguous and a non-contiguous input, a
size-0 or size-1 dim where the op takes it, and a float32 / int64 case (dtype kept).
"""

from __future__ import annotations

import itertools

import numpy as np

from .simple import S, op


def _views(m, *shape, **kw):
    """The same op on a contiguous, a transposed and a float32 input."""
    return [
        S(m(*shape), **kw, desc="contiguous"),
        S(m(*shape, layout="transposed"), **kw, desc="transposed"),
        S(m(*shape, dtype="float32"), **kw, desc="float32"),
    ]


def _list_dtype(sample):
    return sample.args[0][0].dtype


ENTRIES = [
    op(
        "reshape",
        lambda x, shape: np.reshape(x, shape),
        lambda m: [
            S(m(2, 3), (3, 2)),
            S(m(2, 3, layout="transposed"), (3, 2), desc="transposed"),
            S(m(2, 3, layout="strided"), (-1,), desc="strided"),
            S(m(), (1, 1), desc="0-d"),
            S(m(0, 3), (3, 0), desc="size-0"),
            S(m(2, 3, dtype="int64"), (6,), desc="int64"),
        ],
    ),
    op(
        "Tensor.view",
        lambda x, *s: np.reshape(x, s),
        lambda m: [
            S(m(2, 3), 3, 2),
            S(m(2, 3), -1),
            S(m(), 1, 1, desc="0-d"),
            S(m(0, 3), 3, 0),
        ],
        errors=lambda m: [(S(m(2, 3, layout="transposed"), -1), RuntimeError)],
    ),
    op(
        "Tensor.view_as",
        lambda x, y: np.reshape(x, y.shape),
        lambda m: [S(m(2, 3), m(3, 2, grad=False)), S(m(4), m(2, 2, grad=False))],
    ),
    op(
        "Tensor.reshape_as",
        lambda x, y: np.reshape(x, y.shape),
        lambda m: [S(m(2, 3, layout="transposed"), m(6, grad=False)), S(m(4), m(2, 2, grad=False))],
    ),
    op(
        "flatten",
        lambda x, start_dim=0, end_dim=-1: _flatten(x, start_dim, end_dim),
        lambda m: [
            *_views(m, 2, 3),
            S(m(2, 3, 2), start_dim=1),
            S(m(), desc="0-d"),
            S(m(2, 0, 3), start_dim=0, end_dim=1, desc="size-0"),
        ],
    ),
    op("ravel", lambda x: np.ravel(x), lambda m: [*_views(m, 2, 3), S(m(), desc="0-d")]),
    op(
        "unflatten",
        lambda x, dim, sizes: _unflatten(x, dim, sizes),
        lambda m: [
            S(m(2, 6), 1, (2, 3)),
            S(m(6, 2, layout="transposed"), 0, (-1, 2)),
            S(m(0, 4), 1, (2, 2), desc="size-0"),
        ],
    ),
    op(
        "permute",
        lambda x, dims: np.transpose(x, dims),
        lambda m: [
            S(m(2, 3, 4), (2, 0, 1)),
            S(m(3, 4, layout="transposed"), (1, 0)),
            S(m(2, 3, 4, dtype="float32"), (-1, 0, 1)),
            S(m(), (), desc="0-d"),
            S(m(0, 2), (1, 0), desc="size-0"),
        ],
        errors=lambda m: [(S(m(2, 3), (0, 0)), RuntimeError)],
    ),
    op(
        "transpose",
        lambda x, a, b: np.swapaxes(x, a, b) if x.ndim else x,
        lambda m: [
            S(m(2, 3, 4), 0, 2),
            S(m(3, 4, layout="transposed"), 0, 1),
            S(m(2, 3), -1, -2),
            S(m(2, 3, dtype="int64"), 0, 1),
            S(m(), 0, -1, desc="0-d"),
        ],
        aliases=("swapaxes", "swapdims"),
    ),
    op(
        "movedim",
        lambda x, s, d: np.moveaxis(x, s, d),
        lambda m: [
            S(m(2, 3, 4), 0, 2),
            S(m(2, 3, 4), (0, 1), (2, 0)),
            S(m(3, 4, layout="transposed"), 1, 0),
        ],
        aliases=("moveaxis",),
    ),
    op(
        "t",
        lambda x: np.transpose(x),
        lambda m: [
            S(m(2, 3)),
            S(m(3, 4, layout="transposed")),
            S(m(3)),
            S(m(), desc="0-d"),
        ],
        errors=lambda m: [(S(m(2, 3, 4)), RuntimeError)],
    ),
    op(
        "squeeze",
        lambda x, dim=None: _squeeze(x, dim),
        lambda m: [
            S(m(1, 3, 1)),
            S(m(1, 3, 1), 0),
            S(m(1, 3, 1), -1),
            S(m(2, 3), 0, desc="not size 1"),
            S(m(1, 3, 1), (0, 2), desc="dims tuple"),
            S(m(), desc="0-d"),
            S(m(1, 0), desc="size-0"),
        ],
    ),
    op(
        "unsqueeze",
        lambda x, dim: np.expand_dims(x, dim),
        lambda m: [
            S(m(2, 3), 0),
            S(m(2, 3), -1),
            S(m(3, 4, layout="transposed"), 1),
            S(m(), 0, desc="0-d"),
            S(m(0, 3), 2, desc="size-0"),
        ],
        errors=lambda m: [(S(m(2, 3), 4), IndexError)],
    ),
    op(
        "Tensor.expand",
        lambda x, *s: np.broadcast_to(x, _expanded(x.shape, s)),
        lambda m: [
            S(m(3, 1), 3, 4),
            S(m(3, 1), -1, 4),
            S(m(3), 2, 3),
            S(m(), 2, desc="0-d"),
            S(m(1, 0), 2, 0, desc="size-0"),
        ],
        errors=lambda m: [(S(m(3, 2), 3, 4), RuntimeError)],
    ),
    op(
        "Tensor.expand_as",
        lambda x, y: np.broadcast_to(x, y.shape),
        lambda m: [S(m(3, 1), m(3, 4, grad=False)), S(m(), m(2, grad=False))],
    ),
    op(
        "broadcast_to",
        lambda x, shape: np.broadcast_to(x, _expanded(x.shape, shape)),
        lambda m: [
            S(m(3, 1), (3, 4)),
            S(m(4), (2, 4)),
            S(m(), (3,)),
            S(m(1, 2, dtype="int64"), (2, 2)),
        ],
    ),
    op(
        "cat",
        lambda ts, dim=0: np.concatenate(ts, dim),
        lambda m: [
            S([m(2, 3), m(1, 3)]),
            S([m(2, 3), m(2, 1, layout="strided")], dim=1),
            S([m(2, 3), m(0, 3)], desc="size-0"),
            S([m(2), m(3)], dim=-1),
            S([m(2, 2, dtype="float32"), m(1, 2, dtype="float32")], desc="float32"),
        ],
        dtype=_list_dtype,
        out=True,
        aliases=("concat", "concatenate"),
        errors=lambda m: [
            (S([m(2, 3), m(2, 2)]), (RuntimeError, ValueError)),
            (S([]), (RuntimeError, ValueError)),
        ],
    ),
    op(
        "stack",
        lambda ts, dim=0: np.stack(ts, dim),
        lambda m: [
            S([m(2, 3), m(2, 3)]),
            S([m(2, 3, layout="transposed"), m(2, 3, layout="strided")], dim=2),
            S([m(), m()], desc="0-d"),
            S([m(0, 2), m(0, 2)], dim=1, desc="size-0"),
        ],
        dtype=_list_dtype,
        out=True,
        errors=lambda m: [(S([m(2, 3), m(3, 2)]), (RuntimeError, ValueError))],
    ),
    op(
        "hstack",
        lambda ts: np.hstack(ts),
        lambda m: [S([m(2, 3), m(2, 1)]), S([m(2), m(3)])],
        dtype=_list_dtype,
    ),
    op(
        "vstack",
        lambda ts: np.vstack(ts),
        lambda m: [S([m(2, 3), m(1, 3)]), S([m(3), m(3)])],
        dtype=_list_dtype,
        aliases=("row_stack",),
    ),
    op(
        "dstack",
        lambda ts: np.dstack(ts),
        lambda m: [S([m(2, 3), m(2, 3)]), S([m(3), m(3)])],
        dtype=_list_dtype,
    ),
    op(
        "column_stack",
        lambda ts: np.column_stack(ts),
        lambda m: [S([m(3), m(3, 2)]), S([m(2), m(2)])],
        dtype=_list_dtype,
    ),
    op(
        "split",
        lambda x, s, dim=0: _split(x, s, dim),
        lambda m: [
            S(m(5, 2), 2),
            S(m(5, 2), [1, 4]),
            S(m(2, 5, layout="transposed"), 3, dim=1),
            S(m(0, 2), 2, desc="size-0"),
        ],
        dtype=None,
    ),
    op(
        "chunk",
        lambda x, c, dim=0: tuple(np.array_split(x, _chunks(x.shape[dim], c), dim)),
        lambda m: [
            S(m(5, 2), 3),
            S(m(6, 2), 3),
            S(m(2, 5, layout="transposed"), 2, dim=1),
        ],
        dtype=None,
    ),
    op(
        "tensor_split",
        lambda x, s, dim=0: tuple(np.array_split(x, s, dim)),
        lambda m: [
            S(m(5, 2), 3),
            S(m(5, 2), [1, 3]),
            S(m(2, 7), 3, dim=1),
        ],
        dtype=None,
    ),
    op(
        "hsplit",
        lambda x, s: tuple(np.hsplit(x, s)),
        lambda m: [S(m(2, 6), 3), S(m(6), [2, 3])],
        dtype=None,
    ),
    op(
        "vsplit",
        lambda x, s: tuple(np.vsplit(x, s)),
        lambda m: [S(m(6, 2), 2), S(m(4, 2), [1])],
        dtype=None,
    ),
    op(
        "dsplit",
        lambda x, s: tuple(np.dsplit(x, s)),
        lambda m: [S(m(2, 2, 4), 2), S(m(1, 2, 3), [1])],
        dtype=None,
    ),
    op(
        "unbind",
        lambda x, dim=0: tuple(np.moveaxis(x, dim, 0)),
        lambda m: [
            S(m(3, 2)),
            S(m(2, 3, layout="transposed"), 1),
            S(m(0, 2), 1, desc="size-0 rest"),
        ],
        dtype=None,
    ),
    op(
        "flip",
        lambda x, dims: np.flip(x, dims),
        lambda m: [
            S(m(2, 3), (0,)),
            S(m(2, 3, 2), (0, 2)),
            S(m(3, 4, layout="transposed"), (-1,)),
            S(m(), (), desc="0-d"),
            S(m(0, 2), (0,), desc="size-0"),
            S(m(2, 3, dtype="int64"), (1,)),
        ],
    ),
    op("fliplr", np.fliplr, lambda m: [S(m(2, 3)), S(m(3, 2, layout="strided"))]),
    op("flipud", np.flipud, lambda m: [S(m(2, 3)), S(m(3))]),
    op(
        "roll",
        lambda x, shifts, dims=None: np.roll(x, shifts, dims),
        lambda m: [
            S(m(2, 3), 1),
            S(m(2, 3), -2, 1),
            S(m(2, 3, 2), (1, -1), (0, 2)),
            S(m(3, 4, layout="transposed"), 5, 0),
            S(m(0, 3), 1, 1, desc="size-0"),
        ],
    ),
    op(
        "rot90",
        lambda x, k=1, dims=(0, 1): np.rot90(x, k, dims),
        lambda m: [
            S(m(2, 3)),
            S(m(2, 3), 2),
            S(m(2, 3), -1),
            S(m(2, 3, 2), 1, (1, 2)),
        ],
    ),
    op(
        "narrow",
        lambda x, d, s, n: np.take(x, range(s % max(x.shape[d], 1), s % max(x.shape[d], 1) + n), d),
        lambda m: [
            S(m(4, 3), 0, 1, 2),
            S(m(3, 4, layout="transposed"), 1, -3, 2),
            S(m(4, 3), 1, 0, 0, desc="length 0"),
        ],
        errors=lambda m: [(S(m(4, 3), 0, 3, 2), (RuntimeError, IndexError))],
    ),
    op(
        "select",
        lambda x, d, i: np.take(x, i, d),
        lambda m: [
            S(m(4, 3), 0, 1),
            S(m(3, 4, layout="transposed"), 1, -1),
            S(m(2, 3, 2), -1, 0),
        ],
        errors=lambda m: [(S(m(4, 3), 0, 4), IndexError)],
    ),
    op(
        "Tensor.repeat",
        lambda x, *r: np.tile(x, r),
        lambda m: [
            S(m(2, 3), 2, 1),
            S(m(3), 2, 2),
            S(m(), 3, desc="0-d"),
            S(m(2, 0), 2, 2, desc="size-0"),
        ],
    ),
    op("tile", lambda x, r: np.tile(x, r), lambda m: [S(m(2, 3), (2,)), S(m(2), (2, 2))]),
    op(
        "repeat_interleave",
        lambda x, r, dim=None: np.repeat(x, r, dim),
        lambda m: [
            S(m(2, 3), 2),
            S(m(2, 3), 2, 1),
            S(m(3, 2), m.of([1, 0, 2], "int64"), 0),
        ],
    ),
    op(
        "tril",
        lambda x, diagonal=0: np.tril(x, diagonal),
        lambda m: [
            *_views(m, 3, 4),
            S(m(3, 4), 1),
            S(m(2, 3, 3), -1),
            S(m(0, 3), desc="size-0"),
        ],
        inplace="tril_",
        out=True,
    ),
    op(
        "triu",
        lambda x, diagonal=0: np.triu(x, diagonal),
        lambda m: [
            *_views(m, 3, 4),
            S(m(3, 4), -1),
            S(m(2, 3, 3), 1),
        ],
        inplace="triu_",
        out=True,
    ),
    op(
        "diagonal",
        lambda x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2),
        lambda m: [
            *_views(m, 3, 4),
            S(m(3, 4), 1),
            S(m(3, 4), -2),
            S(m(2, 3, 3), 0, 1, 2),
            S(m(3, 3), 5, desc="empty"),
        ],
    ),
    op(
        "diag",
        lambda x, diagonal=0: np.diag(x, diagonal),
        lambda m: [
            S(m(3)),
            S(m(3), 1),
            S(m(3, 4)),
            S(m(3, 4, layout="transposed"), -1),
        ],
    ),
    op(
        "diag_embed",
        lambda x, offset=0: _diag_embed(x, offset),
        lambda m: [S(m(3)), S(m(2, 3)), S(m(2, 3), 1)],
    ),
    op("diagflat", lambda x, offset=0: np.diagflat(x, offset), lambda m: [S(m(3)), S(m(2, 2), 1)]),
    op("atleast_1d", np.atleast_1d, lambda m: [S(m())]),  # more dims: x itself
    op("atleast_2d", np.atleast_2d, lambda m: [S(m()), S(m(3))]),
    op("atleast_3d", np.atleast_3d, lambda m: [S(m()), S(m(3)), S(m(2, 3))]),
    op(
        "block_diag",
        lambda *ts: _block_diag(ts),
        lambda m: [S(m(2, 3), m(1, 2)), S(m(2, 2), m(3), m()), S(m(2, 0), m(1, 1))],
        dtype=None,
    ),
    op(
        "cartesian_prod",
        lambda *ts: _cartesian(ts),
        lambda m: [S(m(2), m(3)), S(m(2), m(1), m(2))],
        dtype=None,
    ),
    op(
        "combinations",
        lambda x, r=2, with_replacement=False: _combinations(x, r, with_replacement),
        lambda m: [S(m(4)), S(m(4), 3), S(m(3), with_replacement=True)],
    ),
    op(
        "meshgrid",
        lambda *ts, indexing="ij": tuple(np.meshgrid(*ts, indexing=indexing)),
        lambda m: [S(m(2), m(3), indexing="ij"), S(m(2), m(3), indexing="xy")],
        dtype=None,
    ),
    op(
        "clone",
        lambda x: np.array(x),
        lambda m: [*_views(m, 2, 3), S(m(), desc="0-d"), S(m(2, 3, dtype="int64"))],
    ),
    op(
        "Tensor.copy_",
        lambda x, y: np.broadcast_to(y, x.shape),
        lambda m: [
            S(m(2, 3), m(2, 3)),
            S(m(2, 3), m(3, layout="strided")),
            S(m(2, 3), m(2, 3, dtype="float32")),
        ],
        call=lambda lib, x, y: x.clone().copy_(y),
    ),
    op(
        "Tensor.fill_",
        lambda x, v: np.full(x.shape, v),
        lambda m: [S(m(2, 3), 1.5), S(m(), -2.0)],
        call=lambda lib, x, v: x.clone().fill_(v),
    ),
    op(
        "Tensor.zero_",
        lambda x: np.zeros(x.shape),
        lambda m: [S(m(2, 3)), S(m(0, 2))],
        call=lambda lib, x: x.clone().zero_(),
    ),
    op(
        "Tensor.sum_to_shape",
        lambda x, s: _sum_to(x, s),
        lambda m: [S(m(2, 3), (1, 3)), S(m(2, 3), (3,))],
        torch=False,
    ),
    op("kron", lambda a, b: np.kron(a, b), lambda m: [S(m(2, 2), m(2, 3)), S(m(3), m(2))]),
    op(
        "vander",
        lambda x, N=None, increasing=False: np.vander(x, N, increasing),
        lambda m: [S(m(3)), S(m(3), N=4, increasing=True)],
    ),
    op(
        "trace",
        lambda x: np.asarray(np.trace(x)),
        lambda m: [S(m(3, 3)), S(m(3, 4, layout="transposed")), S(m(2, 3, dtype="float32"))],
    ),
    op(
        "diff",
        lambda x, n=1, dim=-1, **k: _diff(x, n, dim, **k),
        lambda m: [
            S(m(2, 4)),
            S(m(4, 2), 2, 0),
            S(m(3), prepend=m(2), append=m(1)),
        ],
    ),
]


def _flatten(x, s, e):
    if x.ndim == 0:
        return x.reshape(1)
    s, e = s % x.ndim, e % x.ndim
    return (
        x.reshape(x.shape[:s] + (-1,) + x.shape[e + 1 :])
        if x.size
        else x.reshape(x.shape[:s] + (int(np.prod(x.shape[s : e + 1])),) + x.shape[e + 1 :])
    )


def _unflatten(x, dim, sizes):
    sizes = list(sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[dim] // -int(np.prod(sizes))
    return x.reshape(x.shape[:dim] + tuple(sizes) + x.shape[dim + 1 :])


def _squeeze(x, dim):
    if dim is None:
        return np.squeeze(x)
    dims = dim if isinstance(dim, tuple) else (dim,)
    dims = tuple(d % max(x.ndim, 1) for d in dims if x.ndim and x.shape[d] == 1)
    return np.squeeze(x, dims) if dims else x


def _expanded(shape, sizes):
    lead = len(sizes) - len(shape)
    return tuple(shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))


def _split(x, s, dim):
    n = x.shape[dim]
    if isinstance(s, int):
        cuts = list(range(s, n, s))
    else:
        cuts = list(itertools.accumulate(s))[:-1]
    return tuple(np.split(x, cuts, dim)) if n else (x,)


def _chunks(n, c):
    size = -(-n // c)
    return list(range(size, n, size))


def _diag_embed(x, offset):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n))
    for i in range(x.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = x[..., i]
    return out


def _block_diag(ts):
    ts = [np.atleast_2d(t) for t in ts]
    rows, cols = sum(t.shape[0] for t in ts), sum(t.shape[1] for t in ts)
    out, r, c = np.zeros((rows, cols)), 0, 0
    for t in ts:
        out[r : r + t.shape[0], c : c + t.shape[1]] = t
        r, c = r + t.shape[0], c + t.shape[1]
    return out


def _cartesian(ts):
    return np.array(list(itertools.product(*ts)))


def _combinations(x, r, with_replacement):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    out = np.array(list(pick(x, r)))
    return out.reshape(-1, r) if out.size else np.zeros((0, r))


def _sum_to(x, shape):
    lead = x.ndim - len(shape)
    x = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and x.shape[i] != 1)
    return x.sum(axis=axes, keepdims=True) if axes else x


def _diff(x, n, dim, prepend=None, append=None):
    return np.diff(
        x,
        n,
        dim,
        prepend=prepend if prepend is not None else np._NoValue,
        append=append if append is not None else np._NoValue,
    )
