"""Every op, declared once: forward against a NumPy reference, backward against finite differences.

A row of OPS names the op, how to call it on minigenesis tensors, the NumPy reference, the input
shapes and the input domain (log needs positive inputs). The tests below run every row in float32
and float64 (forward), float64 gradcheck (backward), and float16/bfloat16 forward with looser
tolerances. Hypothesis draws broadcastable shape pairs for the binary ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigenesis as mg


@dataclass
class OpCase:
    name: str
    fn: Callable[..., Any]
    ref: Callable[..., Any]
    shapes: list[tuple]
    domain: tuple[float, float] = (-2.0, 2.0)
    grad: bool = True
    low_precision_tol: float = 2e-2
    kwargs: dict = field(default_factory=dict)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _erf(x):
    import math

    return np.vectorize(math.erf)(x)


def _gelu(x):
    return x * 0.5 * (1 + _erf(x / np.sqrt(2)))


OPS = [
    OpCase("add", lambda a, b: a + b, lambda a, b: a + b, [(3, 4), (4,)]),
    OpCase("add_scalar", lambda a: a + 2.5, lambda a: a + 2.5, [(3, 4)]),
    OpCase("rsub_scalar", lambda a: 1.0 - a, lambda a: 1.0 - a, [(3,)]),
    OpCase("sub", lambda a, b: a - b, lambda a, b: a - b, [(2, 3, 4), (3, 1)]),
    OpCase("mul", lambda a, b: a * b, lambda a, b: a * b, [(3, 4), (3, 4)]),
    OpCase("mul_bcast", lambda a, b: a * b, lambda a, b: a * b, [(2, 1, 4), (3, 1)]),
    OpCase("div", lambda a, b: a / b, lambda a, b: a / b, [(3, 4), (4,)], domain=(0.5, 2.0)),
    OpCase("rdiv_scalar", lambda a: 2.0 / a, lambda a: 2.0 / a, [(5,)], domain=(0.5, 2.0)),
    OpCase("neg", lambda a: -a, lambda a: -a, [(3, 2)]),
    OpCase("pow_scalar", lambda a: a**3, lambda a: a**3, [(4,)]),
    OpCase("pow_frac", lambda a: a**0.5, lambda a: a**0.5, [(4,)], domain=(0.5, 2.0)),
    OpCase("pow_tensor", lambda a, b: a**b, lambda a, b: a**b, [(3,), (3,)], domain=(0.5, 2.0)),
    OpCase("rpow", lambda a: 2.0**a, lambda a: 2.0**a, [(3,)]),
    OpCase("exp", lambda a: a.exp(), np.exp, [(3, 4)]),
    OpCase("log", lambda a: a.log(), np.log, [(3, 4)], domain=(0.5, 3.0)),
    OpCase("sqrt", lambda a: a.sqrt(), np.sqrt, [(6,)], domain=(0.5, 3.0)),
    OpCase("rsqrt", lambda a: a.rsqrt(), lambda a: 1 / np.sqrt(a), [(6,)], domain=(0.5, 3.0)),
    OpCase("abs", lambda a: a.abs(), np.abs, [(3, 4)]),
    OpCase("sign", lambda a: a.sign(), np.sign, [(5,)]),
    OpCase("maximum", mg.maximum, np.maximum, [(3, 4), (4,)]),
    OpCase("minimum", mg.minimum, np.minimum, [(3, 4), (3, 1)]),
    OpCase("clamp", lambda a: a.clamp(-0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7), [(4, 5)]),
    OpCase("clamp_min", lambda a: a.clamp(min=0.1), lambda a: np.maximum(a, 0.1), [(7,)]),
    OpCase(
        "where",
        lambda a, b: mg.where(a > 0, a, b),
        lambda a, b: np.where(a > 0, a, b),
        [(3, 4), (4,)],
    ),
    OpCase("sum", lambda a: a.sum(), lambda a: a.sum(), [(3, 4)]),
    OpCase("sum_dim", lambda a: a.sum(1), lambda a: a.sum(1), [(3, 4, 2)]),
    OpCase(
        "sum_dims_keep",
        lambda a: a.sum((0, 2), keepdim=True),
        lambda a: a.sum((0, 2), keepdims=True),
        [(3, 4, 2)],
    ),
    OpCase("mean", lambda a: a.mean(-1), lambda a: a.mean(-1), [(3, 4)]),
    OpCase("var", lambda a: a.var(0), lambda a: a.var(0, ddof=1), [(5, 3)]),
    OpCase("var_biased", lambda a: a.var(unbiased=False), lambda a: a.var(), [(5, 3)]),
    OpCase(
        "std", lambda a: a.std(1, keepdim=True), lambda a: a.std(1, ddof=1, keepdims=True), [(3, 6)]
    ),
    OpCase("max_all", lambda a: a.max(), lambda a: a.max(), [(3, 4)]),
    OpCase("min_all", lambda a: a.min(), lambda a: a.min(), [(3, 4)]),
    OpCase("max_dim", lambda a: a.max(1).values, lambda a: a.max(1), [(3, 4)]),
    OpCase(
        "min_dim_keep",
        lambda a: a.min(0, keepdim=True).values,
        lambda a: a.min(0, keepdims=True),
        [(3, 4)],
    ),
    OpCase("norm2", lambda a: a.norm(), lambda a: np.sqrt((a * a).sum()), [(3, 4)]),
    OpCase("norm1_dim", lambda a: a.norm(1, dim=1), lambda a: np.abs(a).sum(1), [(3, 4)]),
    OpCase("norm3", lambda a: a.norm(3), lambda a: (np.abs(a) ** 3).sum() ** (1 / 3), [(5,)]),
    OpCase("logsumexp", lambda a: a.logsumexp(1), lambda a: np.log(np.exp(a).sum(1)), [(3, 5)]),
    OpCase("matmul_2d", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4, 5)]),
    OpCase("matmul_batched", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 3, 4), (4, 2)]),
    OpCase("matmul_bcast", lambda a, b: a @ b, lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)]),
    OpCase("matmul_vec_mat", lambda a, b: a @ b, lambda a, b: a @ b, [(4,), (2, 4, 3)]),
    OpCase("matmul_mat_vec", lambda a, b: a @ b, lambda a, b: a @ b, [(3, 4), (4,)]),
    OpCase("matmul_dot", lambda a, b: mg.matmul(a, b), lambda a, b: a @ b, [(4,), (4,)]),
    OpCase("reshape", lambda a: a.reshape(4, 3), lambda a: a.reshape(4, 3), [(3, 4)]),
    OpCase("view_neg", lambda a: a.view(-1), lambda a: a.reshape(-1), [(3, 4)]),
    OpCase("transpose", lambda a: a.transpose(0, 2), lambda a: a.swapaxes(0, 2), [(2, 3, 4)]),
    OpCase("permute", lambda a: a.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), [(2, 3, 4)]),
    OpCase("T", lambda a: a.T, lambda a: a.T, [(2, 3)]),
    OpCase("squeeze", lambda a: a.squeeze(1), lambda a: a.squeeze(1), [(3, 1, 2)]),
    OpCase("unsqueeze", lambda a: a.unsqueeze(-1), lambda a: a[..., None], [(3, 2)]),
    OpCase(
        "expand", lambda a: a.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), [(3, 1)]
    ),
    OpCase("flatten", lambda a: a.flatten(1), lambda a: a.reshape(2, -1), [(2, 3, 4)]),
    OpCase(
        "cat",
        lambda a, b: mg.cat([a, b], dim=1),
        lambda a, b: np.concatenate([a, b], 1),
        [(2, 3), (2, 4)],
    ),
    OpCase(
        "stack",
        lambda a, b: mg.stack([a, b], dim=1),
        lambda a, b: np.stack([a, b], 1),
        [(2, 3), (2, 3)],
    ),
    OpCase("split", lambda a: a.split([1, 3], dim=1)[1], lambda a: a[:, 1:], [(2, 4)]),
    OpCase("chunk", lambda a: a.chunk(2, 0)[0] * 2, lambda a: a[:2] * 2, [(4, 3)]),
    OpCase("repeat", lambda a: a.repeat(2, 1, 3), lambda a: np.tile(a, (2, 1, 3)), [(3, 2)]),
    OpCase("getitem_basic", lambda a: a[1:, ::2], lambda a: a[1:, ::2], [(3, 4)]),
    OpCase("getitem_int", lambda a: a[1], lambda a: a[1], [(3, 4)]),
    OpCase("getitem_adv", lambda a: a[np.array([0, 2, 0])], lambda a: a[[0, 2, 0]], [(3, 4)]),
    OpCase(
        "getitem_pairs",
        lambda a: a[mg.tensor([0, 1, 1]), mg.tensor([3, 0, 0])],
        lambda a: a[[0, 1, 1], [3, 0, 0]],
        [(3, 4)],
    ),
    OpCase("getitem_mask", lambda a: a[a > 0], lambda a: a[a > 0], [(3, 4)]),
    OpCase(
        "masked_fill",
        lambda a: a.masked_fill(a < 0, 0.5),
        lambda a: np.where(a < 0, 0.5, a),
        [(3, 4)],
    ),
    OpCase("relu", lambda a: a.relu(), lambda a: np.maximum(a, 0), [(3, 4)]),
    OpCase(
        "sigmoid", lambda a: a.sigmoid(), lambda a: 1 / (1 + np.exp(-a)), [(3, 4)], domain=(-6, 6)
    ),
    OpCase("tanh", lambda a: a.tanh(), np.tanh, [(3, 4)]),
    OpCase("gelu", lambda a: a.gelu(), _gelu, [(3, 4)], domain=(-3, 3)),
    OpCase(
        "gelu_tanh",
        lambda a: a.gelu(approximate="tanh"),
        lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),
        [(3, 4)],
        domain=(-3, 3),
    ),
    OpCase("silu", lambda a: a.silu(), lambda a: a / (1 + np.exp(-a)), [(3, 4)]),
    OpCase("softmax", lambda a: a.softmax(-1), lambda a: _softmax(a, -1), [(3, 5)]),
    OpCase("softmax_dim0", lambda a: mg.softmax(a, 0), lambda a: _softmax(a, 0), [(3, 5)]),
    OpCase("log_softmax", lambda a: a.log_softmax(1), lambda a: np.log(_softmax(a, 1)), [(3, 5)]),
    OpCase("cast_roundtrip", lambda a: a.to(mg.float64).to(a.dtype) * 2, lambda a: a * 2, [(3,)]),
]


def _inputs(case: OpCase, dtype: Any, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    lo, hi = case.domain
    arrays = []
    for shape in case.shapes:
        a = rng.uniform(lo, hi, size=shape)
        # keep values away from kinks (abs, relu, max ties) so finite differences are meaningful
        a = np.where(np.abs(a) < 0.05, 0.3, a)
        arrays.append(a.astype(dtype))
    return arrays


def _check_close(out: Any, expected: np.ndarray, rtol: float, atol: float) -> None:
    got = out.detach().to(mg.float64).cpu().numpy()
    np.testing.assert_allclose(got, np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", OPS, ids=lambda c: c.name)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_numpy(case: OpCase, dtype: Any, device: str) -> None:
    arrays = _inputs(case, dtype)
    out = case.fn(*[mg.tensor(a, device=device) for a in arrays])
    assert out.device.type == device
    assert out.dtype.numpy_dtype == np.dtype(dtype), f"{case.name} changed the dtype"
    tol = 1e-5 if dtype == np.float32 else 1e-12
    _check_close(out, case.ref(*[a.astype(np.float64) for a in arrays]), tol, tol)


@pytest.mark.parametrize("case", [c for c in OPS if c.grad], ids=lambda c: c.name)
def test_backward_matches_finite_differences(case: OpCase, device: str) -> None:
    arrays = _inputs(case, np.float64, seed=1)
    tensors = [mg.tensor(a, device=device, requires_grad=True) for a in arrays]
    assert mg.autograd.gradcheck(case.fn, tensors, eps=1e-6, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("case", OPS, ids=lambda c: c.name)
@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16], ids=["float16", "bfloat16"])
def test_low_precision_forward(case: OpCase, dtype: Any, device: str) -> None:
    arrays = _inputs(case, np.float32, seed=2)
    # the reference sees the same rounded inputs, so only the op's own rounding is measured
    rounded = [a.astype(dtype.numpy_dtype).astype(np.float64) for a in arrays]
    out = case.fn(*[mg.tensor(a, device=device).to(dtype) for a in arrays])
    assert out.dtype is dtype, f"{case.name}: {out.dtype} instead of {dtype}"
    tol = case.low_precision_tol * (4 if dtype is mg.bfloat16 else 1)
    _check_close(out, case.ref(*rounded), tol, tol)


# ------------------------------------------------------------------ broadcasting, by hypothesis
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "maximum": (mg.maximum, np.maximum),
}


@settings(max_examples=25, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    name=st.sampled_from(sorted(BINARY)),
)
def test_binary_broadcasting_and_gradients(shapes: Any, name: str) -> None:
    fn, ref = BINARY[name]
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, shapes.input_shapes[0])
    b = rng.uniform(-2.0, -0.5, shapes.input_shapes[1])  # never equal to a: no max ties
    ta, tb = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    out = fn(ta, tb)
    assert out.shape == shapes.result_shape
    np.testing.assert_allclose(out.detach().numpy(), ref(a, b), rtol=1e-12)
    out.sum().backward()
    assert ta.grad.shape == a.shape and tb.grad.shape == b.shape
    assert mg.autograd.gradcheck(
        lambda x, y: fn(x, y), [ta.detach().requires_grad_(), tb.detach().requires_grad_()]
    )


@settings(max_examples=20, deadline=None)
@given(
    arr=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.floats(-3, 3)
    ),
    data=st.data(),
)
def test_reductions_over_random_dims(arr: np.ndarray, data: Any) -> None:
    dim = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    keep = data.draw(st.booleans())
    t = mg.tensor(arr, requires_grad=True)
    np.testing.assert_allclose(
        t.sum(dim, keepdim=keep).detach().numpy(), arr.sum(dim, keepdims=keep), atol=1e-12
    )
    np.testing.assert_allclose(
        t.mean(dim, keepdim=keep).detach().numpy(), arr.mean(dim, keepdims=keep), atol=1e-12
    )
    t.mean(dim, keepdim=keep).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.full(arr.shape, 1 / arr.shape[dim]))


def test_low_precision_matmul_accumulates_in_float32() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 64)).astype(np.float32)
    b = rng.standard_normal((64, 8)).astype(np.float32)
    for dt in (mg.float16, mg.bfloat16):
        ar, br = a.astype(dt.numpy_dtype), b.astype(dt.numpy_dtype)
        expected = (ar.astype(np.float32) @ br.astype(np.float32)).astype(dt.numpy_dtype)
        out = mg.tensor(ar) @ mg.tensor(br)
        assert out.dtype is dt
        assert np.array_equal(out.numpy().view(np.uint16), expected.view(np.uint16))


def test_bfloat16_is_real_two_byte_storage() -> None:
    t = mg.randn(4, 4, dtype=mg.bfloat16)
    assert t.numpy().dtype == np.dtype(ml_dtypes.bfloat16)
    assert t.numpy().nbytes == 32
    assert mg.bfloat16.itemsize == 2 and mg.bfloat16.is_floating_point
