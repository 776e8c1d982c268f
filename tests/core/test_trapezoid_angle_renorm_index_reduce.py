"""New functions against closed forms: the trapezoidal rule (trapezoid, trapz,
cumulative_trapezoid), angle of real numbers, renorm as a function, and index_reduce (prod, mean,
amax, amin, with and without self's own values) with its gradient."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.gradcheck import gradcheck

RNG = np.random.default_rng(7)


def _trapezoid_reference(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(np.asarray(y, float), axis, -1)
    spacing = np.diff(x) if x is not None else dx
    return ((y[..., 1:] + y[..., :-1]) * spacing / 2).sum(-1)


def test_trapezoid_with_sample_points_integrates_a_parabola_piecewise_linearly():
    x = np.sort(RNG.uniform(0, 2, 9))
    y = x**2
    got = mg.trapezoid(mg.tensor(y), mg.tensor(x))
    np.testing.assert_allclose(got.item(), _trapezoid_reference(y, x), rtol=1e-14)


def test_trapezoid_with_spacing_dx_along_a_chosen_dim():
    y = RNG.normal(size=(4, 5))
    got = mg.trapezoid(mg.tensor(y), dx=0.5, dim=0)
    np.testing.assert_allclose(got.numpy(), _trapezoid_reference(y, dx=0.5, axis=0), rtol=1e-14)
    np.testing.assert_allclose(mg.trapz(mg.tensor(y), dx=0.5, dim=0).numpy(), got.numpy(), rtol=0)


def test_trapezoid_with_x_broadcasting_against_y():
    y = RNG.normal(size=(2, 3))
    x = np.array([[0.0, 1.0, 3.0]])
    got = mg.trapezoid(mg.tensor(y), mg.tensor(x))
    want = ((y[:, 1:] + y[:, :-1]) * np.diff(x, axis=-1) / 2).sum(-1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)


def test_trapezoid_of_integers_is_float32_and_of_fewer_than_two_samples_is_zero():
    got = mg.trapezoid(mg.tensor([1, 2, 4]))
    assert got.dtype == mg.float32 and got.item() == 4.5
    assert mg.trapezoid(mg.ones(1)).item() == 0.0
    assert mg.trapezoid(mg.ones(0)).item() == 0.0


def test_trapezoid_refuses_mismatched_points_both_x_and_dx_and_a_0d_input():
    with pytest.raises(RuntimeError, match="one `x` value for each sample point"):
        mg.trapezoid(mg.ones(2, 3), mg.tensor([0.0, 1.0]), dim=1)
    with pytest.raises(TypeError):
        mg.trapezoid(mg.ones(3), mg.ones(3), dx=2)
    with pytest.raises(IndexError, match="no dimensions"):
        mg.trapezoid(mg.tensor(1.0))


def test_trapezoid_gradient_is_the_quadrature_weights():
    x = np.array([0.0, 1.0, 3.0, 4.0])
    y = mg.tensor([1.0, 2.0, 4.0, 0.0], dtype=mg.float64, requires_grad=True)
    mg.trapezoid(y, mg.tensor(x)).backward()
    h = np.diff(x)  # weight of y_i: (h_{i-1} + h_i) / 2
    np.testing.assert_allclose(
        y.grad.numpy(), [h[0] / 2, (h[0] + h[1]) / 2, (h[1] + h[2]) / 2, h[2] / 2]
    )


def test_cumulative_trapezoid_is_the_running_sum_of_the_trapezoids():
    x = np.array([0.0, 1.0, 3.0])
    y = np.array([1.0, 2.0, 4.0])
    got = mg.cumulative_trapezoid(mg.tensor(y), mg.tensor(x))
    np.testing.assert_allclose(got.numpy(), np.cumsum((y[1:] + y[:-1]) * np.diff(x) / 2))
    got = mg.cumulative_trapezoid(mg.ones(2, 3), dx=0.5, dim=0)
    assert got.shape == (1, 3)
    np.testing.assert_allclose(got.numpy(), 0.5)
    assert mg.cumulative_trapezoid(mg.ones(1)).shape == (0,)


def test_angle_of_real_numbers_is_pi_for_negatives_zero_otherwise_nan_kept():
    x = np.array([1.0, -2.0, 0.0, -0.0, np.nan, -np.inf, np.inf])
    got = mg.angle(mg.tensor(x))
    want = np.angle(x)  # NumPy: pi for x < 0 (and -0.0 gives pi there; PyTorch 0)
    want[3] = 0.0
    np.testing.assert_allclose(got.numpy(), want, equal_nan=True)
    assert mg.tensor([1, -2]).angle().dtype == mg.float32


def test_angle_gradient_is_zero():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x.angle().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)


def test_renorm_function_scales_the_rows_above_maxnorm_and_writes_out():
    x = RNG.normal(size=(3, 4)) * [[0.1], [5.0], [1.0]]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    want = np.where(norms > 1.0, x / (norms + 1e-7), x)
    out = mg.empty(3, 4, dtype=mg.float64)
    assert mg.renorm(mg.tensor(x), 2, 0, 1.0, out=out) is out
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


def _index_reduce_reference(own, dim, index, source, reduce, include_self):
    out = np.moveaxis(own.astype(float).copy(), dim, 0)
    src = np.moveaxis(source.astype(float), dim, 0)
    fold = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for target in set(index.tolist()):
        rows = [src[i] for i in range(len(index)) if index[i] == target]
        if include_self:
            rows.append(out[target])
        out[target] = fold(np.stack(rows), axis=0)
    return np.moveaxis(out, 0, dim)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_reduce_folds_source_slices_into_the_named_slices(reduce, include_self, dim):
    own = RNG.normal(size=(3, 4))
    index = np.array([2, 0, 2])
    source = RNG.normal(size=(3, 4) if dim == 0 else (3, 3))
    got = mg.tensor(own).index_reduce(
        dim, mg.tensor(index), mg.tensor(source), reduce, include_self=include_self
    )
    want = _index_reduce_reference(own, dim, index, source, reduce, include_self)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)


def test_index_reduce_inplace_and_function_agree_and_integer_mean_floors():
    x = mg.tensor([1, 2, 3])
    same = x.index_reduce_(0, mg.tensor([0, 0]), mg.tensor([2, 3]), "mean")
    assert same is x
    np.testing.assert_array_equal(x.numpy(), [2, 2, 3])  # (1 + 2 + 3) // 3
    y = mg.index_reduce(mg.tensor([1.0, 2.0]), 0, mg.tensor([1]), mg.tensor([5.0]), "amax")
    np.testing.assert_array_equal(y.numpy(), [1.0, 5.0])


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_gradient_matches_central_differences(reduce):
    own = mg.tensor(RNG.normal(size=(3, 2)), requires_grad=True)
    source = mg.tensor(RNG.normal(size=(4, 2)), requires_grad=True)
    index = mg.tensor([2, 0, 2, 1])
    assert gradcheck(lambda a, s: a.index_reduce(0, index, s, reduce), (own, source))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda t, i, s: t.index_reduce(0, i, s, "sum"), RuntimeError, "prod, mean, amax or amin"),
        (lambda t, i, s: t.index_reduce(0, i, s.long(), "amax"), RuntimeError, "same scalar type"),
        (lambda t, i, s: t.index_reduce(0, i.float(), s, "amax"), RuntimeError, "int32/int64"),
        (
            lambda t, i, s: t.index_reduce(0, i[None], s, "amax"),
            IndexError,
            "supposed to be a vector",
        ),
        (lambda t, i, s: t.index_reduce(0, i[:1], s, "amax"), RuntimeError, "Number of indices"),
        (lambda t, i, s: t.index_reduce(0, i * 5, s, "amax"), IndexError, "index out of range"),
        (lambda t, i, s: t.index_reduce(0, -1 - i, s, "amax"), IndexError, "index out of range"),
        (lambda t, i, s: t.index_reduce(1, i, s.T, "amax"), RuntimeError, "source tensor shape"),
    ],
)
def test_index_reduce_bad_arguments_raise_pytorchs_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(mg.ones(2, 3), mg.tensor([0, 1]), mg.ones(2, 3))


@pytest.mark.parametrize(
    ("own", "dim", "index", "source", "error", "message"),
    [
        (mg.tensor(2.0), 0, [0], mg.tensor([3.0]), RuntimeError, "source tensor shape"),
        (mg.tensor([2.0]), 0, [0], mg.tensor(3.0), RuntimeError, "source tensor shape"),
        (mg.ones(1, 3), 1, [0, 1, 2], mg.ones(3), RuntimeError, "out of bounds of the source"),
        (mg.tensor([True]), 0, [0], mg.tensor([False]), NotImplementedError, "Bool"),
    ],
)
def test_index_reduce_refuses_rank_mismatches_and_bool_as_pytorch(
    own, dim, index, source, error, message
):
    with pytest.raises(error, match=message):
        own.index_reduce(dim, mg.tensor(index), source, "prod")


def test_index_reduce_of_0d_tensors_multiplies_the_values():
    got = mg.tensor(2.0).index_reduce(0, mg.tensor([0]), mg.tensor(3.0), "prod")
    assert got.shape == () and got.item() == 6.0


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_with_x_constant_along_dim_has_zero_spacings(name):
    # x of shape (2, 2) broadcasts over y's dim 0: every sample there has the same x
    y = mg.tensor(RNG.normal(size=(3, 2, 2)))
    x = mg.tensor(RNG.normal(size=(2, 2)))
    got = getattr(mg, name)(y, x, dim=0)
    np.testing.assert_array_equal(
        got.numpy(), np.zeros((2, 2) if name == "trapezoid" else (2, 2, 2))
    )


def test_trapezoid_with_a_lower_rank_x_uses_its_spacings_along_the_aligned_dim():
    y = RNG.normal(size=(3, 4, 5))
    x = np.sort(RNG.normal(size=(4, 5)), axis=0)
    want = (np.diff(x, axis=0) * (y[:, 1:] + y[:, :-1]) / 2).sum(axis=1)
    got = mg.trapezoid(mg.tensor(y), mg.tensor(x), dim=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
