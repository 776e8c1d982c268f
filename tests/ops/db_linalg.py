"""Linear algebra: products (matmul and its fixed-rank forms, einsum, tensordot, cross), and
mg.linalg's factorizations, solves, inverses, determinants and norms.

Samples are well conditioned (singular values in [1, 3], symmetric positive definite matrices
as B B^T + n I) plus the edge cases: a repeated singular value (2 I), a singular matrix, a
batch. Factorizations with a sign or rotation freedom (QR, SVD, eigh) are checked through what
does not depend on it: the reconstruction and the spectrum.
"""

from __future__ import annotations

import numpy as np

from .core import T
from .simple import S, op

LOOSE = {
    "float64": (1e-8, 1e-10),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-2),
    "bfloat16": (5e-2, 5e-2),
}


def _well(m, n: int, batch: tuple = (), dtype: str = "float64", **k) -> T:
    """A matrix Q1 diag(s) Q2 with s in [1, 3]."""
    q1, _ = np.linalg.qr(m.rng.standard_normal(batch + (n, n)))
    q2, _ = np.linalg.qr(m.rng.standard_normal(batch + (n, n)))
    s = m.rng.uniform(1, 3, batch + (n,))
    return T((q1 * s[..., None, :]) @ q2, dtype, **k)


def _spd(m, n: int, batch: tuple = ()) -> T:
    b = m.rng.standard_normal(batch + (n, n))
    return T(b @ np.swapaxes(b, -1, -2) + n * np.eye(n))


def _square(m):
    return [
        S(_well(m, 3), desc="well conditioned"),
        S(_well(m, 3, layout="transposed"), desc="transposed"),
        S(_well(m, 2, (2,)), desc="batch"),
        S(_well(m, 3, dtype="float32"), desc="float32"),
    ]


def _sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _svd_parts(lib, a, **k):
    u, s, vh = lib.L.linalg.svd(a, full_matrices=False)
    return (u * s.unsqueeze(-2)) @ vh, s


def _eigh_parts(lib, a):
    w, v = lib.L.linalg.eigh(a)
    return w, (v * w.unsqueeze(-2)) @ v.mT


def _qr_parts(lib, a):
    q, r = lib.L.linalg.qr(a)
    return q @ r, q.mT @ q


ENTRIES = [
    op(
        "matmul",
        np.matmul,
        lambda m: [
            S(m(3, 4), m(4, 2)),
            S(m(4), m(4, 2), desc="vector-matrix"),
            S(m(3, 4), m(4), desc="matrix-vector"),
            S(m(4), m(4), desc="dot"),
            S(m(2, 3, 4), m(4, 2), desc="batched"),
            S(m(3, 4, layout="transposed"), m(4, 2, layout="strided")),
            S(m(0, 3), m(3, 2), desc="size-0"),
            S(m(2, 3, dtype="float32"), m(3, 2, dtype="float32")),
        ],
        out=True,
        aliases=("linalg.matmul",),
        tol=LOOSE,
        errors=lambda m: [(S(m(2, 3), m(2, 3)), RuntimeError)],
    ),
    op(
        "mm",
        np.matmul,
        lambda m: [S(m(3, 4), m(4, 2)), S(m(3, 4, layout="transposed"), m(4, 0))],
        out=True,
        tol=LOOSE,
        errors=lambda m: [(S(m(3), m(3, 2)), RuntimeError)],
    ),
    op("bmm", np.matmul, lambda m: [S(m(2, 3, 4), m(2, 4, 2))], out=True, tol=LOOSE),
    op(
        "mv",
        np.matmul,
        lambda m: [S(m(3, 4), m(4)), S(m(3, 4, layout="transposed"), m(4))],
        out=True,
        tol=LOOSE,
    ),
    op(
        "dot",
        lambda a, b: np.asarray(np.dot(a, b)),
        lambda m: [S(m(4), m(4)), S(m(0), m(0))],
        out=True,
        errors=lambda m: [(S(m(3), m(4)), RuntimeError)],
    ),
    op(
        "outer",
        np.outer,
        lambda m: [S(m(3), m(2)), S(m(3, layout="strided"), m(0))],
        out=True,
        aliases=("ger",),
    ),
    op(
        "addmm",
        lambda c, a, b, beta=1, alpha=1: beta * c + alpha * a @ b,
        lambda m: [
            S(m(3, 2), m(3, 4), m(4, 2)),
            S(m(2), m(3, 4), m(4, 2), beta=0.5, alpha=2.0),
        ],
        out=True,
        tol=LOOSE,
    ),
    op(
        "baddbmm",
        lambda c, a, b, beta=1, alpha=1: beta * c + alpha * a @ b,
        lambda m: [
            S(m(2, 3, 2), m(2, 3, 4), m(2, 4, 2)),
            S(m(3, 2), m(2, 3, 4), m(2, 4, 2), alpha=0.5),
        ],
        out=True,
        inplace="baddbmm_",
        tol=LOOSE,
    ),
    op(
        "einsum",
        lambda eq, *ts: np.einsum(eq, *ts),
        lambda m: [
            S("ij,jk->ik", m(3, 4), m(4, 2)),
            S("bij,bjk->bik", m(2, 3, 4), m(2, 4, 2)),
            S("ii->", m(3, 3)),
            S("i,j->ij", m(3), m(2)),
            S("ij->ji", m(3, 4, layout="transposed")),
            S("...j,j", m(2, 3), m(3)),
        ],
        dtype=None,
        tol=LOOSE,
    ),
    op(
        "tensordot",
        lambda a, b, dims=2: np.tensordot(a, b, dims),
        lambda m: [
            S(m(2, 3, 4), m(3, 4, 2)),
            S(m(3, 4), m(4, 2), dims=1),
            S(m(2, 3), m(3, 2), dims=([1], [0])),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.cross",
        lambda a, b, dim=-1: np.cross(a, b, axis=dim),
        lambda m: [
            S(m(3), m(3)),
            S(m(2, 3), m(1, 3), desc="broadcast"),
            S(m(3, 2), m(3, 2), dim=0),
        ],
        aliases=("cross", "Tensor.cross"),
        errors=lambda m: [(S(m(2, 3), m(3), desc="ndims differ"), RuntimeError)],
    ),
    op(
        "linalg.vecdot",
        lambda a, b, dim=-1: np.sum(a * b, axis=dim),
        lambda m: [S(m(2, 3), m(2, 3)), S(m(2, 3), m(3), dim=-1)],
    ),
    op(
        "linalg.multi_dot",
        lambda ts: np.linalg.multi_dot(ts),
        lambda m: [S([m(2, 3), m(3, 4), m(4, 2)]), S([m(3), m(3, 2), m(2)])],
        dtype=None,
        tol=LOOSE,
    ),
    op(
        "linalg.det",
        np.linalg.det,
        lambda m: [
            *_square(m),
            S(T(2 * np.eye(3)), desc="repeated"),
        ],
        aliases=("det", "Tensor.det"),
        tol=LOOSE,
    ),
    # at a singular matrix the gradient is the cofactor matrix (central differences agree);
    # PyTorch's is 0 there, so it is no oracle for this sample
    op(
        "linalg.det",
        np.linalg.det,
        lambda m: [S(m.of([[1.0, 2.0], [2.0, 4.0]]), desc="singular", gradgrad=False)],
        variant="singular",
        tol=LOOSE,
        torch=False,
    ),
    op(
        "logdet",
        lambda a: np.log(np.linalg.det(a)),
        lambda m: [S(_spd(m, 3)), S(_spd(m, 2, (2,)))],
        tol=LOOSE,
    ),
    op(
        "linalg.slogdet",  # PyTorch's sign requires grad (with a zero gradient); ours does not
        lambda a: tuple(np.linalg.slogdet(a)),
        lambda m: _square(m),
        aliases=("slogdet", "Tensor.slogdet"),
        dtype=None,
        tol=LOOSE,
    ),
    op(
        "linalg.inv",
        np.linalg.inv,
        lambda m: [*_square(m), S(T(2 * np.eye(3)), desc="2 I")],
        aliases=("inverse", "Tensor.inverse"),
        tol=LOOSE,
        errors=lambda m: [(S(m(2, 3)), RuntimeError)],
    ),
    op(
        "linalg.solve",
        np.linalg.solve if False else lambda a, b: np.linalg.solve(a, b),
        lambda m: [
            S(_well(m, 3), m(3, 2)),
            S(_well(m, 2, (2,)), m(2, 2, 1), desc="batch"),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.solve_triangular",
        lambda a, b, upper: np.linalg.solve(np.triu(a) if upper else np.tril(a), b),
        lambda m: [
            S(T(np.tril(_well(m, 3).values) + 3 * np.eye(3)), m(3, 2), upper=False),
            S(T(np.triu(_well(m, 3).values) + 3 * np.eye(3)), m(3, 2), upper=True),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.cholesky",
        lambda a: np.linalg.cholesky(_sym(a)),
        lambda m: [S(_spd(m, 3)), S(_spd(m, 2, (2,)))],
        aliases=("cholesky", "Tensor.cholesky"),
        tol=LOOSE,
        call=lambda lib, a: lib.L.linalg.cholesky((a + a.mT) / 2),
    ),
    op(
        "linalg.cholesky_ex",
        lambda a: (np.linalg.cholesky(_sym(a)), None),
        lambda m: [S(_spd(m, 3))],
        call=lambda lib, a: lib.L.linalg.cholesky_ex((a + a.mT) / 2),
        tol=LOOSE,
    ),
    op(
        "cholesky_inverse",
        lambda l: np.linalg.inv(np.tril(l) @ np.tril(l).T),
        lambda m: [S(T(np.linalg.cholesky(_spd(m, 3).values)))],
        method="cholesky_inverse",
        call=lambda lib, l: lib.L.cholesky_inverse(l.tril()),
        tol=LOOSE,
    ),
    op(
        "cholesky_solve",
        lambda b, l: np.linalg.solve(np.tril(l) @ np.tril(l).T, b),
        lambda m: [S(m(3, 2), T(np.linalg.cholesky(_spd(m, 3).values)))],
        method="cholesky_solve",
        call=lambda lib, b, l: lib.L.cholesky_solve(b, l.tril()),
        tol=LOOSE,
    ),
    op(
        "linalg.qr",
        lambda a: (a, np.eye(a.shape[-1])),
        lambda m: [S(_well(m, 3)), S(m(4, 3))],
        call=_qr_parts,
        aliases=(),
        tol=LOOSE,
    ),
    op(
        "Tensor.qr",
        lambda a: (a, np.eye(a.shape[-1])),
        lambda m: [S(m(4, 3))],
        call=lambda lib, a: (lambda q, r: (q @ r, q.mT @ q))(*a.qr()),
        tol=LOOSE,
    ),
    op(
        "Tensor.svd",
        lambda a: (a, np.linalg.svd(a, compute_uv=False)),
        lambda m: [S(m(4, 3))],
        call=lambda lib, a: (lambda u, s, v: ((u * s.unsqueeze(-2)) @ v.mT, s))(*a.svd()),
        tol=LOOSE,
    ),
    op(
        "qr",
        lambda a: (a, np.eye(a.shape[-1])),
        lambda m: [S(m(4, 3))],
        call=lambda lib, a: _qr_parts(lib, a),
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.svd",
        lambda a: (a, np.linalg.svd(a, compute_uv=False)),
        lambda m: [S(_well(m, 3)), S(m(4, 3)), S(m(2, 3, layout="transposed"))],
        call=_svd_parts,
        tol=LOOSE,
    ),
    op(
        "svd",
        lambda a: (a, np.linalg.svd(a, compute_uv=False)),
        lambda m: [S(m(4, 3))],
        call=lambda lib, a: (lambda u, s, v: ((u * s.unsqueeze(-2)) @ v.mT, s))(*lib.L.svd(a)),
        method=False,
        tol=LOOSE,
    ),
    op(
        "linalg.svdvals",
        lambda a: np.linalg.svd(a, compute_uv=False),
        lambda m: [
            S(_well(m, 3)),
            S(m(4, 3)),
            S(T(2 * np.eye(2)), desc="repeated", grad=False),
            S(m.of([[1.0, 2.0], [2.0, 4.0]]), desc="singular", grad=False),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.eigh",
        lambda a: (np.linalg.eigvalsh(_sym(a)), _sym(a)),
        lambda m: [S(_spd(m, 3)), S(_spd(m, 2, (2,)))],
        call=lambda lib, a: _eigh_parts(lib, (a + a.mT) / 2),
        tol=LOOSE,
    ),
    op(
        "linalg.eigvalsh",
        lambda a: np.linalg.eigvalsh(_sym(a)),
        lambda m: [S(_spd(m, 3)), S(T(2 * np.eye(2)), desc="repeated", grad=False)],
        call=lambda lib, a: lib.L.linalg.eigvalsh((a + a.mT) / 2),
        tol=LOOSE,
    ),
    op(
        "linalg.pinv",
        np.linalg.pinv,
        lambda m: [S(_well(m, 3)), S(m(4, 2))],
        aliases=("pinverse", "Tensor.pinverse"),
        tol=LOOSE,
    ),
    op(
        "linalg.lstsq",
        lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
        lambda m: [S(m(4, 2), m(4, 3))],
        call=lambda lib, a, b: lib.L.linalg.lstsq(a, b).solution,
        tol=LOOSE,
    ),
    op(
        "linalg.matrix_power",
        np.linalg.matrix_power,
        lambda m: [S(m(3, 3), 3), S(m(3, 3), 0), S(_well(m, 3), -2), S(m(2, 2, 2), 2)],
        aliases=("matrix_power", "Tensor.matrix_power"),
        tol=LOOSE,
    ),
    op(
        "linalg.matrix_exp",
        lambda a: _expm(a),
        lambda m: [S(m(3, 3, lo=-1, hi=1)), S(m(2, 2, 2, lo=-1, hi=1))],
        aliases=("matrix_exp", "Tensor.matrix_exp"),
        tol=LOOSE,
    ),
    op(
        "linalg.vector_norm",
        lambda x, ord=2, dim=None: np.asarray(
            np.linalg.norm(x.reshape(-1) if dim is None else x, ord, dim)
        ),
        lambda m: [
            S(m(3, 4)),
            S(m(3, 4), ord=1, dim=1),
            S(m(3, 4), ord=float("inf"), dim=0),
            S(m(3, 4, layout="transposed"), ord=3, dim=1),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.matrix_norm",
        lambda x, ord="fro": np.asarray(np.linalg.norm(x, ord, (-2, -1))),
        lambda m: [
            S(m(3, 4)),
            S(m(3, 4), ord=1),
            S(m(3, 4), ord=float("inf")),
            S(_well(m, 3), ord="nuc"),
            S(_well(m, 3), ord=2),
            S(_well(m, 3), ord=-2),
        ],
        tol=LOOSE,
    ),
    op(
        "linalg.norm",
        lambda x, ord=None, dim=None: np.asarray(np.linalg.norm(x, ord, dim)),
        lambda m: [S(m(3, 4)), S(m(4), ord=1), S(m(3, 4), ord="fro"), S(m(3, 4), ord=2, dim=1)],
        tol=LOOSE,
    ),
    op(
        "norm",
        lambda x, p="fro", dim=None: np.asarray(
            np.linalg.norm(x.reshape(-1) if dim is None else x, None if p == "fro" else p, dim)
        ),
        lambda m: [S(m(3, 4)), S(m(3, 4), 1, 1), S(m(4), 3)],
        tol=LOOSE,
    ),
    op(
        "linalg.cond",
        lambda a: np.asarray(np.linalg.cond(a)),
        lambda m: [S(_well(m, 3))],
        tol=LOOSE,
    ),
    op(
        "linalg.matrix_rank",
        lambda a: np.asarray(np.linalg.matrix_rank(a)),
        lambda m: [S(_well(m, 3)), S(m.of([[1.0, 2.0], [2.0, 4.0]]))],
        dtype="int64",
        differentiable=False,
    ),
    op(
        "linalg.diagonal",
        lambda a, offset=0: np.diagonal(a, offset, -2, -1),
        lambda m: [S(m(3, 4)), S(m(2, 3, 3), offset=1)],
    ),
    op(
        "cdist",
        lambda a, b, p=2.0: np.linalg.norm(a[..., :, None, :] - b[..., None, :, :], p, -1),
        lambda m: [S(m(3, 2), m(4, 2)), S(m(2, 3, 2), m(2, 2, 2), p=1.0)],
        tol=LOOSE,
    ),
]


def _expm(a):
    out, term = (
        np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy(),
        np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy(),
    )
    for k in range(1, 30):
        term = term @ a / k
        out = out + term
    return out
