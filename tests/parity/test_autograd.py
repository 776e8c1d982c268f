"""PyTorch parity: the Tensor's autograd interface and conversions: backward with a gradient,
accumulation, retain_graph, second derivatives (create_graph) of many ops, autograd.grad,
hooks, retain_grad, detach/data sharing, grad modes, dtype conversions, item/tolist.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_grads, assert_same, data, pair

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _is_mg(x):
    return isinstance(x, mg.Tensor)


SECOND_ORDER = {
    "mul": lambda x: (x * x * x).sum(),
    "div": lambda x: (1 / (x * x + 1)).sum(),
    "pow": lambda x: (x.abs() ** 2.5).sum(),
    "exp_log": lambda x: ((x * 0.5).exp() + (x * x + 1).log()).sum(),
    "sqrt": lambda x: (x * x + 1).sqrt().sum(),
    "tanh": lambda x: x.tanh().sum(),
    "sigmoid": lambda x: x.sigmoid().sum(),
    "softmax": lambda x: (x.softmax(-1) * (x + 1)).sum(),
    "log_softmax": lambda x: (x.log_softmax(0) ** 2).sum(),
    "logsumexp": lambda x: x.logsumexp(1).sum() ** 2,
    "gelu": lambda x: (F.gelu(x) if _is_mg(x) else TF.gelu(x)).sum(),
    "silu": lambda x: (F.silu(x) if _is_mg(x) else TF.silu(x)).sum(),
    "softplus": lambda x: (F.softplus(x) if _is_mg(x) else TF.softplus(x)).pow(2).sum(),
    "var": lambda x: x.var(1).sum() ** 2,
    "norm": lambda x: x.norm() ** 3,
    "norm_dim": lambda x: (x.norm(dim=1) ** 3).sum(),
    "sqrt_0d_of_array": lambda x: (x.abs() + 1).sqrt().sum() ** 3,
    "matmul": lambda x: ((x @ x.T) ** 2).sum(),
    "max": lambda x: (x.max(1).values ** 2).sum(),
    "getitem": lambda x: (x[[0, 0, 1], 1:] ** 3).sum(),
    "layer_norm": lambda x: (
        (F.layer_norm(x, (4,)) if _is_mg(x) else TF.layer_norm(x, (4,))) * x
    ).sum(),
    "cross_entropy": lambda x: (
        F.cross_entropy(x, mg.tensor([1, 3, 0]))
        if _is_mg(x)
        else TF.cross_entropy(x, torch.tensor([1, 3, 0]))
    ),
    "mse": lambda x: F.mse_loss(x**2, x) if _is_mg(x) else TF.mse_loss(x**2, x),
    "bce_logits": lambda x: (
        F.binary_cross_entropy_with_logits(x, x.detach().sigmoid())
        if _is_mg(x)
        else TF.binary_cross_entropy_with_logits(x, x.detach().sigmoid())
    ),
}


@pytest.mark.parametrize("op", list(SECOND_ORDER))
def test_second_derivatives(op):
    """d/dx sum(dL/dx * v): the Hessian-vector product, through create_graph=True."""
    fn = SECOND_ORDER[op]
    m, t = pair(torch, data((3, 4), "float64", 71), "float64", requires_grad=True)
    v = data((3, 4), "float64", 72)
    (mg_g,) = mg.autograd.grad(fn(m), [m], create_graph=True)
    (t_g,) = torch.autograd.grad(fn(t), [t], create_graph=True)
    assert_same(mg_g, t_g, rtol=1e-10, atol=1e-12)
    (mg_h,) = mg.autograd.grad((mg_g * mg.tensor(v)).sum(), [m])
    (t_h,) = torch.autograd.grad((t_g * torch.tensor(v)).sum(), [t])
    assert_same(mg_h, t_h, rtol=1e-9, atol=1e-12)


def test_backward_with_a_gradient_accumulates_and_retains():
    m, t = pair(torch, data((2, 3), "float64", 73), "float32", requires_grad=True)
    g = data((2, 3), "float64", 74)
    m_y, t_y = m.exp() * 2, t.exp() * 2
    m_y.backward(mg.tensor(g, dtype=mg.float32), retain_graph=True)
    t_y.backward(torch.tensor(g, dtype=torch.float32), retain_graph=True)
    m_y.backward(mg.tensor(g, dtype=mg.float32))
    t_y.backward(torch.tensor(g, dtype=torch.float32))
    assert_grads([m], [t], rtol=1e-6)
    for L, y in ((torch, t_y), (mg, m_y)):  # the graph is freed now
        with pytest.raises(RuntimeError, match="second time|freed"):
            y.backward(L.ones(2, 3))
    for y in (t * 2, m * 2):  # a non-scalar needs a gradient
        with pytest.raises(RuntimeError):
            y.backward()


def test_autograd_grad_with_grad_outputs_and_several_inputs():
    ma, ta = pair(torch, data((3,), "float64", 75), "float64", requires_grad=True)
    mb, tb = pair(torch, data((3,), "float64", 76), "float64", requires_grad=True)
    go = data((3,), "float64", 77)
    m_g = mg.autograd.grad(ma * mb + ma.exp(), [ma, mb], grad_outputs=mg.tensor(go))
    t_g = torch.autograd.grad(ta * tb + ta.exp(), [ta, tb], grad_outputs=torch.tensor(go))
    for a, b in zip(m_g, t_g):
        assert_same(a, b)
    assert ma.grad is None and ta.grad is None  # grad() does not accumulate into .grad


def _hooked(L, x, seen, name):
    y = x * 3
    y.retain_grad()
    h = y.register_hook(lambda g: g * 2)  # replaces the gradient flowing on
    x.register_hook(lambda g: seen.__setitem__(name, g))
    (y * y).sum().backward()
    h.remove()
    return y


def test_hooks_replace_the_gradient():
    m, t = pair(torch, data((2, 3), "float64", 78), "float32", requires_grad=True)
    seen = {}
    _hooked(mg, m, seen, "mg")
    _hooked(torch, t, seen, "torch")
    assert_same(seen["mg"], seen["torch"], rtol=1e-6)
    assert_grads([m], [t], rtol=1e-6)


def test_retain_grad_sees_the_gradient_after_hooks():
    m, t = pair(torch, data((2, 3), "float64", 78), "float32", requires_grad=True)
    seen = {}
    my, ty = _hooked(mg, m, seen, "mg"), _hooked(torch, t, seen, "torch")
    assert_same(my.grad, ty.grad, rtol=1e-6)


def test_retain_grad_without_hooks():
    m, t = pair(torch, data((2, 3), "float64", 78), "float32", requires_grad=True)
    my, ty = m.exp(), t.exp()
    my.retain_grad()
    ty.retain_grad()
    (my * my).sum().backward()
    (ty * ty).sum().backward()
    assert_same(my.grad, ty.grad, rtol=1e-6)
    assert_grads([m], [t], rtol=1e-6)


def test_detach_data_and_requires_grad_rules():
    for L in (torch, mg):
        x = L.ones(3, requires_grad=True)
        y = x * 2
        d = y.detach()
        assert not d.requires_grad and d.is_leaf and y.grad_fn is not None and not y.is_leaf
        d.add_(1)  # shares memory
        assert y.tolist() == [3.0, 3.0, 3.0]
        x.data.mul_(5)  # .data bypasses autograd
        assert x.tolist() == [5.0, 5.0, 5.0] and x.is_leaf
        with pytest.raises(RuntimeError):
            L.ones(2, dtype=L.int64).requires_grad_()
        with pytest.raises(RuntimeError):
            y.requires_grad_(False)  # only leaves
        y.detach_()
        assert not y.requires_grad and y.grad_fn is None


def test_grad_modes():
    for L in (torch, mg):
        x = L.ones(2, requires_grad=True)
        with L.no_grad():
            assert not (x * 2).requires_grad
            with L.enable_grad():
                assert (x * 2).requires_grad
        with L.set_grad_enabled(False):
            assert not L.is_grad_enabled()
        assert L.is_grad_enabled()

        @L.no_grad()
        def f(a):
            return a * 2

        assert not f(x).requires_grad


CONVERSIONS = {
    "to_int64": lambda x, L: x.to(L.int64),
    "int": lambda x, L: x.int(),
    "long": lambda x, L: x.long(),
    "bool": lambda x, L: x.bool(),
    "half": lambda x, L: x.half(),
    "bfloat16": lambda x, L: x.bfloat16(),
    "double": lambda x, L: x.double(),
    "float_of_int": lambda x, L: x.long().float(),
    "abs_to_uint8": lambda x, L: x.abs().to(L.uint8),
    "type_as": lambda x, L: x.type_as(x.long()),
    "to_tensor": lambda x, L: x.to(x.double()),
    "to_dtype_kw": lambda x, L: x.to(dtype=L.float16),
    "to_device_dtype": lambda x, L: x.to("cpu", L.float64),
    "half_to_bfloat16": lambda x, L: x.half().bfloat16(),
}


@pytest.mark.parametrize("op", list(CONVERSIONS))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 1e5 overflows float16 to inf in both
def test_dtype_conversions(op):
    m, t = pair(torch, [[1.5, -2.7, 0.0], [3.2, 0.4, -0.6], [1e5, -7e4, 0.1]], "float32")
    assert_same(CONVERSIONS[op](m, mg), CONVERSIONS[op](t, torch))


def test_conversions_are_differentiable_and_same_dtype_is_identity():
    m, t = pair(torch, data((3,), "float64", 79), "float32", requires_grad=True)
    (m.double() * 3).half().float().sum().backward()
    (t.double() * 3).half().float().sum().backward()
    assert_grads([m], [t])
    assert m.to(mg.float32) is m and t.to(torch.float32) is t
    assert m.to(mg.float32, copy=True) is not m


def test_python_values():
    m, t = pair(torch, [[1.5, -2.7], [3.0, 0.25]], "float32")
    for fn in (
        lambda x: x[0, 0].item(),
        lambda x: type(x[0, 0].item()),
        lambda x: type(x.long()[0, 0].item()),
        lambda x: type((x > 0)[0, 0].item()),
        lambda x: x.bfloat16()[0, 1].item(),
        lambda x: x.tolist(),
        lambda x: x.long().tolist(),
        lambda x: (x > 0).tolist(),
        lambda x: x.half().tolist(),
        lambda x: float(x[1, 1]),
        lambda x: int(x[0, 1]),
        lambda x: [10, 20, 30, 40][x.long()[1, 0]],
        lambda x: len(x),
        lambda x: [tuple(r.shape) for r in x],
        lambda x: x.numel(),
        lambda x: x.size(-1),
        lambda x: tuple(x.size()),
        lambda x: x.ndim,
        lambda x: x.dim(),
        lambda x: x.is_floating_point(),
        lambda x: x.long().is_floating_point(),
        lambda x: x.half().element_size(),
        lambda x: x.device.type,
        lambda x: tuple(x.T.shape),
        lambda x: bool(x[0, 0] > 0),
    ):
        assert fn(m) == fn(t)
    for fn in (lambda x: x.item(), lambda x: bool(x), lambda x: len(x[0, 0])):
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            fn(t)
        with pytest.raises((RuntimeError, TypeError, ValueError)):
            fn(m)


def test_numpy_interop():
    m, t = pair(torch, data((2, 3), "float64", 80), "float32")
    np.testing.assert_array_equal(m.numpy(), t.numpy())
    np.testing.assert_array_equal(np.asarray(m), np.asarray(t))
    arr = np.ones(3)
    assert_same(mg.from_numpy(arr), torch.from_numpy(arr))
    mg.from_numpy(arr)[0] = 5.0  # shares memory
    assert arr[0] == 5.0
    for x in (m, t):
        with pytest.raises(RuntimeError):
            x.requires_grad_().numpy()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_integer_division_by_zero_raises():
    m, t = pair(torch, [1, 2], "int64")
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        t // 0
    with pytest.raises((ZeroDivisionError, RuntimeError)):
        m // 0
