"""NumPy's conversion protocol on a tensor (``Tensor.__array__``): ``np.asarray(t)`` is the
tensor's own array (shared memory, as ``t.numpy()``), ``np.array(t)`` is a copy (NumPy asks for
one), a dtype argument converts, and a tensor that requires grad is refused as ``numpy()``
refuses it. Oracle: NumPy's own sharing (np.shares_memory) and the values written."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_np_array_of_a_tensor_is_a_copy_writes_do_not_reach_the_tensor() -> None:
    t = mg.zeros(3)
    arr = np.array(t)
    arr[0] = 9.0
    np.testing.assert_array_equal(t.numpy(), [0.0, 0.0, 0.0])
    assert not np.shares_memory(arr, t.numpy())


def test_np_asarray_of_a_tensor_shares_memory_both_ways() -> None:
    t = mg.zeros(3)
    arr = np.asarray(t)
    arr[1] = 7.0
    assert t[1].item() == 7.0
    t[2] = 5.0
    assert arr[2] == 5.0


def test_np_array_with_a_dtype_converts_and_copy_false_refuses_a_conversion() -> None:
    t = mg.arange(3)
    got = np.array(t, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError):
        np.array(t, dtype=np.float32, copy=False)
    assert np.shares_memory(np.array(t, copy=False), t.numpy())


def test_np_asarray_of_a_tensor_requiring_grad_is_refused_as_numpy_is() -> None:
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        np.asarray(x)
    np.testing.assert_array_equal(np.asarray(x.detach()), [1.0, 1.0])


def test_tensor_matmul_numpy_array_multiplies() -> None:
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose((mg.tensor(a) @ b).numpy(), a @ b, rtol=1e-6)
