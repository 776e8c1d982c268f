"""Gradient checkpointing and gradient accumulation: gradients equal to the plain computation."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.utils.checkpoint import checkpoint, checkpoint_sequential


def grads(model):
    return [p.grad.cpu().numpy().copy() for p in model.parameters()]


def assert_same(a, b, tol=1e-6):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def make_mlp(depth=6, width=16, dropout=0.0):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.Tanh()]
        if dropout:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers, nn.Linear(width, 3))


VARIANTS = pytest.mark.parametrize("reentrant", [False, True], ids=["recorded", "reentrant"])


@VARIANTS
def test_checkpoint_gradients_equal_plain_gradients(reentrant, device):
    mg.manual_seed(0)
    model = make_mlp().double().to(device)
    x = mg.randn(8, 16, dtype=mg.float64, device=device, requires_grad=True)
    model(x).pow(2).sum().backward()
    plain, plain_x = grads(model), x.grad.cpu().numpy().copy()
    model.zero_grad()
    x.grad = None

    y = checkpoint(model, x, use_reentrant=reentrant)
    assert y.requires_grad
    y.pow(2).sum().backward()
    assert_same(grads(model), plain, 1e-12)
    np.testing.assert_allclose(x.grad.cpu().numpy(), plain_x, rtol=1e-12)


@VARIANTS
def test_checkpoint_sequential_in_float32_to_1e6(reentrant, device):
    mg.manual_seed(1)
    model = make_mlp(depth=8).to(device)
    x = mg.randn(32, 16, device=device)
    model(x).sum().backward()
    plain = grads(model)
    model.zero_grad()
    for segments in (1, 2, 4, 7):
        out = checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
        out.sum().backward()
        assert_same(grads(model), plain)
        model.zero_grad()
    with pytest.raises(ValueError, match="segments must be between 1 and 17"):
        checkpoint_sequential(model, 0, x)


@VARIANTS
def test_dropout_replays_the_same_mask_in_the_recomputation(reentrant, device):
    mg.manual_seed(2)
    model = make_mlp(depth=4, dropout=0.5).to(device)
    x = mg.randn(16, 16, device=device)
    mg.manual_seed(123)
    model(x).sum().backward()
    plain = grads(model)
    after_plain = mg.rand(3, device=device).cpu().numpy()
    model.zero_grad()

    mg.manual_seed(123)
    checkpoint_sequential(model, 3, x, use_reentrant=reentrant).sum().backward()
    assert_same(grads(model), plain)
    # The recomputation restored the generator afterwards: the stream goes on as without it.
    np.testing.assert_array_equal(mg.rand(3, device=device).cpu().numpy(), after_plain)

    # Without preserving the RNG state the recomputed masks differ, and so do the gradients.
    model.zero_grad()
    mg.manual_seed(123)
    out = checkpoint(model, x, preserve_rng_state=False, use_reentrant=reentrant)
    out.sum().backward()
    assert not all(np.allclose(a, b) for a, b in zip(grads(model), plain))


@VARIANTS
def test_checkpointed_module_with_data_input_and_modulelist_argument(reentrant):
    class CheckpointedModule(nn.Module):
        def __init__(self, layers):
            super().__init__()
            self.layers = nn.ModuleList(layers)
            self.checkpoint = True

        def forward(self, x):
            def run_layers(x, layers):
                for layer in layers:
                    x = layer(x)
                return x

            if self.training and self.checkpoint:
                return mg.utils.checkpoint(run_layers, x, self.layers, use_reentrant=reentrant)
            return run_layers(x, self.layers)

    mg.manual_seed(3)
    layers = [nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 10)]
    model = CheckpointedModule(layers)
    data = mg.randn(8, 32)  # a data batch: needs no gradient
    targets = mg.randint(0, 10, (8,))
    loss = nn.functional.log_softmax(model(data), dim=1)[mg.arange(8), targets].mean() * -1
    loss.backward()
    ck = grads(model)
    model.zero_grad()
    model.checkpoint = False
    loss = nn.functional.log_softmax(model(data), dim=1)[mg.arange(8), targets].mean() * -1
    loss.backward()
    assert_same(ck, grads(model))
    model.eval()
    model.checkpoint = True
    assert model(data).shape == (8, 10)


@VARIANTS
def test_checkpoint_input_gradients_via_autograd_grad_and_accumulation_into_existing_grads(
    reentrant,
):
    mg.manual_seed(4)
    lin = nn.Linear(4, 4).double()
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    if not reentrant:  # (the reentrant variant refuses autograd.grad: the test below)
        (gx,) = mg.autograd.grad(checkpoint(lin, x, use_reentrant=reentrant).sum(), [x])
        want = np.ones((3, 1)) * lin.weight.detach().numpy().sum(0)
        np.testing.assert_allclose(gx.numpy(), want)

    x = x.detach()
    lin.weight.grad = mg.ones(4, 4, dtype=mg.float64)
    calls = []
    lin.weight.register_hook(lambda g: calls.append(1))
    checkpoint(lin, x, use_reentrant=reentrant).sum().backward()
    expected = 1 + np.ones((4, 1)) * x.numpy().sum(0)
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-12)
    assert calls == [1]  # a parameter's hook runs once


@VARIANTS
def test_checkpoint_non_tensor_args_and_tuple_outputs(reentrant):
    def f(x, scale, mode):
        return (x * scale, x.sum()) if mode == "two" else x * scale

    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    a, s = checkpoint(f, x, 2.0, "two", use_reentrant=reentrant)
    (a.sum() + s).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))
    with mg.no_grad():
        assert not checkpoint(f, x, 1.0, "one", use_reentrant=reentrant).requires_grad
    assert mg.utils.checkpoint.checkpoint is mg.utils.checkpoint  # PyTorch's spelling works too


def test_reentrant_variant_errors():
    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    with pytest.raises(TypeError, match="must return a Tensor"):
        checkpoint(lambda x: "nope", x, use_reentrant=True)
    with pytest.warns(UserWarning, match="none of the inputs requires grad"):
        checkpoint(lambda x: x * 2, mg.randn(2), use_reentrant=True)
    with pytest.raises(ValueError, match="unexpected keyword arguments \\['scale'\\]"):
        checkpoint(lambda x, scale: x * scale, x, scale=2.0, use_reentrant=True)
    lin = nn.Linear(3, 3)
    with pytest.raises(RuntimeError, match=r"incompatible with \.grad\(\)"):  # (PyTorch raises too)
        mg.autograd.grad(checkpoint(lin, mg.randn(2, 3), use_reentrant=True).sum(), [lin.weight])


@pytest.mark.parametrize("how", ["autograd.grad", "backward(inputs=)"])
def test_reentrant_checkpoint_refuses_a_backward_given_inputs_as_pytorch(how):
    """Its inner backward would accumulate into every parameter's .grad, which a backward given
    inputs must leave alone: PyTorch raises, and so do we, before any .grad is written."""
    lin = nn.Linear(3, 2).double()
    x = mg.randn(4, 3, dtype=mg.float64, requires_grad=True)
    y = checkpoint(lin, x, use_reentrant=True).sum()
    with pytest.raises(RuntimeError, match=r"incompatible with \.grad\(\) or passing an `inputs`"):
        if how == "autograd.grad":
            mg.autograd.grad(y, [x])
        else:
            y.backward(inputs=[x])
    assert x.grad is None and lin.weight.grad is None and lin.bias.grad is None
    checkpoint(lin, x, use_reentrant=True).sum().backward()  # a plain backward still works
    want = np.ones((4, 1)) * lin.weight.detach().numpy().sum(0)  # d sum(x W^T + b) / dx
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


@VARIANTS
def test_in_place_change_of_a_saved_input_is_detected(reentrant):
    lin = nn.Linear(3, 3)
    x = mg.randn(2, 3, requires_grad=True)
    h = x * 1
    y = checkpoint(lin, h, use_reentrant=reentrant)
    with mg.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_create_graph_through_a_reentrant_checkpoint_is_refused():
    lin = nn.Linear(3, 3)
    y = checkpoint(lin, mg.randn(2, 3, requires_grad=True), use_reentrant=True)
    with pytest.raises(RuntimeError, match="create_graph"):
        y.pow(2).sum().backward(create_graph=True)


@pytest.mark.parametrize("input_is_leaf", [True, False])
def test_second_derivative_through_a_recorded_checkpoint_equals_the_plain_one(input_is_leaf):
    """d/dx of |df/dx|^2 for f(x) = exp(sin(x) * x), checkpointed or not: the recomputed
    values take the saved ones' places in the graph, so the second derivative flows through."""
    x_np = np.linspace(-1.0, 1.2, 6).reshape(2, 3)

    def f(a):
        return (a.sin() * a).exp()

    results = []
    for checkpointed in (True, False):
        x = mg.tensor(x_np, requires_grad=True)
        a = x if input_is_leaf else x * 1.5
        y = checkpoint(f, a, use_reentrant=False) if checkpointed else f(a)
        (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
        (g2,) = mg.autograd.grad((g * g).sum(), x)
        results.append((g.detach().numpy(), g2.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    # and the plain one against float64 central differences of |df/dx|^2
    c = 1.5 if not input_is_leaf else 1.0

    def grad_sq(v):
        a = c * v
        dfda = np.exp(np.sin(a) * a) * (np.cos(a) * a + np.sin(a))
        return ((dfda * c) ** 2).sum()

    eps, expected = 1e-6, np.zeros_like(x_np)
    for i in range(x_np.size):
        up, down = x_np.copy(), x_np.copy()
        up.flat[i] += eps
        down.flat[i] -= eps
        expected.flat[i] = (grad_sq(up) - grad_sq(down)) / (2 * eps)
    np.testing.assert_allclose(results[0][1], expected, rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# The default (recorded, non-reentrant) variant only
# ---------------------------------------------------------------------------------------------
def test_recorded_checkpoint_gives_parameter_gradients_to_autograd_grad_and_takes_kwargs():
    mg.manual_seed(6)
    lin = nn.Linear(4, 4).double()
    x = mg.randn(5, 4, dtype=mg.float64)  # data: needs no gradient

    def f(x, *, scale):
        return lin(x).tanh() * scale

    gw, gb = mg.autograd.grad(checkpoint(f, x, scale=3.0).sum(), [lin.weight, lin.bias])
    ew, eb = mg.autograd.grad(f(x, scale=3.0).sum(), [lin.weight, lin.bias])
    np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), eb.numpy(), rtol=1e-12)
    # Anything may come back, not only tensors (as PyTorch's use_reentrant=False).
    out = checkpoint(lambda x: {"y": lin(x), "n": 2}, x)
    assert out["n"] == 2 and out["y"].requires_grad


def test_recorded_checkpoint_keeps_only_small_records_and_frees_recomputed_values():
    mg.manual_seed(7)
    model = make_mlp(depth=3)
    x = mg.randn(4, 16)
    y = checkpoint(model, x)
    node = y.grad_fn  # the last Linear of the segment: its saved input is only a number now
    assert all(isinstance(rec[1], int) for rec in node._saved)
    frame = node._saved[0][2].__self__
    y.sum().backward()
    assert frame.values == {}  # every recomputed value was handed out and forgotten


def test_recorded_checkpoint_supports_retain_graph_and_a_second_backward():
    mg.manual_seed(8)
    model = make_mlp(depth=3).double()
    x = mg.randn(4, 16, dtype=mg.float64)
    loss = checkpoint(model, x).pow(2).sum()
    loss.backward(retain_graph=True)
    first = grads(model)
    loss.backward()  # recomputes a second time
    assert_same(grads(model), [2 * g for g in first], 1e-12)


def test_recorded_checkpoint_names_a_recomputation_that_differs():
    calls = []

    def unstable(x):  # the second run takes another branch: its saved values differ
        calls.append(1)
        return x.exp() if len(calls) == 1 else x * 2

    x = mg.randn(3, requires_grad=True)
    y = checkpoint(unstable, x)
    with pytest.raises(
        mg.utils.checkpoint.CheckpointError,  # a RuntimeError, as PyTorch's
        match="recomputation saved 0 values for backward where the forward saved 1",
    ):
        y.sum().backward()


def test_gradient_accumulation_over_4_micro_batches_equals_one_big_batch():
    mg.manual_seed(5)
    model = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.LayerNorm(12), nn.Linear(12, 3))
    x = mg.randn(32, 6)
    y = mg.randint(0, 3, (32,))

    def loss_fn(xb, yb):
        logp = nn.functional.log_softmax(model(xb), dim=1)
        return -logp[mg.arange(len(yb)), yb].mean()

    loss_fn(x, y).backward()
    big = grads(model)
    model.zero_grad()
    for xb, yb in zip(x.split(8), y.split(8)):
        (loss_fn(xb, yb) / 4).backward()
    assert_same(grads(model), big)


@pytest.mark.parametrize("outer_reentrant", [False, True])
@pytest.mark.parametrize("inner_reentrant", [False, True])
def test_nested_checkpoints_of_either_kind_give_the_plain_gradients(
    outer_reentrant, inner_reentrant
):
    mg.manual_seed(9)
    a, b, c = (nn.Linear(8, 8).double() for _ in range(3))
    x = mg.randn(4, 8, dtype=mg.float64, requires_grad=True)
    params = [a.weight, b.weight, c.weight]

    def inner(h):
        return b(h).tanh()

    def outer(x):
        h = a(x).tanh()
        return c(checkpoint(inner, h, use_reentrant=inner_reentrant)).tanh()

    c(b(a(x).tanh()).tanh()).tanh().pow(2).sum().backward()
    plain = [x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in params]
    x.grad = None
    for p in params:
        p.grad = None
    checkpoint(outer, x, use_reentrant=outer_reentrant).pow(2).sum().backward()
    assert_same([x.grad.numpy()] + [p.grad.numpy() for p in params], plain, 1e-12)


def test_context_fn_wraps_the_forward_and_the_recomputation():
    entered = []

    class Mark:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    y = checkpoint(
        lambda a: a.sin() * a,
        x,
        use_reentrant=False,
        context_fn=lambda: (Mark("forward"), Mark("recompute")),
        determinism_check="none",
        debug=False,
        early_stop=False,
    )
    assert entered == ["forward"]
    y.sum().backward()
    assert entered == ["forward", "recompute"]
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xs) * xs + np.sin(xs))


def test_checkpoint_refuses_what_pytorch_refuses_among_its_options():
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="determinism_check"):
        checkpoint(lambda a: a * 2, x, use_reentrant=False, determinism_check="always")
    with pytest.raises(ValueError, match="context_fn"):
        checkpoint(lambda a: a * 2, x, use_reentrant=True, debug=True)
    assert issubclass(mg.utils.checkpoint.CheckpointError, RuntimeError)
    forward, recompute = mg.utils.checkpoint.noop_context_fn()
    with forward, recompute:
        pass


def test_gradient_penalty_through_a_recorded_checkpoint_reaches_the_parameters():
    """WGAN-GP's penalty (|d out / d x| - 1)^2 differentiated again, to the weights: the same
    with the model checkpointed or not."""
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Linear(4, 1)).double()
    x_np = np.random.default_rng(0).standard_normal((5, 3))
    results = []
    for checkpointed in (True, False):
        model.zero_grad()
        x = mg.tensor(x_np, requires_grad=True)
        y = checkpoint(model, x, use_reentrant=False) if checkpointed else model(x)
        (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
        ((g.norm(dim=1) - 1) ** 2).mean().backward()
        # (the last bias does not move d out / d x: no gradient, None both ways)
        results.append([None if p.grad is None else p.grad.numpy() for p in model.parameters()])
    assert [g is None for g in results[0]] == [g is None for g in results[1]]
    assert_same(*([g for g in r if g is not None] for r in results), tol=1e-12)
