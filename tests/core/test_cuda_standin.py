"""The GPU code path, run on every test run: the strict CuPy stand-in as device "cuda".

``tests/cupy_standin`` behaves like CuPy wherever a difference could hide a bug (no implicit
conversion to NumPy, no mixing of host and device arrays, only CuPy 14's names, its own random
streams). The first tests here check that the stand-in is that strict; the last one runs every
``gpu``-marked test (the GPU files and the device-parametrised slices of the CPU suites) in a
child pytest with ``MINIGENESIS_CUPY`` set, the backend's switch for the module used as CuPy.
Without a GPU this is how the CUDA path of minigenesis executes at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tests.cupy_standin as cp

ROOT = Path(__file__).resolve().parents[2]
NAMES = json.loads((ROOT / "tests" / "cupy_standin" / "cupy14_names.json").read_text())

# Files holding `gpu`-marked tests: whole GPU files, and CPU files with a "cuda" parameter.
GPU_TEST_FILES = [
    "tests/core/test_gpu.py",
    "tests/amp/test_gpu.py",
    "tests/nn/test_gpu.py",
    "tests/nn/test_normalization_gpu.py",
    "tests/nn/test_conv_gpu.py",
    "tests/nn/test_rnn_gpu.py",
    "tests/nn/test_grid_sample_gpu.py",
    "tests/optim/test_gpu.py",
    "tests/serialization/test_roundtrip.py",
    "tests/serialization/test_saved_gpu_views_share_memory.py",
    "tests/app/test_gpu.py",
    "tests/core/test_cuda_sync.py",
    "tests/core/test_numpy_force_and_reversed.py",
    "tests/app/test_doctor.py",
    "tests/core/test_ops.py",
    "tests/core/test_autograd.py",
    "tests/nn/test_layers.py",
    "tests/nn/test_checkpoint.py",
    "tests/optim/test_reference.py",
    "tests/optim/test_muon.py",
    "tests/amp/test_grad_scaler.py",
    "tests/distributed/test_gpu_paths.py",
    "tests/viz/test_graph.py",
    "tests/core/test_scatter_reduce.py",
    "tests/core/test_cumulative_extremes.py",
    "tests/core/test_unique_histc_repeat.py",
    "tests/core/test_random_draws.py",
    "tests/core/test_linalg.py",
    "tests/core/test_einsum.py",
    "tests/core/test_tensor_functions_device.py",
    "tests/distributions/test_gpu.py",
    "tests/core/test_activation_attention_kernels.py",
    "tests/core/test_memory_format.py",
    "tests/core/test_index_out_of_range.py",
    "tests/core/test_device_asserts.py",
    "tests/ops/test_battery.py",
    "tests/core/test_cuda_device_errors_and_copies.py",
    "tests/core/test_cuda_pickle.py",
]


def test_implicit_conversion_to_numpy_fails_as_in_cupy():
    x = cp.arange(6, dtype=np.float32).reshape(2, 3)
    assert not isinstance(x, np.ndarray)
    for convert in (np.asarray, np.array, lambda a: a.__array__(), lambda a: np.add(a, np.ones(3))):
        with pytest.raises(TypeError):
            convert(x)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(x)
    np.testing.assert_array_equal(x.get(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(cp.asnumpy(x), np.arange(6).reshape(2, 3))


def test_mixing_host_and_device_arrays_raises():
    d, h = cp.ones(3), np.ones(3)
    for mix in (
        lambda: d + h,
        lambda: h + d,
        lambda: d * h,
        lambda: cp.maximum(d, h),
        lambda: cp.concatenate([d, h]),
        lambda: cp.where(d > 0, d, h),
    ):
        with pytest.raises(TypeError):
            mix()
    # scalars mix freely, and a host array enters the device through asarray
    assert type(d * np.float32(2) + 1) is cp.ndarray
    np.testing.assert_array_equal((cp.asarray(h) + d).get(), [2.0, 2.0, 2.0])


def test_a_host_array_sent_to_the_device_is_a_copy_as_in_cupy():
    h = np.arange(6.0)
    for send in (cp.asarray, cp.array, cp.ascontiguousarray):
        d = send(h[1:])
        d[0] = 100.0  # device memory: the host array must not change
        assert h.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        assert d.get().tolist() == [100.0, 2.0, 3.0, 4.0, 5.0]


def test_namespace_is_cupy_14s():
    assert NAMES["version"].startswith("14.")
    assert "errstate" not in NAMES["cupy"] and not hasattr(cp, "errstate")
    a = cp.zeros(4)
    cp.add.at(a, cp.asarray([0, 0, 2]), 1.0)
    np.testing.assert_array_equal(a.get(), [2.0, 0.0, 1.0, 0.0])
    with pytest.raises(AttributeError):
        cp.add.nonexistent_method  # noqa: B018
    for name in ("matmul", "exp", "asnumpy", "float16", "random", "cuda"):
        assert name in NAMES["cupy"] and hasattr(cp, name)
    with pytest.raises(AttributeError):
        cp.ones(2).resize  # noqa: B018  (a NumPy-only method)


def test_a_ufunc_without_a_bfloat16_loop_in_cupy_refuses_bfloat16():
    import ml_dtypes

    missing = sorted(set(NAMES["ufuncs"]) - set(NAMES["ufuncs_with_bfloat16"]))
    assert "logical_not" in missing
    b = cp.ones(3, dtype=ml_dtypes.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        cp.logical_not(b)
    assert cp.exp(b).dtype == ml_dtypes.bfloat16


def test_cuda_pieces_have_cupys_signatures():
    assert cp.cuda.runtime.getDeviceCount() == 1
    with cp.cuda.Device(0) as dev:
        assert dev.id == 0 and cp.cuda.runtime.getDevice() == 0
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    big = cp.zeros((256, 256), dtype=np.float32)
    assert pool.used_bytes() == before + big.nbytes
    del big
    assert pool.used_bytes() == before


def test_random_streams_differ_from_the_cpus():
    cpu = np.random.Generator(np.random.PCG64(0)).standard_normal(8)
    dev = cp.random.default_rng(0).standard_normal(8).get()
    assert not np.allclose(cpu, dev)
    np.testing.assert_array_equal(dev, cp.random.default_rng(0).standard_normal(8).get())
    assert not hasattr(cp.random.default_rng(0), "normal")  # CuPy's Generator has no normal()


def test_host_reads_are_counted():
    x = cp.arange(4.0)
    with cp.counting_host_reads() as reads:
        y = (x * 2).sum()
        assert reads.count == 0
        float(y), bool(y > 0), y.item(), x.get()
        assert reads.count == 4


def test_gamma_family_and_gamma_draws_follow_their_closed_forms():
    special = cp.cupyx.scipy.special
    euler, zeta3 = 0.5772156649015329, 1.2020569031595943
    x = cp.asarray([0.5, 1.0, 4.0, -0.5, 10.0])
    harmonic = [sum(1 / k for k in range(1, n)) for n in (4, 10)]  # psi(n) = H_(n-1) - euler
    half = -euler - 2 * np.log(2)  # psi(1/2), and psi(-1/2) = psi(1/2) + 2
    want_digamma = [half, -euler, harmonic[0] - euler, half + 2, harmonic[1] - euler]
    np.testing.assert_allclose(special.digamma(x).get(), want_digamma, rtol=1e-14)
    want_gammaln = [np.log(np.pi) / 2, 0.0, np.log(6), np.log(2 * np.sqrt(np.pi)), np.log(362880)]
    np.testing.assert_allclose(special.gammaln(x).get(), want_gammaln, rtol=1e-14, atol=1e-15)
    n = cp.asarray([1.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        special.polygamma(n, cp.asarray([1.0, 0.5, 1.0, 1.0])).get(),
        [np.pi**2 / 6, np.pi**2 / 2, -2 * zeta3, np.pi**4 / 15],
        rtol=1e-14,
    )
    # psi(y + 1) - psi(y) = 1/y and psi'(y) - psi'(y + 1) = 1/y^2, across the formulas' branches
    y = cp.asarray([-2.7, -0.3, 0.01, 3.3, 14.9, 25.0])
    step = special.digamma(y + 1) - special.digamma(y)
    np.testing.assert_allclose(step.get(), 1 / y.get(), rtol=1e-11)
    one = cp.ones(6)
    diff = special.polygamma(one, y) - special.polygamma(one, y + 1)
    np.testing.assert_allclose(diff.get(), 1 / y.get() ** 2, rtol=1e-11)
    assert np.isinf(special.gammaln(cp.asarray([0.0, -3.0])).get()).all()
    draws = cp.random.default_rng(0).standard_gamma(cp.full((40000,), 2.5)).get()
    assert abs(draws.mean() - 2.5) < 5 * np.sqrt(2.5 / 40000)  # mean and variance 2.5
    with pytest.raises(TypeError):  # the concentration must be on the device, as in CuPy
        cp.random.default_rng(0).standard_gamma(np.full(3, 2.5))


@pytest.mark.skipif(bool(os.environ.get("MINIGENESIS_CUPY")), reason="already on the stand-in")
def test_gpu_marked_tests_pass_on_the_standin():
    env = dict(os.environ, MINIGENESIS_CUPY="tests.cupy_standin", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "gpu and not slow", "-p", "no:cacheprovider"]
    done = subprocess.run(
        cmd + GPU_TEST_FILES, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout[-2000:]


def test_elementwise_kernel_body_keeps_cs_types():
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    d = cp.asarray(x)
    float_literal = cp.ElementwiseKernel("T x", "T y", "y = x * (T)0.1 + (T)1;", "f32")
    double_literal = cp.ElementwiseKernel("T x", "T y", "y = x * 0.1 + 1;", "f64")
    np.testing.assert_array_equal(float_literal(d).get(), x * np.float32(0.1) + np.float32(1))
    # a bare 0.1 is a C double: the product and sum are done in float64, rounded once at the end
    np.testing.assert_array_equal(
        double_literal(d).get(), (x.astype(np.float64) * 0.1 + 1).astype(np.float32)
    )
    assert float_literal(d).dtype == np.float32


def test_elementwise_kernel_updates_its_outputs_in_place_and_broadcasts_scalars():
    rng = np.random.default_rng(0)
    p, g = rng.standard_normal((2, 3, 4), dtype=np.float32)
    dp, dg = cp.asarray(p.copy()), cp.asarray(g)
    step = cp.ElementwiseKernel(
        "T g, T lr", "T p, T seen", "T d = g > (T)0 ? g : (T)0; p = p - lr * d; seen = d;", "k"
    )
    seen = cp.empty_like(dp)
    result = step(dg, 0.5, dp, seen)
    assert result[0] is dp and result[1] is seen
    d = np.where(g > 0, g, np.float32(0))
    np.testing.assert_array_equal(dp.get(), p - np.float32(0.5) * d)
    np.testing.assert_array_equal(seen.get(), d)


def test_elementwise_kernel_refuses_what_cupy_would_and_what_it_cannot_run():
    k = cp.ElementwiseKernel("T x", "T y", "y = x + x;", "twice")
    with pytest.raises(TypeError):  # a host array
        k(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="Out shape"):
        k(cp.ones((2, 3)), cp.empty(3))
    with pytest.raises(TypeError, match="number of arguments"):
        k(cp.ones(3), cp.ones(3), cp.ones(3))
    for body in ("y = x[0];", "y = x > 0 && x < 1;", "y = i;", "if (x > 0) { y = x; }"):
        with pytest.raises(NotImplementedError, match="stand-in does not run"):
            cp.ElementwiseKernel("T x", "T y", body, "bad")
    with pytest.raises(NotImplementedError, match="raw"):
        cp.ElementwiseKernel("raw T x", "T y", "y = x;", "bad")


def test_reduction_kernel_maps_reduces_and_post_maps_along_an_axis():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 7))
    mu = x.mean(axis=1, keepdims=True)
    variance = cp.ReductionKernel(
        "T x, T mu",
        "T var",
        "(x - mu) * (x - mu)",
        "a + b",
        "var = a / (T)(_in_ind.size() / _out_ind.size())",
        "0",
        "variance",
    )
    got = variance(cp.asarray(x), cp.asarray(mu), axis=1, keepdims=True)
    assert got.shape == (5, 1)
    np.testing.assert_allclose(got.get(), x.var(axis=1, keepdims=True), rtol=1e-14)
    biggest = cp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-INFINITY", "biggest")
    np.testing.assert_array_equal(biggest(cp.asarray(x), axis=0).get(), x.max(axis=0))


def test_kernel_writes_a_raw_argument_at_an_index_and_refuses_to_read_it():
    flag = cp.zeros(2, dtype=np.float32)
    x = cp.asarray([[1.0, -2.0], [3.0, 4.0]], dtype=np.float32)
    double_and_flag = cp.ElementwiseKernel(
        "T factor", "T x, raw float32 flag", "flag[x < (T)0 ? 0 : 1] = 1;\nx = x * factor;", "k"
    )
    double_and_flag(2.0, x, flag)  # the raw argument is not broadcast: the loop runs over x
    np.testing.assert_array_equal(x.get(), [[2.0, -4.0], [6.0, 8.0]])
    np.testing.assert_array_equal(flag.get(), [1.0, 1.0])
    with pytest.raises(IndexError, match="out of range"):  # flag[1] of a 1-element flag
        double_and_flag(2.0, cp.ones(3, dtype=np.float32), cp.zeros(1, dtype=np.float32))
    for body in ("y = flag[0];", "y = x + flag;"):
        with pytest.raises(NotImplementedError, match="raw argument"):
            cp.ElementwiseKernel("T x, raw T flag", "T y", body, "k")


def test_kernel_if_statement_acts_only_where_its_condition_holds():
    flag = cp.zeros(1, dtype=np.float32)
    x = cp.asarray([1.0, np.inf, -2.0, np.nan], dtype=np.float32)
    check = cp.ElementwiseKernel(
        "T x",
        "T y, raw float32 flag",
        "if (!isfinite(x)) flag[0] = 1;\ny = x;\nif (x < (T)0) y = -x;\ny *= (T)2;",
        "k",
    )
    y, _ = check(x, cp.empty_like(x), flag)
    np.testing.assert_array_equal(y.get(), [2.0, np.inf, 4.0, np.nan])
    assert flag.get()[0] == 1.0
    flag[...] = 0
    ones = cp.ones(5, dtype=np.float32)
    check(ones, cp.empty_like(ones), flag)  # all finite: nothing written
    assert flag.get()[0] == 0.0
    for body in ("if (x > 0) T z = x;", "if (x > 0) y = x; else y = -x;", "y = !!x;"):
        with pytest.raises(NotImplementedError, match="stand-in does not run"):
            cp.ElementwiseKernel("T x", "T y", body, "bad")
    with pytest.raises(NotImplementedError, match="raw argument"):
        cp.ElementwiseKernel("T x", "T y, raw T flag", "flag = x;\ny = x;", "k")
    with pytest.raises(NotImplementedError, match="raw argument"):
        cp.ReductionKernel("raw T x", "T y", "x[0]", "a + b", "y = a", "0", "r")


def test_a_kernel_that_writes_an_input_fails_as_it_would_not_compile_for_cupy():
    with pytest.raises(TypeError, match="writes its input 'found'.*among the outputs"):
        cp.ElementwiseKernel("T g, raw T found", "T y", "found[0] = 1;\ny = g;", "flag")
    with pytest.raises(TypeError, match="writes its input 'g'"):
        cp.ElementwiseKernel("T g", "T y", "g = g * (T)2;\ny = g;", "scale")
    flag = cp.zeros(1, dtype=np.float32)
    as_output = cp.ElementwiseKernel("T g", "T y, raw float32 found", "found[0] = 1;\ny = g;", "f")
    as_output(cp.ones(3), cp.empty(3), flag)
    assert flag.get()[0] == 1


def test_one_input_reductions_are_rewritten_as_cupys_cub_path_rewrites_them():
    x = np.arange(12.0).reshape(3, 4)
    # CUB renames the output to out0 as plain text: an output "s" breaks "sqrt" and CUB's own names
    rms = cp.ReductionKernel("T x", "T s", "x * x", "a + b", "s = sqrt(a)", "0", "rms")
    with pytest.raises(TypeError, match="would not compile on a GPU"):
        rms(cp.asarray(x), axis=1)
    # _in_ind is undefined there, except in a kernel CuPy names a mean
    count = "(_in_ind.size() / _out_ind.size())"
    with pytest.raises(TypeError, match="pass the count as a second input"):
        cp.ReductionKernel("T x", "T total", "x", "a + b", f"total = a / {count}", "0", "avg")
    mean = cp.ReductionKernel("T x", "T total", "x", "a + b", f"total = a / {count}", "0", "mean")
    np.testing.assert_array_equal(mean(cp.asarray(x), axis=1).get(), x.mean(axis=1))
    # with the count as a second input the plain reduction kernel runs, and sees the scalar
    avg = cp.ReductionKernel("T x, T n", "T total", "x", "a + b", "total = a / n", "0", "avg")
    np.testing.assert_array_equal(avg(cp.asarray(x), 4, axis=1).get(), x.mean(axis=1))


def test_a_views_base_is_the_device_array_it_views_and_keeps_it_alive():
    a = cp.zeros((3, 4))
    v = a.reshape(12)[2:5]
    assert v.base is a and v.base is v.base  # one object, as CuPy's view.base
    del a
    assert v.base.shape == (3, 4)  # the view holds its base
    assert cp.zeros(3).base is None and cp.asarray(np.ones(3)).base is None


def test_float16_kernel_arithmetic_is_float32_rounded_once_as_in_cupy():
    x = np.linspace(0.1, 3, 4096, dtype=np.float16)
    cube_plus = cp.ElementwiseKernel("T x", "T y", "y = x * x * x + x;", "cube_plus")
    got = cube_plus(cp.asarray(x)).get()
    wide = x.astype(np.float32)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (wide * wide * wide + wide).astype(np.float16))
    assert (got != x * x * x + x).any()  # NumPy's float16 rounds after every operation


def test_a_select_of_float16_against_float_fails_as_nvrtc_refuses_it():
    g = cp.asarray(np.array([1.5, -2.0, 3.0], dtype=np.float16))
    arg = cp.asarray(np.array([0, 1, 0], dtype=np.uint8))
    # (T)0 + g is a float (CuPy's float16 adds in float32), (T)0 a float16: ambiguous for NVRTC
    ambiguous = cp.ElementwiseKernel(
        "T g, uint8 arg", "T o", "o = (arg == 0) ? (T)0 + g : (T)0;", "a"
    )
    with pytest.raises(TypeError, match="ambiguous"):
        ambiguous(g, arg)
    cast = cp.ElementwiseKernel(
        "T g, uint8 arg", "T o", "o = (arg == 0) ? (T)((T)0 + g) : (T)0;", "c"
    )
    np.testing.assert_array_equal(cast(g, arg).get(), np.array([1.5, 0.0, 3.0], np.float16))
    # in float32 both sides are floats: no ambiguity
    np.testing.assert_array_equal(ambiguous(g.astype(np.float32), arg).get(), [1.5, 0.0, 3.0])


def test_integer_array_indices_out_of_range_wrap_around_as_in_cupy():
    # CuPy's documented difference from NumPy: x[[1, 3]] on 3 elements is x[[1, 0]], unchecked
    x = cp.arange(3)
    np.testing.assert_array_equal(x[[1, 3]].get(), [1, 0])
    np.testing.assert_array_equal(x[cp.asarray([1, -4, 5])].get(), [1, 2, 2])
    y = cp.zeros(3)
    y[[1, 3]] = 10
    np.testing.assert_array_equal(y.get(), [10.0, 10.0, 0.0])
    a = cp.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(a[cp.asarray([2])].get(), [[0, 1, 2]])  # rows wrap by 2
    np.testing.assert_array_equal(a[:, cp.asarray([4])].get(), [[1], [4]])  # columns by 3
    np.testing.assert_array_equal(a[..., [-4]].get(), [[2], [5]])
    np.testing.assert_array_equal(cp.take(x, cp.asarray([4])).get(), [1])
    np.testing.assert_array_equal(x.take(cp.asarray([-5])).get(), [1])
    idx = cp.asarray([[3], [7]])
    np.testing.assert_array_equal(cp.take_along_axis(a, idx, 1).get(), [[0], [4]])
    for scatter in (cp.cupyx.scatter_add, lambda o, i, v: cp.add.at(o, i, v)):
        z = cp.zeros(3)
        scatter(z, cp.asarray([3, 4, -1]), 1.0)
        np.testing.assert_array_equal(z.get(), [1.0, 1.0, 1.0])
    z = cp.zeros(3)
    cp.put(z, cp.asarray([5]), 2.0)
    np.testing.assert_array_equal(z.get(), [0.0, 0.0, 2.0])
    with pytest.raises(IndexError):  # a plain integer is still checked, as in CuPy
        x[3]  # noqa: B018
    with pytest.raises(IndexError):  # and there is nothing to wrap into in an empty dimension
        cp.zeros(0)[cp.asarray([0])]  # noqa: B018


def test_special_functions_refuse_bfloat16_and_take_infinities_as_cupys():
    special = cp.cupyx.scipy.special
    import ml_dtypes

    with pytest.raises(TypeError, match="no bfloat16 loop"):
        special.erf(cp.asarray(np.ones(3, dtype=ml_dtypes.bfloat16)))
    edges = cp.asarray([-np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(special.gammaln(edges).get(), [np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(special.digamma(edges).get(), [np.nan, np.inf, np.nan])
    orders = cp.asarray([1.0, 1.0, 1.0])  # psi'(x): NaN at -inf (no limit), 0 at +inf
    np.testing.assert_array_equal(special.polygamma(orders, edges).get(), [np.nan, 0.0, np.nan])
