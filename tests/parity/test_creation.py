"""PyTorch parity: creation functions (tensor dtype inference, zeros/ones/full/empty and the
*_like forms, arange, linspace, eye, random draws' dtypes and shapes).

Random VALUES cannot match (different generators); their dtype, shape, range and
``requires_grad`` can.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_same

import minigenesis as mg

torch = pytest.importorskip("torch")

F32_EPS = float(np.finfo(np.float32).eps)


def _d(L, name):
    return getattr(L, name)


CREATION = {
    "tensor_floats": lambda L: L.tensor([1.0, 2]),
    "tensor_ints": lambda L: L.tensor([1, 2]),
    "tensor_bools": lambda L: L.tensor([True, False]),
    "tensor_int_and_float": lambda L: L.tensor([1, 2.5]),
    "tensor_bool_and_int": lambda L: L.tensor([True, 2]),
    "tensor_scalar": lambda L: L.tensor(3.5),
    "tensor_int_scalar": lambda L: L.tensor(3),
    "tensor_empty_list": lambda L: L.tensor([]),
    "tensor_nested": lambda L: L.tensor([[1, 2], [3, 4]]),
    "tensor_numpy_float64": lambda L: L.tensor(np.array([1.0, 2.0])),
    "tensor_numpy_int32": lambda L: L.tensor(np.array([1, 2], dtype=np.int32)),
    "tensor_numpy_scalar_float64": lambda L: L.tensor(np.float64(2.0)),
    "tensor_numpy_scalar_float32": lambda L: L.tensor(np.float32(2.0)),
    "tensor_numpy_scalar_int32": lambda L: L.tensor(np.int32(2)),
    "tensor_of_0d_tensors": lambda L: L.tensor([L.tensor(1.5), L.tensor(2.5)]),
    "tensor_dtype_half": lambda L: L.tensor([1, 2], dtype=_d(L, "float16")),
    "tensor_floats_to_int": lambda L: L.tensor([1.7, -2.7], dtype=_d(L, "int64")),
    "tensor_bfloat16": lambda L: L.tensor([0.1, 1e30], dtype=_d(L, "bfloat16")),
    "tensor_float16_max": lambda L: L.tensor([0.1, 65504.0], dtype=_d(L, "float16")),
    "zeros": lambda L: L.zeros(2, 3),
    "zeros_tuple": lambda L: L.zeros((2, 3)),
    "zeros_list": lambda L: L.zeros([2, 3]),
    "zeros_int32": lambda L: L.zeros(2, dtype=_d(L, "int32")),
    "ones_0d": lambda L: L.ones(()),
    "ones_empty": lambda L: L.ones(0, 3),
    "ones_bool": lambda L: L.ones(2, dtype=_d(L, "bool")),
    "full_int": lambda L: L.full((2,), 3),
    "full_float": lambda L: L.full((2,), 3.0),
    "full_bool": lambda L: L.full((2,), True),
    "full_dtype": lambda L: L.full((2, 2), 7, dtype=_d(L, "float64")),
    "full_list_size": lambda L: L.full([3], 1.5),
    "eye": lambda L: L.eye(3),
    "eye_rect": lambda L: L.eye(2, 4),
    "eye_int": lambda L: L.eye(3, dtype=_d(L, "int64")),
    "zeros_like_int": lambda L: L.zeros_like(L.tensor([1, 2])),
    "ones_like_dtype": lambda L: L.ones_like(L.tensor([1, 2]), dtype=_d(L, "float32")),
    "full_like_int_float": lambda L: L.full_like(L.tensor([1, 2]), 2.7),
    "full_like_float_int": lambda L: L.full_like(L.tensor([1.0, 2]), 2),
    "full_like_half": lambda L: L.full_like(L.ones(2, dtype=_d(L, "float16")), 0.1),
    "arange_int": lambda L: L.arange(5),
    "arange_float_step": lambda L: L.arange(0, 1, 0.1),
    "arange_negative_step": lambda L: L.arange(5, 0, -1),
    "arange_float_end": lambda L: L.arange(5.0),
    "arange_int_args_float_dtype": lambda L: L.arange(0, 5, dtype=_d(L, "float32")),
    "arange_int_float_step": lambda L: L.arange(0, 5, 0.5),
    "arange_float_args_int_dtype": lambda L: L.arange(0.5, 5, dtype=_d(L, "int64")),
    "arange_float64": lambda L: L.arange(0, 1, 0.1, dtype=_d(L, "float64")),
    "arange_half": lambda L: L.arange(0, 3, 0.3, dtype=_d(L, "float16")),
    "arange_empty": lambda L: L.arange(3, 3),
    "linspace": lambda L: L.linspace(0, 1, 5),
    "linspace_one": lambda L: L.linspace(2, 3, 1),
    "linspace_zero": lambda L: L.linspace(0, 1, 0),
    "linspace_descending": lambda L: L.linspace(1, -1, 7),
    "linspace_many": lambda L: L.linspace(-3.3, 7.1, 101),
    "linspace_int": lambda L: L.linspace(0, 10, 5, dtype=_d(L, "int64")),
    "linspace_half": lambda L: L.linspace(-3.3, 7.1, 101, dtype=_d(L, "float16")),
    "linspace_bfloat16": lambda L: L.linspace(0.1, 0.7, 17, dtype=_d(L, "bfloat16")),
    "linspace_float64": lambda L: L.linspace(0.1, 0.7, 17, dtype=_d(L, "float64")),
}


@pytest.mark.parametrize("op", list(CREATION))
def test_creation_dtype_shape_and_values(op):
    m, t = CREATION[op](mg), CREATION[op](torch)
    # PyTorch's vectorised arange/linspace kernels round some lanes a second time (base + i *
    # step with a rounded base); the results agree within one ulp of the range's magnitude.
    scale = float(t.abs().max()) if t.numel() and t.is_floating_point() else 0.0
    ulp = {"float32": F32_EPS, "float64": 2.3e-16}.get(str(t.dtype)[6:], 0.0)
    assert_same(m, t, rtol=ulp, atol=ulp * scale)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_random_draws_dtype_shape_range(dtype):
    md, td = getattr(mg, dtype), getattr(torch, dtype)
    for fn in (
        lambda L, d: L.rand(2, 3, dtype=d),
        lambda L, d: L.randn((4,), dtype=d),
        lambda L, d: L.rand_like(L.ones(2, 2, dtype=d)),
        lambda L, d: L.randn_like(L.ones(3, dtype=d)),
        lambda L, d: L.empty(2, 2, dtype=d),
        lambda L, d: L.empty_like(L.ones(2, dtype=d)),
    ):
        m, t = fn(mg, md), fn(torch, td)
        assert m.dtype.name == str(t.dtype)[6:] and tuple(m.shape) == tuple(t.shape)
    u = mg.rand(1000, dtype=md).to(mg.float64).numpy()
    assert u.min() >= 0 and u.max() < 1
    assert mg.randn(2, requires_grad=True).requires_grad


def test_integer_draws():
    for fn in (
        lambda L: L.randint(0, 10, (3,)),
        lambda L: L.randint(10, (3, 2)),
        lambda L: L.randint(-5, 5, (4,), dtype=L.int32),
        lambda L: L.randperm(5),
        lambda L: L.randint_like(L.ones(3, dtype=L.int32), 0, 4),
    ):
        m, t = fn(mg), fn(torch)
        assert m.dtype.name == str(t.dtype)[6:] and tuple(m.shape) == tuple(t.shape)
    assert sorted(mg.randperm(7).tolist()) == list(range(7))
    r = mg.randint(-5, 5, (1000,)).numpy()
    assert r.min() >= -5 and r.max() < 5


def test_requires_grad_arguments():
    for fn in (
        lambda L: L.zeros(2, requires_grad=True),
        lambda L: L.ones_like(L.ones(2), requires_grad=True),
        lambda L: L.full((2,), 1.5, requires_grad=True),
        lambda L: L.arange(0.0, 3.0, requires_grad=True),
        lambda L: L.linspace(0, 1, 3, requires_grad=True),
        lambda L: L.eye(2, requires_grad=True),
        lambda L: L.tensor([1.0], requires_grad=True),
    ):
        m, t = fn(mg), fn(torch)
        assert m.requires_grad == t.requires_grad and m.is_leaf == t.is_leaf
    for fn in (
        lambda L: L.tensor([1, 2], requires_grad=True),
        lambda L: L.zeros(2, dtype=L.int64, requires_grad=True),
    ):
        with pytest.raises(RuntimeError):
            fn(torch)
        with pytest.raises(RuntimeError):
            fn(mg)


def test_creation_errors():
    for fn in (
        lambda L: L.arange(0, 5, 0),
        lambda L: L.arange(3, 0),
        lambda L: L.arange(0, 3, -1),
        lambda L: L.linspace(0, 1, -1),
        lambda L: L.randn(2, dtype=L.int64),
        lambda L: L.randint(5, 2, (3,)),
        lambda L: L.tensor([[1, 2], [3]]),
    ):
        with pytest.raises((RuntimeError, ValueError, TypeError)):
            fn(torch)
        with pytest.raises((RuntimeError, ValueError, TypeError)):
            fn(mg)


def test_default_dtype_changes_float_creation():
    old_mg, old_torch = mg.get_default_dtype(), torch.get_default_dtype()
    try:
        mg.set_default_dtype(mg.float64)
        torch.set_default_dtype(torch.float64)
        for fn in (
            lambda L: L.tensor([1.5]),
            lambda L: L.zeros(2),
            lambda L: L.arange(0.0, 2.0),
            lambda L: L.linspace(0, 1, 3),
            lambda L: L.tensor([1]) * 1.5,
            lambda L: L.tensor([1]) / 2,
            lambda L: L.full((1,), 2.0),
        ):
            assert_same(fn(mg), fn(torch))
    finally:
        mg.set_default_dtype(old_mg)
        torch.set_default_dtype(old_torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_rand_stays_below_one(dtype):
    # a float32 draw above 1 - 2^-12 rounds to 1.0 in float16 (to 1 in 20000 draws for sure)
    u = mg.rand(20000, dtype=getattr(mg, dtype)).to(mg.float64).numpy()
    t = torch.rand(20000, dtype=getattr(torch, dtype)).double().numpy()
    assert u.max() < 1 and t.max() < 1
    assert u.min() >= 0 and t.min() >= 0
