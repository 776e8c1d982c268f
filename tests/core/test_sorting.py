"""sort, argsort, topk, tril, triu and multinomial: values against NumPy, gradients against float64
finite differences, the sampling distribution against the weights, and errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ----------------------------------------------------------------------------------- sort
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_and_indices_match_numpy(dim, descending):
    a = _rand(4, 5, 3)
    values, indices = mg.sort(mg.tensor(a), dim=dim, descending=descending)
    order = np.argsort(-a if descending else a, axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, axis=dim))
    assert indices.dtype == mg.int64


def test_sort_is_stable_in_both_directions():
    x = mg.tensor([2, 1, 2, 1, 2])
    assert mg.sort(x, stable=True).indices.tolist() == [1, 3, 0, 2, 4]
    assert mg.sort(x, descending=True, stable=True).indices.tolist() == [0, 2, 4, 1, 3]


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = mg.tensor([1.0, float("nan"), -1.0])
    assert mg.sort(x).indices.tolist() == [2, 0, 1]
    assert mg.sort(x, descending=True).indices.tolist() == [1, 0, 2]


def test_sort_descending_of_int8_minimum_does_not_overflow():
    x = mg.tensor([-128, 127, 0], dtype=mg.int8)
    assert x.sort(descending=True).values.tolist() == [127, 0, -128]


def test_argsort_is_sorts_indices():
    a = _rand(3, 6, seed=1)
    x = mg.tensor(a)
    assert x.argsort(dim=0, descending=True).tolist() == x.sort(0, True).indices.tolist()
    assert mg.argsort(x).tolist() == np.argsort(a, axis=-1, kind="stable").tolist()


def test_sort_gradient_matches_finite_differences():
    x = mg.tensor(_rand(3, 4, seed=2), requires_grad=True)
    w = mg.tensor(_rand(3, 4, seed=3))
    assert gradcheck(lambda t: (t.sort(dim=1, descending=True).values * w).sum(), (x,))


def test_sort_of_0d_tensor_is_itself_with_index_0():
    values, indices = mg.tensor(5.0).sort()
    assert values.item() == 5.0 and indices.item() == 0 and indices.ndim == 0


# ----------------------------------------------------------------------------------- topk
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_the_head_of_a_sort(largest):
    a = _rand(4, 7, seed=4)
    values, indices = mg.topk(mg.tensor(a), 3, dim=1, largest=largest)
    order = np.argsort(-a if largest else a, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(indices.numpy(), order)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, order, axis=1))


def test_topk_defaults_to_the_last_dim_and_returns_named_fields():
    x = mg.tensor([[1.0, 5.0, 3.0], [9.0, 2.0, 4.0]])
    out = x.topk(2)
    assert out.values.tolist() == [[5.0, 3.0], [9.0, 4.0]]
    assert out.indices.tolist() == [[1, 2], [0, 2]]


def test_topk_gradient_reaches_only_the_selected_entries():
    x = mg.tensor(_rand(2, 5, seed=5), requires_grad=True)
    assert gradcheck(lambda t: (t.topk(2, dim=1).values ** 2).sum(), (x,))
    x.topk(2, dim=1).values.sum().backward()
    assert x.grad.sum(dim=1).tolist() == [2.0, 2.0]


def test_topk_refuses_k_larger_than_the_dim():
    with pytest.raises(RuntimeError, match=r"k \(6\) is out of range.*\[0, 5\]"):
        mg.zeros(5).topk(6)
    with pytest.raises(RuntimeError, match="out of range"):
        mg.zeros(5).topk(-1)


def test_sort_refuses_an_out_of_range_dim():
    with pytest.raises(IndexError, match=r"dim 2 is out of range.*\(3, 4\)"):
        mg.zeros(3, 4).sort(dim=2)


# ----------------------------------------------------------------------------------- tril / triu
@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_tril_and_triu_match_numpy_on_the_last_two_dims(diagonal):
    a = _rand(2, 4, 5, seed=6)
    np.testing.assert_array_equal(mg.tensor(a).tril(diagonal).numpy(), np.tril(a, diagonal))
    np.testing.assert_array_equal(
        mg.triu(mg.tensor(a), diagonal=diagonal).numpy(), np.triu(a, diagonal)
    )


def test_tril_triu_gradients_are_the_masked_upstream_gradient():
    x = mg.tensor(_rand(3, 3, seed=7), requires_grad=True)
    w = mg.tensor(_rand(3, 3, seed=8))
    assert gradcheck(lambda t: (t.tril(-1) * w).sum() + (t.triu(1) ** 2).sum(), (x,))
    x.tril().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.tril(np.ones((3, 3))))


def test_tril_refuses_a_1d_tensor():
    with pytest.raises(RuntimeError, match=r"tril: input tensor must have at least 2 dim.*\(3,\)"):
        mg.ones(3).tril()


# ----------------------------------------------------------------------------------- multinomial
def test_multinomial_with_replacement_follows_the_weights():
    mg.manual_seed(0)
    w = np.array([1.0, 0.0, 3.0, 6.0])
    draws = mg.multinomial(mg.tensor(w), 20000, replacement=True).numpy()
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, w / w.sum(), atol=0.015)
    assert freq[1] == 0.0


def test_multinomial_without_replacement_draws_distinct_categories_in_weight_order():
    mg.manual_seed(1)
    w = mg.tensor([[0.0, 1.0, 2.0, 0.0, 7.0]] * 3000)
    draws = w.multinomial(3).numpy()
    assert all(len(set(row)) == 3 for row in draws)
    assert set(draws[:, :3].ravel()) == {1, 2, 4}  # positive weights first
    # the first draw is category i with probability w_i / sum w
    np.testing.assert_allclose(
        np.bincount(draws[:, 0], minlength=5)[[1, 2, 4]] / 3000, [0.1, 0.2, 0.7], atol=0.03
    )


def test_multinomial_without_replacement_uses_zero_weights_last():
    assert mg.multinomial(mg.tensor([1.0, 0.0]), 2).tolist() == [0, 1]


def test_multinomial_repeats_with_the_seed_and_the_generator():
    w = mg.tensor([0.2, 0.3, 0.5])
    mg.manual_seed(7)
    a = mg.multinomial(w, 10, True)
    mg.manual_seed(7)
    assert mg.multinomial(w, 10, True).tolist() == a.tolist()
    g1, g2 = mg.Generator().manual_seed(3), mg.Generator().manual_seed(3)
    assert w.multinomial(2, generator=g1).tolist() == w.multinomial(2, generator=g2).tolist()


@pytest.mark.parametrize(
    "weights, n, replacement, message",
    [
        ([1.0, -1.0], 1, False, "element < 0"),
        ([1.0, float("nan")], 1, False, "`nan`"),
        ([0.0, 0.0], 1, True, "sum of probabilities <= 0"),
        ([1.0, 2.0], 3, False, "without replacement"),
        ([1.0, 2.0], 0, True, "n_sample <= 0"),
        ([[[1.0]]], 1, True, "1 or 2 dim"),
        ([1, 2], 1, True, "floating-point"),
    ],
)
def test_multinomial_refuses_bad_input(weights, n, replacement, message):
    with pytest.raises(RuntimeError, match=message):
        mg.multinomial(mg.tensor(weights), n, replacement)


def test_cumsum_exists_as_function_and_method():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert mg.cumsum(x, dim=1).tolist() == x.cumsum(1).tolist() == [[1.0, 3.0], [3.0, 7.0]]


def test_sorting_ops_run_on_each_device(device):
    a = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 4.0]], dtype=np.float32)
    x = mg.tensor(a, device=device, requires_grad=True)
    values, indices = x.sort(dim=1, descending=True)
    assert values.device.type == device and indices.device.type == device
    np.testing.assert_array_equal(indices.cpu().numpy(), [[0, 2, 1, 3], [2, 3, 0, 1]])
    top = x.topk(2)
    (top.values.sum() + x.tril(-1).sum() + x.triu(1).sum()).backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [[1, 1, 2, 1], [1, 0, 2, 2]])
    mg.manual_seed(0)
    draws = mg.tensor([[0.0, 1.0, 3.0]], device=device).multinomial(5, replacement=True)
    assert draws.device.type == device and set(draws.cpu().numpy().ravel()) <= {1, 2}
    g = mg.ones(2, 3, device=device, requires_grad=True)
    g.gather(1, mg.tensor([[0, 0], [2, 1]], device=device)).sum().backward()
    np.testing.assert_array_equal(g.grad.cpu().numpy(), [[2, 0, 0], [0, 1, 1]])
    assert mg.tensor([1.0, 0.0, 2.0], device=device).multinomial(2).cpu().tolist() in (
        [0, 2],
        [2, 0],
    )


# ----------------------------------------------------------------------------------- gather
def test_gather_picks_along_the_dim_like_take_along_axis():
    a = _rand(3, 5, seed=20)
    idx = np.array([[0, 4], [2, 2], [1, 0]])
    out = mg.gather(mg.tensor(a), 1, mg.tensor(idx))
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(a, idx, axis=1))
    rows = mg.tensor(a).gather(0, mg.tensor([[2, 0, 1, 1, 0]]))
    np.testing.assert_array_equal(rows.numpy(), a[[2, 0, 1, 1, 0], range(5)][None])


def test_gather_reads_the_leading_block_when_index_is_smaller():
    a = _rand(4, 6, seed=21)
    out = mg.tensor(a).gather(1, mg.tensor([[5, 0], [1, 1]]))
    np.testing.assert_array_equal(out.numpy(), [[a[0, 5], a[0, 0]], [a[1, 1], a[1, 1]]])


def test_gather_gradient_adds_up_repeated_picks():
    x = mg.tensor(_rand(3, 4, seed=22), requires_grad=True)
    idx = mg.tensor([[0, 0, 3], [1, 2, 2], [3, 3, 3]])
    assert gradcheck(lambda t: (t.gather(1, idx) ** 2).sum(), (x,))
    x.gather(1, idx).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2, 0, 0, 1], [0, 1, 2, 0], [0, 0, 0, 3]])


def test_gather_refuses_bad_indices():
    x = mg.zeros(2, 3)
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        x.gather(1, mg.tensor([[0]], dtype=mg.int16))
    with pytest.raises(RuntimeError, match=r"index along dimension 1 3 is out of bounds.*\[0, 3\)"):
        x.gather(1, mg.tensor([[3]]))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.gather(1, mg.tensor([0]))
    with pytest.raises(RuntimeError, match=r"size does not match at dimension 0"):
        x.gather(1, mg.tensor([[0], [0], [0]]))


def test_tril_and_triu_in_place():
    x = mg.ones(3, 4)
    assert x.triu_(1) is x
    np.testing.assert_array_equal(x.numpy(), np.triu(np.ones((3, 4)), 1))
    y = mg.ones(2, 3, 3)
    y.tril_(-1)
    np.testing.assert_array_equal(y.numpy(), np.tril(np.ones((2, 3, 3)), -1))
