"""Reading ``.grad`` of a non-leaf tensor warns, as PyTorch does (backward never fills it there
unless ``retain_grad()`` was called); leaves, retained non-leaves and tensors outside the graph
read it silently."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg


def test_reading_grad_of_a_non_leaf_warns_and_gives_none() -> None:
    x = mg.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None


def test_leaves_retained_and_graph_free_tensors_read_grad_silently() -> None:
    x = mg.tensor([1.0, -2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = x * 5
    (y * y).sum().backward()
    plain = mg.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(x.grad.numpy(), 18.0 * np.array([1.0, -2.0]))
        np.testing.assert_allclose(y.grad.numpy(), 6.0 * np.array([1.0, -2.0]))
        assert plain.grad is None and z.detach().grad is None
