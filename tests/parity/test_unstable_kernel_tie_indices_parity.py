"""topk's and mode's indices among equal values (and with NaN) against PyTorch's CPU kernels,
on random slices with many ties, sizes on both sides of the insertion-sort threshold (16) and of
topk's partial-sort switch (k * 64 <= n), and a pattern that drives the introsort to heapsort."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)


def _rows():
    for n in (2, 4, 5, 16, 17, 33, 100, 300):
        for hi in (2, 5):
            a = rng.integers(0, hi, (3, n)).astype(np.float64)
            yield a
            b = a.copy()
            b[rng.random(b.shape) < 0.2] = np.nan
            yield b
    n = 400
    yield np.array([list(range(n // 2)) + list(range(n // 2, 0, -1))], dtype=np.float64)


ROWS = list(_rows())


@pytest.mark.parametrize("case", range(len(ROWS)))
def test_topk_indices_match_pytorch(case):
    a = ROWS[case]
    n = a.shape[1]
    for k in sorted({1, 2, 3, n // 2, n} & set(range(1, n + 1))):
        for largest in (True, False):
            want = torch.tensor(a).topk(k, dim=1, largest=largest)
            got = mg.tensor(a).topk(k, dim=1, largest=largest)
            np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
            np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
@pytest.mark.parametrize("case", range(len(ROWS)))
def test_mode_values_and_indices_match_pytorch(case, dtype):
    a = ROWS[case]
    if dtype != "float16":
        a = np.nan_to_num(a, nan=7.0) if dtype == "int64" else a
    a = a.astype(dtype)
    want = torch.tensor(a).mode(dim=1)
    got = mg.tensor(a).mode(dim=1)
    np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
    np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


@pytest.mark.parametrize("m", [3, 16, 17, 40])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_unique_dim_with_nan_and_signed_zeros_matches_pytorch(m, dtype):
    pool = np.array([np.nan, -0.0, 0.0, 1.0, 2.0])
    for cols in (1, 2, 3):
        a = rng.choice(pool, (m, cols)).astype(dtype)
        for dim, x in ((0, a), (1, a.T.copy())):
            want = torch.tensor(x).unique(dim=dim, return_inverse=True, return_counts=True)
            got = mg.tensor(x).unique(dim=dim, return_inverse=True, return_counts=True)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g.numpy(), w.numpy())
                np.testing.assert_array_equal(np.signbit(g.numpy()), np.signbit(w.numpy()))


@pytest.mark.parametrize("case", range(len(ROWS)))
def test_default_sort_indices_match_pytorch(case):
    a = ROWS[case]
    for dtype in ("float64", "int64", "float16"):
        x = np.nan_to_num(a, nan=9.0) if dtype == "int64" else a
        x = x.astype(dtype)
        for descending in (False, True):
            for dim, y in ((1, x), (0, x.T.copy())):
                want = torch.tensor(y).sort(dim=dim, descending=descending)
                got = mg.tensor(y).sort(dim=dim, descending=descending)
                np.testing.assert_array_equal(got.indices.numpy(), want.indices.numpy())
                want = torch.tensor(y).argsort(dim=dim, descending=descending)
                np.testing.assert_array_equal(
                    mg.tensor(y).argsort(dim=dim, descending=descending).numpy(), want.numpy()
                )


@pytest.mark.parametrize("case", range(len(ROWS)))
def test_unique_inverse_and_signed_zeros_match_pytorch(case):
    a = ROWS[case].copy()
    a[:, ::3] *= -1.0  # -0.0 next to 0.0
    for dtype in ("float32", "float16"):
        x = a.astype(dtype)
        want = torch.tensor(x).unique(return_inverse=True, return_counts=True)
        got = mg.tensor(x).unique(return_inverse=True, return_counts=True)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
            np.testing.assert_array_equal(np.signbit(g.numpy()), np.signbit(w.numpy()))


@pytest.mark.parametrize("case", range(len(ROWS)))
def test_median_of_all_elements_signed_zero_matches_pytorch(case):
    a = ROWS[case].copy() - 1.0  # zeros from the ones
    a[:, ::2] *= -1.0
    for name in ("median", "nanmedian"):
        want = getattr(torch.tensor(a), name)().numpy()
        got = getattr(mg.tensor(a), name)().numpy()
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
