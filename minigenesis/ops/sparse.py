"""The one product of a sparse matrix with a dense one: Y = A @ D for A in COO form.

A (m, n) is stored as its nonzeros: ``rows``, ``cols`` (the positions) and ``values``. Then

    Y[r] = sum over the stored (r, c, v) of  v * D[c]                  (m, k)

one scatter-add of the scaled rows of D, never the dense A. Its gradients, for the loss L:

    dL/dD   = A^T @ dL/dY         the same product with rows and cols swapped
    dL/dv_i = <dL/dY[r_i], D[c_i]>  (a gradient only at the stored positions, as PyTorch's)
"""

from __future__ import annotations

from ..autograd.function import Op
from ..backend import cupyx_module, get_array_module, quiet_fp
from . import indexing as I


def scatter_add_rows(out, rows, contributions) -> None:
    """out[rows[i]] += contributions[i], with repeated rows adding up."""
    if get_array_module(out).__name__ == "numpy":
        get_array_module(out).add.at(out, rows, contributions)
    else:  # cupyx.scatter_add is CuPy's unbuffered add.at
        cupyx_module().scatter_add(out, rows, contributions)


class SparseDenseMM(Op):
    """Y = A @ D with A given by (values, rows, cols) and ``n_rows`` rows; D dense (n, k)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, values, dense, rows, cols, n_rows):
        ctx.rows, ctx.cols, ctx.n_in = rows, cols, dense.shape[0]
        ctx.save_for_backward(values, dense)
        xp = get_array_module(dense)
        out = xp.zeros((n_rows, dense.shape[1]), dtype=dense.dtype)
        scatter_add_rows(out, rows, values[:, None] * dense[cols])
        return out

    @staticmethod
    def backward(ctx, gy):
        values, dense = ctx.saved_tensors
        need_values, need_dense = ctx.needs_input_grad[:2]
        g_dense = g_values = None
        if need_dense:  # A^T @ gY: swap the roles of rows and cols
            g_dense = SparseDenseMM.apply(values, gy, ctx.cols, ctx.rows, ctx.n_in)
        if need_values:  # <gY[r_i], D[c_i]> for each stored entry
            picked_g = I.GetItem.apply(gy, (ctx.rows,))
            picked_d = I.GetItem.apply(dense, (ctx.cols,))
            g_values = (picked_g * picked_d).sum(1)
        return g_values, g_dense, None, None, None
