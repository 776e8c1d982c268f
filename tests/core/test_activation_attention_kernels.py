"""The fused GPU kernels of the activations and of attention (kernels/activation.py,
kernels/attention.py): the CPU's numbers, in the launches they promise.

On the CPU stand-in for CuPy a kernel with the CPU's arithmetic in the CPU's order gives its bits
exactly; on a real GPU, exp, tanh and erfc are CUDA's (a few ulp), so there the comparison allows
a few float32 units.
"""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import backend
from minigenesis.kernels import activation, attention
from minigenesis.kernels import cuda as gpu_kernels
from minigenesis.ops import attention as attention_op

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)", allow_module_level=True)

ON_STANDIN = backend.cupy_module().__name__.startswith("tests.cupy_standin")
DTYPES = ["float32", "float64"]


KERNELS = (gpu_kernels.ElementwiseKernel, gpu_kernels.ReductionKernel)
OURS = {k.name for m in (activation, attention) for k in vars(m).values() if isinstance(k, KERNELS)}


@pytest.fixture
def launches(monkeypatch) -> collections.Counter:
    """Names of the kernels of kernels/activation.py and kernels/attention.py launched while the
    test runs (other files' kernels, such as the gradient accumulation's, are not counted)."""
    counts: collections.Counter = collections.Counter()
    for cls in KERNELS:
        call = cls.__call__

        def counted(self, *args, _call=call, **kwargs):
            if self.name in OURS or self.name.startswith("gelu_"):
                counts[self.name] += 1
            return _call(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__call__", counted)
    return counts


# On a GPU: CUDA's exp, tanh, erfc are within 2-4 ulp of the true value, as NumPy's are, but not
# the same ulp; float16 results are float32 results rounded once, so they differ by a rounding of
# their own (subnormal float16 steps are 6e-8)
GPU_TOLERANCE = {np.float16: (2e-3, 3e-7), np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12)}


def assert_cpu_numbers(gpu: np.ndarray, cpu: np.ndarray, loose: float = 1.0) -> None:
    """The CPU's bits on the stand-in; within a few units of the dtype on a GPU (``loose``
    times that where the formula itself amplifies them)."""
    if ON_STANDIN:
        np.testing.assert_array_equal(gpu, cpu)
    else:
        rtol, atol = GPU_TOLERANCE[gpu.dtype.type]
        np.testing.assert_allclose(gpu, cpu, rtol=rtol * loose, atol=atol * loose)


def inputs(dtype: str) -> np.ndarray:
    x = np.random.default_rng(0).standard_normal(500) * 4
    x[:6] = [0.0, -0.0, 30.0, -30.0, 1e-3, -12.5]
    return x.astype(dtype)


def values_and_derivatives(fn, x0: np.ndarray, device: str) -> list[np.ndarray]:
    """fn(x), d sum(fn(x)^2)/dx, its second derivative (create_graph), and d sum(fn(x))/dx."""
    x = mg.tensor(x0, device=device, requires_grad=True)
    y = fn(x)
    (g,) = mg.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad(g.sum(), x)
    (plain,) = mg.autograd.grad(fn(x).sum(), x)
    return [t.detach().cpu().numpy() for t in (y, g, h, plain)]


CHAINS = {
    "sigmoid": (lambda x: x.sigmoid(), {"sigmoid", "sigmoid_grad"}),
    "tanh": (lambda x: x.tanh(), {"tanh_grad"}),
    "silu": (F.silu, {"silu", "silu_grad"}),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        {"gelu_tanh_ys", "gelu_tanh_c"},
    ),  # (the slope: forward's)
    "relu": (F.relu, {"above_zero_or_nan"}),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), {"leaky_relu"}),
    "elu": (F.elu, {"elu", "elu_grad"}),  # c k = scale
    "elu_alpha": (lambda x: F.elu(x, alpha=0.5), {"elu", "elu_grad_mixed"}),
    "selu": (F.selu, {"elu", "elu_grad_mixed"}),
    "celu": (lambda x: F.celu(x, alpha=3.0), {"elu", "elu_grad"}),  # c k = 3 (1/3) = 1 = scale
    "hardswish": (F.hardswish, {"hardswish", "hardswish_grad"}),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=5.0), {"softplus", "softplus_grad"}),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(CHAINS))
def test_elementwise_chains_give_the_cpus_numbers_with_their_kernels(name, dtype, launches):
    fn, kernels = CHAINS[name]
    x0 = inputs(dtype)
    cpu = values_and_derivatives(fn, x0, "cpu")
    assert not launches  # the CPU path launches nothing
    gpu = values_and_derivatives(fn, x0, "cuda")
    # the tanh form's q = 1 - tanh(u)^2 cancels where tanh(u) rounds to 1 (u > 9, x > 5): one
    # ulp of tanh there (CUDA's and NumPy's differ by one) moves q from 0 to 1.2e-7, and the
    # derivatives built on it by |x| q, about 1e-4 at x = 5 (PyTorch's formula, same cancellation)
    loose = 20.0 if name == "gelu_tanh" else 1.0
    for g, c in zip(gpu, cpu):
        assert_cpu_numbers(g, c, loose)
    assert set(launches) >= kernels


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_launch_per_forward_and_at_most_one_per_backward(dtype, launches):
    expected = {  # (forward, backward); GELU's backward is a product with the slope it kept
        "gelu": (lambda t: F.gelu(t), {"gelu_none_ys": 1}, {}),
        "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"), {"gelu_tanh_ys": 1}, {}),
        "silu": (F.silu, {"silu": 1}, {"silu_grad": 1}),
        "sigmoid": (lambda t: t.sigmoid(), {"sigmoid": 1}, {"sigmoid_grad": 1}),
        "tanh": (lambda t: t.tanh(), {}, {"tanh_grad": 1}),
        "relu": (F.relu, {}, {"above_zero_or_nan": 1}),
        "elu": (F.elu, {"elu": 1}, {"elu_grad": 1}),
        "hardswish": (F.hardswish, {"hardswish": 1}, {"hardswish_grad": 1}),
        "softplus": (F.softplus, {"softplus": 1}, {"softplus_grad": 1}),
    }
    for fn, forward, backward in expected.values():
        x = mg.tensor(inputs(dtype), device="cuda", requires_grad=True)
        launches.clear()
        y = fn(x)
        assert launches == forward
        launches.clear()
        y.sum().backward()
        assert launches == backward


def test_strided_inputs_give_the_cpus_numbers_and_keep_their_layout(launches):
    x0 = np.random.default_rng(4).standard_normal((6, 8)).astype(np.float32)
    results = {}
    for device in ("cpu", "cuda"):
        x = mg.tensor(x0, device=device, requires_grad=True)
        xt = x.transpose(0, 1)  # a strided view, as a convolution's output often is
        y = F.relu(xt) + F.silu(xt)
        y.backward(mg.ones_like(y))
        results[device] = (y.detach().cpu().numpy(), x.grad.cpu().numpy())
    for g, c in zip(results["cuda"], results["cpu"]):
        assert_cpu_numbers(g, c)
    # ReLU's mask kernel writes into an array laid out as y; silu's kernel would write a
    # C-contiguous result, so a strided x takes the array operations
    assert launches == {"above_zero_or_nan": 1}


def exact_gelu_reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x Phi(x) and Phi(x) + x phi(x) in float64, Phi(x) = erfc(-x / sqrt 2) / 2."""
    x = x.astype(np.float64)
    cdf = np.array([math.erfc(-v / math.sqrt(2)) / 2 for v in x])
    return x * cdf, cdf + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def test_exact_gelu_kernel_is_accurate_to_float32_resolution_even_in_the_negative_tail(launches):
    x0 = np.linspace(-13, 8, 4001, dtype=np.float32)
    x = mg.tensor(x0, device="cuda", requires_grad=True)
    y = F.gelu(x)
    y.sum().backward()
    assert launches == {"gelu_none_ys": 1}
    want_y, want_slope = exact_gelu_reference(x0)
    got_y = y.detach().cpu().numpy().astype(np.float64)
    # the rounding of x / sqrt 2 is amplified by 2 z^2 in erfc(z): about 20 ulp at x = -5
    center = x0 > -5
    np.testing.assert_allclose(got_y[center], want_y[center], rtol=3e-6, atol=1e-30)
    # CUDA's erfcf returns 0 where erfc(z) < ~1e-37 (x < -12.9 here): allow that last step
    np.testing.assert_allclose(got_y[~center], want_y[~center], rtol=3e-5, atol=1e-36)
    kept = want_y < -1e-36
    assert (got_y[kept] < 0).all()  # no cancellation to 0, unlike 1 + erf(x / sqrt 2)
    # CUDA's erfcf is within 4 ulp: about 2.5e-7 of Phi(x) near 1
    np.testing.assert_allclose(x.grad.cpu().numpy(), want_slope, rtol=0, atol=6e-7)


def test_exact_gelu_kernel_in_float64_and_its_special_values():
    x0 = np.concatenate([np.linspace(-30, 10, 2001), [np.inf, -np.inf, np.nan, -0.0]])
    x = mg.tensor(x0, device="cuda", requires_grad=True)
    y = F.gelu(x)
    y.sum().backward()
    got_y, got_slope = y.detach().cpu().numpy(), x.grad.cpu().numpy()
    want_y, want_slope = exact_gelu_reference(x0[:-4])
    np.testing.assert_allclose(got_y[:-4], want_y, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(got_slope[:-4], want_slope, rtol=1e-13, atol=1e-15)
    # as PyTorch: gelu(inf) = inf, gelu(-inf) = -inf * 0 = NaN, the slopes at +-inf inf * 0 = NaN
    np.testing.assert_array_equal(got_y[-4:], [np.inf, np.nan, np.nan, -0.0])
    assert np.signbit(got_y[-1])
    assert np.isnan(got_slope[-4:-1]).all() and got_slope[-1] == 0.5


def test_exact_gelu_second_derivative_on_gpu_matches_the_closed_form_and_the_cpu():
    x0 = np.linspace(-6, 6, 121)
    results = {}
    for device in ("cpu", "cuda"):
        x = mg.tensor(x0, device=device, requires_grad=True)
        (g,) = mg.autograd.grad(F.gelu(x).sum(), x, create_graph=True)
        (h,) = mg.autograd.grad(g.sum(), x)
        results[device] = h.cpu().numpy()
    pdf = np.exp(-x0 * x0 / 2) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(results["cuda"], pdf * (2 - x0 * x0), rtol=1e-13, atol=1e-16)
    assert_cpu_numbers(results["cuda"], results["cpu"])


def test_two_byte_floats_are_widened_and_rounded_once_as_on_the_cpu(launches):
    x0 = inputs("float32").astype(np.float16)
    for fn in (F.silu, lambda t: t.sigmoid(), lambda t: F.gelu(t, approximate="tanh")):
        cpu = fn(mg.tensor(x0)).numpy()
        gpu = fn(mg.tensor(x0, device="cuda"))
        assert gpu.dtype is mg.float16
        assert_cpu_numbers(gpu.cpu().numpy(), cpu)
    assert sum(launches.values()) == 3


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_kernels_give_the_cpus_numbers_along_any_dim(name, dtype, launches):
    x0 = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(dtype) * 3
    x0[0, 0, :2] = -np.inf  # masked entries
    x0[1, 1, 3] = np.inf  # a row with +inf: NaN, as in PyTorch
    # exp's and the sums' roundings on a GPU, relative to the terms summed (about 1 and more:
    # sum(softmax) is 1, and the gradient of it is 0 up to those roundings)
    tol = 1e-5 if dtype == "float32" else 1e-13
    for dim in (0, 1, 2):
        fn = lambda t, dim=dim: getattr(t, name)(dim)  # noqa: E731
        launches.clear()
        cpu, gpu = (values_and_derivatives(fn, x0, d) for d in ("cpu", "cuda"))
        for g, c in zip(gpu, cpu):
            finite = np.isfinite(c)
            np.testing.assert_array_equal(g[~finite], c[~finite])  # the same NaN and infinities
            scale = max(np.abs(c[finite]).max(), 10.0)
            np.testing.assert_allclose(g[finite], c[finite], rtol=tol, atol=tol * scale)
        # two forwards; the kernel backward runs for the plain gradient and once inside the
        # second derivative (which reaches y = softmax(x) through the create_graph gradient)
        assert launches["row_sum_exp"] == 2 and launches[name] == 2
        assert launches[f"{name}_grad"] == 2


# ------------------------------------------------------------------------------------ attention
def attention_case(device: str, dtype: str, **kwargs) -> list[np.ndarray]:
    """SDPA's output, its gradients, and second derivatives (create_graph) on ``device``."""
    rng = np.random.default_rng(1)
    shapes = ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4))
    q, k, v = (mg.tensor(rng.standard_normal(s).astype(dtype), device=device) for s in shapes)
    for t in (q, k, v):
        t.requires_grad_()
    if "attn_mask" in kwargs:
        kwargs["attn_mask"] = mg.tensor(kwargs["attn_mask"], device=device)
    out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    grads = mg.autograd.grad((out * out).sum(), (q, k, v), create_graph=True)
    second = mg.autograd.grad(sum((g * g).sum() for g in grads), (q, k, v))
    return [t.detach().cpu().numpy() for t in (out, *grads, *second)]


MASKS = {
    "none": {},
    "causal": {"is_causal": True},
    # row 1 allows no key: its output and gradients are 0, as in PyTorch
    "boolean": {"attn_mask": np.arange(30).reshape(5, 6) % 4 != 1},
    "float": {"attn_mask": np.linspace(-2, 1, 30).reshape(5, 6)},
}
MASKS["boolean"]["attn_mask"][1] = False


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask", list(MASKS))
def test_sdpa_with_kernels_gives_the_cpus_outputs_and_derivatives(mask, dtype, launches):
    kwargs = dict(MASKS[mask])
    if "attn_mask" in kwargs and kwargs["attn_mask"].dtype != bool:
        kwargs["attn_mask"] = kwargs["attn_mask"].astype(dtype)
    cpu = attention_case("cpu", dtype, **kwargs)
    gpu = attention_case("cuda", dtype, **kwargs)
    # the row sums add in another order than NumPy's: within float rounding, not bit for bit
    tol = 2e-5 if dtype == "float32" else 1e-12
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g, c, rtol=tol, atol=tol * np.abs(c).max())
    if mask == "boolean":
        np.testing.assert_array_equal(gpu[0][:, :, 1], 0.0)
    # the forward; the gradients under create_graph are ops (P recomputed), and the second
    # derivative reaches SDPA's plain backward once, through d(out * out)/d out = 2 out
    assert launches["softmax_normalize_exp"] == 1
    assert launches["softmax_rows_grad_in_place"] == 1


def test_sdpa_forward_and_backward_launch_the_fused_softmax_kernels(launches):
    rng = np.random.default_rng(2)
    q, k, v = (
        mg.tensor(rng.standard_normal((2, 4, 8, 16), dtype=np.float32), device="cuda")
        for _ in range(3)
    )
    for t in (q, k, v):
        t.requires_grad_()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.sum().backward()
    assert launches == {
        "row_sum_exp": 1,
        "softmax_normalize_exp": 1,
        "row_dots": 1,
        "softmax_rows_grad_in_place": 1,
    }
    # the softmax backward against its definition: dS = P (dP - rowsum(dP P))
    scores = (q.detach() / 4) @ k.detach().transpose(-2, -1)
    p = scores.masked_fill(mg.ones(8, 8, device="cuda").triu(1).bool(), -math.inf).softmax(-1)
    dp = mg.ones(2, 4, 8, 16, device="cuda") @ v.detach().transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    want = (ds @ k.detach()) / 4
    np.testing.assert_allclose(q.grad.cpu().numpy(), want.cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_causal_mask_is_made_once_per_shape_device_and_dtype():
    attention_op._causal_mask.cache_clear()
    attention_op._causal_bias.cache_clear()
    q = mg.randn(1, 2, 7, 4, device="cuda")
    first = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    again = F.scaled_dot_product_attention(q * 1, q, q, is_causal=True)
    np.testing.assert_array_equal(first.cpu().numpy(), again.cpu().numpy())
    assert attention_op._causal_bias.cache_info().misses == 1
    assert attention_op._causal_bias.cache_info().hits == 1
    # the kept mask is the one of its shape: query i sees keys 0..i (top-left aligned for L != S)
    wide = attention_op._causal_mask(np, 3, 5, backend.CPU)
    np.testing.assert_array_equal(wide, np.triu(np.ones((3, 5), bool), 1))
    with pytest.raises(ValueError):  # read only: shared by every call
        wide[0, 0] = True
