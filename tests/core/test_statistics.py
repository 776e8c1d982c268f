"""median, nanmedian, kthvalue, mode, quantile, nanmean, nansum, count_nonzero, var_mean/std_mean,
histogram, diff, gradient, cov and corrcoef: values against NumPy, gradients against float64
central finite differences and the closed forms PyTorch documents, errors naming the argument."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(11)
X = RNG.normal(size=(4, 7))  # float64, distinct values


def _t(a, grad=False):
    return mg.tensor(np.asarray(a), requires_grad=grad)


def _lower_median(a, axis):
    s = np.sort(a, axis=axis)
    return np.take(s, (a.shape[axis] - 1) // 2, axis=axis)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_median_along_dim_is_the_lower_median_and_its_index(dim):
    out = _t(X).median(dim)
    np.testing.assert_array_equal(out.values.numpy(), _lower_median(X, dim))
    picked = np.take_along_axis(X, np.expand_dims(out.indices.numpy(), dim), axis=dim)
    np.testing.assert_array_equal(picked.squeeze(dim), out.values.numpy())
    assert out.indices.dtype is mg.int64


def test_median_of_all_elements_shares_its_gradient_among_equal_elements():
    x = _t([3.0, 1.0, 3.0, 1.0, 2.0, 1.0], grad=True)
    m = x.median()
    assert m.item() == 1.0 and m.ndim == 0
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0, 1 / 3, 0, 1 / 3, 0, 1 / 3])


def test_median_and_kthvalue_gradients_go_to_the_picked_element():
    gradcheck(lambda x: x.median(1).values, (_t(X, True),))
    gradcheck(lambda x: x.kthvalue(3, 0, keepdim=True).values, (_t(X, True),))
    gradcheck(lambda x: mg.mode(x.round(), 1).values, (_t(X * 2, True),))


def test_median_with_nan_is_nan_and_nanmedian_skips_it():
    a = np.array([[1.0, np.nan, 3.0, 0.5, 7.0], [2.0, -1.0, 4.0, 0.0, 8.0]])
    np.testing.assert_array_equal(mg.median(_t(a), 1).values.numpy(), [np.nan, 2.0])
    want = [np.sort(r[~np.isnan(r)])[(np.sum(~np.isnan(r)) - 1) // 2] for r in a]
    np.testing.assert_array_equal(mg.nanmedian(_t(a), 1).values.numpy(), want)
    assert mg.nanmedian(_t(a)).item() == 2.0


def test_kthvalue_matches_sorted_position():
    for k in (1, 4, 7):
        np.testing.assert_array_equal(mg.kthvalue(_t(X), k).values.numpy(), np.sort(X, 1)[:, k - 1])


def test_mode_is_the_most_frequent_smallest_value_at_its_last_index():
    a = np.array([[2, 5, 5, 2, 1], [0, 0, 9, 9, 9]])
    out = mg.mode(_t(a))
    np.testing.assert_array_equal(out.values.numpy(), [2, 9])
    np.testing.assert_array_equal(out.indices.numpy(), [3, 4])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(method):
    q = np.array([0.0, 0.1, 0.5, 0.62, 1.0])
    got = mg.quantile(_t(X), _t(q), dim=1, interpolation=method).numpy()
    np.testing.assert_allclose(got, np.quantile(X, q, axis=1, method=method), rtol=1e-12)
    got_all = _t(X).quantile(0.3, interpolation=method).numpy()
    np.testing.assert_allclose(got_all, np.quantile(X, 0.3, method=method), rtol=1e-12)


def test_quantile_gradient_interpolates_between_neighbours():
    x = _t([4.0, 1.0, 3.0, 2.0, 0.0], grad=True)
    x.quantile(0.3).backward()  # position 0.3 * 4 = 1.2: 0.8 on the 2nd smallest, 0.2 on the 3rd
    np.testing.assert_allclose(x.grad.numpy(), [0, 0.8, 0, 0.2, 0])
    gradcheck(lambda t: t.quantile(_t([0.15, 0.8]), dim=0, keepdim=True), (_t(X, True),))


def test_nanquantile_and_nanmean_and_nansum_skip_nan():
    a = X.copy()
    a[0, 2] = a[1, 5] = a[3, 0] = np.nan
    np.testing.assert_allclose(
        mg.nanquantile(_t(a), 0.4, dim=1).numpy(), np.nanquantile(a, 0.4, axis=1)
    )
    np.testing.assert_allclose(mg.nanmean(_t(a), 0).numpy(), np.nanmean(a, 0))
    np.testing.assert_allclose(
        mg.nansum(_t(a), 1, keepdim=True).numpy(), np.nansum(a, 1, keepdims=True)
    )
    x = _t(a, grad=True)
    x.nanmean().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(np.isnan(a), 0, 1 / np.sum(~np.isnan(a))))


def test_count_nonzero_over_dims():
    a = RNG.integers(0, 3, size=(3, 4, 5))
    assert mg.count_nonzero(_t(a)).item() == np.count_nonzero(a)
    np.testing.assert_array_equal(
        mg.count_nonzero(_t(a), (0, 2)).numpy(), np.count_nonzero(a, (0, 2))
    )


def test_var_mean_and_std_mean():
    v, m = mg.var_mean(_t(X), 1, correction=0)
    np.testing.assert_allclose(v.numpy(), X.var(1))
    np.testing.assert_allclose(m.numpy(), X.mean(1))
    s, m = mg.std_mean(_t(X), dim=0, keepdim=True)
    np.testing.assert_allclose(s.numpy(), X.std(0, ddof=1, keepdims=True))
    gradcheck(lambda x: mg.std_mean(x, 1)[0] + mg.std_mean(x, 1)[1], (_t(X, True),))


def test_histogram_matches_numpy():
    hist, edges = mg.histogram(_t(X), bins=5)
    want_h, want_e = np.histogram(X, bins=5)
    np.testing.assert_array_equal(hist.numpy(), want_h)
    np.testing.assert_allclose(edges.numpy(), want_e)
    w = np.abs(X)
    hist, _ = _t(X).histogram(4, range=(-1, 1), weight=_t(w), density=True)
    np.testing.assert_allclose(
        hist.numpy(), np.histogram(X, 4, (-1, 1), weights=w, density=True)[0]
    )


def test_diff_matches_numpy_and_is_differentiable():
    p = RNG.normal(size=(1, 7))
    np.testing.assert_allclose(
        mg.diff(_t(X), 2, 0, prepend=_t(p)).numpy(), np.diff(X, 2, 0, prepend=p)
    )
    np.testing.assert_array_equal(mg.diff(_t([True, False, False])).numpy(), [True, False])
    gradcheck(lambda x: x.diff(n=2), (_t(X, True),))


def test_gradient_matches_numpy():
    coords = np.array([0.0, 0.3, 1.0, 1.2, 2.0, 3.5, 4.0])
    got = mg.gradient(_t(X), spacing=(_t(coords),), dim=1)
    np.testing.assert_allclose(got[0].numpy(), np.gradient(X, coords, axis=1))
    g0, g1 = mg.gradient(_t(X), spacing=[0.5, 2.0], edge_order=2)
    w0, w1 = np.gradient(X, 0.5, 2.0, edge_order=2)
    np.testing.assert_allclose(g0.numpy(), w0)
    np.testing.assert_allclose(g1.numpy(), w1)
    gradcheck(lambda x: mg.gradient(x, dim=0)[0], (_t(X, True),))


def test_cov_and_corrcoef_match_numpy():
    fw = np.array([1, 2, 1, 3, 1, 1, 2])
    aw = RNG.uniform(0.5, 2, size=7)
    np.testing.assert_allclose(mg.cov(_t(X)).numpy(), np.cov(X))
    got = mg.cov(_t(X), correction=1, fweights=_t(fw), aweights=_t(aw)).numpy()
    np.testing.assert_allclose(got, np.cov(X, ddof=1, fweights=fw, aweights=aw))
    np.testing.assert_allclose(mg.corrcoef(_t(X)).numpy(), np.corrcoef(X))
    assert mg.cov(_t(X[0])).ndim == 0
    gradcheck(lambda x: x.cov(), (_t(X, True),))
    gradcheck(lambda x: x.corrcoef(), (_t(X, True),))


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: _t(X).quantile(1.5), RuntimeError, "range [0, 1]"),
        (lambda: _t(X).quantile([0.5]), TypeError, "argument 'q'"),
        (lambda: _t(X).quantile(0.5, interpolation="cubic"), ValueError, "interpolation"),
        (lambda: _t([1, 2]).quantile(0.5), RuntimeError, "float or double"),
        (lambda: _t(X).kthvalue(9, 1), RuntimeError, "out of range"),
        (lambda: _t(np.zeros((2, 0))).median(1), IndexError, "size 0"),
        (lambda: _t(np.zeros((2, 2, 2))).cov(), ValueError, "two or fewer dimensions"),
        (lambda: _t(1.0).diff(), RuntimeError, "one-dimensional"),
        (lambda: _t(X).median(3), IndexError, "dim 3"),
        (lambda: mg.gradient(_t([1.0])), RuntimeError, "edge_order+1"),
        (lambda: _t([1, 2]).nanmean(), RuntimeError, "floating point"),
    ],
)
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("+", r"\+")):
        call()
