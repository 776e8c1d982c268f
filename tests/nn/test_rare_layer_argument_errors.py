"""Bad arguments of rare layers get PyTorch's exception types, and an output size of 0 in
fractional max pooling gives an empty result (no crash)."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

X = mg.tensor(np.random.default_rng(0).standard_normal((3, 4)))


def test_multi_margin_loss_refuses_a_weight_of_the_wrong_size():
    # (a 3-entry weight for 4 classes was read by a gather: class 3's loss read past its end)
    with pytest.raises(RuntimeError, match="weight size"):
        F.multi_margin_loss(X, mg.tensor([0, 1, 2]), weight=mg.ones(3, dtype=mg.float64))
    with pytest.raises(ValueError, match="one-dimensional"):
        F.multi_margin_loss(X, mg.tensor([0, 1, 2]), weight=mg.ones(1, 4, dtype=mg.float64))


def test_multi_margin_loss_weight_scales_each_sample_by_its_class_weight():
    w = np.array([0.5, 1.0, 2.0, 4.0])
    y = np.array([0, 1, 3])
    got = F.multi_margin_loss(X, mg.tensor(y), weight=mg.tensor(w), reduction="none").numpy()
    x = X.numpy()
    want = [
        w[t] * sum(max(0.0, 1 - x[i, t] + x[i, j]) for j in range(4) if j != t) / 4
        for i, t in enumerate(y)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_prelu_refuses_a_two_dim_weight():
    with pytest.raises(RuntimeError, match="scalar or 1D"):
        F.prelu(X, mg.ones(4, 1, dtype=mg.float64))


def test_cosine_similarity_of_shapes_that_do_not_broadcast_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="must match"):  # (NumPy's ValueError leaked)
        F.cosine_similarity(X, X[:, :3])


@pytest.mark.parametrize(
    "call",
    [lambda: F.celu(X, 0.0), lambda: F.rrelu(X, 0.5, 0.1), lambda: F.rrelu(X, 0.5, 0.1, True)],
)
def test_celu_and_rrelu_bad_parameters_are_runtime_errors(call):
    with pytest.raises(RuntimeError):
        call()


def test_fractional_max_pool_with_an_output_size_of_zero_is_empty():
    x = mg.tensor(np.random.default_rng(1).standard_normal((1, 1, 3, 4)))
    y, idx = F.fractional_max_pool2d(x, 2, output_ratio=(0.0, 0.5), return_indices=True)
    assert tuple(y.shape) == tuple(idx.shape) == (1, 1, 0, 2)
