"""Sparse gradients for an embedding table: ``nn.Embedding(n, d, sparse=True)``.

A batch looks up a few rows of a big table, so dL/dW is zero everywhere else. With
``sparse=True`` PyTorch hands that gradient over as a sparse COO tensor holding only the rows
looked up (``W.grad.is_sparse``), and optimizers written for it (``optim.SparseAdam``) update only
those rows: word2vec-style models with large vocabularies train in time proportional to the batch,
not to the vocabulary.

Here the backward pass itself stays dense (the engine sums every gradient as one array); the
leaf's gradient is turned into its sparse form once it is complete, by two hooks on the weight:

- after the engine has added this pass's gradient into ``W.grad`` (a post-accumulate-grad
  hook), unless a dense use of ``W`` (``W * 2``, ``W @ x``) put gradient outside those rows
  (PyTorch's sum of a sparse and a dense gradient is dense, and so it stays here), ``W.grad``
  becomes a coalesced SparseCOOTensor of the rows looked up in this pass (and
  in earlier passes whose gradient it still holds), each row once with its summed gradient;
- before a later pass adds into it (a gradient hook on ``W``), a sparse ``W.grad`` is made dense
  again, so that gradients accumulate over passes as they do for dense ones.

The rows looked up are recorded by a hook on the lookup's output, which runs only when a gradient
reaches that output (a lookup whose result never reaches ``backward`` adds no rows). The one
visible difference from PyTorch: PyTorch's sparse gradient is uncoalesced (one entry per lookup,
repeats included); this one is already coalesced, which is what ``grad.coalesce()`` gives in both.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...backend import get_array_module
from ...sparse_coo import SparseCOOTensor

_ROWS = "_sparse_grad_rows"  # the weight's record of rows looked up since its grad was cleared


def record_sparse_lookup(weight: Tensor, out: Tensor, idx: Any, padding_idx: int | None) -> None:
    """Arrange for ``weight.grad`` to be sparse over the rows ``idx`` names (without
    ``padding_idx``, whose gradient is always zero) once a gradient reaches ``out``."""
    if not out.requires_grad or weight.grad_fn is not None:
        return  # no gradient, or a computed weight: its gradient flows on, dense
    if _ROWS not in weight.__dict__:  # the first sparse lookup of this weight: install the hooks
        weight.__dict__[_ROWS] = []
        weight.register_hook(lambda g: _densify(weight))
        weight.register_post_accumulate_grad_hook(_sparsify)
    rows = get_array_module(idx).unique(idx.reshape(-1))
    if padding_idx is not None:
        rows = rows[rows != padding_idx]

    def record(g: Tensor) -> None:
        weight.__dict__[_ROWS].append(rows)

    out.register_hook(record)


def _densify(weight: Tensor) -> None:
    """A gradient is about to be added into weight.grad: a sparse one becomes dense first,
    and its rows stay recorded (they are still part of the gradient)."""
    grad = weight._grad
    if isinstance(grad, SparseCOOTensor):
        weight.__dict__[_ROWS].append(grad._indices_t._data[0])
        weight._grad = grad.to_dense().detach()


def _sparsify(weight: Tensor) -> None:
    """weight.grad is complete: keep the recorded rows, as a coalesced sparse COO tensor."""
    recorded = weight.__dict__[_ROWS]
    grad = weight._grad
    if not recorded or grad is None or isinstance(grad, SparseCOOTensor):
        return  # no sparse lookup reached this pass (the weight was used densely only)
    xp = get_array_module(grad._data)
    rows = xp.unique(xp.concatenate(recorded)).astype(xp.int64)
    recorded.clear()
    outside = xp.ones(grad.shape[0], dtype=bool)
    outside[rows] = False
    if grad._data[outside].any():
        return  # the weight was also used densely in this pass: PyTorch's sum is dense too
    indices = Tensor._make(rows.reshape(1, -1))
    values = Tensor._make(grad._data[rows])
    weight._grad = SparseCOOTensor(indices, values, tuple(grad.shape), coalesced=True)
