"""unflatten, tensor_split, hsplit/vsplit/dsplit, rot90, diagonal, diag_embed, diagflat,
atleast_*d, dstack, block_diag, cartesian_prod, combinations, vander, tensordot, tril/triu_indices,
logspace and empty_strided: against NumPy and itertools, gradients against finite differences."""

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

REPO = Path(__file__).resolve().parents[2]

RNG = np.random.default_rng(9)
A = RNG.normal(size=(4, 6))
A3 = RNG.normal(size=(3, 4, 6))


def _t(a, grad=False):
    return mg.tensor(np.asarray(a), requires_grad=grad)


def _same(parts, want):
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        np.testing.assert_array_equal(p.numpy(), w)


def test_tensor_split_matches_numpy_array_split():
    _same(mg.tensor_split(_t(A), 4, dim=1), np.array_split(A, 4, axis=1))
    _same(_t(A).tensor_split([1, 4, 9], dim=1), np.split(A, [1, 4, 9], axis=1))
    _same(_t(A).tensor_split(_t([2]), 0), np.split(A, [2]))


def test_h_v_d_split_match_numpy():
    _same(mg.hsplit(_t(A), 3), np.hsplit(A, 3))
    _same(mg.vsplit(_t(A), [1, 3]), np.vsplit(A, [1, 3]))
    _same(_t(A3).dsplit(2), np.dsplit(A3, 2))
    _same(_t(A[0]).hsplit(2), np.hsplit(A[0], 2))
    with pytest.raises(RuntimeError, match="not divisible"):
        mg.hsplit(_t(A), 4)


def test_unflatten():
    assert mg.unflatten(_t(A3), -1, (2, -1, 1)).shape == (3, 4, 2, 3, 1)
    with pytest.raises(RuntimeError, match="sizes"):
        _t(A).unflatten(1, (4, 2))


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0)])
def test_rot90_matches_numpy(k, dims):
    np.testing.assert_array_equal(mg.rot90(_t(A3), k, dims).numpy(), np.rot90(A3, k, dims))


@pytest.mark.parametrize(
    "offset, d1, d2", [(0, 0, 1), (2, 0, 1), (-1, 1, 0), (1, 2, 0), (-2, -1, -3)]
)
def test_diagonal_matches_numpy_and_passes_the_gradient_back(offset, d1, d2):
    np.testing.assert_array_equal(
        mg.diagonal(_t(A3), offset, d1, d2).numpy(), np.diagonal(A3, offset, d1, d2)
    )
    gradcheck(lambda x: x.diagonal(offset, d1, d2), (_t(A3, True),))


@pytest.mark.parametrize("offset, d1, d2", [(0, -2, -1), (1, 0, 2), (-2, 2, 1)])
def test_diag_embed_puts_the_last_dim_on_the_diagonal(offset, d1, d2):
    out = _t(A).diag_embed(offset, d1, d2)
    np.testing.assert_array_equal(out.diagonal(offset, d1, d2).numpy(), A)
    assert np.count_nonzero(out.numpy()) == A.size
    gradcheck(lambda x: mg.diag_embed(x, offset, d1, d2), (_t(A, True),))


def test_diagflat_matches_numpy():
    np.testing.assert_array_equal(
        mg.diagflat(_t(A[:2, :2]), -1).numpy(), np.diagflat(A[:2, :2], -1)
    )


def test_atleast_and_dstack_match_numpy():
    for fn, ref in (
        (mg.atleast_1d, np.atleast_1d),
        (mg.atleast_2d, np.atleast_2d),
        (mg.atleast_3d, np.atleast_3d),
    ):
        for a in (np.array(2.0), A[0], A, A3):
            assert fn(_t(a)).shape == ref(a).shape
    assert isinstance(mg.atleast_2d(_t(1.0), _t(A)), tuple)
    np.testing.assert_array_equal(mg.dstack([_t(A), _t(A)]).numpy(), np.dstack([A, A]))


def test_block_diag_places_blocks_and_promotes():
    out = mg.block_diag(_t(A[:2, :3]), _t([1, 2]), _t(5.0))
    want = np.zeros((4, 6))
    want[:2, :3] = A[:2, :3]
    want[2, 3:5] = [1, 2]
    want[3, 5] = 5.0
    np.testing.assert_array_equal(out.numpy(), want)
    assert out.dtype is mg.float64
    gradcheck(lambda a, b: mg.block_diag(a, b), (_t(A[:2, :2], True), _t(A[2:, :3], True)))


def test_cartesian_prod_and_combinations_follow_itertools():
    a, b = [1, 2, 3], [7, 8]
    np.testing.assert_array_equal(
        mg.cartesian_prod(_t(a), _t(b)).numpy(), list(itertools.product(a, b))
    )
    x = A[0, :5]
    np.testing.assert_array_equal(
        mg.combinations(_t(x), 3).numpy(), list(itertools.combinations(x, 3))
    )
    rep = list(itertools.combinations_with_replacement(x, 2))
    np.testing.assert_array_equal(mg.combinations(_t(x), with_replacement=True).numpy(), rep)
    gradcheck(lambda t: mg.combinations(t, 2), (_t(x, True),))


@pytest.mark.parametrize("r, with_replacement", [(0, False), (1, True), (5, False), (6, False),
                                                 (7, False), (4, True)])  # fmt: skip
def test_combinations_of_every_length_follow_itertools(r, with_replacement):
    x = np.arange(6) * 1.5
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    got = mg.combinations(_t(x), r, with_replacement).numpy()
    expected = np.array(list(pick(x, r))).reshape(-1, r) if r else np.zeros(0)
    np.testing.assert_array_equal(got, expected)
    assert got.shape == expected.shape


def test_combinations_too_many_for_any_memory_fail_at_once_naming_the_size():
    # C(10**4, 4) = 416,416,712,497,500 rows: refused before any is built (they were gathered in
    # a list first, which grew until the machine ran out of memory). A child process with 1 GiB
    # of address space, so that a regression fails quickly instead of exhausting this machine.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "import minigenesis as mg\n"
        "try:\n    mg.combinations(mg.arange(10**4), 4)\n"
        "except MemoryError as err:\n    print(err)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "(416416712497500, 4)" in proc.stdout, proc.stdout


@pytest.mark.parametrize("n, increasing", [(None, False), (3, True), (6, False)])
def test_vander_matches_numpy_with_a_finite_gradient_at_zero(n, increasing):
    x = np.array([0.0, 1.5, -2.0, 0.5])
    np.testing.assert_allclose(mg.vander(_t(x), n, increasing).numpy(), np.vander(x, n, increasing))
    gradcheck(lambda t: mg.vander(t, n, increasing), (_t(x, True),))


@pytest.mark.parametrize("dims", [0, 1, 2, ([0, 2], [1, 0]), ([1], [2])])
def test_tensordot_matches_numpy(dims):
    a = RNG.normal(size=(3, 4, 5))
    b = RNG.normal(size=(4, 5, 3)) if not isinstance(dims, tuple) else RNG.normal(size=(5, 3, 4))
    if isinstance(dims, int) and dims != 2:
        b = RNG.normal(size=(5, 2)) if dims == 1 else RNG.normal(size=(2,))
    if dims == ([1], [2]):
        b = RNG.normal(size=(2, 3, 4))
    np_dims = dims if isinstance(dims, int) else (dims[0], dims[1])
    np.testing.assert_allclose(
        mg.tensordot(_t(a), _t(b), dims).numpy(), np.tensordot(a, b, np_dims)
    )
    gradcheck(lambda x, y: mg.tensordot(x, y, dims), (_t(a, True), _t(b, True)))


def test_tril_triu_indices_logspace_empty_strided():
    np.testing.assert_array_equal(
        mg.tril_indices(4, 3, 1).numpy(), np.stack(np.tril_indices(4, 1, 3))
    )
    np.testing.assert_array_equal(
        mg.triu_indices(3, 5, -1).numpy(), np.stack(np.triu_indices(3, -1, 5))
    )
    np.testing.assert_allclose(mg.logspace(-2, 2, 9).numpy(), np.logspace(-2, 2, 9), rtol=1e-6)
    np.testing.assert_allclose(
        mg.logspace(0, 4, 5, base=2.0, dtype=mg.float64).numpy(), 2.0 ** np.arange(5)
    )
    assert mg.empty_strided((2, 3), (3, 1)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="length of strides"):
        mg.empty_strided((2, 3), (1,))


@pytest.mark.parametrize(
    "size,stride", [((2, 3), (1, 2)), ((2, 3, 4), (1, 2, 6)), ((3,), (2,)), ((2, 3), (3, 1))]
)
def test_empty_strided_lays_the_tensor_out_with_the_given_strides(size, stride):
    x = mg.empty_strided(size, stride, dtype=mg.float64)
    assert x.shape == size and x.stride() == stride
    # element i lies at sum_j i_j * stride_j of a block just large enough for it
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride))
    assert x.untyped_storage().nbytes() == extent * 8
    values = np.arange(np.prod(size), dtype=np.float64).reshape(size)
    x.copy_(mg.tensor(values))
    np.testing.assert_array_equal(x.numpy(), values)
    np.testing.assert_array_equal((x * 2).numpy(), values * 2)


def test_diagonal_is_a_view_so_writes_reach_the_tensor():
    x = mg.zeros(3, 4)
    x.diagonal(1).fill_(1.0)
    np.testing.assert_array_equal(x.numpy(), np.eye(3, 4, 1))
    y = mg.tensor(A3.copy())
    d = y.diagonal(0, 2, 1)
    d.mul_(0)
    want = A3.copy()
    for i in range(4):
        want[:, i, i] = 0
    np.testing.assert_array_equal(y.numpy(), want)
    assert d._base is y


@pytest.mark.parametrize(
    "size, stride",
    [((2, 0, 3), (0, 3, 1)), ((0,), (4,)), ((1, 1), (5, 5)), ((1, 3), (7, 1))],
)
def test_empty_strided_keeps_the_asked_strides_of_empty_and_one_element_tensors(size, stride):
    t = mg.empty_strided(size, stride)
    assert tuple(t.shape) == size and t.stride() == stride
