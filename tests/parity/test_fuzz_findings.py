"""Cases the differential fuzzer found, kept as plain tests against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize(
    "row",
    [[1.0, INF, 2.0], [-INF, -INF], [1.0, -INF], [INF, INF], [NAN, 1.0], [-INF, INF]],
)
def test_softmax_of_rows_with_inf_and_nan_is_pytorchs(op, row):
    ours = getattr(mg.tensor(row), op)(0).numpy()
    theirs = getattr(torch.tensor(row), op)(0).numpy()
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((0, 3), 0), ((2, 0), 1), ((0, 0, 2), -1)])
def test_softmax_over_empty_dims_gives_an_empty_result_and_gradient(op, shape, dim):
    x = mg.zeros(shape, requires_grad=True)
    y = getattr(x, op)(dim)
    assert y.shape == tuple(getattr(torch.zeros(shape), op)(dim).shape)
    y.sum().backward()
    assert x.grad.shape == shape


@pytest.mark.parametrize(
    "x_dtype, lo, hi",
    [
        ("float16", "float32[]", None),  # a 0-d bound does not widen the tensor
        ("float16", "float32[3]", None),
        ("int64", "float32[3]", "float64[3]"),
        ("int64", "int64[]", None),
        ("float32", None, "float64[3]"),
    ],
)
def test_clamp_result_dtype_is_the_promotion_of_x_and_the_tensor_bounds(x_dtype, lo, hi):
    def bound(spec, lib):
        if spec is None:
            return None
        name, shape = spec.split("[")
        shape = () if shape == "]" else (int(shape[:-1]),)
        return lib.full(shape, 1.0).to(getattr(lib, name))

    got = {}
    for lib in (mg, torch):
        x = lib.tensor([0.0, 1.0, 2.0]).to(getattr(lib, x_dtype))
        got[lib.__name__] = x.clamp(bound(lo, lib), bound(hi, lib))
    assert str(got["minigenesis"].dtype).split(".")[-1] == str(got["torch"].dtype).split(".")[-1]
    np.testing.assert_array_equal(got["minigenesis"].float().numpy(), got["torch"].float().numpy())


def test_relu_of_a_bool_tensor_raises_as_in_pytorch():
    with pytest.raises(RuntimeError):
        torch.tensor([True, False]).relu()
    with pytest.raises(RuntimeError, match="bool"):
        mg.tensor([True, False]).relu()


@pytest.mark.parametrize("lib", [mg, torch], ids=["minigenesis", "torch"])
def test_in_place_op_cannot_grow_self_by_broadcasting(lib):
    x = lib.zeros(3, 3, dtype=lib.int64)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.add_(lib.ones(1, 3, 3, dtype=lib.int64))


def test_in_place_change_of_an_empty_view_of_a_leaf_raises_as_in_pytorch():
    for lib in (mg, torch):
        x = lib.zeros(3, 0, 4, requires_grad=True)
        with pytest.raises(RuntimeError, match="view of a leaf Variable"):
            x.squeeze(1).mul_(2.0)


@pytest.mark.parametrize("shape", [(0, 4, 2), (2, 0, 3), (1, 2, 0, 3)])
def test_pooling_refuses_empty_non_batch_dims_as_pytorch_does(shape):
    for fn in ("max_pool2d", "avg_pool2d"):
        with pytest.raises(RuntimeError):
            getattr(torch.nn.functional, fn)(torch.zeros(shape), 1)
        with pytest.raises(RuntimeError, match="only the batch dim may be empty"):
            getattr(mg.nn.functional, fn)(mg.zeros(shape), 1)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
def test_max_pool2d_of_integers_matches_pytorch(dtype):
    host = np.random.default_rng(0).integers(0, 100, (2, 5, 4)) - (0 if dtype == "uint8" else 60)
    got = [
        lib.nn.functional.max_pool2d(
            lib.tensor(host).to(getattr(lib, dtype)), 2, 1, padding=1, return_indices=True
        )
        for lib in (mg, torch)
    ]
    for ours, theirs in zip(got[0], got[1]):
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_max_pool2d_of_bool_is_refused_as_in_pytorch():
    for lib in (torch, mg):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            lib.nn.functional.max_pool2d(lib.ones(1, 3, 4, dtype=lib.bool), 2)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("values", [[[1.0, 3.0], [3.0, NAN]], [[1.0, 3.0], [3.0, 2.0]], 2.5])
def test_amax_over_every_dim_has_amaxs_gradient_not_maxs(op, keepdim, values):
    # amax shares the gradient by count and multiplies by the mask: inf upstream gives NaN off
    # the mask, and a NaN result gives NaN everywhere (max() would pick the NaN element)
    grads = []
    for lib in (mg, torch):
        x = lib.tensor(values, requires_grad=True)
        y = getattr(x, op)(keepdim=True) if keepdim else getattr(x, op)()
        y.backward(lib.full(tuple(y.shape), INF))
        grads.append(np.asarray(x.grad.tolist()))
    np.testing.assert_array_equal(grads[0], grads[1])
