"""LayerNorm, RMSNorm, GroupNorm, BatchNorm and InstanceNorm on the GPU run as a few fused kernels
(kernels/normalization.py): the same numbers as the CPU's array code (bit for bit where both compute
elementwise from the same statistics, to float rounding where the GPU sums in another order),
second derivatives included, in 2-4 launches forward and at most 5 backward (skipped without CuPy
and a CUDA device)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import layer_norm, normalization

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

# relative accuracy of a float32 / float64 sum of a few hundred terms, and of a float16 result
RTOL = {"float32": 2e-5, "float64": 1e-12, "float16": 2e-3}


KINDS = ["layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm"]


def _norm(kind: str):
    """(function of x, w, b; whether w and b have the normalised dims' shape, else (C,))."""
    if kind == "layer_norm":
        return (lambda x, w, b: F.layer_norm(x, x.shape[-2:], w, b)), True
    if kind == "rms_norm":
        return (lambda x, w, b: F.rms_norm(x, x.shape[-2:], w, eps=1e-6)), True
    if kind == "batch_norm":
        return (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)), False
    if kind == "instance_norm":
        return (lambda x, w, b: F.instance_norm(x, weight=w, bias=b)), False
    return (lambda x, w, b: F.group_norm(x, 2, w, b)), False  # affine outside Normalize


def _inputs(dtype: str, shape=(3, 4, 6, 5), seed: int = 0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    gy = rng.standard_normal(shape).astype(dtype)
    return x, gy, rng


def _run(fn, x, gy, w, b, device: str, dtype: str):
    """y and the gradients of (y * gy).sum() wrt x, w and b, as float64 NumPy arrays."""
    ts = [
        mg.tensor(a, dtype=getattr(mg, dtype), device=device, requires_grad=True) for a in (x, w, b)
    ]
    y = fn(*ts)
    y.backward(mg.tensor(gy, device=device))
    out = [y.detach()] + [t.grad for t in ts]
    return [None if a is None else a.cpu().numpy().astype(np.float64) for a in out]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_norms_on_kernels_give_the_float64_results_to_rounding(kind, dtype):
    fn, rows_affine = _norm(kind)
    x, gy, rng = _inputs(dtype)
    wshape = x.shape[-2:] if rows_affine else x.shape[1:2]
    w, b = (rng.standard_normal(wshape).astype(dtype) for _ in range(2))
    want = _run(fn, x, gy, w, b, "cpu", "float64")  # the array code in float64: the reference
    got = _run(fn, x, gy, w, b, "cuda", dtype)
    cpu = _run(fn, x, gy, w, b, "cpu", dtype)
    for name, g, c, ref in zip(("y", "dx", "dw", "db"), got, cpu, want):
        if ref is None:  # rms_norm has no bias
            continue
        scale = np.abs(ref).max()
        # the GPU is as close to float64 as the CPU's own float32/float16 result, at most
        tol = RTOL[dtype] * scale + 2 * np.abs(c - ref).max()
        np.testing.assert_allclose(g, ref, rtol=0, atol=tol, err_msg=f"{kind} {dtype} {name}")


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("kind", ["layer_norm", "rms_norm", "batch_norm"])
def test_forward_is_bit_for_bit_the_array_code_when_the_statistics_are_exact(
    dtype, kind, monkeypatch
):
    # multiples of 1/8, 16 to a group: every sum behind the mean and the variance is exact in any
    # order, so both sides normalise with the same mu and r, and y = ((x - mu) r) w + b is then
    # rounded step by step in the same order
    fn, rows_affine = _norm(kind)
    rng = np.random.default_rng(1)
    # batch_norm: 2x2 maps, where the CPU keeps the array code (its BLAS path for larger maps,
    # kernels/batch_norm.py, rounds y in another order, as its compiled loops do at any size:
    # switched off below); 16 values to a channel all the same
    shape = (4, 3, 2, 2) if kind == "batch_norm" else (4, 3, 4, 4)
    x = (rng.integers(-40, 40, shape) / 8).astype(dtype)
    wshape = x.shape[-2:] if rows_affine else x.shape[1:2]
    w, b = (rng.standard_normal(wshape).astype(dtype) for _ in "wb")
    # the CPU's rows of LayerNorm/RMSNorm go to BLAS (kernels/layer_norm.py rounds r w first):
    # the CPU side here is the op's own array code, which the GPU's kernels follow
    monkeypatch.setattr(layer_norm, "forward", lambda *args: None)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")  # (nor BatchNorm's compiled loops: rounded once)
    ys = []
    for device in ("cpu", "cuda"):
        y = fn(*(mg.tensor(a, device=device) for a in (x, w, b)))
        assert y.dtype == getattr(mg, dtype)
        ys.append(y.cpu().numpy())
    np.testing.assert_array_equal(ys[1], ys[0])


def test_batch_norm_running_statistics_from_the_kernels_match_the_cpu():
    x, _, _ = _inputs("float32", shape=(8, 3, 5, 7))
    stats = []
    for device in ("cpu", "cuda"):
        bn = mg.nn.BatchNorm2d(3).to(device)
        for k in range(3):
            bn(mg.tensor(x * (k + 1), device=device))
        stats.append([bn.running_mean.cpu().numpy(), bn.running_var.cpu().numpy()])
    for got, want in zip(stats[1], stats[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("weight", [True, False])
@pytest.mark.parametrize("center", [True, False])
def test_grad_x_kernel_is_bit_for_bit_its_array_twin(weight, center):
    # _backward_rows' last steps, given the same statistics and row means:
    # dx = r (g_y w - ((x - mu) r mean(g xhat) + mean(g)))
    rng = np.random.default_rng(2)
    rows, n = 6, 10
    f32 = np.float32
    x, gy = (rng.standard_normal((rows, n), dtype=f32) for _ in range(2))
    w = rng.standard_normal(n, dtype=f32)
    mu, r, m_g, m_gx = (rng.standard_normal((rows, 1), dtype=f32) for _ in range(4))
    xhat = (x - mu) * r if center else x * r
    xhat *= m_gx
    if center:
        xhat += m_g
    g = gy * w if weight else gy.copy()
    g -= xhat
    g *= r
    grad_x = normalization._grad_kernels(np.dtype(f32), center, weight)[-1]
    args = [gy, x] + [mu] * center + [r] + [w] * weight + [m_g] * center + [m_gx]
    got = grad_x(*(mg.tensor(a, device="cuda")._data for a in args)).get()
    np.testing.assert_array_equal(got, g)


@pytest.mark.parametrize("kind", KINDS)
def test_second_derivatives_on_kernels_match_the_cpu(kind):
    fn, rows_affine = _norm(kind)
    x, gy, rng = _inputs("float64", shape=(2, 4, 3, 2))
    wshape = x.shape[-2:] if rows_affine else x.shape[1:2]
    w, b = (rng.standard_normal(wshape) for _ in range(2))
    results = []
    for device in ("cpu", "cuda"):
        xt, wt, bt = (mg.tensor(a, device=device, requires_grad=True) for a in (x, w, b))
        y = fn(xt, wt, bt)
        gx, gw = mg.autograd.grad((y * y * y).sum(), [xt, wt], create_graph=True)
        (gx * mg.tensor(gy, device=device)).sum().backward()  # through the first gradient
        results.append([a.detach().cpu().numpy() for a in (gx, gw, xt.grad, wt.grad)])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


ALL_GRADS = ["grad_w", "grad_b", "mean_g", "mean_gxhat"]


@pytest.mark.parametrize(
    ("kind", "forward", "backward"),
    [
        ("layer_norm", ["mean", "rstd", "affine"], ALL_GRADS),
        ("rms_norm", ["rstd", "affine"], ["grad_w", "mean_gxhat"]),  # no mean, no bias
        ("group_norm", ["mean", "rstd", "affine"], ["mean_g", "mean_gxhat"]),  # w, b outside
        ("batch_norm", ["mean", "var", "rstd_of_var", "affine"], ALL_GRADS),
    ],
)
def test_norms_launch_four_kernels_forward_and_at_most_five_backward(
    kind, forward, backward, kernel_launches
):
    fn, rows_affine = _norm(kind)
    x, gy, rng = _inputs("float32")
    wshape = x.shape[-2:] if rows_affine else x.shape[1:2]
    xt, w, b = (
        mg.tensor(a, device="cuda", requires_grad=True)
        for a in (x, *(rng.standard_normal(wshape, dtype=np.float32) for _ in "wb"))
    )
    y = fn(xt, w, b)
    assert [k for k in kernel_launches if k.startswith("norm_")] == ["norm_" + k for k in forward]
    del kernel_launches[:]
    inputs = {"rms_norm": [xt, w], "group_norm": [xt]}.get(kind, [xt, w, b])
    mg.autograd.grad(y, inputs, mg.tensor(gy, device="cuda"))
    # other ops' kernels (group_norm's affine map) aside: each reduction once, then dx
    ours = [k for k in kernel_launches if k.startswith("norm_")]
    assert sorted(ours[:-1]) == sorted("norm_" + k for k in backward)
    assert ours[-1] == "norm_grad_x"


def test_bfloat16_and_mixed_dtypes_stay_on_the_array_path(kernel_launches):
    x = mg.randn(4, 8, device="cuda")
    w = mg.ones(8, device="cuda")  # float32 parameters on a bfloat16 input: allowed, as PyTorch
    y16 = F.layer_norm(x.to(mg.bfloat16), (8,), w)
    assert not [k for k in kernel_launches if k.startswith("norm_")] and y16.dtype is mg.bfloat16
    want = F.layer_norm(x.cpu().to(mg.bfloat16), (8,), w.cpu()).float().numpy()
    np.testing.assert_allclose(y16.float().cpu().numpy(), want, rtol=1e-2, atol=1e-2)
    with pytest.raises(RuntimeError, match="mixed dtype"):  # float64 weight, float32 input
        F.layer_norm(x, (8,), w.to(mg.float64))


@pytest.mark.parametrize("kind", ["layer_norm", "group_norm", "instance_norm", "batch_norm"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_constant_groups_on_kernels_normalise_to_exactly_the_bias(kind, dtype):
    # the mean of a group of one repeated value is that value, so x - mu = 0 exactly (a mean a
    # few ulps off would give those ulps times 1 / sqrt(eps)); float32 sums in double are exact
    # here, float64 ones are not (not covered)
    fn, full_shape = _norm(kind)
    shape = (3, 4, 6, 5)
    rng = np.random.default_rng(1)
    wshape = shape[-2:] if full_shape else shape[1:2]
    w, b = (
        mg.tensor(rng.standard_normal(wshape), dtype=getattr(mg, dtype), device="cuda")
        for _ in "wb"
    )
    x = mg.full(shape, 7.1, dtype=getattr(mg, dtype), device="cuda")
    y = fn(x, w, b).cpu().numpy()
    bb = b.cpu().numpy()
    expected = bb if full_shape else bb.reshape(-1, 1, 1)
    np.testing.assert_array_equal(y, np.broadcast_to(expected, shape))
