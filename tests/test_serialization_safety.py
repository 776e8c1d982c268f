"""Checkpoints: hostile and broken files are refused with a clear error, and nothing runs."""

from __future__ import annotations

import importlib
import io
import os
import pickle
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.serialization import UnsafeCheckpointError
from minigenesis.serialization.format import END, MAGIC, MIN_SIZE, write_checkpoint


def wrap_pickle(raw: bytes, path) -> None:
    """Put arbitrary pickle bytes into a well-formed checkpoint (right header, valid CRC), so
    that only the unpickler stands between the bytes and the caller."""

    class RawPickler:
        def __init__(self, stream, buffer_callback):
            self.stream = stream

        def dump(self, obj):
            self.stream.write(raw)

    with open(path, "wb") as f:
        write_checkpoint(f, None, RawPickler)


class SystemCall:
    """Unpickling this runs a shell command (the classic pickle exploit)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def test_os_system_payload_is_refused_and_does_not_run(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.ckpt"
    mg.save({"model": {"w": mg.ones(2)}, "x": SystemCall(f"touch {marker}")}, path)
    with pytest.raises(pickle.UnpicklingError) as info:
        mg.load(path)
    message = str(info.value)
    assert os.system.__module__ + ".system" in message  # names the refused global (posix.system)
    assert "weights_only=False" in message and str(path) in message
    assert isinstance(info.value, mg.CheckpointError)
    assert not marker.exists()
    # The payload is live: a trusted (weights_only=False) load does run it. This is what the
    # default refuses.
    mg.load(path, weights_only=False)
    assert marker.exists()


class Reduce:
    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


@pytest.mark.parametrize(
    "payload",
    [
        Reduce(eval, "__import__('os').getpid()"),
        Reduce(exec, "x = 1"),
        Reduce(getattr, [], "append"),
        Reduce(importlib.import_module, "os"),
        Reduce(subprocess.Popen, ["true"]),
        Reduce(open, "/dev/null"),
        Reduce(os.remove, "/nonexistent"),
        Reduce(type, "X", (), {}),
        Reduce(np.load, "/nonexistent.npy"),  # NumPy, but not an allow-listed name
        Reduce(np.frombuffer, b"\x00" * 8),
    ],
    ids=lambda p: f"{p.fn.__module__}.{p.fn.__qualname__}",
)
def test_any_global_outside_the_allow_list_is_refused(tmp_path, payload):
    raw = pickle.dumps({"x": payload}, protocol=5)
    path = tmp_path / "p.ckpt"
    wrap_pickle(raw, path)
    with pytest.raises(UnsafeCheckpointError, match=f"'{payload.fn.__module__}.") as info:
        mg.load(path)
    assert "weights_only=False" in str(info.value)


class Config:
    def __init__(self, lr: float) -> None:
        self.lr = lr


def test_a_user_class_is_refused_but_loads_when_trusted(tmp_path):
    path = tmp_path / "obj.ckpt"
    mg.save({"config": Config(0.1), "w": mg.ones(2)}, path)
    with pytest.raises(UnsafeCheckpointError, match=r"\.Config'"):
        mg.load(path)
    out = mg.load(path, weights_only=False)
    assert out["config"].lr == 0.1 and out["w"].numpy().tolist() == [1, 1]


def test_forged_object_arrays_are_refused(tmp_path):
    """Viewing file bytes as object pointers would let a file forge Python objects."""
    from minigenesis.serialization import _rebuild_array

    path = tmp_path / "forged.ckpt"
    forged = Reduce(_rebuild_array, b"\x41" * 16, "|O", (2,), False)
    wrap_pickle(pickle.dumps(forged, protocol=5), path)
    with pytest.raises(mg.CheckpointError, match="refused dtype"):
        mg.load(path)
    # NumPy's own rebuild path guards object arrays from raw bytes too.
    from minigenesis.serialization import allowed_globals

    _reconstruct = allowed_globals()["numpy.core.multiarray", "_reconstruct"]  # NumPy 1.x or 2.x

    class Forged:
        def __reduce__(self):
            return (
                _reconstruct,
                (np.ndarray, (0,), b"b"),
                (1, (2,), np.dtype("O"), False, b"A" * 16),
            )

    wrap_pickle(pickle.dumps(Forged(), protocol=5), path)
    with pytest.raises((TypeError, ValueError, mg.CheckpointError)):
        mg.load(path)


def test_rebuild_array_checks_sizes(tmp_path):
    from minigenesis.serialization import _rebuild_array

    path = tmp_path / "bad.ckpt"
    wrap_pickle(pickle.dumps(Reduce(_rebuild_array, b"\x00" * 12, "<f4", (4,), False)), path)
    with pytest.raises(mg.CheckpointError, match="12 bytes cannot hold shape"):
        mg.load(path)


# ---------------------------------------------------------------------------- broken files
@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.ckpt"
    mg.save({"w": mg.randn(16, 8), "b": mg.zeros(8, dtype=mg.bfloat16), "step": 3}, path)
    return path


@pytest.mark.parametrize(
    "cut, expected",
    [
        (lambda n: 0, "empty"),
        (lambda n: 1, "truncated: 1 bytes"),
        (lambda n: 10, "truncated: 10 bytes"),
        (lambda n: n // 2, "truncated or was not completely written"),
        (lambda n: n - 1, "truncated or was not completely written"),
    ],
    ids=["0 bytes", "1 byte", "10 bytes", "half", "one byte short"],
)
def test_truncated_files_raise_checkpoint_error(good_file, tmp_path, cut, expected):
    data = good_file.read_bytes()
    bad = tmp_path / "cut.ckpt"
    bad.write_bytes(data[: cut(len(data))])
    with pytest.raises(mg.CheckpointError, match=expected) as info:
        mg.load(bad)
    assert str(bad) in str(info.value)


def test_one_flipped_bit_anywhere_is_caught(good_file, tmp_path):
    data = good_file.read_bytes()
    for pos in range(len(data)):  # every byte, a different bit each time
        flipped = bytearray(data)
        flipped[pos] ^= 1 << (pos % 8)
        f = io.BytesIO(flipped)  # in memory: the same reader, without 700 disk writes
        f.name = f"flipped-at-{pos}.ckpt"
        with pytest.raises(mg.CheckpointError, match=f.name):
            mg.load(f)


def test_flip_in_the_array_bytes_names_the_checksum(good_file, tmp_path):
    data = bytearray(good_file.read_bytes())
    data[100] ^= 0x10  # inside the first array
    bad = tmp_path / "flipped.ckpt"
    bad.write_bytes(data)
    with pytest.raises(mg.CheckpointError, match="CRC32 checksum does not match"):
        mg.load(bad)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        mg.load(tmp_path / "nope.ckpt")


def test_not_a_checkpoint(tmp_path):
    plain = tmp_path / "plain.pkl"
    plain.write_bytes(pickle.dumps({"a": 1}, protocol=5) + b"\x00" * 64)
    with pytest.raises(mg.CheckpointError, match="not a minigenesis checkpoint.*pickle.load"):
        mg.load(plain)
    text = tmp_path / "notes.txt"
    text.write_text("hello " * 20)
    with pytest.raises(mg.CheckpointError, match="not a minigenesis checkpoint"):
        mg.load(text)


def test_future_format_version_is_named(good_file, tmp_path):
    data = bytearray(good_file.read_bytes())
    data[8:12] = struct.pack("<I", 99)
    # Recompute the checksum, as a future writer would have: only the version is "wrong".
    crc = zlib.crc32(bytes(data[: len(data) - 12]))
    data[len(data) - 12 : len(data) - 8] = struct.pack("<I", crc)
    bad = tmp_path / "future.ckpt"
    bad.write_bytes(data)
    with pytest.raises(mg.CheckpointError, match="format version 99"):
        mg.load(bad)


def test_huge_sizes_in_the_footer_allocate_nothing(tmp_path):
    # A footer claiming 2**60 arrays must be refused from the file size, not by MemoryError.
    body = MAGIC + struct.pack("<II", 1, 0)
    footer_head = struct.pack("<QQ", 2**60, 2**40)
    crc = zlib.crc32(body + footer_head)
    bad = tmp_path / "huge.ckpt"
    bad.write_bytes(body + footer_head + struct.pack("<I", crc) + END)
    assert bad.stat().st_size == MIN_SIZE
    with pytest.raises(mg.CheckpointError, match="more than the file"):
        mg.load(bad)


def test_valid_container_with_garbage_pickle(tmp_path):
    path = tmp_path / "garbage.ckpt"
    wrap_pickle(b"\x80\x05garbage", path)
    with pytest.raises(mg.CheckpointError, match="cannot be unpickled"):
        mg.load(path)


def test_loading_runs_in_a_fresh_interpreter(good_file):
    """A checkpoint needs nothing from the writing process (no pickled references to __main__)."""
    code = (
        "import minigenesis as mg, sys; d = mg.load(sys.argv[1]); "
        "print(d['step'], d['w'].shape, d['b'].dtype)"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code, str(good_file)],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    assert out.stdout.split() == ["3", "(16,", "8)", "minigenesis.bfloat16"]


@pytest.mark.parametrize("core", [b"numpy.core", b"numpy._core"])
def test_numpy_1_and_2_module_names_both_load(tmp_path, core):
    """NumPy 2 pickles name numpy._core, NumPy 1 numpy.core: files from either load under
    either (protocol 3 spells globals as text lines, so the module name can be swapped)."""
    obj = {"scalar": np.float32(1.5), "rec": np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")])}
    raw = pickle.dumps(obj, protocol=3)
    raw = raw.replace(b"numpy._core.", b"numpy.core.").replace(b"numpy.core.", core + b".")
    assert core + b".multiarray" in raw
    path = tmp_path / "np.ckpt"
    wrap_pickle(raw, path)
    out = mg.load(path)
    assert out["scalar"] == np.float32(1.5) and out["scalar"].dtype == np.float32
    assert out["rec"].tolist() == [(1, 2.0)]
