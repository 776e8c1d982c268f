"""The torch.* names of minigenesis/top_level/: F's functions with aten's signatures, the
function forms of Tensor methods and views, and the stand-alone functions, against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

RNG = np.random.default_rng(1)


def _t(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# ---------------------------------------------------------------------- F's functions
def test_conv_and_pool_aliases_compute_the_sliding_sums_and_maxima():
    x = RNG.normal(size=(1, 1, 7))
    w = RNG.normal(size=(1, 1, 3))
    expect = np.correlate(x[0, 0], w[0, 0], "valid")
    np.testing.assert_allclose(mg.conv1d(_t(x), _t(w)).numpy()[0, 0], expect)
    conv = mg.convolution(_t(x), _t(w), None, [1], [0], [1], False, [0], 1)
    np.testing.assert_allclose(conv.numpy()[0, 0], expect)
    pooled = mg.max_pool1d(_t(x), 2)
    np.testing.assert_allclose(pooled.numpy()[0, 0], x[0, 0, :6].reshape(3, 2).max(1))
    values, idx = mg.adaptive_max_pool1d(_t(x), 1)
    assert values.item() == x.max() and idx.item() == x.argmax()
    np.testing.assert_allclose(
        mg.avg_pool1d(_t(x), 3).numpy()[0, 0], x[0, 0, :6].reshape(2, 3).mean(1)
    )
    padded = mg.constant_pad_nd(_t(x), (1, 2), 5.0).numpy()[0, 0]
    np.testing.assert_array_equal(padded, np.pad(x[0, 0], (1, 2), constant_values=5.0))


@pytest.mark.parametrize(
    "name", ["dropout", "dropout_", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]
)
@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_aten_dropouts_refuse_p_outside_0_1_with_runtime_error(name, p):
    # aten's check (RuntimeError), not F.dropout's ValueError; also when not training
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        getattr(mg, name)(mg.ones(2, 3, 4), p, False)


def test_dropout_takes_train_positionally():
    x = mg.ones(1000)
    assert mg.dropout(x, 0.5, False) is x or mg.dropout(x, 0.5, False).equal(x)
    mg.manual_seed(0)
    y = mg.dropout(x, 0.5, True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 400 < (y == 0).sum() < 600
    mg.manual_seed(0)
    z = mg.feature_dropout(mg.ones(8, 16, 5, 5), 0.5, True).numpy()
    per_channel = z.reshape(8, 16, 25)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # whole channels kept or zeroed


def test_norm_aliases_take_atens_argument_order():
    x = RNG.normal(size=(4, 3))
    mean, var = np.zeros(3), np.ones(3)
    w, b = RNG.normal(size=3), RNG.normal(size=3)
    out = mg.batch_norm(_t(x), _t(w), _t(b), _t(mean), _t(var), False, 0.1, 1e-5, False)
    np.testing.assert_allclose(out.numpy(), x / np.sqrt(1 + 1e-5) * w + b)
    ln = mg.layer_norm(_t(x), [3], None, None, 1e-5)
    mu, sd = x.mean(1, keepdims=True), x.std(1, keepdims=True)
    np.testing.assert_allclose(ln.numpy(), (x - mu) / np.sqrt(sd**2 + 1e-5), rtol=1e-10)


def test_embedding_takes_the_weight_first():
    weight = _t(RNG.normal(size=(5, 2)))
    idx = mg.tensor([4, 0, 4])
    np.testing.assert_array_equal(mg.embedding(weight, idx).numpy(), weight.numpy()[[4, 0, 4]])


def test_losses_take_reduction_as_an_int():
    x, y = RNG.normal(size=6), RNG.uniform(size=6)
    per = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
    for code, value in [(0, per), (1, per.mean()), (2, per.sum())]:
        got = mg.binary_cross_entropy_with_logits(_t(x), _t(y), None, None, code)
        np.testing.assert_allclose(got.numpy(), value, rtol=1e-12)
    lp, p = np.log(np.array([0.2, 0.8])), np.array([0.5, 0.5])
    np.testing.assert_allclose(
        mg.kl_div(_t(lp), _t(p), 2).item(), np.sum(p * (np.log(p) - lp)), rtol=1e-12
    )
    with pytest.raises(TypeError, match="reduction must be an int"):
        mg.kl_div(_t(lp), _t(p), "sum")
    a, b, t = _t([1.0, 2.0]), _t([2.0, 0.0]), _t([1.0, -1.0])
    expect = np.mean(np.maximum(0, -np.array([1.0, -1.0]) * np.array([-1.0, 2.0]) + 0.5))
    np.testing.assert_allclose(mg.margin_ranking_loss(a, b, t, 0.5, 1).item(), expect)


def test_activation_aliases_and_their_inplace_forms():
    x = np.array([-2.0, -0.5, 0.0, 1.5])
    np.testing.assert_allclose(mg.threshold(_t(x), 0.1, -1.0).numpy(), np.where(x > 0.1, x, -1))
    np.testing.assert_allclose(mg.celu(_t(x), 2.0).numpy(), np.where(x > 0, x, 2 * np.expm1(x / 2)))
    y = _t(x)
    mg.selu_(y)
    np.testing.assert_allclose(y.numpy(), F.selu(_t(x)).numpy())
    np.testing.assert_allclose(
        mg.rrelu(_t(x)).numpy(), np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2)
    )


# ---------------------------------------------------------------------- method forms and copies
def test_inplace_function_forms_write_into_their_argument():
    x = _t([-1.0, 4.0])
    assert mg.abs_(x) is x and x.tolist() == [1.0, 4.0]
    mg.sqrt_(x)
    mg.clamp_(x, max=1.5)
    assert x.tolist() == [1.0, 1.5]
    mg.zero_(x)
    assert x.tolist() == [0.0, 0.0]
    assert mg.fill(x, 3.0).tolist() == [3.0, 3.0] and x.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("name", "args", "view"),
    [("view_copy", ((3, 2),), lambda a: a.reshape(3, 2)), ("t_copy", (), lambda a: a.T),
     ("permute_copy", ((1, 0),), lambda a: a.T), ("diagonal_copy", (), np.diagonal),
     ("select_copy", (1, 2), lambda a: a[:, 2]), ("unsqueeze_copy", (0,), lambda a: a[None]),
     ("expand_copy", ((4, 2, 3),), lambda a: np.broadcast_to(a, (4, 2, 3))),
     ("slice_copy", (1, 0, 3, 2), lambda a: a[:, 0:3:2])],
)  # fmt: skip
def test_view_copies_hold_the_views_values_in_their_own_memory(name, args, view):
    a = RNG.normal(size=(2, 3))
    x = _t(a)
    out = getattr(mg, name)(x, *args)
    np.testing.assert_array_equal(out.numpy(), view(a))
    out.fill_(7.0)
    np.testing.assert_array_equal(x.numpy(), a)  # the source is untouched


# ---------------------------------------------------------------------- making tensors
def test_range_includes_its_end_and_warns():
    with pytest.warns(UserWarning, match="deprecated"):
        r = mg.range(1, 4)
    assert r.tolist() == [1.0, 2.0, 3.0, 4.0] and r.dtype is mg.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(mg.range(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75, 1.0])


def test_scalar_tensor_is_a_float_0d_tensor():
    s = mg.scalar_tensor(3)
    assert s.shape == () and s.dtype is mg.float32 and s.item() == 3.0
    assert mg.scalar_tensor(2, dtype=mg.int64).dtype is mg.int64


def test_unravel_index_matches_numpy_and_wraps_like_pytorch():
    flat = np.array([0, 5, 11, 7])
    got = mg.unravel_index(mg.tensor(flat), (3, 4))
    for g, e in zip(got, np.unravel_index(flat, (3, 4)), strict=True):
        np.testing.assert_array_equal(g.numpy(), e)
    assert [t.item() for t in mg.unravel_index(mg.tensor(-1), (2, 4))] == [1, 3]


@pytest.mark.parametrize(
    ("name", "numpy_window", "kwargs"),
    [("hann_window", np.hanning, {}), ("hamming_window", np.hamming, {}),
     ("blackman_window", np.blackman, {}), ("bartlett_window", np.bartlett, {}),
     ("kaiser_window", lambda n: np.kaiser(n, 12.0), {})],
)  # fmt: skip
def test_windows_match_numpy_symmetric_and_periodic(name, numpy_window, kwargs):
    fn = getattr(mg, name)
    sym = fn(9, False, dtype=mg.float64, **kwargs).numpy()
    np.testing.assert_allclose(sym, numpy_window(9), atol=1e-12)
    periodic = fn(8, dtype=mg.float64, **kwargs).numpy()  # N + 1 points, the last dropped
    np.testing.assert_allclose(periodic, numpy_window(9)[:-1], atol=1e-12)
    assert fn(1).tolist() == [1.0] and fn(0).shape == (0,)
    with pytest.raises(RuntimeError, match="floating point"):
        fn(4, dtype=mg.int64)


def test_asarray_shares_memory_unless_asked_to_copy():
    a = np.arange(3.0)
    t = mg.asarray(a)
    t[0] = 9.0
    assert a[0] == 9.0
    c = mg.asarray(a, copy=True)
    c[1] = -1.0
    assert a[1] == 1.0
    x = mg.ones(2)
    assert mg.asarray(x) is x and mg.asarray([1, 2]).dtype is mg.int64
    with pytest.raises(ValueError, match="copy=False"):
        mg.asarray([1, 2], copy=False)


def test_frombuffer_and_dlpack_share_memory():
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    t = mg.frombuffer(buf, dtype=mg.float32, count=2, offset=4)
    assert t.tolist() == [1.0, 2.0]
    t[0] = 7.0
    assert np.frombuffer(buf, dtype=np.float32)[1] == 7.0
    a = np.arange(3.0)
    d = mg.from_dlpack(a)
    d[2] = 5.0
    assert a[2] == 5.0
    x = mg.arange(4.0)
    assert mg.from_dlpack(mg.to_dlpack(x)).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_empty_permuted_lays_dims_out_in_the_given_order():
    e = mg.empty_permuted((2, 3, 4), (0, 2, 1))
    assert e.shape == (2, 3, 4) and e.stride() == (12, 1, 3)


def test_histogramdd_matches_numpy():
    pts = RNG.normal(size=(50, 2))
    hist, edges = mg.histogramdd(_t(pts), bins=[3, 4])
    h, e = np.histogramdd(pts, bins=[3, 4])
    np.testing.assert_array_equal(hist.numpy(), h)
    for got, expect in zip(edges, e, strict=True):
        np.testing.assert_allclose(got.numpy(), expect)


# ---------------------------------------------------------------------- linear algebra
def test_lu_unpack_rebuilds_the_matrix():
    a = RNG.normal(size=(2, 4, 4))
    lu, piv = mg.linalg.lu_factor(_t(a))
    p, lower, upper = mg.lu_unpack(lu, piv)
    np.testing.assert_allclose((p @ lower @ upper).numpy(), a, atol=1e-12)
    np.testing.assert_array_equal(np.triu(lower.numpy()[0], 1), 0)


def test_chain_matmul_and_the_named_norms():
    a, b, c = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2))
    np.testing.assert_allclose(mg.chain_matmul(_t(a), _t(b), _t(c)).numpy(), a @ b @ c)
    np.testing.assert_allclose(mg.nuclear_norm(_t(b)).item(), np.linalg.norm(b, "nuc"))
    np.testing.assert_allclose(mg.frobenius_norm(_t(b), (0, 1)).item(), np.linalg.norm(b))
    np.testing.assert_allclose(mg.vdot(_t(a[0]), _t(a[1])).item(), a[0] @ a[1])


# ---------------------------------------------------------------------- types and switches
def test_can_cast_refuses_only_a_lower_kind():
    assert mg.can_cast(mg.int64, mg.float16) and mg.can_cast(mg.int64, mg.uint8)
    assert not mg.can_cast(mg.float32, mg.int32) and not mg.can_cast(mg.int8, mg.bool)
    assert mg.can_cast(mg.bool, mg.bool)


def test_typename_and_type_classes():
    assert mg.typename(mg.ones(1)) == "torch.FloatTensor"
    assert mg.typename(mg.ones(1, dtype=mg.int64)) == "torch.LongTensor"
    assert mg.typename(3) == "int" and mg.typename(mg.nn.Linear).endswith(".Linear")
    assert isinstance(mg.float32, mg.dtype) and isinstance(mg.strided, mg.layout)
    assert mg.is_storage(mg.ones(2).untyped_storage()) and not mg.is_storage(mg.ones(2))


def test_set_default_tensor_type_sets_the_default_dtype():
    before = mg.get_default_dtype()
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            mg.set_default_tensor_type("torch.DoubleTensor")
        assert mg.ones(1).dtype is mg.float64
        with pytest.raises(TypeError, match="floating-point"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mg.set_default_tensor_type(mg.LongTensor)
    finally:
        mg.set_default_dtype(before)


def test_process_switches_report_their_state():
    assert mg.set_flush_denormal(True) is False
    mg.set_warn_always(True)
    assert mg.is_warn_always_enabled()
    mg.set_warn_always(False)
    assert not mg.is_warn_always_enabled()
    mg.set_anomaly_enabled(True)
    try:
        assert mg.is_anomaly_enabled()
    finally:
        mg.set_anomaly_enabled(False)
    assert not mg.is_anomaly_enabled()
    assert not mg.is_autocast_cpu_enabled()
    with mg.autocast("cpu"):
        assert mg.is_autocast_cpu_enabled()
    assert mg.get_autocast_cpu_dtype() is mg.bfloat16
    assert mg.get_autocast_gpu_dtype() is mg.float16


def test_vmap_is_func_vmap():
    assert mg.vmap is mg.func.vmap
    np.testing.assert_allclose(
        mg.vmap(lambda r: r.sum())(_t(np.ones((3, 2)))).numpy(), [2.0, 2.0, 2.0]
    )


def test_batch_norm_alias_updates_the_running_statistics_in_training():
    x = RNG.normal(size=(8, 3))
    rm, rv = mg.zeros(3, dtype=mg.float64), mg.ones(3, dtype=mg.float64)
    out = mg.batch_norm(_t(x), None, None, rm, rv, True, 0.1, 1e-5, False)
    np.testing.assert_allclose(out.numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5))
    np.testing.assert_allclose(rm.numpy(), 0.1 * x.mean(0))
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * x.var(0, ddof=1))


def test_embedding_alias_padding_row_gets_no_gradient():
    weight = _t(RNG.normal(size=(4, 2)), grad=True)
    mg.embedding(weight, mg.tensor([0, 2, 2, 1]), 2).sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy(), [[1, 1], [1, 1], [0, 0], [0, 0]])
    weight.grad = None
    mg.embedding(weight, mg.tensor([3, 3])).sum().backward()  # -1: no padding row
    np.testing.assert_array_equal(weight.grad.numpy()[3], [2, 2])


def test_unravel_index_into_a_shape_without_elements_is_refused():
    with pytest.raises(RuntimeError):
        mg.unravel_index(mg.tensor([0]), (3, 0))
    rows, cols = mg.unravel_index(mg.tensor([], dtype=mg.int64), (3, 0))  # nothing to index
    assert rows.shape == cols.shape == (0,)


@pytest.mark.parametrize("buf, count", [(b"", -1), (b"abcd", 0)])
def test_frombuffer_of_no_bytes_is_a_value_error(buf, count):
    with pytest.raises(ValueError, match="must not be 0"):
        mg.frombuffer(bytearray(buf), dtype=mg.uint8, count=count)


def test_softmax_and_log_softmax_take_a_dtype_that_casts_the_input_first():
    x = np.arange(6).reshape(2, 3)
    e = np.exp(x - x.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    got = mg.softmax(mg.tensor(x), 1, dtype=mg.float64)  # an int input: allowed with a dtype
    assert got.dtype is mg.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
    logp = mg.tensor(x).log_softmax(dim=1, dtype=mg.float64)
    np.testing.assert_allclose(logp.numpy(), np.log(want), rtol=1e-14)
    xf = mg.tensor(x.astype(np.float32), requires_grad=True)
    mg.log_softmax(xf, -1, mg.float64)[:, 0].sum().backward()  # d/dx_j = [j == 0] - p_j
    assert xf.grad.dtype is mg.float32
    np.testing.assert_allclose(xf.grad.numpy(), np.eye(3)[0] - want, rtol=1e-6)


def test_top_level_losses_without_a_reduction_are_elementwise():
    # PyTorch's Python binding reads these losses' default reduction as 0 ('none')
    x = np.array([[0.25, 1.0, -1.0, 0.5]])
    p = np.array([[0.2, 0.3, 0.5, 0.0]])
    got = mg.kl_div(_t(x), _t(p))
    want = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1)) - x), 0.0)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    logits = mg.binary_cross_entropy_with_logits(_t(x), _t(p))
    bce = np.maximum(x, 0) - x * p + np.log1p(np.exp(-np.abs(x)))
    np.testing.assert_allclose(logits.numpy(), bce, rtol=1e-12)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    hinge = mg.hinge_embedding_loss(_t(x[0]), _t(y))
    np.testing.assert_allclose(hinge.numpy(), np.where(y > 0, x[0], np.maximum(0, 1 - x[0])))
    ranking = mg.margin_ranking_loss(_t(x[0]), _t(p[0]), _t(y))
    np.testing.assert_allclose(ranking.numpy(), np.maximum(0, -y * (x[0] - p[0])), rtol=1e-12)
    assert mg.cosine_embedding_loss(_t(x), _t(p), _t(np.ones(1))).shape == (1,)
    assert mg.triplet_margin_loss(_t(x), _t(p), _t(x)).shape == (1,)
