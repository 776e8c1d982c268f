"""``mg.load``'s options and file objects as PyTorch's ``torch.load`` takes them: the default
``weights_only=None`` is the safe loader, ``mmap=True`` maps the file, and a stream that cannot
be read as a checkpoint (a pipe, a text-mode file, a PyTorch zip) is a clear error."""

from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import minigenesis as mg
from tests.pickle_asm import call, program, text, wrap_pickle


def test_weights_only_none_is_the_safe_loader_as_in_pytorch(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.ckpt"
    wrap_pickle(program(call("os", "system", text(f"touch {marker}"))), path)
    with pytest.raises(mg.serialization.UnsafeCheckpointError, match="weights_only=False"):
        mg.load(path, weights_only=None)
    assert not marker.exists()


def test_mmap_load_gives_the_saved_values_and_keeps_writes_private(tmp_path):
    path = tmp_path / "m.pth"
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    mg.save({"w": mg.tensor(w), "b": mg.tensor([1.5, -2.0], dtype=mg.float64), "n": 3}, path)
    before = path.read_bytes()
    got = mg.load(path, mmap=True)
    np.testing.assert_array_equal(got["w"].numpy(), w)
    np.testing.assert_array_equal(got["b"].numpy(), np.array([1.5, -2.0]))
    assert got["n"] == 3 and got["b"].dtype == mg.float64
    got["w"].add_(1.0)  # a private (copy-on-write) map: the tensor changes, the file does not
    np.testing.assert_array_equal(got["w"].numpy(), w + 1)
    assert path.read_bytes() == before
    with open(path, "rb") as f:  # a file object with a fileno works too
        np.testing.assert_array_equal(mg.load(f, mmap=True)["w"].numpy(), w)


def test_mmap_load_still_checks_the_checksum(tmp_path):
    path = tmp_path / "m.pth"
    mg.save({"w": mg.zeros(64)}, path)
    raw = bytearray(path.read_bytes())
    raw[40] ^= 1  # inside the array bytes
    path.write_bytes(bytes(raw))
    with pytest.raises(mg.CheckpointError, match="CRC32"):
        mg.load(path, mmap=True)


def test_mmap_of_an_in_memory_file_says_it_needs_a_file_on_disk(tmp_path):
    buf = io.BytesIO()
    mg.save({"w": mg.ones(2)}, buf)
    buf.seek(0)
    with pytest.raises(ValueError, match="mmap=True needs a file on disk"):
        mg.load(buf, mmap=True)


def test_a_stream_that_cannot_seek_is_a_clear_checkpoint_error(tmp_path):
    buf = io.BytesIO()
    mg.save({"w": mg.ones(2)}, buf)
    read_end, write_end = os.pipe()
    os.write(write_end, buf.getvalue())  # small: fits in the pipe without a reader
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        with pytest.raises(mg.CheckpointError, match="cannot seek.*io.BytesIO"):
            mg.load(pipe)


def test_a_text_mode_file_is_refused_naming_binary_mode(tmp_path):
    path = tmp_path / "m.pth"
    mg.save({"w": mg.ones(2)}, path)
    with open(path, encoding="latin-1") as f:
        with pytest.raises(TypeError, match="text mode; open it with 'rb'"):
            mg.load(f)


def test_a_file_open_only_for_writing_is_refused_naming_rb(tmp_path):
    """PyTorch's type (io.UnsupportedOperation); an 'ab' file sits at its end, and was reported
    as 'the file is empty' although it holds a whole checkpoint."""
    path = tmp_path / "m.pth"
    mg.save({"w": mg.ones(2)}, path)
    with open(path, "ab") as f:
        with pytest.raises(io.UnsupportedOperation, match="m.pth: the file is not open for read"):
            mg.load(f)
    assert mg.load(path)["w"].tolist() == [1.0, 1.0]  # untouched


def test_a_zip_archive_as_torch_save_writes_gets_a_torch_load_hint(tmp_path):
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as z:  # the layout of torch.save, and a traversal name
        z.writestr("archive/data.pkl", pickle.dumps({"w": 1}))
        z.writestr("../../escape", b"x")
    with pytest.raises(mg.CheckpointError, match=r"zip archive, as torch.save writes.*torch.load"):
        mg.load(path)
    assert not (tmp_path.parent.parent / "escape").exists()
