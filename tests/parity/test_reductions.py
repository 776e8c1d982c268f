"""PyTorch parity: reductions (sum, mean, var/std with correction, max/min with and without dim,
argmax/argmin, norm p variants, logsumexp, softmax/log_softmax, any/all) with dim/keepdim,
negative and tuple dims, 0-d tensors; values, dtypes, shapes and gradients.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from parity_helpers import RTOL_ACC, assert_grads, assert_same, data, pair

import minigenesis as mg

torch = pytest.importorskip("torch")

INF = float("inf")

REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "sum_1": lambda x: x.sum(1),
    "sum_neg_keep": lambda x: x.sum(-1, keepdim=True),
    "sum_tuple": lambda x: x.sum((0, 2)),
    "sum_list_neg": lambda x: x.sum([-1, 0]),
    "sum_empty_dims": lambda x: x.sum(dim=()),  # PyTorch: all dims
    "mean": lambda x: x.mean(),
    "mean_1": lambda x: x.mean(1),
    "mean_tuple_keep": lambda x: x.mean((0, -1), keepdim=True),
    "var": lambda x: x.var(),
    "var_1": lambda x: x.var(1),
    "var_unbiased_false": lambda x: x.var(1, unbiased=False),
    "var_positional_unbiased": lambda x: x.var(1, False),
    "var_correction_0": lambda x: x.var(correction=0),
    "var_correction_2_keep": lambda x: x.var((0, 2), correction=2, keepdim=True),
    "std": lambda x: x.std(),
    "std_neg_keep": lambda x: x.std(-1, keepdim=True),
    "std_correction_0": lambda x: x.std(correction=0),
    "std_positional": lambda x: x.std(0, True, True),
    "max": lambda x: x.max(),
    "min": lambda x: x.min(),
    "max_1_values": lambda x: x.max(1)[0],
    "max_neg_keep_values": lambda x: x.max(-1, keepdim=True).values,
    "min_0_values": lambda x: x.min(dim=0).values,
    "amax_1": lambda x: x.amax(1),
    "norm": lambda x: x.norm(),
    "norm_1": lambda x: x.norm(1),
    "norm_p1_dim": lambda x: x.norm(p=1, dim=1),
    "norm_2_dim": lambda x: x.norm(2, dim=1),
    "norm_inf": lambda x: x.norm(INF),
    "norm_neg_inf_dim": lambda x: x.norm(-INF, dim=-1),
    "norm_3_tuple": lambda x: x.norm(3, dim=(0, 1)),
    "norm_half_keep": lambda x: x.norm(0.5, dim=2, keepdim=True),
    "norm_fro_tuple": lambda x: x.norm("fro", dim=(1, 2)),
    "logsumexp_1": lambda x: x.logsumexp(1),
    "logsumexp_tuple_keep": lambda x: x.logsumexp((0, 2), keepdim=True),
    "softmax_0": lambda x: x.softmax(0),
    "softmax_neg": lambda x: x.softmax(-1),
    "log_softmax_1": lambda x: x.log_softmax(1),
    "log_softmax_neg": lambda x: x.log_softmax(-2),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", list(REDUCTIONS))
def test_reduction_values_and_gradients(op, dtype):
    fn = REDUCTIONS[op]
    m, t = pair(torch, data((2, 3, 4), "float64", 11), dtype, requires_grad=True)
    m_out, t_out = fn(m), fn(t)
    # sums of up to 24 terms in a different order: accumulation tolerance
    assert_same(m_out, t_out, rtol=RTOL_ACC[dtype], atol=1e-6 if dtype == "float32" else 0)
    gm, gt = pair(torch, data(tuple(t_out.shape), "float64", 12), dtype)
    m_out.backward(gm)
    t_out.backward(gt)
    # Gradients of softmax/var/norm subtract terms of similar size (y * (g - sum(g * y))): in
    # float16/bfloat16 their error is relative to those terms, not to the (smaller) result;
    # PyTorch computes them in float32 and rounds once, minigenesis rounds each step.
    scale = float(t.grad.abs().max())
    atol = {"float32": 1e-6, "float64": 0.0}.get(dtype, RTOL_ACC[dtype] * scale)
    assert_grads([m], [t], rtol=RTOL_ACC[dtype], atol=atol)


@pytest.mark.parametrize(
    "op",
    ["amax_tuple", "norm_0"],
)
def test_reduction_edge_cases(op):
    fn = {"amax_tuple": lambda x: x.amax((0, 1)), "norm_0": lambda x: x.norm(0)}[op]
    m, t = pair(torch, data((2, 3, 4), "float64", 11), "float32", requires_grad=True)
    m_out, t_out = fn(m), fn(t)
    assert_same(m_out, t_out)
    m_out.backward(mg.ones_like(m_out))
    t_out.backward(torch.ones_like(t_out))
    assert_grads([m], [t])


def test_max_min_with_dim_return_values_and_indices():
    m, t = pair(torch, data((3, 5), "float64", 13), "float32", requires_grad=True)
    for name in ("max", "min"):
        for kwargs in ({"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": -1}):
            mr, tr = getattr(m, name)(**kwargs), getattr(t, name)(**kwargs)
            mv, mi = mr  # a (values, indices) pair that unpacks
            assert_same(mv, tr.values)
            assert_same(mi, tr.indices)
            assert_same(mr.values, tr[0])
            assert_same(mr.indices, tr[1])
        mr, tr = getattr(mg, name)(m, 1), getattr(torch, name)(t, 1)
        assert_same(mr[0], tr[0])
        assert_same(mr[1], tr[1])
    # max(other) is the elementwise maximum
    n, u = pair(torch, data((3, 5), "float64", 14), "float32")
    assert_same(m.max(n), t.max(u))
    assert_same(m.min(n), t.min(u))


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "float16"])
def test_argmax_argmin(dtype):
    m, t = pair(torch, data((3, 4, 5), dtype, 15), dtype)
    for name in ("argmax", "argmin"):
        for kwargs in ({}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": 0}):
            assert_same(getattr(m, name)(**kwargs), getattr(t, name)(**kwargs))
        assert_same(getattr(mg, name)(m, 2), getattr(torch, name)(t, 2))


def test_argmax_picks_the_first_of_ties():
    m, t = pair(torch, [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], "float32")
    for kwargs in ({}, {"dim": 1}, {"dim": 0}):
        assert_same(m.argmax(**kwargs), t.argmax(**kwargs))
        assert_same(m.argmin(**kwargs), t.argmin(**kwargs))
        if kwargs:
            assert_same(m.max(**kwargs).indices, t.max(**kwargs).indices)
            assert_same(m.min(**kwargs).indices, t.min(**kwargs).indices)


ZERO_DIM = {
    "sum": lambda x: x.sum(),
    "sum_0": lambda x: x.sum(0),
    "sum_neg_keep": lambda x: x.sum(-1, keepdim=True),
    "mean_0": lambda x: x.mean(0),
    "max": lambda x: x.max(),
    "max_0": lambda x: x.max(0).values,
    "max_neg_keep": lambda x: x.max(-1, keepdim=True).values,
    "var_c0": lambda x: x.var(correction=0),
    "var_dim_c0": lambda x: x.var(0, correction=0),
    "softmax_0": lambda x: x.softmax(0),
    "log_softmax": lambda x: x.log_softmax(-1),
    "logsumexp_0": lambda x: x.logsumexp(0),
    "norm": lambda x: x.norm(),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "unsqueeze_neg": lambda x: x.unsqueeze(-1),
    "squeeze_0": lambda x: x.squeeze(0),
    "flatten": lambda x: x.flatten(),
    "reshape": lambda x: x.reshape(1, 1),
    "view_neg": lambda x: x.view(-1),
    "expand": lambda x: x.expand(2, 3),
    "T": lambda x: x.T,
    "t": lambda x: x.t(),
}
_ZERO_DIM_BUGS: dict[str, str] = {}


@pytest.mark.parametrize(
    "op",
    [
        pytest.param(op, marks=[pytest.mark.xfail(reason=_ZERO_DIM_BUGS[op], strict=True)])
        if op in _ZERO_DIM_BUGS
        else op
        for op in ZERO_DIM
    ],
)
def test_zero_dim_reductions_and_shapes(op):
    fn = ZERO_DIM[op]
    m, t = pair(torch, 1.5, "float32", requires_grad=True)
    m_out, t_out = fn(m), fn(t)
    assert_same(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_grads([m], [t])


def test_zero_dim_indices():
    m, t = pair(torch, 1.5, "float32")
    assert_same(m.argmin(), t.argmin())
    assert_same(m.argmax(), t.argmax())
    assert_same(m.max(0).indices, t.max(0).indices)
    assert_same(m.min(-1, keepdim=True).indices, t.min(-1, keepdim=True).indices)


@pytest.mark.parametrize("op", ["argmax_0", "argmin_neg", "any_0", "all_neg_keep"])
def test_zero_dim_index_reductions(op):
    fn = {
        "argmax_0": lambda x: x.argmax(0),
        "argmin_neg": lambda x: x.argmin(-1),
        "any_0": lambda x: (x > 0).any(0),
        "all_neg_keep": lambda x: (x > 0).all(-1, keepdim=True),
    }[op]
    m, t = pair(torch, 1.5, "float32")
    assert_same(fn(m), fn(t))


@pytest.mark.parametrize(
    "values",
    [[1.5], 1.5, [1.5, 2.0], [1.5, 2.0, 3.0], [[1.0, 2.0], [3.0, 4.0]]],
    ids=["one", "0d", "two", "three", "2x2"],
)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"correction": 0}, {"correction": 2}, {"correction": 5}, {"dim": 0}],
    ids=["default", "c0", "c2", "c5", "dim0"],
)
def test_var_when_the_correction_reaches_the_count(values, kwargs):
    """N - correction <= 0 gives inf/NaN values and PyTorch's inf/NaN gradients, not a crash."""
    m, t = pair(torch, values, "float64", requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both libraries warn about degrees of freedom <= 0
        m_out, t_out = m.var(**kwargs), t.var(**kwargs)
        m_out.sum().backward()
        t_out.sum().backward()
    assert_same(m_out, t_out)
    assert_grads([m], [t])


def test_std_of_constant_values_has_zero_gradient():
    m, t = pair(torch, [[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], "float32", requires_grad=True)
    m.std(dim=1).sum().backward()
    t.std(dim=1).sum().backward()
    assert_grads([m], [t])


def test_any_all():
    x = data((3, 4), "float64", 16) > 0.5
    m, t = pair(torch, x, "bool")
    for kwargs in ({}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": 0}):
        assert_same(m.any(**kwargs), t.any(**kwargs))
        assert_same(m.all(**kwargs), t.all(**kwargs))
    m, t = pair(torch, data((3, 4), "float32", 16), "float32")
    assert_same(m.any(), t.any())
    assert_same(m.all(dim=1), t.all(dim=1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_and_mean_with_dtype_argument(dtype):
    m, t = pair(torch, data((3, 4), "float64", 17), "float32", requires_grad=True)
    md, td = getattr(mg, dtype), getattr(torch, dtype)
    m_out, t_out = m.sum(1, dtype=md), t.sum(1, dtype=td)
    assert_same(m_out, t_out, rtol=1e-6)
    assert_same(m.mean(dtype=md), t.mean(dtype=td), rtol=1e-6)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_grads([m], [t])
    mi, ti = pair(torch, data((3, 4), "int64", 17), "int64")
    assert_same(mi.mean(dtype=md), ti.mean(dtype=td))
    with pytest.raises((TypeError, RuntimeError)):
        ti.mean()
    with pytest.raises((TypeError, RuntimeError)):
        mi.mean()


def test_reductions_reject_out_of_range_dims():
    m, t = pair(torch, data((2, 3), "float64", 18), "float32")
    for fn in (lambda x: x.sum(2), lambda x: x.max(-3), lambda x: x.mean((0, 5))):
        with pytest.raises(IndexError):
            fn(t)
        with pytest.raises(IndexError):
            fn(m)


def test_top_level_reduction_functions():
    m, t = pair(torch, data((3, 4), "float64", 19), "float32")
    assert_same(mg.sum(m, 1, keepdim=True), torch.sum(t, 1, keepdim=True), rtol=1e-6)
    assert_same(mg.mean(m, 0), torch.mean(t, 0), rtol=1e-6)
    assert_same(mg.max(m), torch.max(t))
    assert_same(mg.min(m, 0)[0], torch.min(t, 0)[0])
    assert_same(mg.argmax(m), torch.argmax(t))
    assert_same(mg.argmax(m, 1), torch.argmax(t, 1))
    assert_same(mg.softmax(m, -1), torch.softmax(t, -1), rtol=2e-6)
    assert_same(mg.log_softmax(m, 0), torch.log_softmax(t, 0), rtol=2e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_sums_accumulate_in_float32(dtype):
    # 4096 ones of float16 summed in float16 would stall at 2048; PyTorch accumulates in float32
    m, t = pair(torch, np.ones((4096,)), dtype)
    assert_same(m.sum(), t.sum())
    assert_same(m.mean(), t.mean())
