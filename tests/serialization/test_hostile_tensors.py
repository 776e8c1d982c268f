"""Crafted tensor records in a weights-only load: each is refused with a CheckpointError naming
what is wrong, or rebuilt as the tensor PyTorch's loader would give; never a tensor PyTorch
could not hold."""

import io

import numpy as np
import pytest
from pickle_asm import FALSE, TRUE, call, checkpoint_bytes, integer, program, raw_bytes, text, tup

import minigenesis as mg
from minigenesis.serialization import CheckpointError

HOME = "minigenesis.serialization"


def _load(raw: bytes):
    f = io.BytesIO(checkpoint_bytes(raw))
    f.name = "crafted.ckpt"
    return mg.load(f)


def _tensor(rebuild: tuple[str, str], data: np.ndarray, requires_grad: bytes) -> bytes:
    array = call(
        HOME, "_rebuild_array", raw_bytes(data.tobytes()), text(data.dtype.str),
        tup(*map(integer, data.shape)), FALSE,
    )  # fmt: skip
    return program(call(*rebuild, array, requires_grad))


@pytest.mark.parametrize(
    "rebuild",
    [
        ("minigenesis._tensor", "_rebuild_tensor"),
        ("minigenesis.nn.parameter", "_rebuild_parameter"),
    ],
)
def test_an_integer_tensor_that_requires_grad_is_refused(rebuild):
    """PyTorch cannot make an int tensor that requires grad; a file that asks for one is
    malformed (it was a tensor with requires_grad=True and dtype int32)."""
    with pytest.raises(CheckpointError, match="only floating-point tensors can require grad"):
        _load(_tensor(rebuild, np.arange(3, dtype=np.int32), TRUE))
    t = _load(_tensor(rebuild, np.arange(3, dtype=np.int32), FALSE))
    assert t.dtype == mg.int32 and not t.requires_grad and t.tolist() == [0, 1, 2]
    t = _load(_tensor(rebuild, np.arange(3, dtype=np.float32), TRUE))
    assert t.requires_grad and t.is_leaf and t.tolist() == [0.0, 1.0, 2.0]
