"""Tensor.copy_(src, non_blocking=True), as data-loading and weight-averaging code writes it
(``ema_p.copy_(p, non_blocking=True)``): the same values, casts, broadcast and gradient as a
plain copy_ (the copy is synchronous here)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg


def test_copy_non_blocking_copies_casts_and_broadcasts() -> None:
    src = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    dst = mg.zeros(2, 3)
    assert dst.copy_(mg.tensor(src), non_blocking=True) is dst
    np.testing.assert_array_equal(dst.numpy(), src.astype(np.float32))
    row = mg.zeros(4, 3, dtype=mg.float64)
    row.copy_(mg.tensor(src[1]), non_blocking=False)
    np.testing.assert_array_equal(row.numpy(), np.broadcast_to(src[1], (4, 3)))


def test_copy_non_blocking_passes_the_gradient_to_src() -> None:
    src = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = mg.zeros(3)
    out.copy_(src, non_blocking=True)
    (out * mg.tensor([2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(src.grad.numpy(), [2.0, 3.0, 4.0])
