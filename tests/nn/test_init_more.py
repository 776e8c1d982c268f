"""nn.init.orthogonal_, dirac_, sparse_ and nn.utils.rnn.pad_sequence."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (8, 2), (4, 2, 3)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_the_gain(shape):
    mg.manual_seed(0)
    w = nn.init.orthogonal_(mg.empty(*shape), gain=2.0)
    q = w.numpy().reshape(shape[0], -1).astype(np.float64)
    gram = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
    np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-5)


def test_orthogonal_refuses_a_vector():
    with pytest.raises(ValueError, match="2 dims"):
        nn.init.orthogonal_(mg.empty(3))


def test_dirac_kernel_passes_the_input_through_a_convolution():
    w = nn.init.dirac_(mg.empty(5, 3, 3, 3))
    x = mg.randn(2, 3, 6, 6)
    y = nn.functional.conv2d(x, w, padding=1)
    np.testing.assert_array_equal(y[:, :3].numpy(), x.numpy())
    assert not y[:, 3:].numpy().any()  # more outputs than inputs: the rest are zero


def test_dirac_with_groups_repeats_the_identity_per_group():
    torch = pytest.importorskip("torch")
    ours = nn.init.dirac_(mg.empty(4, 2, 3), groups=2).numpy()
    theirs = torch.nn.init.dirac_(torch.empty(4, 2, 3), groups=2).numpy()
    np.testing.assert_array_equal(ours, theirs)


def test_sparse_zeroes_the_same_count_in_every_column():
    mg.manual_seed(0)
    w = nn.init.sparse_(mg.empty(10, 6), sparsity=0.25, std=0.5).numpy()
    np.testing.assert_array_equal((w == 0).sum(0), [math.ceil(0.25 * 10)] * 6)
    nonzero = w[w != 0]
    assert 0.3 < nonzero.std() < 0.7
    with pytest.raises(ValueError, match="sparsity"):
        nn.init.sparse_(mg.empty(3, 3), sparsity=1.5)


def test_pad_sequence_pads_each_side_and_gradients_reach_each_sequence():
    a = mg.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    b = mg.tensor([[7.0, 8.0]], requires_grad=True)
    out = nn.utils.rnn.pad_sequence([a, b], padding_value=-1.0)
    assert out.shape == (3, 2, 2)  # (max length, batch, features)
    np.testing.assert_array_equal(out[:, 1].detach().numpy(), [[7, 8], [-1, -1], [-1, -1]])
    first = nn.utils.rnn.pad_sequence([a, b], batch_first=True, padding_side="left")
    np.testing.assert_array_equal(first[1].detach().numpy(), [[0, 0], [0, 0], [7, 8]])
    (out * mg.arange(12.0).reshape(3, 2, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(12.0).reshape(3, 2, 2)[:, 0])
    np.testing.assert_array_equal(b.grad.numpy(), np.arange(12.0).reshape(3, 2, 2)[:1, 1])


def test_pad_sequence_matches_pytorch():
    torch = pytest.importorskip("torch")
    seqs = [np.arange(n * 3.0).reshape(n, 3) for n in (2, 4, 1)]
    ours = nn.utils.rnn.pad_sequence([mg.tensor(s) for s in seqs], batch_first=True)
    theirs = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_pad_sequence_names_a_mismatched_sequence():
    with pytest.raises(RuntimeError, match="sequence 1"):
        nn.utils.rnn.pad_sequence([mg.ones(2, 3), mg.ones(2, 4)])


@pytest.mark.parametrize(
    "old, args",
    [("eye", ()), ("dirac", ()), ("orthogonal", ()), ("sparse", (0.5,)), ("uniform", ()),
     ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()), ("kaiming_normal", ())],
)  # fmt: skip
def test_old_init_spellings_warn_and_fill_as_the_underscore_forms(old, args):
    shape = (4, 4, 1) if old == "dirac" else (4, 4)
    a, b = mg.empty(*shape), mg.empty(*shape)
    mg.manual_seed(0)
    with pytest.warns(FutureWarning, match=f"nn.init.{old}_"):
        getattr(mg.nn.init, old)(a, *args)
    mg.manual_seed(0)
    getattr(mg.nn.init, old + "_")(b, *args)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
