"""Ops whose backward computes on arrays when nothing records (MatMul, Mul, Tanh, Sigmoid,
softmax, indexing, sum, mean, reshape, permute) give the same gradients, to the bit, as their
recorded form (create_graph=True, which runs the gradient as ops so that it can be
differentiated again), in every float dtype, with broadcasting and Python-number operands; and
those gradients agree with float64 closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(7)
DTYPES = [mg.float32, mg.float64, mg.float16, mg.bfloat16]


def _both_ways(fn, *inputs):
    """The gradients of sum(fn(*inputs) * w) as backward computes them (on arrays) and as
    create_graph computes them (recorded ops)."""
    w = mg.tensor(RNG.standard_normal(fn(*inputs).shape)).to(inputs[0].dtype)
    plain = mg.autograd.grad((fn(*inputs) * w).sum(), inputs)
    recorded = mg.autograd.grad((fn(*inputs) * w).sum(), inputs, create_graph=True)
    return [g.detach().float().numpy() for g in plain], [
        g.detach().float().numpy() for g in recorded
    ]


def _leaf(shape, dtype):
    return mg.tensor(RNG.standard_normal(shape)).to(dtype).requires_grad_()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name, fn, shapes",
    [
        ("mul", lambda a, b: a * b, [(3, 4), (3, 4)]),
        ("mul broadcast", lambda a, b: a * b, [(3, 4), (4,)]),
        ("mul number", lambda a: a * 1.37, [(5,)]),
        ("number mul", lambda a: -0.3 * a, [(2, 3)]),
        ("tanh", lambda a: a.tanh(), [(4, 6)]),
        ("sigmoid", lambda a: a.sigmoid(), [(4, 6)]),
        ("softmax", lambda a: a.softmax(dim=1), [(4, 6)]),
        ("softmax first dim", lambda a: a.softmax(dim=0), [(4, 6, 2)]),
        ("matmul", lambda a, b: a @ b, [(5, 3), (3, 4)]),
        ("batched matmul", lambda a, b: a @ b, [(2, 5, 3), (3, 4)]),
        ("basic index", lambda a: a[:, 2], [(3, 4, 2)]),
        ("sum", lambda a: a.sum(dim=1), [(3, 4, 2)]),
        ("view", lambda a: a.view(2, 6), [(3, 4)]),
        ("reshape of a transpose", lambda a: a.mT.reshape(-1), [(3, 4)]),
        ("permute", lambda a: a.permute(2, 0, 1), [(3, 4, 2)]),
        ("sum keepdim", lambda a: a.sum(dim=(0, 2), keepdim=True), [(3, 4, 2)]),
        ("sum all", lambda a: a.sum().reshape(1), [(3, 4)]),
        ("mean", lambda a: a.mean(dim=0), [(5, 3)]),
        ("mean size-1 dim", lambda a: a.mean(dim=1, keepdim=True), [(5, 1)]),
        ("repeated rows", lambda a: a[mg.tensor([0, 2, 0, 0])], [(3, 5)]),
        ("index pairs", lambda a: a[mg.tensor([1, 1, 0]), mg.tensor([2, 2, 0])], [(2, 3)]),
    ],
)
def test_gradient_on_arrays_is_the_recorded_gradient_to_the_bit(dtype, name, fn, shapes):
    inputs = [_leaf(s, dtype) for s in shapes]
    plain, recorded = _both_ways(fn, *inputs)
    for p, r in zip(plain, recorded):
        np.testing.assert_array_equal(p, r)


def test_gradients_on_arrays_match_float64_closed_forms():
    a0, b0 = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    a, b = mg.tensor(a0, requires_grad=True), mg.tensor(b0, requires_grad=True)
    ((a @ b).tanh().sigmoid() * 2.5).sum().backward()
    t = np.tanh(a0 @ b0)
    s = 1 / (1 + np.exp(-t))
    g = 2.5 * s * (1 - s) * (1 - t * t)  # d/d(a b) of the sum
    np.testing.assert_allclose(a.grad.numpy(), g @ b0.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(b.grad.numpy(), a0.T @ g, rtol=1e-12, atol=1e-14)
