"""Gradient checkpointing and gradient accumulation: gradients equal to the plain computation."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.utils.checkpoint import checkpoint, checkpoint_sequential


def grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


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


def test_checkpoint_gradients_equal_plain_gradients():
    mg.manual_seed(0)
    model = make_mlp().double()
    x = mg.randn(8, 16, dtype=mg.float64, requires_grad=True)
    model(x).pow(2).sum().backward()
    plain, plain_x = grads(model), x.grad.numpy().copy()
    model.zero_grad()
    x.grad = None

    y = checkpoint(model, x)
    assert y.requires_grad
    y.pow(2).sum().backward()
    assert_same(grads(model), plain, 1e-12)
    np.testing.assert_allclose(x.grad.numpy(), plain_x, rtol=1e-12)


def test_checkpoint_sequential_in_float32_to_1e6():
    mg.manual_seed(1)
    model = make_mlp(depth=8)
    x = mg.randn(32, 16)
    model(x).sum().backward()
    plain = grads(model)
    model.zero_grad()
    for segments in (1, 2, 4, 7):
        out = checkpoint_sequential(model, segments, x)
        out.sum().backward()
        assert_same(grads(model), plain)
        model.zero_grad()
    with pytest.raises(ValueError, match="segments must be between 1 and 17"):
        checkpoint_sequential(model, 0, x)


def test_dropout_replays_the_same_mask_in_the_recomputation():
    mg.manual_seed(2)
    model = make_mlp(depth=4, dropout=0.5)
    x = mg.randn(16, 16)
    mg.manual_seed(123)
    model(x).sum().backward()
    plain = grads(model)
    after_plain = mg.rand(3).numpy()
    model.zero_grad()

    mg.manual_seed(123)
    checkpoint_sequential(model, 3, x).sum().backward()
    assert_same(grads(model), plain)
    # The recomputation restored the generator afterwards: the stream goes on as without it.
    np.testing.assert_array_equal(mg.rand(3).numpy(), after_plain)

    # Without preserving the RNG state the recomputed masks differ, and so do the gradients.
    model.zero_grad()
    mg.manual_seed(123)
    out = checkpoint(model, x, preserve_rng_state=False)
    out.sum().backward()
    assert not all(np.allclose(a, b) for a, b in zip(grads(model), plain))


def test_seed_004_checkpointed_module_with_data_input_and_modulelist_argument():
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
                return mg.utils.checkpoint(run_layers, x, self.layers)
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


def test_checkpoint_input_gradients_via_autograd_grad_and_accumulation_into_existing_grads():
    mg.manual_seed(4)
    lin = nn.Linear(4, 4).double()
    x = mg.randn(3, 4, dtype=mg.float64, requires_grad=True)
    (gx,) = mg.autograd.grad(checkpoint(lin, x).sum(), [x])
    np.testing.assert_allclose(gx.numpy(), np.ones((3, 1)) * lin.weight.detach().numpy().sum(0))

    x = x.detach()
    lin.weight.grad = mg.ones(4, 4, dtype=mg.float64)
    calls = []
    lin.weight.register_hook(lambda g: calls.append(1))
    checkpoint(lin, x).sum().backward()
    expected = 1 + np.ones((4, 1)) * x.numpy().sum(0)
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-12)
    assert calls == [1]  # a parameter's hook runs once


def test_checkpoint_non_tensor_args_tuple_outputs_and_errors():
    def f(x, scale, mode):
        return (x * scale, x.sum()) if mode == "two" else x * scale

    x = mg.randn(3, dtype=mg.float64, requires_grad=True)
    a, s = checkpoint(f, x, 2.0, "two")
    (a.sum() + s).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))

    with pytest.raises(TypeError, match="must return a Tensor"):
        checkpoint(lambda x: "nope", x)
    with pytest.warns(UserWarning, match="none of the inputs requires grad"):
        checkpoint(lambda x: x * 2, mg.randn(2))
    with mg.no_grad():
        assert not checkpoint(f, x, 1.0, "one").requires_grad
    assert mg.utils.checkpoint.checkpoint is mg.utils.checkpoint  # PyTorch's spelling works too


def test_in_place_change_of_a_saved_input_is_detected():
    lin = nn.Linear(3, 3)
    x = mg.randn(2, 3, requires_grad=True)
    h = x * 1
    y = checkpoint(lin, h)
    with mg.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
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
