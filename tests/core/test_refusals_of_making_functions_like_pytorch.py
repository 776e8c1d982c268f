"""Bad arguments to the making and random functions raise PyTorch's exception types: an integer
mean for normal or integer probabilities for bernoulli (NotImplementedError: no kernel), mean and
std shapes that do not broadcast (RuntimeError), an unknown meshgrid indexing (RuntimeError), a
float dtype for tril_indices (NotImplementedError), and an expanded tensor as out= (RuntimeError:
its places share memory)."""

from __future__ import annotations

import pytest

import minigenesis as mg


def test_integer_parameters_of_draws_have_no_kernel():
    with pytest.raises(NotImplementedError):
        mg.normal(mg.zeros(2, dtype=mg.int64), 1.0)
    with pytest.raises(NotImplementedError):
        mg.bernoulli(mg.zeros(3, dtype=mg.int64))
    with pytest.raises(NotImplementedError):
        mg.tril_indices(3, 3, dtype=mg.float32)


def test_shapes_that_do_not_broadcast_raise_runtime_error():
    with pytest.raises(RuntimeError, match="must match the size"):
        mg.normal(mg.zeros(3), mg.ones(4))


def test_unknown_meshgrid_indexing_raises_runtime_error():
    with pytest.raises(RuntimeError, match="indexing"):
        mg.meshgrid(mg.arange(2), indexing="yx")


def test_an_expanded_out_is_refused_with_runtime_error():
    out = mg.zeros(3, 1).expand(3, 4)
    with pytest.raises(RuntimeError, match="single memory location"):
        mg.add(mg.ones(3, 4), 1, out=out)
