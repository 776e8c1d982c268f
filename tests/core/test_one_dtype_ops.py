"""Ops that run one kernel over several tensors refuse mixed dtypes, as PyTorch does (RuntimeError
naming both dtypes): matrix products, cross, lerp, the copies of one tensor into another, attention,
prelu, bilinear, F.linear / nn.Linear and convolutions. Elementwise arithmetic still promotes. Under
autocast the casts come first, so a float32 and a bfloat16 operand of a matmul meet as bfloat16;
float64 is never cast, so float32 with float64 is refused there too."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F

f32 = mg.ones(2, 2)
f64 = mg.ones(2, 2, dtype=mg.float64)
IDX = mg.tensor([[0, 1], [1, 0]])

MIXED = {
    "dot": lambda a, b: mg.dot(a[0], b[0]),
    "mm": lambda a, b: mg.mm(a, b),
    "bmm": lambda a, b: mg.bmm(a[None], b[None]),
    "mv": lambda a, b: mg.mv(a, b[0]),
    "matmul": lambda a, b: mg.matmul(a, b),
    "@": lambda a, b: a @ b,
    "addmm": lambda a, b: mg.addmm(a, a, b),
    "addmm self": lambda a, b: mg.addmm(b, a, a),
    "baddbmm": lambda a, b: mg.baddbmm(a[None], a[None], b[None]),
    "tensordot": lambda a, b: mg.tensordot(a, b, 1),
    "linalg.cross": lambda a, b: mg.linalg.cross(a[:1].expand(3, 2).T, b[:1].expand(3, 2).T),
    "cross": lambda a, b: mg.cross(mg.ones(3, dtype=a.dtype), mg.ones(3, dtype=b.dtype), dim=0),
    "multi_dot": lambda a, b: mg.linalg.multi_dot([a, a, b]),
    "lerp end": lambda a, b: mg.lerp(a, b, 0.5),
    "lerp weight": lambda a, b: mg.lerp(a, a, b),
    "index_copy": lambda a, b: a.index_copy(0, mg.tensor([0, 1]), b),
    "scatter src": lambda a, b: a.scatter(0, IDX, b),
    "scatter_add": lambda a, b: a.scatter_add(0, IDX, b),
    "scatter_reduce": lambda a, b: a.scatter_reduce(0, IDX, b, "sum"),
    "sdpa": lambda a, b: F.scaled_dot_product_attention(a[None], b[None], b[None]),
    "prelu": lambda a, b: F.prelu(a, b[0, :1]),
    "bilinear": lambda a, b: F.bilinear(a, a, b[None]),
    "linear": lambda a, b: F.linear(b, a),
    "linear bias": lambda a, b: F.linear(a, a, b[0]),
    "nn.Linear float64 input": lambda a, b: nn.Linear(2, 2)(b),
    "conv1d": lambda a, b: F.conv1d(a[None], b[:, :, None]),
    "conv2d": lambda a, b: F.conv2d(a[None, :, :, None], b[:, :, None, None]),
    "conv_transpose1d": lambda a, b: F.conv_transpose1d(a[None], b[:, :, None]),
    "cdist": lambda a, b: mg.cdist(a, b),
    "nll_loss weight": lambda a, b: F.nll_loss(a, mg.tensor([0, 1]), weight=b[0]),
    "cross_entropy weight": lambda a, b: F.cross_entropy(a, mg.tensor([0, 1]), weight=b[0]),
    "binary_cross_entropy target": lambda a, b: F.binary_cross_entropy(a * 0.5, b * 0.5),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_float_dtypes_are_refused_where_pytorch_computes_in_one(name):
    with pytest.raises(RuntimeError, match=r"same dtype, but got: .*(float.*double|double.*float)"):
        MIXED[name](f32, f64)


@pytest.mark.parametrize("name", list(MIXED))
def test_the_same_ops_in_one_dtype_still_compute_in_it(name):
    if name == "nn.Linear float64 input":
        out = nn.Linear(2, 2, dtype=mg.float64)(f64)
    else:
        out = MIXED[name](f64, f64)
    assert out.dtype is mg.float64


def test_integer_matmul_operands_must_match_too():
    a, b = mg.ones(2, 2, dtype=mg.int64), mg.ones(2, 2, dtype=mg.int32)
    with pytest.raises(RuntimeError, match="long int != int"):
        a @ b
    assert (a @ a).dtype is mg.int64


def test_elementwise_arithmetic_still_promotes():
    assert (f32 + f64).dtype is mg.float64 and mg.outer(f32[0], f64[0]).dtype is mg.float64


def test_a_zero_dim_lerp_weight_may_differ_like_a_number():
    out = mg.lerp(mg.zeros(2), mg.ones(2), mg.tensor(0.25, dtype=mg.float64))
    assert out.dtype is mg.float32
    np.testing.assert_allclose(out.numpy(), [0.25, 0.25])


def test_attention_mask_must_be_bool_float32_or_the_query_dtype():
    q = mg.ones(1, 2, 2, dtype=mg.float16)
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mg.zeros(2, 2, dtype=mg.float64))
    for mask in (mg.zeros(2, 2), mg.zeros(2, 2, dtype=mg.float16), mg.ones(2, 2, dtype=mg.bool)):
        assert F.scaled_dot_product_attention(q, q, q, attn_mask=mask).dtype is mg.float16


def test_under_autocast_float32_and_bfloat16_meet_in_bfloat16():
    a, b = mg.randn(3, 4), mg.randn(4, 2).to(mg.bfloat16)
    with mg.autocast():
        assert (a @ b).dtype is mg.bfloat16
        assert mg.mm(b.T, a.T).dtype is mg.bfloat16
        assert nn.Linear(4, 2)(a.to(mg.bfloat16)).dtype is mg.bfloat16
        assert F.conv1d(a[None].to(mg.bfloat16), mg.randn(2, 3, 1)).dtype is mg.bfloat16
        with pytest.raises(RuntimeError, match="float != double"):
            a @ b.double()  # float64 is never cast


def test_a_bfloat16_activation_into_a_float32_layer_outside_autocast_is_refused():
    with pytest.raises(RuntimeError, match=r"c10::BFloat16, float and float"):
        nn.Linear(4, 2)(mg.randn(3, 4).to(mg.bfloat16))
