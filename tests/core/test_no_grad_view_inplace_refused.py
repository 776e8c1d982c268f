"""A view made under ``no_grad`` of a tensor that requires grad, then changed in place with
grad mode on, is refused with PyTorch's RuntimeError: its history was not recorded, so the write
could not reach the base's graph, and the base's gradient would silently ignore it (y = x * 1,
v = y[0] under no_grad, v.mul_(2): x.grad came out as if y[0] were still x[0])."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("of_leaf", [False, True])
def test_inplace_on_no_grad_view_of_grad_tensor_is_refused(of_leaf) -> None:
    x = mg.ones(2, 3, requires_grad=True)
    base = x if of_leaf else x * 1
    with mg.no_grad():
        v = base[0]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.mul_(2.0)
    np.testing.assert_array_equal(x.detach().numpy(), np.ones((2, 3)))


def test_no_grad_view_written_under_no_grad_or_of_a_constant_is_allowed() -> None:
    x = mg.ones(2, 3, requires_grad=True)
    y = x * 1
    with mg.no_grad():
        v = y[0]
        v.mul_(2.0)  # both inside no_grad: an untracked write, as PyTorch allows
    np.testing.assert_array_equal(y.detach().numpy(), [[2.0] * 3, [1.0] * 3])
    c = mg.ones(2, 3)
    with mg.no_grad():
        w = c[1]
    w.add_(1.0)  # the base needs no gradient: nothing to get wrong
    np.testing.assert_array_equal(c.numpy(), [[1.0] * 3, [2.0] * 3])


def test_view_made_with_grad_mode_on_is_still_tracked() -> None:
    x = mg.ones(2, 3, requires_grad=True)
    y = x * 1
    y[0].mul_(2.0)
    (y * mg.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0, 4.0], [3.0, 4.0, 5.0]])
