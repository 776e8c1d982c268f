"""autocast: the cast policy per op class, nesting, decorator, threads, the global flag, the cast
cache, and float32 gradients on float32 parameters."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import autocast_policy as P
from minigenesis.ops import activation as A
from minigenesis.ops import batch_norm_rows as BN
from minigenesis.ops import elementwise as E
from minigenesis.ops import interpolate as IP
from minigenesis.ops import linalg as LA
from minigenesis.ops import linear as L
from minigenesis.ops import loss as LS
from minigenesis.ops import math_functions as MF
from minigenesis.ops import matmul as M
from minigenesis.ops import normalization as N
from minigenesis.ops import reduce as R
from minigenesis.ops import rnn as RO
from minigenesis.ops import shape as S
from minigenesis.ops.einsum import Einsum

BF16, F16, F32, F64 = mg.bfloat16, mg.float16, mg.float32, mg.float64


@pytest.fixture(autouse=True)
def _global_flag_off():
    """Every test starts and ends with the global flag off, whatever it did."""
    mg.enable_autocast = False
    yield
    mg.enable_autocast = False


def _t(*shape, dtype=F32, requires_grad=False):
    return mg.randn(*shape).to(dtype).requires_grad_(requires_grad)


# One call per op class of the policy table: (op class, function of the input dtype -> output).
def _lower_cases():
    return {
        M.MatMul: lambda dt: _t(3, 4, dtype=dt) @ _t(4, 5, dtype=dt),
        L.Linear: lambda dt: F.linear(_t(3, 4, dtype=dt), _t(5, 4, dtype=dt), _t(5, dtype=dt)),
        Einsum: lambda dt: mg.einsum("ij,jk->ik", _square(dt), _square(dt)),
        RO.RNNCell: lambda dt: RO.RNNCell.apply(
            _t(2, 3, dtype=dt), _t(2, 3, dtype=dt), _t(3, 3, dtype=dt), None, False
        ),
    }


def _float32_cases():
    """On both of PyTorch's float32 lists (CPU and CUDA)."""
    return {R.Prod: lambda dt: _t(3, 4, dtype=dt).prod(dim=1)}


def _cuda_float32_cases():
    """On PyTorch's CUDA float32 list only: under CPU autocast they run as they come."""
    pos = lambda dt: (mg.rand(3, 4) + 0.5).to(dt)  # noqa: E731  (log needs x > 0)
    return {
        A.Softmax: lambda dt: _t(3, 4, dtype=dt).softmax(-1),
        A.LogSoftmax: lambda dt: _t(3, 4, dtype=dt).log_softmax(-1),
        E.Exp: lambda dt: _t(3, 4, dtype=dt).exp(),
        E.Log: lambda dt: pos(dt).log(),
        E.Pow: lambda dt: pos(dt) ** 2.0,
        R.Sum: lambda dt: _t(3, 4, dtype=dt).sum(),
        R.LogSumExp: lambda dt: _t(3, 4, dtype=dt).logsumexp(dim=1),
        R.CumSum: lambda dt: _t(3, 4, dtype=dt).cumsum(1),
        R.Cumprod: lambda dt: _t(3, 4, dtype=dt).cumprod(1),
        A.Softplus: lambda dt: F.softplus(_t(3, 4, dtype=dt)),
        MF.Tan: lambda dt: _unit(dt).tan(),
        MF.Asin: lambda dt: _unit(dt).asin(),
        MF.Acos: lambda dt: _unit(dt).acos(),
        MF.Sinh: lambda dt: _unit(dt).sinh(),
        MF.Cosh: lambda dt: _unit(dt).cosh(),
        MF.Expm1: lambda dt: _unit(dt).expm1(),
        MF.Log1p: lambda dt: _unit(dt).log1p(),
        MF.Log2: lambda dt: pos(dt).log2(),
        MF.Log10: lambda dt: pos(dt).log10(),
        MF.Reciprocal: lambda dt: pos(dt).reciprocal(),
        MF.Erfinv: lambda dt: _unit(dt).erfinv(),
        IP.Resample: lambda dt: F.interpolate(_t(1, 2, 4, dtype=dt), scale_factor=2.0),
    }


def _unit(dt):
    """Values in (0, 0.5): inside every domain of the math functions above."""
    return (mg.rand(3, 4) * 0.5).to(dt)


def _cpu_float32_cases():
    """On PyTorch's CPU float32 list only (LAPACK's linear algebra, binary cross entropy)."""
    return {
        LS.BinaryCrossEntropy: lambda dt: LS.BinaryCrossEntropy.apply(
            mg.rand(3, 4).to(dt) * 0.8 + 0.1, mg.rand(3, 4).to(dt)
        ),
        LA.Inverse: lambda dt: mg.linalg.inv(_square(dt)),
        LA.Solve: lambda dt: mg.linalg.solve(_square(dt), _square(dt)),
        LA.Cholesky: lambda dt: mg.linalg.cholesky(_square(dt)),
        LA.QR: lambda dt: mg.linalg.qr(_square(dt))[1],
        LA.Eigh: lambda dt: mg.linalg.eigh(_square(dt))[0],
        LA.SVD: lambda dt: mg.linalg.svdvals(_square(dt)),
    }


def _unlisted_cases():
    """Ops on none of PyTorch's lists (CPU or CUDA): they run as they come, so a 2-byte input
    stays 2-byte under autocast."""
    return {
        R.Mean: lambda dt: _t(3, 4, dtype=dt).mean(dim=0),
        R.Var: lambda dt: _t(3, 4, dtype=dt).var(dim=1),
        N.Normalize: lambda dt: N.Normalize.apply(
            _t(3, 4, dtype=dt), None, None, (1,), 1e-5, True, None
        ),
        BN.BatchNormRows: lambda dt: F.batch_norm(_t(3, 4, dtype=dt), None, None, training=True),
        LS.LogSigmoid: lambda dt: LS.LogSigmoid.apply(_t(3, 4, dtype=dt)),
    }


def _square(dt):
    """A symmetric positive-definite 3 x 3 matrix in dtype dt (no random draw: the draws of the
    other tests stay as they were)."""
    return (mg.eye(3) * 4 + 0.1 * mg.ones(3, 3)).to(dt)


def _promote_cases():
    # Called as ops directly, with mixed dtypes, so the hook (not Tensor-level promotion) decides.
    def binary(op):
        return lambda dt: op.apply(_t(3, 4, dtype=dt), _t(3, 4, dtype=F32))

    return {
        E.Add: binary(E.Add),
        E.Sub: binary(E.Sub),
        E.Mul: binary(E.Mul),
        E.Div: binary(E.Div),
        E.Maximum: binary(E.Maximum),
        E.Minimum: binary(E.Minimum),
        E.Where: lambda dt: E.Where.apply(
            np.ones((3, 4), bool), _t(3, 4, dtype=dt), _t(3, 4, dtype=F32)
        ),
        S.Cat: lambda dt: S.Cat.apply(0, _t(3, 4, dtype=dt), _t(2, 4, dtype=F32)),
        S.Stack: lambda dt: S.Stack.apply(0, _t(3, 4, dtype=dt), _t(3, 4, dtype=F32)),
    }


def test_every_op_class_of_the_table_is_tested_here():
    expected = {
        **dict.fromkeys(_lower_cases(), P.LOWER),
        **dict.fromkeys(_float32_cases(), P.FLOAT32),
        **dict.fromkeys(_cuda_float32_cases(), P.CUDA_FLOAT32),
        **dict.fromkeys(_cpu_float32_cases(), P.CPU_FLOAT32),
        **dict.fromkeys(_promote_cases(), P.PROMOTE),
        # the per-kernel subclasses of Resample (UpsampleBilinear2D ...) inherit its rule
        **dict.fromkeys(IP.UPSAMPLE_OPS.values(), P.CUDA_FLOAT32),
    }
    assert set(P.policy()) == set(expected)
    for cls, rule in expected.items():
        assert P.rule_for(cls) == rule, cls.__name__
    assert all(P.rule_for(cls) is None for cls in _unlisted_cases())


def test_a_rule_is_one_cast_per_device_type():
    assert (P.LOWER.on("cpu"), P.LOWER.on("cuda")) == ("lower", "lower")
    assert (P.CUDA_FLOAT32.on("cpu"), P.CUDA_FLOAT32.on("cuda")) == (None, "float32")
    assert (P.CPU_FLOAT32.on("cpu"), P.CPU_FLOAT32.on("cuda")) == ("float32", None)


def test_an_op_declares_its_rule_on_its_class_and_the_table_is_read_off_the_classes():
    from minigenesis.autograd.function import Op

    class Scale(Op):  # y = 2 x, in the low dtype under autocast
        autocast = P.LOWER

        @staticmethod
        def forward(ctx, x):
            return x + x  # (x * 2 is float32 for a bfloat16 x before NumPy 2.1.3)

        @staticmethod
        def backward(ctx, gy):
            return gy * 2

    assert P.policy()[Scale] == P.LOWER and P.rule_for(Scale) == P.LOWER
    assert P.rule_for(E.Neg) is None and E.Neg not in P.policy()  # no rule: runs as it comes
    x = _t(3, dtype=F32, requires_grad=True)
    with mg.autocast(dtype=BF16):
        y = Scale.apply(x)
        assert y.dtype is BF16 and E.Neg.apply(x).dtype is F32
    y.float().sum().backward()
    assert x.grad.dtype is F32 and x.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("cls", list(_lower_cases()), ids=lambda c: c.__name__)
@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "f16"])
def test_lower_ops_run_in_the_low_dtype(cls, low):
    fn = _lower_cases()[cls]
    assert fn(F32).dtype is F32  # outside autocast: as it comes
    with mg.autocast(dtype=low):
        assert fn(F32).dtype is low
        assert fn(F64).dtype is F64  # float64 is never cast (PyTorch)


@pytest.mark.parametrize(
    "cls", list(_float32_cases()) + list(_cpu_float32_cases()), ids=lambda c: c.__name__
)
@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "f16"])
def test_float32_ops_run_in_float32_on_the_cpu(cls, low):
    fn = {**_float32_cases(), **_cpu_float32_cases()}[cls]
    if cls.__module__ == LA.__name__:  # outside autocast linalg refuses 2-byte floats (PyTorch)
        with pytest.raises(NotImplementedError, match="Low precision"):
            fn(low)
    else:
        assert fn(low).dtype is low  # outside autocast: the op keeps its input dtype
    with mg.autocast(dtype=low):
        assert fn(low).dtype is F32
        assert fn(F32).dtype is F32
        assert fn(F64).dtype is F64


@pytest.mark.parametrize(
    "cls", list(_cuda_float32_cases()) + list(_unlisted_cases()), ids=lambda c: c.__name__
)
@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "f16"])
def test_ops_off_the_cpu_lists_run_as_they_come_under_cpu_autocast(cls, low):
    """PyTorch's CPU autocast keeps softmax, exp, sum, the norms ... in the input's dtype."""
    fn = {**_cuda_float32_cases(), **_unlisted_cases()}[cls]
    with mg.autocast("cpu", dtype=low):
        assert fn(low).dtype is low
        assert fn(F32).dtype is F32


@pytest.mark.parametrize("cls", list(_promote_cases()), ids=lambda c: c.__name__)
def test_promote_ops_widen_mixed_inputs(cls):
    fn = _promote_cases()[cls]
    with mg.autocast():
        assert fn(BF16).dtype is F32
        assert fn(F32).dtype is F32


def test_ops_outside_the_table_keep_their_input_dtype():
    x = _t(3, 4)
    with mg.autocast():
        h = x @ _t(4, 4)
        assert h.dtype is BF16
        assert h.relu().dtype is BF16  # a bf16 activation stays bf16 to the next matmul
        assert h.tanh().dtype is BF16
        assert h.reshape(2, 6).dtype is BF16
        assert x.relu().dtype is F32  # nothing casts a float32 relu input
        assert (h * 2.0).dtype is BF16  # a Python scalar does not widen


def test_integer_tensors_are_never_cast():
    idx = mg.tensor([[1, 2], [3, 4]])
    with mg.autocast():
        assert (idx @ idx).dtype is mg.int64
        assert idx.sum().dtype is mg.int64


def test_mixed_matmul_runs_in_the_low_dtype():
    # A bf16 activation times a float32 weight: PyTorch's autocast casts both to bf16.
    with mg.autocast():
        h = _t(3, 4) @ _t(4, 4)
        assert (h @ _t(4, 2)).dtype is BF16
        assert F.linear(h, _t(2, 4), _t(2)).dtype is BF16


def test_values_match_a_manual_cast():
    x, w = _t(5, 7), _t(7, 3)
    with mg.autocast():
        y = x @ w
    ref = x.bfloat16() @ w.bfloat16()
    assert np.array_equal(y.float().numpy(), ref.float().numpy())


# ---------------------------------------------------------------------------- nesting and regions
def test_nesting_inner_disabled_and_inner_dtype():
    x, w = _t(2, 3), _t(3, 2)
    with mg.autocast():
        assert (x @ w).dtype is BF16
        with mg.autocast(enabled=False):
            assert (x @ w).dtype is F32
            with mg.autocast(dtype=F16):
                assert (x @ w).dtype is F16
            assert (x @ w).dtype is F32
        assert (x @ w).dtype is BF16
    assert (x @ w).dtype is F32
    assert not mg.amp.is_autocast_enabled()


def test_region_is_restored_after_an_exception():
    with pytest.raises(RuntimeError, match="boom"), mg.autocast():
        raise RuntimeError("boom")
    assert (_t(2, 3) @ _t(3, 2)).dtype is F32


def test_decorator():
    @mg.autocast()
    def forward(x, w):
        return x @ w

    @mg.autocast(enabled=False)
    def exact(x, w):
        return x @ w

    x, w = _t(2, 3), _t(3, 2)
    assert forward(x, w).dtype is BF16
    assert (x @ w).dtype is F32
    with mg.autocast():
        assert exact(x, w).dtype is F32
    assert forward.__name__ == "forward"


def test_device_type_cuda_leaves_cpu_ops_alone():
    x, w = _t(2, 3), _t(3, 2)
    with mg.autocast("cuda"):
        assert (x @ w).dtype is F32
    with mg.autocast("cpu"):
        assert (x @ w).dtype is BF16
        assert mg.amp.get_autocast_dtype("cpu") is BF16
        assert not mg.amp.is_autocast_enabled("cuda")


def test_bad_arguments_name_what_is_wrong():
    with pytest.raises(ValueError, match="float16 or minigenesis.bfloat16"):
        mg.autocast(dtype=mg.float32)
    with pytest.raises(ValueError, match="device_type"):
        mg.autocast("tpu")
    with pytest.raises(ValueError, match="rule"):
        P.autocast_function("fast")


def test_autocast_is_thread_local():
    x, w = _t(2, 3), _t(3, 2)
    inside, outside = threading.Barrier(2), {}

    def worker():
        inside.wait()  # the main thread is inside its autocast block now
        outside["dtype"] = (x @ w).dtype
        inside.wait()

    t = threading.Thread(target=worker)
    t.start()
    with mg.autocast():
        inside.wait()
        inside.wait()
        assert (x @ w).dtype is BF16
    t.join()
    assert outside["dtype"] is F32


# ---------------------------------------------------------------------------- the global flag
def test_global_flag_turns_autocast_on_in_every_thread():
    x, w = _t(2, 3), _t(3, 2)
    assert mg.enable_autocast is False
    mg.enable_autocast = True
    assert mg.enable_autocast is True
    assert (x @ w).dtype is BF16
    seen = {}
    t = threading.Thread(target=lambda: seen.setdefault("dtype", (x @ w).dtype))
    t.start()
    t.join()
    assert seen["dtype"] is BF16
    with mg.autocast(enabled=False):  # a region still overrides it in its thread
        assert (x @ w).dtype is F32
    assert (x @ w).dtype is BF16  # and leaving it falls back to the global setting
    mg.enable_autocast = False
    assert (x @ w).dtype is F32


def test_global_flag_set_inside_a_region_shows_after_it():
    x, w = _t(2, 3), _t(3, 2)
    with mg.autocast(enabled=False):
        mg.enable_autocast = True
        assert (x @ w).dtype is F32
    assert (x @ w).dtype is BF16


# ---------------------------------------------------------------------------- cast cache
def _cast_node_of(y):
    """The Cast node feeding a MatMul output's second operand."""
    edge = y.grad_fn.next_edges[1]
    return edge[0]


def test_a_parameter_used_twice_is_cast_once():
    w = _t(4, 3, requires_grad=True)
    x1, x2 = _t(2, 4), _t(5, 4)
    with mg.autocast():
        y1, y2 = x1 @ w, x2 @ w
        assert P.cache_size() == 1
        assert _cast_node_of(y1) is _cast_node_of(y2)
        assert isinstance(_cast_node_of(y1), E.Cast)
        (y1.float().sum() + y2.float().sum()).backward()
    assert P.cache_size() == 0  # dropped on exit
    # both uses reach the float32 parameter: dL/dw = x1^T 1 + x2^T 1
    ref = x1.numpy().sum(0)[:, None] + x2.numpy().sum(0)[:, None]
    assert w.grad.dtype is F32
    np.testing.assert_allclose(w.grad.numpy(), np.broadcast_to(ref, (4, 3)), rtol=0, atol=3e-2)


def test_cache_sees_in_place_updates_and_new_regions():
    w = _t(4, 3, requires_grad=True)
    x = _t(2, 4)
    with mg.autocast():
        first = _cast_node_of(x @ w)
        with mg.no_grad():
            w.add_(1.0)  # a new version of w: its old cast is stale
        second = _cast_node_of(x @ w)
        assert first is not second
        y = x @ w
        assert _cast_node_of(y) is second
        np.testing.assert_array_equal(
            (y.float()).detach().numpy(), (x.bfloat16() @ w.detach().bfloat16()).float().numpy()
        )
    with mg.autocast():
        assert _cast_node_of(x @ w) is not second


def test_cache_skips_non_leaves_no_grad_and_disabled_cache():
    w = _t(4, 3, requires_grad=True)
    x = _t(2, 4)
    with mg.autocast():
        w2 = w * 1.0  # not a leaf
        x @ w2
        x @ w2
        assert P.cache_size() == 0
        with mg.no_grad():
            x @ w
        assert P.cache_size() == 0
    with mg.autocast(cache_enabled=False):
        assert _cast_node_of(x @ w) is not _cast_node_of(x @ w)
        assert P.cache_size() == 0


# ---------------------------------------------------------------------------- gradients
def test_float32_parameters_get_float32_gradients():
    mg.manual_seed(0)
    x = _t(8, 6)
    w1, b1 = _t(5, 6, requires_grad=True), _t(5, requires_grad=True)
    w2 = _t(5, 3, requires_grad=True)

    target = mg.tensor([0, 1, 2, 0, 1, 2, 0, 1])

    def loss_fn():  # cross_entropy: on PyTorch's CPU float32 list
        h = F.linear(x, w1, b1).relu()
        return F.cross_entropy(h @ w2, target, reduction="sum")

    with mg.autocast():
        loss = loss_fn()
    assert loss.dtype is F32
    loss.backward()
    low = [p.grad.numpy().copy() for p in (w1, b1, w2)]
    for p in (w1, b1, w2):
        assert p.grad.dtype is F32
        p.grad = None
    loss_fn().backward()  # the float32 reference
    for g_low, p in zip(low, (w1, b1, w2)):
        err = np.linalg.norm(g_low - p.grad.numpy()) / np.linalg.norm(p.grad.numpy())
        assert err < 3e-2


def test_low_precision_leaf_gets_low_precision_gradient():
    x = _t(3, 4, dtype=BF16, requires_grad=True)
    with mg.autocast():
        y = x.prod(-1)  # runs in float32 (on both of PyTorch's float32 lists)
    assert y.dtype is F32
    (y * mg.arange(3).float()).sum().backward()
    assert x.grad.dtype is BF16


# ---------------------------------------------------------------------------- composite ops
def test_autocast_function_makes_a_composite_one_policy_unit():
    def affine(x, w, b):
        return x @ w + b  # matmul then bias add: two ops

    fused = P.autocast_function(P.LOWER)(affine)
    x, w, b = _t(2, 3), _t(3, 4), _t(4)
    with mg.autocast():
        assert affine(x, w, b).dtype is F32  # the float32 bias promotes the bf16 matmul result
        assert fused(x, w, b).dtype is BF16
        assert fused(x, w=w, b=b).dtype is BF16  # keyword tensors are cast too
    assert fused(x, w, b).dtype is F32


def test_composite_units_of_nn_follow_pytorchs_autocast():
    # conv2d and attention: low precision; losses: float32 (whatever the input dtype); the norms
    # are on no CPU list (PyTorch's CPU autocast leaves them in the input's dtype)
    x, w, b = _t(2, 3, 8, 8), _t(4, 3, 3, 3), _t(4)
    q = _t(2, 5, 8)
    target = mg.randint(0, 4, (6,))
    with mg.autocast():
        assert F.conv2d(x, w, b, padding=1).dtype is BF16
        assert F.scaled_dot_product_attention(q, q, q).dtype is BF16
        logits = _t(6, 4) @ _t(4, 4)
        assert logits.dtype is BF16
        assert F.cross_entropy(logits, target).dtype is F32
        assert F.mse_loss(logits, _t(6, 4), reduction="none").dtype is F32
        assert F.layer_norm(logits, (4,)).dtype is BF16
        assert F.layer_norm(logits, (4,), _t(4), _t(4)).dtype is BF16
        assert F.batch_norm(logits, None, None, training=True).dtype is BF16
        assert F.prelu(_t(6, 4), _t(1)).dtype is BF16  # on both lower-precision lists
    assert F.conv2d(x, w, b).dtype is F32


def test_addmm_and_baddbmm_are_one_low_precision_unit_with_their_bias():
    """As PyTorch's addmm/baddbmm under autocast: the float32 bias is cast too, so the result is
    the low dtype (a float32 bias would otherwise promote the bfloat16 product back up), and its
    values are the product of the rounded operands, rounded once with the rounded bias added."""
    x, m1, m2 = _t(3, 5), _t(3, 4), _t(4, 5)
    with mg.autocast():
        got = mg.addmm(x, m1, m2, beta=0.5, alpha=2.0)
        batched = mg.baddbmm(x[None], m1[None], m2[None])
    assert got.dtype is BF16 and batched.dtype is BF16
    low = [a.to(BF16).to(mg.float64).numpy() for a in (x, m1, m2)]
    want = 0.5 * low[0] + 2.0 * (low[1] @ low[2])
    np.testing.assert_allclose(got.to(mg.float64).numpy(), want, rtol=2**-7, atol=2**-7)
    assert mg.addmm(x, m1, m2).dtype is F32  # outside autocast: as it comes


def test_linear_under_autocast_takes_a_low_precision_input_as_it_is():
    """A bfloat16 activation goes into Linear without a float32 round trip (two casts and a
    second copy kept for backward); the result equals the explicit bfloat16 computation."""
    mg.manual_seed(0)
    layer = mg.nn.Linear(8, 4)
    x = mg.randn(5, 8, requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        h = (x * 1.0).to(mg.bfloat16).relu()
        y = layer(h)
    assert y.dtype == mg.bfloat16
    assert y.grad_fn.next_edges[0][0] is h.grad_fn
    w, b = layer.weight.detach().to(mg.bfloat16), layer.bias.detach().to(mg.bfloat16)
    expected = F.linear(h.detach(), w, b)
    np.testing.assert_array_equal(y.detach().float().numpy(), expected.float().numpy())
    y.float().sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("low", [BF16, F16], ids=["bf16", "f16"])
def test_cpu_softmax_and_sum_of_a_low_precision_input_are_rounded_float32_results(low):
    """Off the CPU lists, softmax and sum keep a 2-byte input's dtype: the float32 (float64
    here) result of the rounded input, rounded once to the low dtype."""
    x = _t(5, 7, dtype=low)
    x64 = x.to(F64).numpy()
    e = np.exp(x64 - x64.max(-1, keepdims=True))
    with mg.autocast("cpu", dtype=low):
        y, s = x.softmax(-1), x.sum()
    assert y.dtype is low and s.dtype is low
    want_y = mg.tensor(e / e.sum(-1, keepdims=True)).to(low).to(F64).numpy()
    want_s = mg.tensor(x64.sum()).to(low).to(F64).numpy()
    ulp = 2.0**-7 if low is BF16 else 2.0**-10
    np.testing.assert_allclose(y.to(F64).numpy(), want_y, rtol=ulp, atol=0)
    np.testing.assert_allclose(s.to(F64).numpy(), want_s, rtol=ulp, atol=0)
