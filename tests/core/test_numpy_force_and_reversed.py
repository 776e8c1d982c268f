"""Two Tensor conveniences PyTorch programs use: ``t.numpy(force=True)`` (detach and copy to the
host in one call) and ``reversed(t)``, which PyTorch answers with a tensor, not an iterator."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_numpy_force_reads_a_tensor_that_requires_grad_while_grad_mode_is_on():
    w = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w.numpy()
    np.testing.assert_array_equal(w.numpy(force=True), [1.0, -2.0, 3.0])
    y = w * 2  # a non-leaf result of the graph too
    np.testing.assert_array_equal(y.numpy(force=True), [2.0, -4.0, 6.0])


def test_numpy_force_on_a_cpu_tensor_shares_its_memory_as_plain_numpy_does():
    x = mg.zeros(3)
    x.numpy(force=True)[1] = 5.0  # PyTorch: detach().cpu() of a CPU tensor is the same memory
    assert x.tolist() == [0.0, 5.0, 0.0]


def test_numpy_force_still_refuses_a_meta_tensor():
    with pytest.raises((TypeError, RuntimeError)):
        mg.empty(2, device="meta").numpy(force=True)


def test_numpy_is_keyword_only_for_force():
    with pytest.raises(TypeError):
        mg.ones(2).numpy(True)


def test_reversed_is_the_tensor_flipped_along_dim_0():
    a = np.arange(6.0).reshape(3, 2)
    r = reversed(mg.tensor(a))
    assert isinstance(r, mg.Tensor)
    np.testing.assert_array_equal(r.numpy(), a[::-1])
    s = mg.tensor(2.5)
    assert reversed(s) is s  # a 0-d tensor is its own reverse


def test_reversed_flows_gradients_back_in_the_original_order():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (reversed(x) * mg.tensor([10.0, 20.0, 30.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [30.0, 20.0, 10.0])


def test_numpy_force_copies_a_device_tensor_to_a_host_array(device: str):
    x = mg.arange(4.0, device=device).requires_grad_()
    host = x.numpy(force=True)
    assert type(host) is np.ndarray
    np.testing.assert_array_equal(host, [0.0, 1.0, 2.0, 3.0])
