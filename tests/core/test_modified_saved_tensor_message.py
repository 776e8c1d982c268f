"""The error for a saved tensor modified in place before backward starts with PyTorch 2.13's
words (programs and answers quote them): the tensor's legacy type and shape, the node whose
output it is, its version now and when saved; then how to fix it."""

from __future__ import annotations

import pytest

import minigenesis as mg


def test_an_op_output_modified_in_place_names_its_type_shape_node_and_versions() -> None:
    c = mg.randn(5, requires_grad=True)
    d = c.exp()
    d.add_(1)
    expected = (
        r"one of the variables needed for gradient computation has been modified by an inplace "
        r"operation: \[torch.FloatTensor \[5\]\], which is output 0 of Exp, is at version 1; "
        r"expected version 0 instead\. Hint: ExpBackward0 saved this tensor"
    )
    with pytest.raises(RuntimeError, match=expected):
        d.sum().backward()


def test_a_leaf_updated_under_no_grad_is_named_without_a_producer() -> None:
    p = mg.randn(3, 2, dtype=mg.float64, requires_grad=True)
    q = (p * p).sum()
    with mg.no_grad():
        p -= 0.1 * p
    with pytest.raises(RuntimeError, match=r": \[torch.DoubleTensor \[3, 2\]\] is at version 1; "):
        q.backward()
