"""The autograd machinery: grad modes, accumulation, graphs, hooks, errors, custom Functions."""

from __future__ import annotations

import gc
import re
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg


def test_grad_accumulates_across_backward_calls(device: str) -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * np.array([1, 2, 3]) + 3)


def test_shared_subgraph_sums_both_paths() -> None:
    x = mg.tensor(2.0, requires_grad=True)
    y = x * x  # used twice below: dL/dy = 3 + 4, dL/dx = 7 * 2x
    loss = y * 3 + y * 4
    loss.backward()
    assert x.grad.item() == pytest.approx(28.0)


def test_many_gradients_of_one_tensor_sum_without_changing_the_ones_shared(device: str) -> None:
    """A tensor used many times sums its gradients in the engine (into the first sum, in place,
    from the third on): the total is right, and a gradient the engine handed to two tensors at
    once (``a + b`` passes its one gradient to both), or that a hook keeps, is left unchanged."""
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((2, 3)), rng.standard_normal((5, 3))
    x = mg.tensor(xs, requires_grad=True, device=device)
    h = x * 1.0  # a non-leaf used five times: its hook sees the total
    seen = []
    h.register_hook(lambda g: seen.append(g.cpu().numpy().copy()))
    shared = []
    terms = []
    for w in ws:
        s = h + mg.tensor(w, device=device)  # Add hands one gradient to h and to the constant
        s.register_hook(lambda g: shared.append(g))
        terms.append((s * s).sum())
    sum(terms).backward()
    total = sum(2 * (xs + w) for w in ws)  # d/dh of sum_w |h + w|^2
    np.testing.assert_allclose(seen[0], total, rtol=1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), total, rtol=1e-12)
    for g, w in zip(shared, ws[::-1], strict=True):  # (backward reaches the last term first)
        np.testing.assert_allclose(g.cpu().numpy(), 2 * (xs + w), rtol=1e-12)


def test_grad_is_not_aliased_between_leaves(device: str) -> None:
    a = mg.ones(3, requires_grad=True, device=device)
    b = mg.ones(3, requires_grad=True, device=device)
    (a + b).sum().backward()  # Add hands the same gradient to both
    a.grad.data.div_(2.0)  # a hand-written loss scaler unscales like this: b.grad must not change
    np.testing.assert_array_equal(b.grad.cpu().numpy(), np.ones(3))
    np.testing.assert_array_equal(a.grad.cpu().numpy(), np.full(3, 0.5))


class _Doubled(mg.autograd.Function):
    """y = 2x, whose backward records the id of the gradient array it makes."""

    made: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        g = grad * 2
        _Doubled.made.append(id(g._data))  # (an id only: nothing here holds the array)
        return g


def test_first_gradient_nothing_else_holds_becomes_grad_without_a_copy(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    _Doubled.made.clear()
    _Doubled.apply(x).sum().backward()
    assert id(x.grad._data) == _Doubled.made[0]  # the array the backward made, not a copy
    _Doubled.apply(x).sum().backward()  # the second one is added in place
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [4.0, 4.0])


def test_first_gradient_a_view_of_an_array_nothing_else_holds_becomes_grad(device: str) -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=device)
    _Doubled.made.clear()
    _Doubled.apply(x.reshape(4)).sum().backward()  # x's gradient: a (2, 2) view of a (4,) array
    assert id(x.grad._data.base) == _Doubled.made[0]  # kept as it is: no copy
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.full((2, 2), 2.0))


class _KeepsItsGradient(mg.autograd.Function):
    """y = x, whose backward keeps the array of the gradient it returns a view of."""

    kept: list = []

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        g = (grad * 1).reshape(4)
        _KeepsItsGradient.kept.append(g._data)  # the array only: g itself is let go
        return g.reshape(2, 2)


def test_first_gradient_a_view_of_an_array_held_elsewhere_is_copied(device: str) -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, device=device)
    _KeepsItsGradient.kept.clear()
    _KeepsItsGradient.apply(x).sum().backward()
    x.grad.data.mul_(5.0)  # the array the backward kept must not change
    from minigenesis.backend import to_numpy

    np.testing.assert_array_equal(to_numpy(_KeepsItsGradient.kept[0]), np.ones(4))


def test_first_gradient_a_hook_keeps_is_copied_into_grad(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    kept = []
    x.register_hook(kept.append)
    (x * 3).sum().backward()
    (x * 3).sum().backward()  # added into x.grad in place: the kept gradient must not change
    np.testing.assert_array_equal(kept[0].cpu().numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [6.0, 6.0])


def test_first_gradient_a_retained_grad_shares_is_copied_into_grad(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = x + 0  # Add hands y's gradient to x as it is
    y.retain_grad()
    (y * 5).sum().backward()
    retained = y.grad
    (x * 2).sum().backward()  # added into x.grad in place: y.grad must not change
    np.testing.assert_array_equal(retained.cpu().numpy(), [5.0, 5.0])
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [7.0, 7.0])


def test_no_grad_and_enable_grad_and_set_grad_enabled() -> None:
    x = mg.ones(2, requires_grad=True)
    with mg.no_grad():
        y = x * 2
        with mg.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad
    with mg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert mg.is_grad_enabled()

    @mg.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    mg.set_grad_enabled(False)
    assert not mg.is_grad_enabled()
    mg.set_grad_enabled(True)
    assert mg.is_grad_enabled()


def test_grad_mode_is_thread_local() -> None:
    seen = []
    inside = threading.Event()
    release = threading.Event()

    def worker():
        inside.wait()
        seen.append(mg.is_grad_enabled())  # the main thread is inside no_grad right now
        release.set()

    t = threading.Thread(target=worker)
    t.start()
    with mg.no_grad():
        inside.set()
        release.wait()
    t.join()
    assert seen == [True]


def test_double_backward_with_create_graph(device: str) -> None:
    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True, device=device)
    y = (x**3).sum()
    (g,) = mg.autograd.grad(y, x, create_graph=True)  # 3 x^2
    np.testing.assert_allclose(g.detach().cpu().numpy(), 3 * x.detach().cpu().numpy() ** 2)
    (gg,) = mg.autograd.grad(g.sum(), x)  # 6 x
    np.testing.assert_allclose(gg.cpu().numpy(), 6 * x.detach().cpu().numpy())
    assert x.grad is None  # autograd.grad never accumulates


def test_second_derivatives_of_activations_match_finite_differences(device: str) -> None:
    x0 = np.array([-1.3, -0.2, 0.4, 1.7])
    for name in ["tanh", "sigmoid", "gelu", "silu", "exp", "softmax"]:

        def first(x, name=name):
            y = getattr(x, name)()
            (g,) = mg.autograd.grad((y * y).sum(), x, create_graph=True)
            return g

        x = mg.tensor(x0, requires_grad=True, device=device)
        assert mg.autograd.gradcheck(first, [x], atol=1e-5), name


def test_create_graph_backward_puts_graph_in_grad() -> None:
    x = mg.tensor(3.0, dtype=mg.float64, requires_grad=True)
    (x**2).backward(create_graph=True)
    assert x.grad.requires_grad
    gx = x.grad
    x.grad = None
    gx.backward()
    assert x.grad.item() == pytest.approx(2.0)


def test_deep_chain_of_10000_ops_has_no_recursion_limit() -> None:
    x = mg.tensor(1.0, dtype=mg.float64, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.backward()
    assert x.grad.item() == pytest.approx(1.0001**10_000, rel=1e-4)
    del y
    gc.collect()


def test_second_backward_through_freed_graph_says_what_to_do() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * np.array([1, 2]) + 2 * np.array([1, 2]))


def test_graph_frees_saved_arrays_after_backward() -> None:
    x = mg.randn(1000, requires_grad=True)
    y = x.exp()
    z = (y * y).sum()
    node = z.grad_fn
    inner = y.grad_fn
    z.backward()
    assert node._saved is None and inner._saved is None
    # and the graph is collected once nothing points to it
    ref = weakref.ref(inner)
    del y, z, node, inner
    gc.collect()
    assert ref() is None


def test_backward_on_non_scalar_needs_gradient() -> None:
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="gradient"):
        (x * 2).backward()
    (x * 2).backward(mg.tensor([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2, 0, 4])


def test_backward_on_tensor_without_grad_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.ones(2).sum().backward()


def test_inplace_change_to_saved_tensor_raises_version_error() -> None:
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1  # non-leaf
    c = b.exp()  # Exp saves its output c
    d = b * b  # Mul saves b
    b.add_(1.0)  # changes b after Mul saved it
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        d.sum().backward()
    c.sum().backward()  # c's backward needs only c, which did not change


def test_inplace_on_view_shares_the_version_counter() -> None:
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    y = b.sum() * b[0]  # saves b through the getitem chain
    with mg.no_grad():
        b[1:].mul_(10)  # a view of b changed in place
    with pytest.raises(RuntimeError, match="in-place"):
        y.backward()


def test_inplace_on_leaf_requiring_grad_is_refused_outside_no_grad() -> None:
    w = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.add_(1.0)
    with mg.no_grad():
        w.add_(1.0)
    np.testing.assert_array_equal(w.detach().numpy(), np.full(3, 2.0))


def test_inplace_op_inside_graph_is_differentiated(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = x * 2
    y.add_(x)  # y = 3x
    y.mul_(2.0)  # y = 6x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [6, 6])


def test_setitem_with_grad(device: str) -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    v = mg.tensor(5.0, requires_grad=True, device=device)
    y = x * 1
    y[1] = v * 2
    (y * mg.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [1, 0, 100])
    assert v.grad.item() == pytest.approx(20.0)


def test_retain_grad_and_hooks(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    y = x * 3
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.cpu().numpy().copy()))
    handle = x.register_hook(lambda g: g * 10)  # replaces x's gradient
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.cpu().numpy(), 2 * np.array([3, 6]))
    np.testing.assert_allclose(seen[0], [6, 12])
    np.testing.assert_allclose(x.grad.cpu().numpy(), 10 * 3 * np.array([6, 12]))
    handle.remove()
    x.grad = None
    (x * 1).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [1, 1])


def test_leaf_hook_runs_once_with_the_total_gradient() -> None:
    x = mg.tensor(1.0, requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(g.item()))
    (x * 2 + x * 3).backward()
    assert calls == [5.0]


def test_autograd_grad_with_non_leaf_inputs_and_unused(device: str) -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True, device=device)
    h = x * 2
    out = (h * h).sum()
    (gh,) = mg.autograd.grad(out, [h], retain_graph=True)
    np.testing.assert_allclose(gh.cpu().numpy(), 2 * h.detach().cpu().numpy())
    unused = mg.tensor([1.0], requires_grad=True, device=device)
    with pytest.raises(RuntimeError, match="allow_unused"):
        mg.autograd.grad(out, [x, unused], retain_graph=True)
    gx, gu = mg.autograd.grad(out, [x, unused], allow_unused=True)
    assert gu is None
    np.testing.assert_allclose(gx.cpu().numpy(), 8 * x.detach().cpu().numpy())


# NaN and inf on purpose: NumPy's warnings about them are expected, not news
@pytest.mark.filterwarnings("ignore:invalid value encountered in log:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning")
def test_detect_anomaly_names_the_op() -> None:
    x = mg.tensor([-1.0, 1.0], requires_grad=True)
    with mg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="Log"):
            x.log()
        y = x.sqrt() if False else (x * 0).sqrt()  # forward fine (0), backward 1/(2*0) = inf
        with pytest.raises(RuntimeError, match="Sqrt.*backward"):
            y.sum().backward()


def test_custom_function_pytorch_style() -> None:
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    x = mg.tensor([1.0, -2.0], dtype=mg.float64, requires_grad=True)
    y = Cube.apply(x)
    assert y.grad_fn is not None
    np.testing.assert_allclose(y.detach().numpy(), [1, -8])
    assert mg.autograd.gradcheck(Cube.apply, [x])


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads_passes_none_for_an_output_no_gradient_reached(materialize):
    seen = []

    class TwoOutputs(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g2, g3):
            seen.append(g3)
            return g2 * 2 + (0 if g3 is None else g3 * 3)

    x = mg.tensor([1.0, -2.0], requires_grad=True)
    doubled, _ = TwoOutputs.apply(x)  # the second output is not used
    doubled.sum().backward()
    if materialize:  # PyTorch's default: zeros of the output's shape
        np.testing.assert_array_equal(seen[0].numpy(), [0.0, 0.0])
    else:
        assert seen == [None]
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_dtype_promotion_rules() -> None:
    f16 = mg.ones(2, dtype=mg.float16)
    f32 = mg.ones(2)
    i64 = mg.tensor([1, 2])
    assert (f16 + f32).dtype is mg.float32
    assert (f16 * 2.5).dtype is mg.float16  # a Python scalar does not upcast
    assert (mg.ones(2, dtype=mg.bfloat16) * 2.5).dtype is mg.bfloat16
    assert (i64 * 2.5).dtype is mg.float32  # int tensor and float scalar: default float
    assert (i64 + 1).dtype is mg.int64
    assert (i64 / 2).dtype is mg.float32
    assert (i64 + f16).dtype is mg.float16
    assert mg.promote_types(mg.float16, mg.bfloat16) is mg.float32
    assert mg.promote_types(mg.uint8, mg.int8) is mg.int16
    assert (mg.tensor([True]) + 1).dtype is mg.int64
    assert mg.tensor([1.5]).dtype is mg.float32 and mg.tensor([1]).dtype is mg.int64
    assert mg.tensor(np.ones(2)).dtype is mg.float64  # NumPy arrays keep their dtype


def test_gradient_reaches_float16_input_as_float16() -> None:
    a = mg.ones(3, dtype=mg.float16, requires_grad=True)
    b = mg.ones(3, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype is mg.float16 and b.grad.dtype is mg.float32


def test_shape_mismatch_names_op_and_shapes() -> None:
    with pytest.raises(RuntimeError, match=r"tensor a \(3\) must match .* tensor b \(4\)"):
        mg.ones(3) + mg.ones(4)
    with pytest.raises(RuntimeError, match=r"\(2, 3\) and \(4, 5\)"):  # PyTorch's type
        mg.ones(2, 3) @ mg.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"\(3,\) and \(4,\)"):
        mg.ones(3) @ mg.ones(4)
    with pytest.raises(RuntimeError, match=r"\(2, 3, 4\) and \(3, 4, 5\)"):
        mg.ones(2, 3, 4) @ mg.ones(3, 4, 5)
    with pytest.raises(RuntimeError, match="reshape"):
        mg.ones(6).reshape(4, 2)


def test_tensor_conversions() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = mg.from_numpy(a)
    t.numpy()[0, 0] = 100
    assert a[0, 0] == 100  # shares memory
    assert np.asarray(t) is a
    assert t.tolist() == a.tolist()
    assert f"{mg.tensor(3.14159):.2f}" == "3.14"
    assert f"{mg.tensor(12345.0):.2e}" == "1.23e+04"
    assert "requires_grad=True" in repr(mg.ones(2, requires_grad=True))
    assert "grad_fn" in repr(mg.ones(2, requires_grad=True) * 2)
    assert mg.tensor([1.0, 2.0]).data.numpy().tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="detach"):
        mg.ones(2, requires_grad=True).numpy()
    d = np.from_dlpack(mg.tensor([1.0, 2.0]))
    assert d.tolist() == [1.0, 2.0]


def test_data_shares_storage_and_is_untracked() -> None:
    w = mg.ones(3, requires_grad=True)
    w.data.mul_(2)  # allowed: .data is outside the graph
    np.testing.assert_array_equal(w.detach().numpy(), np.full(3, 2.0))


def test_cuda_request_without_cupy_is_clear() -> None:
    if mg.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="CuPy|GPU"):
        mg.ones(2, device="cuda")
    assert mg.cuda.device_count() == 0 and mg.cuda.memory_allocated() == 0
    assert mg.device("cuda:0") == mg.device("cuda")
    assert str(mg.device("cpu")) == "cpu"


def test_rng_state_round_trip() -> None:
    mg.manual_seed(123)
    state = mg.get_rng_state()
    a = mg.randn(5)
    mg.set_rng_state(state)
    b = mg.randn(5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    mg.manual_seed(123)
    np.testing.assert_array_equal(mg.randn(5).numpy(), a.numpy())
    assert mg.randint(0, 10, (100,)).dtype is mg.int64
    assert sorted(mg.randperm(7).tolist()) == list(range(7))


def test_no_module_outside_the_backend_computes_with_numpy_on_tensor_data() -> None:
    """ARCHITECTURE.md: compute gets its array module from the backend (xp), never `np.` directly,
    so one code path serves NumPy and CuPy.

    Checked: every module that computes on tensor data (ops, nn, optim, amp, the Tensor's math and
    the functional forms). Allowed there: dtypes and constants, type checks, and host-side helpers
    such as np.errstate. Not checked, by design: modules that work on host data only (backend.py
    itself, gradcheck, serialization, data loading, logging, plots, _tensor.py's printing and
    NumPy conversion).
    """
    root = Path(mg.__file__).parent
    allowed_attrs = {
        "ndarray",
        "dtype",
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "bool_",
        "generic",
        "integer",
        "floating",
        "number",
        "iinfo",
        "finfo",
        "random",
        "inf",
        "pi",
        "e",
        "errstate",
        "prod",
        "broadcast_shapes",
        "asarray",
        "fromiter",  # host-side: an array built from a Python iterator (combinations' indices)
    }
    # unpickling; a host-side demonstration; the replay of PyTorch's CPU sorts on host arrays
    host_only = {"nn/parameter.py", "amp/underflow.py", "ops/stl_order.py"}
    tensor = (
        "tensor_math",
        "tensor_reductions",
        "tensor_inplace",
        "tensor_random",
        "tensor_linalg",
    )
    files = [root / f"{name}.py" for name in tensor] + sorted((root / "functions").glob("*.py"))
    for package in ("ops", "nn", "optim", "amp"):
        files += sorted((root / package).rglob("*.py"))
    offenders = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in host_only:
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            for attr in re.findall(r"\bnp\.(\w+)", code):
                if attr not in allowed_attrs:
                    offenders.append(f"{rel}:{lineno}: np.{attr}")
    assert not offenders, "direct NumPy compute outside the backend: " + ", ".join(offenders)
