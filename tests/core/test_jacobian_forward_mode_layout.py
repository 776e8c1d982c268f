"""``jacobian(..., vectorize=True, strategy="forward-mode")`` hands its blocks back as PyTorch's
forward-mode path does: each block in its OUTPUT's dtype (a forward tangent takes the output's
dtype; reverse mode gives the input's), nested in lists where reverse mode gives tuples. The
values are the same in both modes (closed forms here)."""

import numpy as np

import minigenesis as mg
from minigenesis.autograd.functional import hessian, jacobian

FWD = {"vectorize": True, "strategy": "forward-mode"}


def test_forward_mode_jacobian_blocks_take_the_outputs_dtype():
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float32)
    J = jacobian(lambda t: t.double() ** 2, x, **FWD)
    assert J.dtype == mg.float64
    np.testing.assert_array_equal(J.numpy(), np.diag([2.0, 4.0, 6.0]))
    assert jacobian(lambda t: t.double() ** 2, x).dtype == mg.float32  # reverse: the input's


def test_forward_mode_jacobian_nests_lists_where_the_inputs_are_a_tuple():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64)
    y = mg.tensor([3.0], dtype=mg.float64)
    both = jacobian(lambda a, b: (a * b, (a**2).sum()), (x, y), **FWD)
    assert type(both) is list and all(type(row) is list for row in both)
    np.testing.assert_array_equal(both[0][0].numpy(), 3.0 * np.eye(2))
    np.testing.assert_array_equal(both[0][1].numpy(), [[1.0], [2.0]])
    np.testing.assert_array_equal(both[1][0].numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(both[1][1].numpy(), [0.0])
    per_input = jacobian(lambda a, b: a * b, (x, y), **FWD)
    assert type(per_input) is list and len(per_input) == 2
    per_output = jacobian(lambda a: (a * 2, a.sum()), x, **FWD)
    assert type(per_output) is tuple and len(per_output) == 2
    reverse = jacobian(lambda a, b: (a * b, (a**2).sum()), (x, y), vectorize=True)
    assert type(reverse) is tuple and all(type(row) is tuple for row in reverse)


def test_forward_mode_hessian_of_tuple_inputs_is_a_list_of_lists():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64)
    y = mg.tensor([3.0], dtype=mg.float64)
    H = hessian(
        lambda a, b: (a**2 * b).sum(),
        (x, y),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    )
    assert type(H) is list and all(type(row) is list for row in H)
    np.testing.assert_array_equal(H[0][0].numpy(), 6.0 * np.eye(2))  # d2/da2 = 2b I
    np.testing.assert_array_equal(H[0][1].numpy(), [[2.0], [4.0]])  # d2/da db = 2a
    np.testing.assert_array_equal(H[1][1].numpy(), [[0.0]])
