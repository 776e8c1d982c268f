"""PyTorch parity: indexing (basic, advanced, boolean; gradients with repeated indices),
``__setitem__``, in-place methods (values, dtypes, version-counter errors, gradients through a
non-leaf that was updated in place).
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_grads, assert_same, data, pair

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")

GETITEM = {
    "int": lambda x, L: x[1],
    "negative": lambda x, L: x[-1],
    "slice": lambda x, L: x[1:],
    "step": lambda x, L: x[::2, 1:3],
    "ellipsis": lambda x, L: x[..., 2],
    "none": lambda x, L: x[None, 1, :, None],
    "all_ints": lambda x, L: x[1, 2, 3],
    "negative_slices": lambda x, L: x[-2:, :-1],
    "list_repeated": lambda x, L: x[[0, 2, 0]],
    "two_lists": lambda x, L: x[[0, 2], [1, 3]],
    "tensor_repeated": lambda x, L: x[L.tensor([2, 0, 2])],
    "tensor_2d": lambda x, L: x[L.tensor([[0, 1], [2, 2]])],
    "negative_tensor": lambda x, L: x[L.tensor([-1, 0])],
    "int32_tensor": lambda x, L: x[L.tensor([0, 2], dtype=L.int32)],
    "0d_tensor": lambda x, L: x[L.tensor(1)],
    "bool_mask": lambda x, L: x[x > 3],
    "bool_mask_dim0": lambda x, L: x[L.tensor([True, False, True])],
    "bool_list": lambda x, L: x[[True, False, True]],
    "bool_and_slice": lambda x, L: x[L.tensor([True, False, True]), 1:3],
    "slice_and_list": lambda x, L: x[1:, [0, 3]],
    "lists_apart": lambda x, L: x[[0, 2], :, [1, 4]],
    "slice_list_int": lambda x, L: x[:, [0, 1], 2],
    "ellipsis_list": lambda x, L: x[..., [0, 4]],
    # ints are plain selections in PyTorch, not advanced indices (NumPy's rule differs)
    "int_slice_list": lambda x, L: x[0, :, [1, 2]],
    "list_slice_int": lambda x, L: x[[0, 2], :, 1],
    "0d_tensor_slice_list": lambda x, L: x[L.tensor(1), :, [1, 2]],
    "list_none_list": lambda x, L: x[[0, 1], None, [1, 2]],
    "none_int_slice_list": lambda x, L: x[None, 0, :, [1, 2]],
    "list_ellipsis_list": lambda x, L: x[[0, 2], ..., [1, 2]],
    "bool_scalar_with_list": lambda x, L: x[0, True, [1, 2]],
    "mask_slice_list": lambda x, L: x[L.tensor([True, False, True]), :, [1, 4]],
    "broadcast_lists_apart": lambda x, L: x[[[0], [2]], 1:, [1, 2]],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", list(GETITEM))
def test_getitem_values_and_gradients(op, dtype):
    fn = GETITEM[op]
    m, t = pair(torch, np.arange(60.0).reshape(3, 4, 5) * 0.1, dtype, requires_grad=True)
    m_out, t_out = fn(m, mg), fn(t, torch)
    assert_same(m_out, t_out)
    w = data(tuple(t_out.shape), "float64", 31)
    (m_out * mg.tensor(w, dtype=m.dtype)).sum().backward()
    (t_out * torch.tensor(w, dtype=t.dtype)).sum().backward()
    assert_grads([m], [t], rtol=1e-6)  # repeated indices sum 2 terms


def test_getitem_keeps_int_and_bool_dtypes():
    for dtype in ("int64", "int32", "bool", "uint8", "float16", "bfloat16"):
        m, t = pair(torch, data((3, 4), dtype, 32), dtype)
        for op in ("int", "step", "list_repeated", "bool_mask_dim0", "slice_and_list"):
            assert_same(GETITEM[op](m, mg), GETITEM[op](t, torch), what=f"{dtype} {op}")


@pytest.mark.parametrize(
    "op",
    [
        "out_of_range",
        "list_out_of_range",
        "too_many_indices",
        "float_index",
    ],
)
def test_getitem_errors(op):
    fn = {
        "out_of_range": lambda x, L: x[3],
        "list_out_of_range": lambda x, L: x[[0, 5]],
        "too_many_indices": lambda x, L: x[0, 0, 0, 0],
        "float_index": lambda x, L: x[L.tensor([0.0, 1.0])],
    }[op]
    m, t = pair(torch, np.zeros((3, 4, 5)), "float32")
    with pytest.raises((IndexError, TypeError, RuntimeError)):
        fn(t, torch)
    with pytest.raises((IndexError, TypeError, RuntimeError)):
        fn(m, mg)


SETITEM = {
    "int_scalar": lambda x, L: x.__setitem__(1, 5.0),
    "column_tensor": lambda x, L: x.__setitem__((slice(None), 1), L.tensor([1.0, 2.0, 3.0])),
    "mask_scalar": lambda x, L: x.__setitem__(x > 0.5, 0.0),
    "mask_0d_tensor": lambda x, L: x.__setitem__(x > 0.5, L.tensor(-1.0)),
    "list_rows": lambda x, L: x.__setitem__([0, 2], L.tensor([9.0, 8.0, 7.0, 6.0])),
    "broadcast_row": lambda x, L: x.__setitem__(slice(None), L.tensor([1.0, 2.0, 3.0, 4.0])),
    "int_tensor_value": lambda x, L: x.__setitem__(0, L.tensor([1, 2, 3, 4])),
    "ellipsis": lambda x, L: x.__setitem__(Ellipsis, 0.5),
    "negative_step_free": lambda x, L: x.__setitem__((-1, slice(1, None)), 7.0),
}


@pytest.mark.parametrize("op", list(SETITEM))
def test_setitem_values(op):
    m, t = pair(torch, np.arange(12.0).reshape(3, 4) * 0.1, "float32")
    SETITEM[op](m, mg)
    SETITEM[op](t, torch)
    assert_same(m, t)


def test_setitem_on_int_tensor_truncates_floats():
    m, t = pair(torch, [1, 2, 3], "int64")
    m[0] = 2.7
    t[0] = 2.7
    assert_same(m, t)


def test_setitem_gradients_through_a_non_leaf():
    mx, tx = pair(torch, data((3, 4), "float64", 33), "float32", requires_grad=True)
    mv, tv = pair(torch, data((4,), "float64", 34), "float32", requires_grad=True)
    my, ty = mx * 2, tx * 2
    my[1] = mv * 3
    ty[1] = tv * 3
    my[:, 0] = 0.0
    ty[:, 0] = 0.0
    w = data((3, 4), "float64", 35)
    (my * mg.tensor(w, dtype=mg.float32)).sum().backward()
    (ty * torch.tensor(w, dtype=torch.float32)).sum().backward()
    assert_same(my, ty)
    assert_grads([mx, mv], [tx, tv])


INPLACE = {
    "add_tensor": lambda x, L: x.add_(L.tensor([1.0, 2.0, 3.0, 4.0])),
    "add_alpha": lambda x, L: x.add_(L.ones(3, 4), alpha=2),
    "sub_alpha": lambda x, L: x.sub_(L.ones(4), alpha=3),
    "mul_scalar": lambda x, L: x.mul_(3),
    "div_0d": lambda x, L: x.div_(L.tensor(2.0)),
    "pow": lambda x, L: x.pow_(2),
    "zero": lambda x, L: x.zero_(),
    "fill": lambda x, L: x.fill_(2.5),
    "fill_0d_tensor": lambda x, L: x.fill_(L.tensor(1.5)),
    "clamp": lambda x, L: x.clamp_(0.2, 0.8),
    "clamp_min": lambda x, L: x.clamp_(min=0.3),
    "addcmul": lambda x, L: x.addcmul_(L.ones(3, 4) * 2, L.ones(4) * 3, value=0.5),
    "addcdiv": lambda x, L: x.addcdiv_(L.ones(3, 4) * 2, L.ones(4) * 4, value=-2),
    "lerp": lambda x, L: x.lerp_(L.ones(3, 4, dtype=x.dtype), 0.3),
    "lerp_tensor_weight": lambda x, L: x.lerp_(
        L.ones(3, 4, dtype=x.dtype), L.full((3, 4), 0.25, dtype=x.dtype)
    ),
    "copy_broadcast": lambda x, L: x.copy_(L.tensor([1.0, 2.0, 3.0, 4.0])),
    "copy_int": lambda x, L: x.copy_(L.arange(12).reshape(3, 4)),
    "masked_fill_": lambda x, L: x.masked_fill_(x > 0.5, -1.0),
    "add_int_into_float": lambda x, L: x.add_(L.tensor([1, 2, 3, 4])),
}


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace_values(op, dtype):
    m, t = pair(torch, np.arange(12.0).reshape(3, 4) * 0.1, dtype)
    m_ret, t_ret = INPLACE[op](m, mg), INPLACE[op](t, torch)
    assert m_ret is m and t_ret is t
    assert_same(m, t)


def test_masked_fill_out_of_place():
    m, t = pair(torch, data((3, 4), "float64", 36), "float32", requires_grad=True)
    mask = data((4,), "float64", 37) > 0
    m_out = m.masked_fill(mg.tensor(mask), -1.0)
    t_out = t.masked_fill(torch.tensor(mask), -1.0)
    assert_same(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_grads([m], [t])


@pytest.mark.parametrize(
    "op", ["add_float", "mul_float", "div_int", "clamp_float"], ids=lambda s: s
)
def test_inplace_on_int_tensor_refuses_float_results(op):
    fn = {
        "add_float": lambda x: x.add_(1.5),
        "mul_float": lambda x: x.mul_(2.5),
        "div_int": lambda x: x.div_(2),
        "clamp_float": lambda x: x.clamp_(0.5, 2.5),
    }[op]
    m, t = pair(torch, [1, 2, 3], "int64")
    with pytest.raises(RuntimeError):
        fn(t)
    with pytest.raises(RuntimeError):
        fn(m)


def _inplace_case(fn):
    """fn(x, w, L) -> output; both libraries, x and w leaves; returns outputs and grads."""
    x = np.arange(1, 13.0).reshape(3, 4) * 0.1
    w = np.linspace(-1, 1, 12).reshape(3, 4)
    mx, tx = pair(torch, x, "float64", requires_grad=True)
    mw, tw = pair(torch, w, "float64", requires_grad=True)
    m_out, t_out = fn(mx, mw, mg), fn(tx, tw, torch)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_same(m_out, t_out)
    assert_grads([mx, mw], [tx, tw])


INPLACE_GRAPH = {
    "add_then_use": lambda x, w, L: (x * 1).add_(w) * w,
    "relu_inplace": lambda x, w, L: (
        F.relu(x - 0.5, inplace=True) if L is mg else torch.relu_(x - 0.5)
    ),
    "setitem": lambda x, w, L: _setitem(x * 1, (0, 1), w[1, 1] * 3),
    "setitem_mask": lambda x, w, L: _setitem(x * 1, w > 0, 0.0),
    "clamp": lambda x, w, L: (x * w).clamp_(-0.1, 0.1),
    "masked_fill": lambda x, w, L: (x * w).masked_fill_(w > 0, 0.5),
    "addcmul": lambda x, w, L: (x * 1).addcmul_(w, w, value=2),
    "lerp": lambda x, w, L: (x * 1).lerp_(w, 0.3),
    "sub_alpha": lambda x, w, L: (x * 1).sub_(w, alpha=2),
}


def _setitem(y, index, value):
    y[index] = value
    return y


@pytest.mark.parametrize("op", list(INPLACE_GRAPH))
def test_inplace_on_a_non_leaf_gradients(op):
    _inplace_case(INPLACE_GRAPH[op])


@pytest.mark.parametrize("op", ["mul_", "div_", "pow_"])
def test_inplace_on_a_non_leaf_that_saves_self(op):
    fn = {
        "mul_": lambda x, w, L: (x * 2).mul_(w),
        "div_": lambda x, w, L: (x * 1).div_(w + 3),
        "pow_": lambda x, w, L: (x * 1).pow_(2),
    }[op]
    _inplace_case(fn)


def test_copy_into_a_non_leaf_gives_zero_gradient_to_the_old_history():
    _inplace_case(lambda x, w, L: (x * 1).copy_(w * 2))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.exp().mul_(2),  # exp saves its output
        lambda x: x.sigmoid().add_(1),
        lambda x: x.tanh().add_(1),
        lambda x: (lambda y: (y * x, y.add_(1))[0])(x * 1),  # y saved by the product
    ],
    ids=["exp", "sigmoid", "tanh", "mul_saved"],
)
def test_modifying_a_saved_tensor_in_place_makes_backward_raise(fn):
    for L in (torch, mg):
        x = L.tensor([0.5, 1.5], requires_grad=True)
        out = fn(x)
        with pytest.raises(RuntimeError, match="modified by an inplace|in-place"):
            out.sum().backward()


def test_in_place_on_a_leaf_that_requires_grad_raises():
    for L in (torch, mg):
        x = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf"):
            x.add_(1)
        with L.no_grad():
            x.add_(1)  # allowed outside autograd, as optimizers do
        assert x.tolist() == [2.0, 2.0, 2.0]


VIEW_UPDATES = {
    "mul_row": lambda y, w: y[0].mul_(3),
    "add_block": lambda y, w: y[0:2, 1:3].add_(w[1:3]),
    "two_ops": lambda y, w: y[1].mul_(w).add_(1),
    "view_of_view": lambda y, w: y[1][2:].mul_(w[:2]),
    "setitem_column": lambda y, w: y.__setitem__((slice(None), 1), w[:3] * 2),
    "setitem_on_view": lambda y, w: y[2].__setitem__(1, w[0]),
    "clamp_column": lambda y, w: y[..., 0].clamp_(min=1.0),
    "chain": lambda y, w: (y[1:][0].mul_(w), y[1:].mul_(2), y[1:][1, 1:3].sub_(w[:2])),
}


@pytest.mark.parametrize("op", list(VIEW_UPDATES))
def test_in_place_on_a_view_of_a_graph_tensor_rebases_its_history(op):
    """PyTorch's rebase: the base's history records the change at the view's place (the old
    values there get no gradient, the op's operands do), as if the base were updated by
    index_put."""
    results = []
    for lib in (mg, torch):
        t = lib.tensor(np.arange(12.0).reshape(3, 4) / 7 + 0.5, requires_grad=True)
        w = lib.tensor([2.0, -1.0, 0.5, 3.0], requires_grad=True)
        y = t * 1
        VIEW_UPDATES[op](y, w)
        (y * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((y, t.grad, w.grad))
    for a, b in zip(*results):
        if b is None:
            assert a is None
        else:
            assert_same(a, b)


def test_in_place_on_a_view_of_a_plain_tensor_with_a_graph_operand():
    results = []
    for lib in (mg, torch):
        w = lib.tensor([2.0, -1.0, 0.5, 3.0], requires_grad=True)
        y = lib.zeros(3, 4)
        y[1].add_(w)
        (y * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((y, w.grad))
    for a, b in zip(*results):
        assert_same(a, b)


VIEW_MAKERS = {
    "reshape": lambda y: y.reshape(12),
    "view": lambda y: y.view(2, 6),
    "t": lambda y: y.t(),
    "transpose of a slice": lambda y: y[1:].transpose(0, 1),
    "diagonal": lambda y: y.diagonal(),
    "unsqueeze": lambda y: y.unsqueeze(0),
}


@pytest.mark.parametrize("maker", list(VIEW_MAKERS))
def test_in_place_on_a_reshaped_or_permuted_view_of_a_graph_tensor_matches_torch(maker):
    """mul_ on a view of a graph tensor changes the base's history: the base's values, the
    gradient to the base's inputs and to the multiplier, as PyTorch."""
    results = []
    for lib in (mg, torch):
        t = lib.tensor(np.arange(12.0).reshape(3, 4) / 7 + 0.5, requires_grad=True)
        w = lib.tensor(1.5, requires_grad=True)
        y = t * 1
        v = VIEW_MAKERS[maker](y)
        v.mul_(w)
        (y * lib.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((y, t.grad, w.grad))
    for a, b in zip(*results):
        assert_same(a, b)


def test_in_place_on_a_split_piece_of_a_graph_tensor_is_refused_as_torch():
    for lib in (mg, torch):
        y = lib.ones(3, 4, requires_grad=True) * 1
        with pytest.raises(RuntimeError, match="view"):
            y.split(2, dim=1)[1].mul_(3)


def _random_index(rng: np.random.Generator, shape: tuple, L) -> tuple:
    """An index of 1 to 4 items drawn from ints, slices, None, Ellipsis, lists, 2-D lists, 0-d
    tensors, bool masks and bools (for ``L``, minigenesis or torch: the same draw for both)."""
    items, dim = [], 0
    for _ in range(int(rng.integers(1, 5))):
        size = shape[min(dim, len(shape) - 1)]
        kind = rng.choice(["int", "slice", "none", "list", "list2d", "t0", "mask", "bool", "ell"])
        if kind == "int":
            items.append(int(rng.integers(-size, size)))
        elif kind == "slice":
            items.append(
                [slice(None), slice(1, None), slice(None, None, 2), slice(-2, None)][
                    int(rng.integers(4))
                ]
            )
        elif kind == "none":
            items.append(None)
        elif kind == "list":
            items.append([int(v) for v in rng.integers(-size, size, int(rng.integers(1, 4)))])
        elif kind == "list2d":
            items.append([[int(rng.integers(size))], [int(rng.integers(size))]])
        elif kind == "t0":
            items.append(L.tensor(int(rng.integers(size))))
        elif kind == "mask":
            items.append(L.tensor([bool(b) for b in rng.random(size) > 0.4]))
        elif kind == "bool":
            items.append(bool(rng.random() > 0.5))
        elif not any(i is Ellipsis for i in items):
            items.append(Ellipsis)
        dim += kind not in ("none", "bool", "ell")
    return tuple(items)


@pytest.mark.parametrize("draw", range(8))
def test_getitem_setitem_and_gradients_over_random_index_combinations(draw):
    """PyTorch's indexing rules (ints select first; advanced indices that are apart go to the
    front) for getitem, its gradient, setitem, and setitem's gradients, over many combinations."""
    shape = (2, 3, 4, 5)
    a = np.arange(120.0).reshape(shape)
    checked = 0
    for k in range(60):
        index_m = _random_index(np.random.default_rng(1000 * draw + k), shape, mg)
        index_t = _random_index(np.random.default_rng(1000 * draw + k), shape, torch)
        m, t = pair(torch, a, "float64", requires_grad=True)
        try:
            t_out = t[index_t]
        except IndexError:
            with pytest.raises(IndexError):
                m[index_m]
            continue
        m_out = m[index_m]
        assert_same(m_out, t_out, what=str(index_t))
        w = data(tuple(t_out.shape), "float64", k)
        (m_out * mg.tensor(w)).sum().backward()
        (t_out * torch.tensor(w)).sum().backward()
        assert_grads([m], [t])
        # setitem, out of a graph and in one (gradients to the old values and to the new ones)
        mb, tb = pair(torch, a, "float64", requires_grad=True)
        mv, tv = pair(torch, data(tuple(t_out.shape), "float64", k + 1), "float64", True)
        my, ty = mb * 1, tb * 1
        my[index_m] = mv
        ty[index_t] = tv
        assert_same(my, ty, what=str(index_t))
        w = data(shape, "float64", k + 2)
        (my * mg.tensor(w)).sum().backward()
        (ty * torch.tensor(w)).sum().backward()
        assert_grads([mb, mv], [tb, tv])
        checked += 1
    assert checked > 30


def test_other_views_of_a_base_changed_in_place_follow_its_new_history():
    """Views taken before the change (of the same row, of a view, of a column) read the new
    values, and their gradients flow through the in-place ops, as in PyTorch."""
    grads = []
    for lib in (mg, torch):
        t = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = t * 1
        a, b, c, d = y[0], y[0], y[1:][0], y[:, 1]
        a.mul_(2)
        y[1].mul_(3)
        ((b * 1).sum() + (c * c).sum() + (d * 5).sum()).backward()
        grads.append((b, c, d, t.grad))
    for m, t in zip(*grads):
        assert_same(m, t)
