"""Calls PyTorch refuses, refused here with its exception type: logsumexp without ``dim``,
logcumsumexp and nanmean on integer / bool tensors, lerp_ with mixed dtypes, addcdiv of two integer
tensors, meshgrid of mixed dtypes; and the accepted neighbours of each computed as before."""

import numpy as np
import pytest

import minigenesis as mg


def test_logsumexp_requires_dim_and_computes_with_it():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mg.float64)
    with pytest.raises(TypeError):
        mg.logsumexp(x)
    with pytest.raises(TypeError):
        x.logsumexp()
    want = np.log(np.exp([[1.0, 2.0], [3.0, 4.0]]).sum(1))
    np.testing.assert_allclose(mg.logsumexp(x, 1).numpy(), want, rtol=1e-15)
    np.testing.assert_allclose(x.logsumexp(dim=1).numpy(), want, rtol=1e-15)


@pytest.mark.parametrize(("dtype", "name"), [(mg.int64, "Long"), (mg.bool, "Bool")])
def test_logcumsumexp_of_integers_or_bools_is_not_implemented(dtype, name):
    with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
        mg.logcumsumexp(mg.tensor([1, 0], dtype=dtype), 0)


def test_logcumsumexp_of_floats_is_the_running_log_of_summed_exps():
    got = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64).logcumsumexp(0)
    np.testing.assert_allclose(got.numpy(), np.log(np.cumsum(np.exp([1.0, 2.0, 3.0]))), rtol=1e-15)


def test_nanmean_refuses_an_integer_input_even_with_a_float_dtype():
    with pytest.raises(RuntimeError, match="floating point or complex dtype but got Long"):
        mg.nanmean(mg.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="got Long"):
        mg.nanmean(mg.tensor([1, 2]), dtype=mg.float32)
    assert mg.nanmean(mg.tensor([1.0, float("nan"), 3.0])).item() == 2.0


def test_lerp_inplace_refuses_an_end_of_another_dtype():
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="same dtype"):
        x.lerp_(mg.tensor([3.0, 4.0], dtype=mg.float64), 0.5)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])  # untouched
    x.lerp_(mg.tensor([3.0, 6.0]), 0.25)
    np.testing.assert_array_equal(x.numpy(), [1.5, 3.0])


def test_addcdiv_of_two_integer_tensors_is_refused_out_of_place_and_in_place():
    i = mg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        mg.addcdiv(mg.tensor([1.0, 1.0]), i, i)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        mg.tensor([1.0, 1.0]).addcdiv_(i, i)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        mg.addcdiv(i, mg.tensor([True, True]), mg.tensor([True, True]))


def test_addcdiv_with_a_float_operand_divides_truly():
    got = mg.addcdiv(mg.tensor([1, 1]), mg.tensor([1.0, 3.0]), mg.tensor([2, 2]), value=2)
    np.testing.assert_array_equal(got.numpy(), [2.0, 4.0])


def test_meshgrid_refuses_mixed_dtypes():
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.meshgrid(mg.tensor([1.0, 2.0]), mg.tensor([1, 2]), indexing="ij")
    a, b = mg.meshgrid(mg.tensor([1, 2]), mg.tensor([3, 4, 5]), indexing="ij")
    want_a, want_b = np.meshgrid([1, 2], [3, 4, 5], indexing="ij")
    np.testing.assert_array_equal(a.numpy(), want_a)
    np.testing.assert_array_equal(b.numpy(), want_b)


def test_lerp_inplace_of_an_integer_tensor_towards_floats_is_a_dtype_mismatch():
    y = mg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="same dtype"):
        y.lerp_(mg.tensor([1.0, 2.0], requires_grad=True), 0.5)
    assert y.tolist() == [1, 2]
    with pytest.raises(NotImplementedError):
        y.lerp_(mg.tensor([3, 4]), 0.5)
