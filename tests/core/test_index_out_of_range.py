"""Out-of-range integer indices raise PyTorch's error on every device, and in-range ones (negative
ones counting from the end) pick what NumPy picks.

On a GPU this is not free: CuPy wraps an out-of-range index array around (``i % n``) where NumPy
raises, so without an explicit check ``x[[0, 3]]`` on 3 rows reads row 0 and ``x[[0, 3]] = v``
overwrites it. The CuPy stand-in wraps as CuPy does, so the "cuda" cases here fail without the
checks. As in PyTorch CUDA (a device-side assert), the GPU's error comes at the next host read or
``synchronize``, not from the op itself: ``_refused`` checks both.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import backend
from minigenesis.backend import cupy_module

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)
BAD_ROWS = ([0, 3], [0, 7], [0, -4], [-9, 1])  # 3 rows: [-3, 3) is in range
BAD_COLS = ([1, 4], [1, -5])  # 4 columns


def _x(device: str) -> mg.Tensor:
    return mg.tensor(X, device=device)


def _i(values, device: str) -> mg.Tensor:
    return mg.tensor(values, dtype=mg.int64, device=device)


def _np(t: mg.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def _refused(device: str, op, error: type = IndexError, match: str = "out of bounds") -> None:
    """``op()`` raises ``error`` on the CPU; on a GPU it returns and the next synchronize raises."""
    if device == "cpu":
        with pytest.raises(error, match=match):
            op()
        return
    op()
    with pytest.raises(error, match=match):
        mg.cuda.synchronize()


@pytest.mark.parametrize("bad", BAD_ROWS)
def test_getitem_refuses_an_out_of_range_row_index(device, bad):
    x = _x(device)
    for index in (_i(bad, device), bad, (_i(bad, device), _i([0, 1], device))):
        _refused(
            device,
            lambda index=index: x[index],
            match=f"index {bad[0] if bad[0] < -3 else bad[1]} is out",
        )


@pytest.mark.parametrize("bad", BAD_COLS)
def test_getitem_refuses_an_out_of_range_column_index(device, bad):
    x = _x(device)
    _refused(device, lambda: x[:, _i(bad, device)], match=f"index {bad[1]} is out of bounds")
    _refused(device, lambda: x[..., bad], match=f"index {bad[1]} is out of bounds")


def test_getitem_in_range_and_negative_indices_match_numpy(device):
    x = _x(device).requires_grad_()
    rows, cols = [2, -3, -1, 0], [3, -4, 1, -1]
    np.testing.assert_array_equal(_np(x[_i(rows, device)]), X[rows])
    np.testing.assert_array_equal(_np(x[:, _i(cols, device)]), X[:, cols])
    np.testing.assert_array_equal(_np(x[_i(rows, device), _i(cols, device)]), X[rows, cols])
    x[_i(rows, device)].sum().backward()  # the gradient counts each pick, -1 and 2 alike
    np.testing.assert_array_equal(_np(x.grad), np.array([[2.0] * 4, [0.0] * 4, [2.0] * 4]))


@pytest.mark.parametrize("bad", BAD_ROWS)
def test_setitem_and_index_put_refuse_an_out_of_range_index(device, bad):
    x = _x(device)
    for write in (
        lambda: x.__setitem__(_i(bad, device), -1.0),
        lambda: x.__setitem__((_i(bad, device), slice(None)), -1.0),
        lambda: x.index_put_((_i(bad, device),), mg.tensor(-1.0, device=device)),
        lambda: x.index_put_((_i(bad, device),), mg.tensor(-1.0, device=device), True),
    ):
        _refused(device, write)
    _refused(device, lambda: x.__setitem__((slice(None), _i([0, 4], device)), -1.0))
    if device == "cpu":  # no row written (a GPU has written a wrapped one: garbage, as PyTorch's)
        np.testing.assert_array_equal(_np(x), X)


def test_setitem_and_index_put_in_range_match_numpy(device):
    rows = [-1, 0]
    x = _x(device)
    x[_i(rows, device)] = -1.0
    want = X.copy()
    want[rows] = -1.0
    np.testing.assert_array_equal(_np(x), want)
    y = _x(device).index_put_((_i([-3, 0, 2], device),), mg.tensor(1.0, device=device), True)
    want = X.copy()
    np.add.at(want, [-3, 0, 2], 1.0)
    np.testing.assert_array_equal(_np(y), want)


def test_take_and_put_refuse_a_flat_index_out_of_range(device):
    x = _x(device)  # 12 elements
    for bad in ([0, 12], [0, -13]):
        _refused(device, lambda bad=bad: x.take(_i(bad, device)))
        _refused(device, lambda bad=bad: x.put_(_i(bad, device), mg.ones(2, device=device)))
    np.testing.assert_array_equal(_np(_x(device).take(_i([11, -12], device))), [11.0, 0.0])


@pytest.mark.parametrize("bad", ([0, 3], [0, -1], [0, -4]))
def test_along_one_dim_ops_refuse_out_of_range_with_pytorchs_error_type(device, bad):
    x, ones = _x(device), mg.ones(2, 4, device=device)
    for error, op in (
        (IndexError, lambda: x.index_select(0, _i(bad, device))),
        (RuntimeError, lambda: x.clone().index_add_(0, _i(bad, device), ones)),
        (IndexError, lambda: x.clone().index_copy_(0, _i(bad, device), ones)),
        (RuntimeError, lambda: x.t().gather(1, _i([bad] * 4, device))),
        (RuntimeError, lambda: x.t().clone().scatter_(1, _i([bad], device), 5.0)),
        (RuntimeError, lambda: x.t().clone().scatter_add_(1, _i([bad], device), ones[:1, :2])),
        (IndexError, lambda: F.embedding(_i(bad, device), x)),
        (IndexError, lambda: F.cross_entropy(x.t()[:2, :3], _i(bad, device))),
        (IndexError, lambda: F.nll_loss(x.t()[:2, :3], _i(bad, device))),
    ):
        _refused(device, op, error, match=f"{bad[1]} is out")
    if bad[1] != -1:  # (index_fill counts -1 from the end, as x[idx] does)
        _refused(
            device, lambda: x.clone().index_fill_(0, _i(bad, device), 1.0), match=f"{bad[1]} is out"
        )


def test_along_one_dim_ops_in_range_match_numpy(device):
    x, idx = _x(device), [2, 0]
    np.testing.assert_array_equal(_np(x.index_select(0, _i(idx, device))), X[idx])
    np.testing.assert_array_equal(_np(F.embedding(_i(idx, device), x)), X[idx])
    got = x.clone().index_add_(0, _i(idx, device), mg.ones(2, 4, device=device))
    np.testing.assert_array_equal(_np(got), X + np.array([[1.0], [0.0], [1.0]]))
    picked = x.gather(1, _i([[3], [0], [1]], device))
    np.testing.assert_array_equal(_np(picked), np.array([[3.0], [4.0], [9.0]]))
    loss = F.nll_loss(x, _i([3, 0, 1], device), reduction="none")
    np.testing.assert_array_equal(_np(loss), -np.array([3.0, 4.0, 9.0]))


def test_index_fill_counts_negative_indices_from_the_end_as_pytorch(device):
    got = _x(device).index_fill_(0, _i([-1, -3], device), -1.0)
    want = X.copy()
    want[[-1, -3]] = -1.0
    np.testing.assert_array_equal(_np(got), want)
    np.testing.assert_array_equal(_np(_x(device).index_fill(1, _i([-4], device), 0.0)[:, 0]), 0)
    scalar = mg.tensor(5.0, device=device).index_fill_(0, _i([-1], device), 1.0)
    assert scalar.item() == 1.0


def test_multilabel_margin_loss_refuses_a_target_outside_minus_one_to_c(device):
    x = _x(device)
    for bad in ([0, 4, -1, -1], [0, -1, -2, 1]):  # every entry is checked, also after a -1
        with pytest.raises(RuntimeError, match="'target' is out of range"):
            F.multilabel_margin_loss(x, _i([bad] * 3, device))


def test_sparse_coo_tensor_checks_its_indices_against_the_size_on_every_device(device):
    values = mg.ones(2, device=device)
    dense = mg.sparse_coo_tensor(_i([[2, 0]], device), values, (3,)).to_dense()
    np.testing.assert_array_equal(_np(dense), [1.0, 0.0, 1.0])
    for bad in ([[0, 3]], [[0, -1]]):
        with pytest.raises(RuntimeError, match="index is out of bounds for size"):
            mg.sparse_coo_tensor(_i(bad, device), values, (3,))


@pytest.mark.gpu
def test_the_device_check_reads_nothing_until_a_host_read_then_all_verdicts_at_once():
    cupy = cupy_module()
    if not hasattr(cupy, "counting_host_reads"):
        pytest.skip("counting host reads needs the CuPy stand-in")
    x = mg.randn(5, 4, device="cuda", requires_grad=True)
    rows, cols = _i([4, -5, 0], "cuda"), _i([3, 0, -1], "cuda")
    for op in (lambda: x[rows], lambda: x[rows, cols], lambda: x[:, cols]):
        with cupy.counting_host_reads():
            y = op()
            y.sum().backward()  # (the backward's indices were checked in the forward)
        assert cupy.counting_host_reads.last.count == 0
    with cupy.counting_host_reads():
        mg.cuda.synchronize()
    assert cupy.counting_host_reads.last.count == 1  # the verdicts of all ops above, in one read
    assert not backend._device_asserts
