"""backward(inputs=...), autograd.grad with an input named twice or with is_grads_batched, and
the grad-mode switches as bare decorators and on generator functions (closed-form gradients)."""

import numpy as np
import pytest

import minigenesis as mg


def _xy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    return a, b, mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)


def test_backward_with_inputs_fills_only_their_grad():
    a, b, x, y = _xy()
    ((x * y).sum() + x.exp().sum()).backward(inputs=[y])
    assert x.grad is None
    np.testing.assert_allclose(y.grad.numpy(), a.sum(0))
    mg.autograd.backward((x * y).sum(), inputs=x)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(b, (3, 4)))
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * y).sum().backward(inputs=[])


def test_backward_with_a_non_leaf_input_fills_its_grad_once():
    a, b, x, y = _xy()
    m = x * y
    m.retain_grad()  # retained and named: the gradient is still stored once
    (m * m).sum().backward(inputs=[m, x])
    np.testing.assert_allclose(m.grad.numpy(), 2 * a * b)
    np.testing.assert_allclose(x.grad.numpy(), 2 * a * b * b)
    assert y.grad is None


def test_grad_returns_the_gradient_for_each_time_an_input_is_named():
    a, b, x, y = _xy()
    gx, gy, gx2 = mg.autograd.grad((x * y).sum(), [x, y, x])
    np.testing.assert_allclose(gx.numpy(), np.broadcast_to(b, (3, 4)))
    np.testing.assert_allclose(gx2.numpy(), gx.numpy())
    np.testing.assert_allclose(gy.numpy(), a.sum(0))


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_is_grads_batched_is_one_vector_jacobian_product_per_row(create_graph):
    a, b, x, y = _xy()
    v = np.random.default_rng(1).standard_normal((5, 3, 4))
    out = x.sin() * y
    gx, gy = mg.autograd.grad(
        out, [x, y], mg.tensor(v), is_grads_batched=True, create_graph=create_graph
    )
    np.testing.assert_allclose(gx.detach().numpy(), v * np.cos(a) * b)
    np.testing.assert_allclose(gy.detach().numpy(), (v * np.sin(a)).sum(1))
    assert gx.requires_grad == create_graph
    if create_graph:  # d/dx sum(gx^2) = sum_k 2 gx_k * v_k * (-sin x) * y
        (g2,) = mg.autograd.grad(gx.pow(2).sum(), x)
        want = (2 * (v * np.cos(a) * b) * v * -np.sin(a) * b).sum(0)
        np.testing.assert_allclose(g2.numpy(), want)


def test_grad_is_grads_batched_unused_input_and_materialized_zeros():
    a, b, x, y = _xy()
    v = mg.ones(2, 3, 4)
    gx, gy = mg.autograd.grad(x * 2, [x, y], v, is_grads_batched=True, allow_unused=True)
    assert gy is None and gx.shape == (2, 3, 4)
    _, gy = mg.autograd.grad(x * 2, [x, y], v, is_grads_batched=True, materialize_grads=True)
    assert gy.shape == (2, 4) and not gy.numpy().any()


def test_no_grad_enable_grad_and_inference_mode_decorate_without_parentheses():
    x = mg.ones(2, requires_grad=True)

    @mg.no_grad
    def off(t):
        return t * 2

    @mg.enable_grad
    def on(t):
        return t * 2

    @mg.inference_mode
    def infer(t):
        return t * 2

    assert not off(x).requires_grad and not infer(x).requires_grad
    with mg.no_grad():
        assert on(x).requires_grad
    assert mg.is_grad_enabled() and not mg.is_inference_mode_enabled()


def test_a_decorated_generator_runs_in_the_mode_only_while_it_runs():
    x = mg.ones(2, requires_grad=True)

    @mg.no_grad()
    def gen(t):
        for k in range(3):
            sent = yield (t * k).requires_grad, mg.is_grad_enabled()
            assert sent is None

    seen = []
    for inside in gen(x):
        seen.append((inside, mg.is_grad_enabled()))  # the caller's own mode between items
    assert seen == [((False, False), True)] * 3

    @mg.set_grad_enabled(False)
    def gen2(t):
        yield (t * 2).requires_grad

    assert list(gen2(x)) == [False] and mg.is_grad_enabled()
