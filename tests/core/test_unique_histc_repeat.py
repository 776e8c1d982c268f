"""unique(dim=) with return_inverse / return_counts, histc, and repeat_interleave with a tensor of
counts: against NumPy and definitions written out, and PyTorch side by side."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

rng = np.random.default_rng(2)
ROWS = np.array([[1, 2, 0], [0, 5, 1], [1, 2, 0], [0, 5, 0], [0, 5, 1]])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim_gives_distinct_sorted_slices(dim):
    x = mg.tensor(ROWS)
    values, inverse, counts = x.unique(dim=dim, return_inverse=True, return_counts=True)
    slices = [tuple(s) for s in np.moveaxis(ROWS, dim, 0)]
    distinct = sorted(set(slices))
    assert [tuple(s) for s in np.moveaxis(values.numpy(), dim, 0)] == distinct
    assert inverse.tolist() == [distinct.index(s) for s in slices]
    assert counts.tolist() == [slices.count(s) for s in distinct]
    np.testing.assert_array_equal(values.index_select(dim, inverse).numpy(), ROWS)  # x rebuilt


def test_unique_dim_forms_and_errors():
    x = mg.tensor(ROWS.astype(np.float32))
    assert mg.unique(x, dim=0).shape == (3, 3)
    assert x.unique(dim=0, return_counts=True)[1].tolist() == [1, 2, 2]
    with pytest.raises(IndexError, match="out of range"):
        x.unique(dim=2)
    with pytest.raises(IndexError, match="0-d"):
        mg.tensor(1.0).unique(dim=0)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_matches_torch(dim):
    torch = pytest.importorskip("torch")
    for a in (ROWS, rng.standard_normal((4, 3)).round(0)):
        out = mg.tensor(a).unique(dim=dim, return_inverse=True, return_counts=True)
        tout = torch.tensor(a).unique(dim=dim, return_inverse=True, return_counts=True)
        for m, t in zip(out, tout, strict=True):
            np.testing.assert_array_equal(m.numpy(), t.numpy())


def test_histc_counts_equal_width_bins():
    data = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.0, 3.0, -1.0, 7.0, np.nan])
    out = mg.histc(mg.tensor(data), bins=4, min=0, max=2)
    # bins [0, .5) [.5, 1) [1, 1.5) [1.5, 2]: the top edge counts, values outside and NaN do not
    assert out.tolist() == [1.0, 1.0, 1.0, 3.0]
    assert out.dtype == mg.float64  # the input's dtype
    own_range = mg.tensor([1.0, 2.0, 3.0, 4.0]).histc(bins=3)  # min == max: the data's range
    assert own_range.tolist() == [1.0, 1.0, 2.0]
    flat = mg.tensor([2.0, 2.0]).histc(bins=2)  # one value: [1, 3]
    assert flat.tolist() == [0.0, 2.0]


def test_histc_refuses_bad_input():
    with pytest.raises(RuntimeError, match="bins"):
        mg.ones(3).histc(bins=0)
    with pytest.raises(RuntimeError, match="floating-point"):
        mg.tensor([1, 2]).histc()
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        mg.ones(3).histc(bins=2, min=3, max=1)


def test_histc_matches_torch():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal(1000).astype(np.float32)
    for bins, lo, hi in ((10, -2.0, 2.0), (7, 0, 0), (100, -0.5, 3.0)):
        np.testing.assert_array_equal(
            mg.tensor(a).histc(bins, lo, hi).numpy(), torch.tensor(a).histc(bins, lo, hi).numpy()
        )


def test_repeat_interleave_with_a_tensor_of_counts():
    x = mg.tensor(np.arange(6.0).reshape(2, 3), dtype=mg.float64, requires_grad=True)
    counts = mg.tensor([2, 0, 1])
    out = x.repeat_interleave(counts, dim=1)
    np.testing.assert_array_equal(out.detach().numpy(), [[0, 0, 2], [3, 3, 5]])
    assert gradcheck(lambda t: t.repeat_interleave(counts, dim=1), (x,))
    flat = x.repeat_interleave(mg.tensor([1, 0, 0, 2, 0, 1]))  # dim=None: over the flattened x
    assert flat.tolist() == [0.0, 3.0, 3.0, 5.0]
    assert x.repeat_interleave(mg.tensor([2]), dim=0).shape == (4, 3)  # one count for all
    assert mg.repeat_interleave(mg.tensor([2, 0, 3])).tolist() == [0, 0, 2, 2, 2]
    assert x.repeat_interleave(counts, dim=1, output_size=3).shape == (2, 3)


def test_repeat_interleave_refuses_bad_counts():
    x = mg.ones(2, 3)
    with pytest.raises(RuntimeError, match="one count per element"):
        x.repeat_interleave(mg.tensor([1, 2]), dim=1)
    with pytest.raises(RuntimeError, match="can not be negative"):
        x.repeat_interleave(mg.tensor([1, -1, 0]), dim=1)
    with pytest.raises(RuntimeError, match="integer tensor"):
        x.repeat_interleave(mg.tensor([1.0, 2.0, 1.0]), dim=1)
    with pytest.raises(RuntimeError, match="output_size"):
        x.repeat_interleave(mg.tensor([1, 1, 1]), dim=1, output_size=4)
    with pytest.raises(TypeError, match="repeats must be an int or an integer tensor"):
        x.repeat_interleave(1.5)


def test_repeat_interleave_matches_torch():
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4))
    r = rng.integers(0, 4, 4)
    for dim, reps in ((1, r), (0, r[:3]), (None, rng.integers(0, 3, 12)), (0, np.array([3]))):
        m = mg.tensor(a).repeat_interleave(mg.tensor(reps), dim=dim)
        t = torch.tensor(a).repeat_interleave(torch.tensor(reps), dim=dim)
        np.testing.assert_array_equal(m.numpy(), t.numpy())
    np.testing.assert_array_equal(
        mg.repeat_interleave(mg.tensor(r)).numpy(), torch.repeat_interleave(torch.tensor(r)).numpy()
    )


def test_on_each_device_matches_the_cpu(device):
    a = ROWS.astype(np.float32)
    on = mg.tensor(a, device=device)
    for m, c in zip(
        on.unique(dim=0, return_inverse=True, return_counts=True),
        mg.tensor(a).unique(dim=0, return_inverse=True, return_counts=True),
        strict=True,
    ):
        np.testing.assert_array_equal(m.cpu().numpy(), c.numpy())
    np.testing.assert_array_equal(on.histc(4).cpu().numpy(), mg.tensor(a).histc(4).numpy())
    counts = [2, 0, 1, 1, 3]
    out = on.repeat_interleave(mg.tensor(counts, device=device), dim=0)
    np.testing.assert_array_equal(out.cpu().numpy(), np.repeat(a, counts, axis=0))
    assert mg.repeat_interleave(mg.tensor([1, 2], device=device)).cpu().tolist() == [0, 1, 1]
