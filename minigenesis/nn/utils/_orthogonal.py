"""The orthogonal parametrization of ``nn.utils.parametrizations.orthogonal``.

A weight W (n x k, or a batch of them) is kept orthogonal (W^T W = I for a tall W, W W^T = I for a
wide one, handled as its transpose) by computing it from an unconstrained tensor X:

- ``matrix_exp``:  Q = exp(A), A = L - L^T with L the lower triangle of X (padded square): the
  exponential of a skew-symmetric matrix is orthogonal.
- ``cayley``:      Q = (I - A/2)^-1 (I + A/2), the Cayley map of the same A.
- ``householder``: Q = H_1 ... H_k from the reflectors below X's diagonal (tau_i = 2 / (1 +
  |v_i|^2)), its columns signed by X's diagonal (+-1).

With ``use_trivialization=True`` (PyTorch's default) the result is ``base @ Q``: ``base`` is a
buffer holding the orthogonalised weight at registration (or at assignment), and X starts as -I,
for which every map gives Q = I, so the layer starts at that orthogonal matrix and optimisers
move X near 0 (the "dynamic trivialization" of Lezcano-Casado, 2019).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _tensor, linalg
from ..._tensor import Tensor
from ...autograd import no_grad
from ...backend import get_array_module
from ...creation import eye, randn, zeros_like
from ...functions import cat
from ..module import Module

MAPS = ("matrix_exp", "cayley", "householder")


def _array(t: Tensor) -> Any:
    """The tensor's array, on its device (NumPy or CuPy), outside the graph."""
    return t.detach()._data


def _geqrf(a: Any) -> tuple[Any, Any]:
    """LAPACK's geqrf of each matrix of ``a`` (..., n, k): R on and above the diagonal, the
    Householder vectors below it, and their tau (``qr(mode="raw")``)."""
    xp = get_array_module(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    hs, taus = zip(*(xp.linalg.qr(m, mode="raw") for m in flat))
    h = xp.stack([x.T for x in hs]).reshape(a.shape)
    return h, xp.stack(taus).reshape(a.shape[:-2] + (min(a.shape[-2:]),))


def make_orthogonal(q: Tensor) -> Tensor:
    """The Q of A = QR for a tall A, with diag(R) >= 0 (columns signed by sign(diag R)), so that
    an orthogonal A is returned as it is."""
    a = _array(q)
    xp = get_array_module(a)
    h, _ = _geqrf(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    qs = xp.stack([xp.linalg.qr(m, mode="reduced")[0] for m in flat]).reshape(a.shape)
    signs = xp.sign(xp.diagonal(h, axis1=-2, axis2=-1))[..., None, :]
    return _tensor.Tensor._make((qs * signs).astype(a.dtype))


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    a = _array(q)
    xp = get_array_module(a)
    eps = 10.0 * n * float(np.finfo(a.dtype).eps)
    gram = xp.swapaxes(a, -1, -2) @ a
    return bool(xp.allclose(gram, xp.eye(k, dtype=a.dtype), rtol=1e-5, atol=eps))


class Orthogonal(Module):
    """X -> an orthogonal matrix of X's shape by ``orthogonal_map`` (see the module docstring)."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization=True) -> None:
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # embed the tall n x k lower triangle in an n x n one
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT  # skew-symmetric
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype)
                Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds the +-1 signs of the columns; not differentiated (as PyTorch)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().int().unsqueeze(-2)
        if getattr(self, "base", None) is not None:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        """An X whose image is Q: with the trivialization, Q (orthogonalised) becomes ``base``
        and X = -I; without it (householder only), X is Q's geqrf with the diagonal's signs."""
        with no_grad():
            if tuple(Q.shape) != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. "
                    f"Got a tensor of shape {tuple(Q.shape)}."
                )
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q, n, k = Q.mT, k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map != "householder":
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False."
                    )
                q_array = _array(Q)
                xp = get_array_module(q_array)
                h, tau = _geqrf(q_array)
                diag = xp.sign(xp.diagonal(h, axis1=-2, axis2=-1)) * xp.where(tau == 0, -1, 1)
                idx = xp.arange(k)
                h[..., idx, idx] = diag
                A = _tensor.Tensor._make(h.astype(q_array.dtype))
                return A.mT if transpose else A
            if n == k:
                Q = make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:  # complete the n x k Q to an n x n orthogonal matrix
                N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            neg_id = zeros_like(Q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def check_orthogonal_map(weight: Tensor, orthogonal_map: str | None) -> str:
    """PyTorch's default map (matrix_exp for a square weight, householder otherwise) and its
    check of the name."""
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square else "householder"
    if orthogonal_map not in MAPS:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    return orthogonal_map
