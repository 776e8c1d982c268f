"""mg.linalg: the norms of torch.linalg (vector_norm, matrix_norm's Frobenius case, norm).

``torch.linalg.norm(x, dim=1)`` is how tutorials measure a row's length; the matrix norms other
than Frobenius (nuclear, spectral) need an SVD and are not here: they raise, naming the ord.
"""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor

__all__ = ["matrix_norm", "norm", "vector_norm"]


def vector_norm(
    x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """(sum |x_i|^ord)^(1/ord) over ``dim`` (all elements when None); ord=inf is max |x_i|."""
    if isinstance(ord, str):
        raise ValueError(f"vector_norm: ord must be a number, got {ord!r} (see matrix_norm)")
    if dtype is not None:
        x = x.to(dtype)
    return x.norm(ord, dim, keepdim)


def matrix_norm(
    x: Tensor, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """The Frobenius norm sqrt(sum_ij x_ij^2) over the two ``dim``s (a batch in the others)."""
    if ord != "fro":
        raise NotImplementedError(
            f"matrix_norm: ord={ord!r} needs a singular value decomposition; only 'fro' is here"
        )
    if len(dim) != 2:
        raise ValueError(f"matrix_norm: dim must name 2 dims, got {dim!r}")
    return vector_norm(x, 2, dim, keepdim, dtype=dtype)


def norm(
    x: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """torch.linalg.norm: with ord=None the 2-norm of the flattened ``dim``s (Frobenius for a
    matrix); with an ord, a vector norm for one dim (or a 1-D input), a matrix norm for two."""
    if ord is None:
        return vector_norm(x, 2, dim, keepdim, dtype=dtype)
    dims = (dim,) if isinstance(dim, int) else dim
    if dims is None:
        if x.ndim not in (1, 2):
            raise ValueError(
                f"norm: with ord={ord!r} and no dim the input must be 1-D or 2-D, got {x.ndim}-D"
            )
        dims = tuple(range(x.ndim))
    if len(dims) == 1:
        return vector_norm(x, ord, dims, keepdim, dtype=dtype)
    return matrix_norm(x, ord, tuple(dims), keepdim, dtype=dtype)
