"""vmap runs its function once per sample, so an in-place write into a tensor it does not map
over would be repeated per sample (PyTorch's vmap writes once, or refuses): it is refused."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.func import replace_all_batch_norm_modules_, vmap

BATCH = mg.ones(3, 2)
captured = mg.zeros(2)


def test_a_write_into_an_unmapped_argument_is_refused_not_repeated_per_sample() -> None:
    y = mg.zeros(2)
    with pytest.raises(RuntimeError, match="wrote in place into a tensor it does not map over"):
        vmap(lambda x, y: y.add_(1) * x, in_dims=(0, None))(BATCH, y)
    assert y.tolist() == [1.0, 1.0]  # written once, by the first sample, not three times


def test_a_write_into_a_captured_tensor_is_refused() -> None:
    local = mg.zeros(2)
    with pytest.raises(RuntimeError, match="does not map over"):
        vmap(lambda x: local.add_(x))(BATCH)
    with pytest.raises(RuntimeError, match="does not map over"):
        vmap(lambda x: captured.mul_(2) + x)(BATCH)  # (a global)


def test_batch_norm_running_statistics_are_not_updated_once_per_sample() -> None:
    bn = mg.nn.BatchNorm1d(2)
    with pytest.raises(RuntimeError, match="replace_all_batch_norm_modules_"):
        vmap(bn)(mg.randn(3, 4, 2))
    batch = mg.tensor(np.arange(24.0, dtype=np.float32).reshape(3, 4, 2))
    out = vmap(replace_all_batch_norm_modules_(bn))(batch)
    np.testing.assert_allclose(out.detach().mean(1).numpy(), 0.0, atol=1e-6)


def test_unmapped_arguments_that_are_not_tensors_pass_through() -> None:
    assert vmap(lambda x, n: x * n, in_dims=(0, None))(mg.ones(3), 3).tolist() == [3.0] * 3


def test_writes_into_mapped_inputs_and_new_tensors_are_allowed() -> None:
    x = mg.zeros(3, 2)
    out = vmap(lambda r: (r.add_(1), mg.zeros(2).add_(r))[1])(x)
    assert x.tolist() == out.tolist() == [[1.0, 1.0]] * 3


def test_a_write_into_a_mapped_input_that_is_also_read_unmapped_is_refused():
    """vmap(lambda r, full: r.add_(full.sum()), in_dims=(0, None))(x, x): PyTorch's batched
    write adds the sum of the original x to every row ([[15, 16], [17, 18], [19, 20]]); a loop
    over samples would let each sample read the rows written before it ([[15, 16], [47, 48],
    [139, 140]]), so the write into memory the function also reads unmapped is refused."""
    x = mg.tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    with pytest.raises(RuntimeError, match="does not map over"):
        vmap(lambda r, full: r.add_(full.sum()), in_dims=(0, None))(x, x)
