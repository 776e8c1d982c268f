"""``autograd.graph.increment_version``: a write autograd did not see, once announced, makes a
backward that saved the tensor raise as an in-place op would; without it the stale values would
be used silently. Lists are taken; inference tensors have no counter."""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis.autograd.graph import increment_version


def _square_sum():
    x = mg.ones(3, requires_grad=True)
    y = x * 1
    return x, y, (y * y).sum()  # mul saves y for its backward


def test_an_announced_outside_write_makes_backward_raise():
    _, y, z = _square_sum()
    y.detach().numpy()[:] = 5.0  # a write through the shared memory: autograd cannot see it
    increment_version(y)
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_without_a_write_backward_gives_the_gradient_and_lists_are_taken():
    x, y, z = _square_sum()
    z.backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    a, b = mg.zeros(2), mg.zeros(2)
    increment_version([a, b])
    assert (a._version, b._version) == (1, 1)


def test_inference_tensors_are_left_alone():
    with mg.inference_mode():
        t = mg.ones(2)
    increment_version(t)
    assert t._version == 0
