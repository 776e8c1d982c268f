"""PyTorch parity: shape ops (reshape/view, transpose/permute, squeeze/unsqueeze, flatten,
expand, split/chunk, repeat, cat/stack) with negative dims and edge cases; values, shapes,
gradients, and errors where PyTorch refuses the input.

Each case is ``fn(x, L)`` with ``L`` the library module (``mg`` or ``torch``), so one lambda
serves both. Shape errors are compared by "both raise"; the exception class may differ
(PyTorch raises RuntimeError for most, minigenesis ValueError/IndexError with the shapes in the
message).
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_grads, assert_same, data, pair

import minigenesis as mg

torch = pytest.importorskip("torch")

_ERRORS = (ValueError, RuntimeError, IndexError, TypeError)

SHAPE_OPS = {
    "reshape": lambda x, L: x.reshape(4, -1),
    "reshape_tuple": lambda x, L: x.reshape((3, 8)),
    "view": lambda x, L: x.view(-1, 4),
    "view_as": lambda x, L: x.view_as(x.reshape(6, 4)),
    "transpose": lambda x, L: x.transpose(0, 2),
    "transpose_neg": lambda x, L: x.transpose(-1, -2),
    "permute": lambda x, L: x.permute(2, 0, 1),
    "permute_tuple": lambda x, L: x.permute((1, 2, 0)),
    "permute_neg": lambda x, L: x.permute(-1, 0, 1),
    "T": lambda x, L: x.T,
    "mT": lambda x, L: x.mT,
    "t_2d": lambda x, L: x[0].t(),
    "unsqueeze": lambda x, L: x.unsqueeze(1),
    "unsqueeze_neg": lambda x, L: x.unsqueeze(-1),
    "unsqueeze_neg4": lambda x, L: x.unsqueeze(-4),
    "squeeze_all": lambda x, L: x[:, :1].squeeze(),
    "squeeze_dim": lambda x, L: x[:, :1].squeeze(1),
    "squeeze_not_one": lambda x, L: x.squeeze(0),
    "squeeze_tuple": lambda x, L: x[:1, :1].squeeze((0, 1)),
    "squeeze_neg": lambda x, L: x[:, :, :1].squeeze(-1),
    "flatten": lambda x, L: x.flatten(),
    "flatten_start": lambda x, L: x.flatten(1),
    "flatten_range": lambda x, L: x.flatten(0, 1),
    "flatten_neg": lambda x, L: x.flatten(-2, -1),
    "expand": lambda x, L: x[:, :1].expand(2, 5, 4),
    "expand_keep": lambda x, L: x[:, :1].expand(-1, 5, -1),
    "expand_new_dim": lambda x, L: x.expand(3, 2, 3, 4),
    "expand_as": lambda x, L: x[:1].expand_as(x),
    "broadcast_to": lambda x, L: x[:1].broadcast_to((5, 3, 4)),
    "split_size": lambda x, L: x.split(3, dim=2),
    "split_exact": lambda x, L: x.split(2, 2),
    "split_sizes": lambda x, L: x.split([1, 3], -1),
    "split_tuple": lambda x, L: x.split((2, 2), 2),
    "split_big": lambda x, L: x.split(10, 1),
    "chunk": lambda x, L: x.chunk(2, 1),
    "chunk_uneven": lambda x, L: x.chunk(3, 2),
    "chunk_more_than_size": lambda x, L: x.chunk(4, 1),
    "chunk_neg": lambda x, L: x.chunk(2, -1),
    "repeat": lambda x, L: x.repeat(2, 1, 3),
    "repeat_new_dims": lambda x, L: x.repeat(2, 1, 1, 2),
    "repeat_tuple": lambda x, L: x.repeat((1, 2, 1)),
    "repeat_zero": lambda x, L: x.repeat(0, 1, 1),
    "cat": lambda x, L: L.cat([x, x * 2], 0),
    "cat_neg": lambda x, L: L.cat((x, x[:, :, :1]), -1),
    "cat_one": lambda x, L: L.cat([x]),
    "cat_legacy_empty": lambda x, L: L.cat([x, L.zeros(0)]),
    "concat": lambda x, L: L.concat([x, x], dim=1),
    "stack": lambda x, L: L.stack([x, x * 2]),
    "stack_neg": lambda x, L: L.stack([x, x], -1),
    "stack_mid": lambda x, L: L.stack([x, x, x], dim=2),
    "stack_neg_first": lambda x, L: L.stack([x, x], -4),
    "stack_0d": lambda x, L: L.stack([x[0, 0, 0], x[1, 1, 1]], -1),
    "contiguous": lambda x, L: x.transpose(0, 1).contiguous(),
    "clone": lambda x, L: x.clone(),
    "fn_flatten": lambda x, L: L.flatten(x, 1),
    "fn_reshape": lambda x, L: L.reshape(x, (4, 6)),
    "fn_transpose": lambda x, L: L.transpose(x, 0, 1),
    "fn_permute": lambda x, L: L.permute(x, (2, 1, 0)),
    "fn_squeeze": lambda x, L: L.squeeze(x[:1]),
    "fn_unsqueeze": lambda x, L: L.unsqueeze(x, 0),
    "fn_split": lambda x, L: L.split(x, 1, 0),
    "fn_chunk": lambda x, L: L.chunk(x, 2, 2),
}


def _outputs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize("op", list(SHAPE_OPS))
def test_shape_op_values_and_gradients(op):
    fn = SHAPE_OPS[op]
    m, t = pair(torch, data((2, 3, 4), "float64", 21), "float32", requires_grad=True)
    m_out, t_out = fn(m, mg), fn(t, torch)
    assert isinstance(m_out, tuple) == isinstance(t_out, tuple)
    ms, ts = _outputs(m_out), _outputs(t_out)
    assert len(ms) == len(ts)
    m_loss, t_loss = 0, 0
    for i, (a, b) in enumerate(zip(ms, ts)):
        assert_same(a, b, what=f"output {i}")
        w = data(tuple(b.shape), "float64", 22 + i)
        m_loss = m_loss + (a * mg.tensor(w, dtype=mg.float32)).sum()
        t_loss = t_loss + (b * torch.tensor(w, dtype=torch.float32)).sum()
    m_loss.backward()
    t_loss.backward()
    assert_grads([m], [t], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int64", "bool"])
def test_shape_ops_keep_the_dtype(dtype):
    m, t = pair(torch, data((2, 3, 4), dtype, 23), dtype)
    for op in ("reshape", "permute", "expand", "split_sizes", "repeat", "cat", "stack", "chunk"):
        for a, b in zip(_outputs(SHAPE_OPS[op](m, mg)), _outputs(SHAPE_OPS[op](t, torch))):
            assert_same(a, b, what=op)


def test_cat_and_stack_promote_mixed_dtypes():
    pairs = [
        ("float32", "float64"),
        ("int64", "float32"),
        ("float16", "float32"),
        ("int32", "int64"),
    ]
    pairs += [("bool", "int8"), ("float16", "bfloat16"), ("uint8", "int8")]
    for a, b in pairs:
        ma, ta = pair(torch, data((2, 3), a, 24), a)
        mb, tb = pair(torch, data((2, 3), b, 25), b)
        assert_same(mg.cat([ma, mb]), torch.cat([ta, tb]), what=f"cat {a} {b}")
        assert_same(mg.stack([ma, mb], 1), torch.stack([ta, tb], 1), what=f"stack {a} {b}")


SHAPE_ERRORS = {
    "view_bad": lambda x, L: x.view(5, -1),
    "reshape_two_neg": lambda x, L: x.reshape(-1, -1),
    "permute_repeated": lambda x, L: x.permute(0, 0, 1),
    "permute_short": lambda x, L: x.permute(0, 1),
    "expand_bad": lambda x, L: x.expand(2, 5, 4),
    "expand_fewer_dims": lambda x, L: x.expand(3, 4),
    "split_bad_sizes": lambda x, L: x.split([1, 2], -1),
    "repeat_too_few": lambda x, L: x.repeat(2, 2),
    "cat_mismatch": lambda x, L: L.cat([x, x[:1, :2]], 0),
    "cat_nothing": lambda x, L: L.cat([]),
    "cat_0d": lambda x, L: L.cat([x[0, 0, 0], x[0, 0, 0]]),
    "cat_dim_out_of_range": lambda x, L: L.cat([x, x], 3),
    "stack_mismatch": lambda x, L: L.stack([x, x[:1]]),
    "stack_dim_out_of_range": lambda x, L: L.stack([x, x], 4),
    "squeeze_dim_out_of_range": lambda x, L: x.squeeze(3),
    "sum_dim_out_of_range": lambda x, L: x.sum(-4),
}


@pytest.mark.parametrize("op", list(SHAPE_ERRORS))
def test_shape_errors(op):
    m, t = pair(torch, data((2, 3, 4), "float64", 26), "float32")
    with pytest.raises(_ERRORS):
        SHAPE_ERRORS[op](t, torch)
    with pytest.raises(_ERRORS):
        SHAPE_ERRORS[op](m, mg)


_STILL_BROKEN: set[str] = set()  # all fixed; the reasons say what was wrong
KNOWN_SHAPE_BUGS = {
    "t_3d": (
        lambda x, L: x.t(),
        "tensor_shape.py t(): returns a 3-D tensor unchanged; PyTorch raises "
        "'t() expects a tensor with <= 2 dimensions'",
    ),
    "unsqueeze_out_of_range": (
        lambda x, L: x.unsqueeze(5),
        "tensor_shape.py unsqueeze: dim % (ndim + 1) wraps an out-of-range dim; it must raise "
        "IndexError (dims in [-ndim-1, ndim])",
    ),
    "transpose_out_of_range": (
        lambda x, L: x.transpose(0, 3),
        "tensor_shape.py transpose: dim % ndim wraps out-of-range dims; use norm_dim",
    ),
    "permute_out_of_range": (
        lambda x, L: x.permute(0, 1, 5),
        "tensor_shape.py permute: d % ndim wraps out-of-range dims; use norm_dim",
    ),
    "flatten_out_of_range": (
        lambda x, L: x.flatten(0, 5),
        "tensor_shape.py flatten: start/end % ndim wrap out-of-range dims; use norm_dim",
    ),
    "flatten_start_after_end": (
        lambda x, L: x.flatten(2, 0),
        "tensor_shape.py flatten: start_dim > end_dim must raise 'start_dim cannot come after "
        "end_dim' (it raises a confusing reshape error into a 5-D shape)",
    ),
    "chunk_zero": (
        lambda x, L: x.chunk(0),
        "tensor_shape.py chunk(0) raises ZeroDivisionError; it must say chunks must be > 0",
    ),
    "split_zero": (
        lambda x, L: x.split(0),
        "tensor_shape.py split(0) raises 'range() arg 3 must not be zero'; it must say the "
        "split size must be positive",
    ),
    "view_non_contiguous": (
        lambda x, L: x.transpose(0, 1).view(-1),
        "tensor_shape.py view = reshape copies silently; PyTorch's view refuses memory it "
        "cannot view (NumPy: set .shape on arr.view() raises when a copy is needed)",
    ),
}


@pytest.mark.parametrize(
    "op",
    [
        pytest.param(k, marks=pytest.mark.xfail(reason=v[1], strict=True))
        if k in _STILL_BROKEN
        else k
        for k, v in KNOWN_SHAPE_BUGS.items()
    ],
)
def test_shape_errors_with_clear_messages(op):
    fn = KNOWN_SHAPE_BUGS[op][0]
    m, t = pair(torch, data((2, 3, 4), "float64", 26), "float32")
    with pytest.raises(_ERRORS):
        fn(t, torch)
    # the message must name what is wrong, not leak an internal error
    match = {"flatten_start_after_end": "start_dim", "split_zero": "split", "chunk_zero": "chunk"}
    with pytest.raises((ValueError, RuntimeError, IndexError), match=match.get(op)):
        fn(m, mg)


def test_views_share_memory_and_see_in_place_changes():
    m, t = pair(torch, np.arange(12.0).reshape(3, 4), "float32")
    for fn in (
        lambda x: x.view(4, 3),
        lambda x: x.transpose(0, 1),
        lambda x: x[1],
        lambda x: x.unsqueeze(0),
    ):
        mv, tv = fn(m), fn(t)
        m.add_(1.0)
        t.add_(1.0)
        assert_same(mv, tv)
