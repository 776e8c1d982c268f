"""mg.save of tensors that view one buffer: the buffer is saved once and every tensor is loaded as
a view of it with its saved offset and strides, as PyTorch saves a storage once. The oracle is
NumPy: the same write applied to the saved base array."""

import io

import numpy as np
import pytest
from pickle_asm import FALSE, call, checkpoint_bytes, integer, program, raw_bytes, text, tup

import minigenesis as mg
from minigenesis.serialization import CheckpointError

HOME = "minigenesis.serialization"


def _round_trip(obj, weights_only: bool):
    f = io.BytesIO()
    mg.save(obj, f)
    f.seek(0)
    return mg.load(f, weights_only=weights_only)


@pytest.mark.parametrize("weights_only", [False, True])
def test_loaded_slices_of_one_tensor_share_memory(weights_only):
    base = mg.arange(6.0)
    a, b, whole = _round_trip([base[0:4], base[2:6], base], weights_only)
    a[3] = 100.0  # buffer element 3: b[1] and whole[3] see the write
    ref = np.arange(6.0)
    ref[3] = 100.0
    np.testing.assert_array_equal(whole.numpy(), ref)
    np.testing.assert_array_equal(b.numpy(), ref[2:6])


@pytest.mark.parametrize("weights_only", [False, True])
@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16, mg.int8, mg.bool, mg.float64])
def test_loaded_state_dict_views_keep_strides_and_sharing(weights_only, dtype):
    base = mg.arange(12).to(dtype).reshape(3, 4)
    sd = {"t": base.t(), "col": base[:, 1], "p": mg.nn.Parameter(base[1], requires_grad=False)}
    got = _round_trip(sd, weights_only)
    assert got["t"].stride() == (1, 4) and got["col"].stride() == (4,)
    assert isinstance(got["p"], mg.nn.Parameter)
    got["p"].fill_(0)  # row 1 of the buffer: col[1] and t[:, 1]
    ref = np.arange(12).astype(bool if dtype == mg.bool else np.float64).reshape(3, 4)
    ref[1] = 0
    np.testing.assert_array_equal(got["t"].double().numpy(), ref.T.astype(np.float64))
    np.testing.assert_array_equal(got["col"].double().numpy(), ref[:, 1].astype(np.float64))


def test_a_view_reaching_outside_its_saved_buffer_is_refused():
    root = call(HOME, "_rebuild_array", raw_bytes(np.zeros(4, "<f4").tobytes()), text("<f4"),
                tup(integer(4)), FALSE)  # fmt: skip
    view = call(
        HOME, "_rebuild_view", root, text("<f4"), tup(integer(3)), tup(integer(4)), integer(8)
    )  # fmt: skip  (elements at bytes 8, 12, 16: 16 is past the end)
    f = io.BytesIO(checkpoint_bytes(program(view)))
    with pytest.raises(CheckpointError, match="outside"):
        mg.load(f)
