"""Randomized low-rank decompositions: ``mg.svd_lowrank`` and ``mg.pca_lowrank``.

Halko, Martinsson and Tropp (2009): to approximate the top-q singular triplets of an (m, n)
matrix A, multiply A by a random (n, q) Gaussian matrix R; the columns of A R span (nearly) the
dominant column space of A. Orthonormalise them by QR into Q (Algorithm 4.4, with ``niter``
power iterations Q <- qr(A qr(A^H Q).Q).Q that sharpen the gap between kept and dropped singular
values), then the small (q, n) matrix B = Q^H A has an exact SVD B = U_B S V^H, and
A ~ (Q U_B) S V^H (Algorithm 5.1). When m < n the same is done on A^H and U, V swap.

The draws come from the default generator, so a seed makes the results repeat, as in PyTorch.
Everything is composed of differentiable ops (matmul, qr, svd), so gradients flow through.
"""

from __future__ import annotations

from .._tensor import Tensor
from ..creation import randn
from ..linalg import qr, svd


def get_approximate_basis(A: Tensor, q: int, niter: int = 2, M: Tensor | None = None) -> Tensor:  # noqa: N803
    """An (m, q) matrix Q with orthonormal columns such that Q Q^H (A - M) ~ A - M."""
    R = randn(A.shape[-1], q, dtype=A.dtype, device=A.device)
    X = A @ R if M is None else A @ R - M @ R
    Q = qr(X).Q
    for _ in range(niter):  # power iterations: A^H then A, orthonormalised each time
        X = A.mH @ Q if M is None else A.mH @ Q - M.mH @ Q
        Q = qr(X).Q
        X = A @ Q if M is None else A @ Q - M @ Q
        Q = qr(X).Q
    return Q


def svd_lowrank(  # noqa: N803  (PyTorch's argument names)
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple:
    """(U, S, V) with A - M ~ U diag(S) V^H, U: (*, m, q), S: (*, q), V: (*, n, q)."""
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work on the transpose so that B = Q^H A stays the small side
        A = A.mH
        M = None if M is None else M.mH
    Q = get_approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple:  # noqa: N803
    """PCA of the rows of A: svd_lowrank of A minus its column means (when ``center``).

    V's columns are the principal directions, S ** 2 / (m - 1) the explained variances and
    (A - mean) @ V the scores, as for ``mg.linalg.svd`` of the centred data."""
    if not isinstance(A, Tensor):
        raise TypeError(f"pca_lowrank(): A must be a Tensor, got {type(A).__name__}")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter=niter)
