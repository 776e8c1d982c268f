"""Names PyTorch tutorials use on tensors: ravel, unbind, flip, clamp_min/max, neg, equal, NumPy's
axis=/keepdims= spellings, range indices, finfo/iinfo, inference_mode, mg.linalg norms."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck


def _f64(*shape):
    return mg.tensor(np.random.default_rng(0).standard_normal(shape), dtype=mg.float64)


def test_ravel_is_the_flattened_elements_and_a_view_when_contiguous():
    x = mg.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(x.ravel().numpy(), np.arange(12))
    np.testing.assert_array_equal(mg.ravel(x.t()).numpy(), np.arange(12).reshape(3, 4).T.ravel())
    v = x.ravel()
    v[0] = 100
    assert x[0, 0].item() == 100


def test_unbind_returns_the_slices_and_their_gradients_meet_in_the_input():
    x = _f64(2, 3).requires_grad_()
    parts = mg.unbind(x, 1)
    assert len(parts) == 3
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.detach().numpy(), x.detach().numpy()[:, i])
    sum(p * (i + 1) for i, p in enumerate(parts)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.tile([1.0, 2.0, 3.0], (2, 1)))


def test_flip_reverses_the_dims_it_names_and_its_gradient_is_flipped_back():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = mg.tensor(a)
    np.testing.assert_array_equal(mg.flip(x, [0, 2]).numpy(), a[::-1, :, ::-1])
    np.testing.assert_array_equal(x.flip(-1).numpy(), a[..., ::-1])
    np.testing.assert_array_equal(x.fliplr().numpy(), a[:, ::-1])
    np.testing.assert_array_equal(mg.flipud(x).numpy(), a[::-1])
    y = _f64(3, 4).requires_grad_()
    w = _f64(3, 4)
    assert gradcheck(lambda t: (t.flip(0, 1) * w).sum(), (y,))
    with pytest.raises(RuntimeError, match="twice"):
        x.flip(0, -3)


def test_flip_is_a_copy():
    x = mg.arange(4)
    y = x.flip(0)
    y[0] = 7
    assert x.tolist() == [0, 1, 2, 3]


def test_clamp_min_and_clamp_max_bound_one_side_and_their_in_place_forms():
    a = np.linspace(-2, 2, 9)
    x = mg.tensor(a)
    np.testing.assert_array_equal(x.clamp_min(0.5).numpy(), np.maximum(a, 0.5))
    np.testing.assert_array_equal(mg.clamp_max(x, -0.5).numpy(), np.minimum(a, -0.5))
    np.testing.assert_array_equal(mg.clip(x, -1, 1).numpy(), np.clip(a, -1, 1))
    y = x.clone()
    y.clamp_min_(0.0).clamp_max_(1.0)
    np.testing.assert_array_equal(y.numpy(), np.clip(a, 0, 1))
    z = x.clone()
    z.clip_(-1, 0)
    np.testing.assert_array_equal(z.numpy(), np.clip(a, -1, 0))


def test_neg_and_negative_are_minus():
    x = _f64(3)
    np.testing.assert_array_equal(x.neg().numpy(), -x.numpy())
    np.testing.assert_array_equal(mg.negative(x).numpy(), -x.numpy())


def test_equal_needs_the_same_shape_and_values():
    x = mg.arange(6).reshape(2, 3)
    assert mg.equal(x, x.clone())
    assert not mg.equal(x, x.reshape(3, 2))
    assert not x.equal(x + 1)
    nan = mg.tensor([float("nan")])
    assert not mg.equal(nan, nan)


def test_sum_and_mean_take_numpys_axis_and_keepdims():
    a = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(a)
    np.testing.assert_array_equal(x.sum(1, keepdims=True).numpy(), a.sum(1, keepdims=True))
    np.testing.assert_array_equal(mg.sum(x, axis=0).numpy(), a.sum(axis=0))
    np.testing.assert_array_equal(x.mean(axis=1, keepdims=True).numpy(), a.mean(1, keepdims=True))
    with pytest.raises(TypeError, match="axis"):
        x.sum(0, axis=1)


def test_a_range_indexes_like_a_list_of_ints():
    a = np.arange(12.0).reshape(3, 4)
    x = mg.tensor(a, requires_grad=True)
    target = [3, 0, 2]
    picked = x[range(3), mg.tensor(target)]
    np.testing.assert_array_equal(picked.detach().numpy(), a[np.arange(3), target])
    picked.sum().backward()
    expected = np.zeros_like(a)
    expected[np.arange(3), target] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(x.detach()[range(0, 3, 2)].numpy(), a[0:3:2])


def test_is_contiguous_and_nelement():
    x = mg.zeros(3, 4)
    assert x.is_contiguous()
    assert not x.t().is_contiguous()
    assert x.t().contiguous().is_contiguous()
    assert x.nelement() == 12


def test_math_constants():
    assert (mg.pi, mg.e, mg.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(mg.nan)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = mg.finfo(getattr(mg, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.dtype == theirs.dtype


def test_finfo_by_closed_form_and_iinfo_limits():
    assert mg.finfo(mg.bfloat16).eps == 2.0**-7
    assert mg.finfo(mg.float32).eps == 2.0**-23
    assert mg.finfo().bits == 32  # the default dtype
    assert (mg.iinfo(mg.int8).min, mg.iinfo(mg.int8).max) == (-128, 127)
    assert mg.iinfo(mg.uint8).max == 255 and mg.iinfo(mg.int64).bits == 64
    with pytest.raises(TypeError, match="floating"):
        mg.finfo(mg.int32)
    with pytest.raises(TypeError, match="integer"):
        mg.iinfo(mg.float32)


def test_inference_mode_records_no_graph_and_can_be_switched_off_inside():
    w = mg.ones(2, requires_grad=True)
    assert not mg.is_inference_mode_enabled()
    with mg.inference_mode():
        assert mg.is_inference_mode_enabled()
        assert not (w * 2).requires_grad
        with mg.inference_mode(False):
            assert (w * 2).requires_grad
    assert (w * 2).requires_grad and not mg.is_inference_mode_enabled()

    @mg.inference_mode()
    def f(t):
        return t * 2

    assert not f(w).requires_grad


def test_is_autocast_enabled_without_a_device_asks_about_cuda_as_pytorch():
    with mg.autocast("cpu", dtype=mg.bfloat16):
        assert mg.is_autocast_enabled("cpu")
        assert not mg.is_autocast_enabled()
        assert mg.get_autocast_dtype("cpu") == mg.bfloat16
    assert not mg.is_autocast_enabled("cpu")


def test_linalg_norms_against_numpy():
    a = np.random.default_rng(1).standard_normal((3, 4, 5))
    x = mg.tensor(a)
    np.testing.assert_allclose(mg.linalg.norm(x, dim=1).numpy(), np.linalg.norm(a, axis=1))
    np.testing.assert_allclose(mg.linalg.norm(x).numpy(), np.sqrt((a**2).sum()))
    np.testing.assert_allclose(
        mg.linalg.vector_norm(x, ord=1, dim=(0, 2)).numpy(), np.abs(a).sum(axis=(0, 2))
    )
    np.testing.assert_allclose(
        mg.linalg.vector_norm(x, ord=mg.inf, dim=-1, keepdim=True).numpy(),
        np.abs(a).max(-1, keepdims=True),
    )
    np.testing.assert_allclose(
        mg.linalg.matrix_norm(x).numpy(), np.linalg.norm(a, ord="fro", axis=(-2, -1))
    )
    np.testing.assert_allclose(
        mg.linalg.norm(x[0], ord="fro").numpy(), np.linalg.norm(a[0], ord="fro")
    )
    np.testing.assert_allclose(
        mg.linalg.matrix_norm(x, ord="nuc").numpy(), np.linalg.norm(a, ord="nuc", axis=(-2, -1))
    )
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        mg.linalg.matrix_norm(x, ord=3)


def test_linalg_norm_gradient_by_finite_differences():
    x = _f64(3, 4).requires_grad_()
    assert gradcheck(lambda t: mg.linalg.norm(t, dim=1).sum(), (x,))
