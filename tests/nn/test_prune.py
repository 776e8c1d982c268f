"""nn.utils.prune: which entries each method zeroes (NumPy order statistics as the oracle), the
orig/mask reparametrization and its hook, composition, remove, and global pruning."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.utils.prune as prune
from minigenesis import nn


def _linear(w: np.ndarray) -> nn.Linear:
    lin = nn.Linear(w.shape[1], w.shape[0]).double()
    with mg.no_grad():
        lin.weight.copy_(mg.tensor(w))
    return lin


def test_l1_unstructured_zeroes_the_smallest_magnitudes_and_reparametrizes() -> None:
    w = np.random.default_rng(0).permutation(np.arange(1, 13, dtype=np.float64)).reshape(3, 4)
    w *= np.where(np.arange(12).reshape(3, 4) % 2, -1, 1)
    lin = _linear(w)
    prune.l1_unstructured(lin, "weight", amount=0.25)  # round(0.25 * 12) = 3 entries
    np.testing.assert_array_equal(lin.weight_mask.numpy(), (np.abs(w) > 3).astype(float))
    assert "weight" not in dict(lin.named_parameters()) and "weight_orig" in dict(
        lin.named_parameters()
    )
    x = mg.tensor(np.ones((2, 4)))
    np.testing.assert_allclose(
        lin(x).detach().numpy(),
        np.ones((2, 4)) @ (w * (np.abs(w) > 3)).T + lin.bias.detach().numpy(),
    )
    lin(x).sum().backward()
    assert (lin.weight_orig.grad.numpy()[np.abs(w) <= 3] == 0).all()  # no gradient through the mask
    prune.remove(lin, "weight")
    assert isinstance(lin.weight, nn.Parameter) and not prune.is_pruned(lin)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), w * (np.abs(w) > 3))


def test_pruning_twice_composes_and_ln_structured_drops_whole_rows() -> None:
    w = np.array([[1.0, 1.0], [5.0, 5.0], [0.1, 9.0], [3.0, 0.2]])
    lin = _linear(w)
    prune.l1_unstructured(lin, "weight", amount=2)  # 0.1 and 0.2
    prune.ln_structured(lin, "weight", amount=1, n=2, dim=0)  # row 0 has the smallest L2 norm
    expected = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=float)
    np.testing.assert_array_equal(lin.weight_mask.numpy(), expected)
    hook = next(h for h in lin._forward_pre_hooks.values())
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 2


def test_random_unstructured_prunes_exactly_amount_entries() -> None:
    lin = nn.Linear(10, 10)
    prune.random_unstructured(lin, "weight", amount=0.3)
    assert int((lin.weight_mask == 0).sum()) == 30
    assert mg.equal(lin.weight, lin.weight_orig * lin.weight_mask)


def test_global_unstructured_ranks_all_tensors_together() -> None:
    a, b = _linear(np.array([[1.0, 2.0], [3.0, 4.0]])), _linear(np.array([[0.5, 6.0], [7.0, 8.0]]))
    prune.global_unstructured(
        [(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=3
    )
    np.testing.assert_array_equal(
        a.weight_mask.numpy(), [[0, 0], [1, 1]]
    )  # 0.5, 1, 2 are the 3 smallest
    np.testing.assert_array_equal(b.weight_mask.numpy(), [[0, 1], [1, 1]])


def test_bad_amounts_and_removing_unpruned_raise() -> None:
    with pytest.raises(ValueError, match="amount"):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=1.5)
    with pytest.raises(ValueError, match="smaller than the number"):
        prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5)
    with pytest.raises(ValueError, match="has to be pruned"):
        prune.remove(nn.Linear(2, 2), "weight")


@pytest.mark.parametrize("method", ["ln", "random"])
def test_structured_pruning_of_a_vector_is_a_value_error(method):
    lin = nn.Linear(3, 4)
    with pytest.raises(ValueError, match="multidimensional"):
        if method == "ln":
            prune.ln_structured(lin, "bias", amount=1, n=2, dim=0)
        else:
            prune.random_structured(lin, "bias", amount=1, dim=0)


@pytest.mark.parametrize("dim", [2, -3])
def test_structured_pruning_along_a_dim_outside_the_tensor_is_an_index_error(dim):
    lin = nn.Linear(3, 4)
    with pytest.raises(IndexError, match="Invalid index"):
        prune.ln_structured(lin, "weight", amount=1, n=2, dim=dim)
    with pytest.raises(IndexError, match="Invalid index"):
        prune.random_structured(nn.Linear(3, 4), "weight", amount=1, dim=dim)
