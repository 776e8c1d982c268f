"""add_/sub_/mul_ (and +=, -=, *=) outside a graph write into self's memory in one pass
(inplace.py's _inplace_ufunc): the values NumPy's ufunc gives, the version counter bumped, views
and .data sharing the write, and the general path kept for everything else (broadcasting,
integer and 2-byte tensors, a graph, anomaly mode), with PyTorch's refusals."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

OPS = {"add": (np.add, "__iadd__"), "subtract": (np.subtract, "__isub__"),
       "multiply": (np.multiply, "__imul__")}  # fmt: skip


@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("other_kind", ["tensor", "float", "int"])
def test_one_pass_update_matches_numpy_and_bumps_the_version(name, dtype, other_kind):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5)).astype(dtype)
    b = rng.standard_normal((4, 5)).astype(dtype)
    other = {"tensor": mg.tensor(b), "float": -0.37, "int": 3}[other_kind]
    o = b if other_kind == "tensor" else other
    want = OPS[name][0](a, o)
    p = mg.tensor(a.copy(), requires_grad=True)
    d = p.detach()  # shares p's memory and version counter (.data shares the memory only)
    view = d[1]
    before, array = d._version, d._data
    getattr(d, OPS[name][1])(other)
    assert d._data is array  # written in place
    np.testing.assert_array_equal(p.detach().numpy(), want)
    np.testing.assert_array_equal(view.numpy(), want[1])
    assert d._version == before + 1 and p._version == before + 1
    data = p.data
    getattr(data, OPS[name][1])(other)
    np.testing.assert_array_equal(p.detach().numpy(), OPS[name][0](want, o))


def test_updating_a_saved_tensor_makes_backward_refuse():
    x = mg.randn(3, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    y.detach().add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        z.sum().backward()


def test_cases_the_one_pass_does_not_take_give_the_general_results():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    row = rng.standard_normal(4).astype(np.float32)
    t = mg.tensor(a.copy())
    t += mg.tensor(row)  # broadcasting: the general path
    np.testing.assert_array_equal(t.numpy(), a + row)
    t64 = mg.tensor(a.astype(np.float64))
    t64 -= mg.tensor(a)  # float32 other into float64 self: promoted, then kept float64
    assert t64.dtype == mg.float64
    np.testing.assert_array_equal(t64.numpy(), np.zeros((3, 4)))
    i = mg.tensor(np.arange(4))
    i *= 3
    assert i.dtype == mg.int64 and i.tolist() == [0, 3, 6, 9]
    with pytest.raises(RuntimeError, match="can't be cast"):
        i += 0.5
    h = mg.tensor(a).half()
    h += 1.0
    assert h.dtype == mg.float16
    np.testing.assert_allclose(h.float().numpy(), a + 1, rtol=1e-3, atol=1e-3)


def test_inside_a_graph_the_update_is_recorded():
    x = mg.randn(3, requires_grad=True)
    w = mg.randn(3, requires_grad=True)
    y = x * 1.0
    y += w  # tracked: y takes the add's node
    y *= 3.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))
    np.testing.assert_allclose(w.grad.numpy(), np.full(3, 3.0))
    c = mg.zeros(3)
    c += w  # a constant updated by a tensor that requires grad: recorded too
    assert c.requires_grad and c.grad_fn is not None


def test_refusals_are_those_of_pytorch():
    p = mg.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p += 1.0
    with mg.no_grad():
        p += 1.0  # allowed, as optimizers do
    e = mg.ones(1).expand(3)
    with pytest.raises(RuntimeError, match="read-only"):
        e += 1.0
    with pytest.raises((RuntimeError, ValueError)):
        t = mg.ones(3)
        t += mg.ones(4)


def test_anomaly_mode_still_checks_the_result():
    t = mg.tensor([1.0, 2.0])
    with mg.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="NaN or Inf"):
        t *= float("inf")
