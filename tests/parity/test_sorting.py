"""PyTorch parity: sort, argsort, topk, tril and triu (values, indices, gradients, dtypes)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _pair(a, requires_grad=False):
    m = mg.tensor(a, requires_grad=requires_grad)
    t = torch.tensor(a, requires_grad=requires_grad)
    return m, t


@pytest.mark.parametrize("descending", [False, True])
def test_stable_sort_with_ties_and_nan_matches_torch(descending):
    a = np.array([[3.0, np.nan, 1.0, 3.0, 2.0, 1.0], [0.0, 0.0, -1.0, np.nan, np.nan, 5.0]])
    m, t = _pair(a, requires_grad=True)
    mv, mi = m.sort(dim=1, descending=descending, stable=True)
    tv, ti = t.sort(dim=1, descending=descending, stable=True)
    np.testing.assert_array_equal(mi.numpy(), ti.numpy())
    np.testing.assert_array_equal(mv.detach().numpy(), tv.detach().numpy())
    g = np.arange(12.0).reshape(2, 6)
    mv.backward(mg.tensor(g))
    tv.backward(torch.tensor(g))
    np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "float32", "bool"])
def test_argsort_dtypes_match_torch(dtype):
    a = np.random.default_rng(0).integers(0, 3, (4, 7)).astype(dtype)
    m, t = mg.tensor(a), torch.tensor(a)
    for descending in (False, True):
        np.testing.assert_array_equal(
            m.argsort(dim=0, descending=descending, stable=True).numpy(),
            t.argsort(dim=0, descending=descending, stable=True).numpy(),
        )


@pytest.mark.parametrize("largest", [True, False])
def test_topk_values_and_gradients_match_torch(largest):
    a = np.random.default_rng(1).standard_normal((3, 8))
    m, t = _pair(a, requires_grad=True)
    mv, mi = mg.topk(m, 4, dim=1, largest=largest)
    tv, ti = torch.topk(t, 4, dim=1, largest=largest)
    np.testing.assert_array_equal(mi.numpy(), ti.numpy())
    np.testing.assert_array_equal(mv.detach().numpy(), tv.detach().numpy())
    (mv * mv).sum().backward()
    (tv * tv).sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("diagonal", [-1, 0, 2])
def test_tril_triu_match_torch_with_gradients(diagonal):
    a = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    m, t = _pair(a, requires_grad=True)
    for mf, tf in ((mg.tril, torch.tril), (mg.triu, torch.triu)):
        np.testing.assert_array_equal(
            mf(m, diagonal).detach().numpy(), tf(t, diagonal).detach().numpy()
        )
    (mg.tril(m, diagonal) * 2 + mg.triu(m, diagonal)).sum().backward()
    (torch.tril(t, diagonal) * 2 + torch.triu(t, diagonal)).sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())
    assert mg.tril(m).dtype == mg.float32


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather_matches_torch_with_gradients(dim):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 5))
    shape = [2, 3, 4]
    shape[dim] = 6
    idx = rng.integers(0, a.shape[dim], shape)
    m, t = _pair(a, requires_grad=True)
    mo, to = m.gather(dim, mg.tensor(idx)), torch.gather(t, dim, torch.tensor(idx))
    np.testing.assert_array_equal(mo.detach().numpy(), to.detach().numpy())
    g = rng.standard_normal(shape)
    mo.backward(mg.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)
