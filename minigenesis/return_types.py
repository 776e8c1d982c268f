"""``mg.return_types`` (``torch.return_types``): the named tuples that ops returning
several tensors give back (values and indices, a factorisation's parts ...), one type per
op as in PyTorch, so ``print(x.max(dim=1))`` reads

    minigenesis.return_types.max(
    values=tensor([5, 7]),
    indices=tensor([1, 0]))

and ``values, indices = x.sort()`` or ``x.topk(2).indices`` work as on any named tuple."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__ = [
    "aminmax", "cummax", "cummin", "frexp", "histogram", "histogramdd", "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eigh", "linalg_inv_ex", "linalg_lstsq", "linalg_lu", "linalg_lu_factor",
    "linalg_lu_factor_ex", "linalg_qr", "linalg_slogdet", "linalg_solve_ex", "linalg_svd", "max",
    "median", "min", "mode", "nanmedian", "qr", "slogdet", "sort", "svd", "topk",
    "triangular_solve",
]  # fmt: skip


def _structseq(name: str, fields: tuple[str, ...]) -> type:
    """A named tuple class called ``name`` whose repr puts one field per line, as PyTorch's."""
    base = namedtuple(name, fields)

    def __repr__(self: Any) -> str:
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"minigenesis.return_types.{name}(\n{body})"

    namespace = {"__slots__": (), "__repr__": __repr__, "__module__": __name__}
    return type(name, (base,), {**namespace, "__qualname__": name})


_VALUES_INDICES = ("values", "indices")
cummax = _structseq("cummax", _VALUES_INDICES)
cummin = _structseq("cummin", _VALUES_INDICES)
kthvalue = _structseq("kthvalue", _VALUES_INDICES)
max = _structseq("max", _VALUES_INDICES)  # noqa: A001  (PyTorch's names)
median = _structseq("median", _VALUES_INDICES)
min = _structseq("min", _VALUES_INDICES)  # noqa: A001
mode = _structseq("mode", _VALUES_INDICES)
nanmedian = _structseq("nanmedian", _VALUES_INDICES)
sort = _structseq("sort", _VALUES_INDICES)
topk = _structseq("topk", _VALUES_INDICES)

# the other ops that return several tensors
aminmax = _structseq("aminmax", ("min", "max"))
frexp = _structseq("frexp", ("mantissa", "exponent"))
histogram = _structseq("histogram", ("hist", "bin_edges"))
histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))  # bin_edges: one tensor per dim
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ("L", "info"))
linalg_eigh = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_inv_ex = _structseq("linalg_inv_ex", ("inverse", "info"))
linalg_lstsq = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu = _structseq("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_qr = _structseq("linalg_qr", ("Q", "R"))
linalg_slogdet = _structseq("linalg_slogdet", ("sign", "logabsdet"))
linalg_solve_ex = _structseq("linalg_solve_ex", ("result", "info"))
linalg_svd = _structseq("linalg_svd", ("U", "S", "Vh"))
qr = _structseq("qr", ("Q", "R"))
slogdet = _structseq("slogdet", ("sign", "logabsdet"))
svd = _structseq("svd", ("U", "S", "V"))
triangular_solve = _structseq("triangular_solve", ("solution", "cloned_coefficient"))
