"""Checkpoints: hostile and broken files are refused with a clear error, and nothing runs."""

from __future__ import annotations

import collections
import importlib
import io
import os
import pickle
import struct
import subprocess
import sys
import tracemalloc
import zlib

import numpy as np
import pytest
from pickle_asm import (
    APPEND,
    BUILD,
    EMPTY_DICT,
    EMPTY_LIST,
    EMPTY_TUPLE,
    FALSE,
    MARK,
    MEMOIZE,
    NEXT_BUFFER,
    NONE,
    POP,
    REDUCE,
    SETITEM,
    TRUE,
    TUPLE1,
    binget,
    binput,
    call,
    checkpoint_bytes,
    glob,
    integer,
    program,
    raw_bytes,
    text,
    tup,
    wrap_pickle,
)

import minigenesis as mg
from minigenesis.serialization import UnsafeCheckpointError
from minigenesis.serialization.format import END, MAGIC, MIN_SIZE


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


@pytest.mark.parametrize(
    "content, expected",
    [
        (pickle.dumps({"a": 1}), r"not a minigenesis checkpoint.*plain pickle"),
        (b"hello\n", r"not a minigenesis checkpoint: it starts with b'hello\\n'"),
        (b'{"lr": 0.1}', r"not a minigenesis checkpoint: it starts with b'\{\"lr\": 0'"),
    ],
    ids=["pickle", "text", "json"],
)
def test_a_short_file_of_another_format_is_named_as_such_not_as_truncated(
    tmp_path, content, expected
):
    # shorter than the smallest checkpoint: its first bytes already say it is no checkpoint
    path = tmp_path / "other.pth"
    path.write_bytes(content)
    with pytest.raises(mg.CheckpointError, match=expected) as info:
        mg.load(path)
    assert "truncated" not in str(info.value)


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


def test_loading_runs_in_a_fresh_interpreter(good_file):
    """A checkpoint needs nothing from the writing process (no pickled references to __main__)."""
    code = (
        "import minigenesis as mg, sys; d = mg.load(sys.argv[1]); "
        "print(d['step'], d['w'].shape, d['b'].dtype)"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, "-c", code, str(good_file)],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    assert out.stdout.split() == ["3", "minigenesis.Size([16,", "8])", "minigenesis.bfloat16"]


# ----------------------------------------------------------------- crafted payloads (assembled)
HOME = "minigenesis.serialization"


def load_raw(raw: bytes, buffers=(), **kwargs):
    """Load assembled pickle bytes from an in-memory, checksum-valid checkpoint."""
    f = io.BytesIO(checkpoint_bytes(raw, buffers))
    f.name = "crafted.ckpt"
    return mg.load(f, **kwargs)


def array(buf: bytes, token: str, shape: tuple) -> bytes:
    """``_rebuild_array(buf, token, shape, False)`` with in-band bytes."""
    return call(
        HOME, "_rebuild_array", raw_bytes(buf), text(token), tup(*map(integer, shape)), FALSE
    )


def test_assembled_payloads_load_like_saved_ones():
    """The assembler is right (so the refusals below are about the payload, not the helper)."""
    raw = program(
        EMPTY_DICT,
        text("w"),
        call(
            HOME,
            "_rebuild_located",
            glob("minigenesis.tensor", "_rebuild_tensor"),
            tup(array(np.arange(3, dtype="<f4").tobytes(), "<f4", (3,)), FALSE),
            text("cpu"),
        ),
        SETITEM,
    )
    out = load_raw(raw)
    assert out["w"].numpy().tolist() == [0.0, 1.0, 2.0] and out["w"].dtype == mg.float32


# A NumPy dtype whose "holds Python objects" flags BUILD clears: NumPy's own rebuild helpers then
# read the following bytes as PyObject pointers (a crash, or worse, inside Unpickler.load()).
FORGED_OBJECT_DTYPE = (
    call("numpy", "dtype", text("O8"), FALSE, TRUE)
    + tup(integer(3), text("|"), NONE, NONE, NONE, integer(-1), integer(-1), integer(0))
    + BUILD
)


@pytest.mark.parametrize(
    "raw",
    [
        program(FORGED_OBJECT_DTYPE),
        program(
            call("numpy._core.multiarray", "scalar", FORGED_OBJECT_DTYPE, raw_bytes(b"\x41" * 8))
        ),
        program(call("numpy.core.numeric", "_frombuffer", raw_bytes(b"\x41" * 16), text("x"))),
        program(call("numpy.core.multiarray", "_reconstruct", glob("numpy", "ndarray"))),
        program(call("ml_dtypes", "bfloat16", text("zz"))),
        program(call("builtins", "bytearray", integer(2**31))),
        program(call("builtins", "getattr", NONE, text("x"))),
        program(call("posix", "system", text("true"))),
        program(b"cposix\nsystem\n" + tup(text("true")) + REDUCE),  # protocol-2 text GLOBAL
        program(b"c__builtin__\neval\n" + tup(text("1")) + REDUCE),
    ],
    ids=[
        "dtype-BUILD",
        "scalar",
        "_frombuffer",
        "_reconstruct",
        "ml_dtypes-scalar-call",
        "bytearray",
        "getattr",
        "system",
        "GLOBAL-system",
        "GLOBAL-eval",
    ],
)
def test_numpy_internals_and_other_globals_are_refused_before_anything_runs(raw):
    with pytest.raises(
        UnsafeCheckpointError, match=r"crafted\.ckpt: .*refused .*weights_only=False"
    ):
        load_raw(raw)


def test_numpy_pickled_objects_get_a_hint(tmp_path):
    """A file that holds NumPy's own pickling (an old file, or a string array) is refused with
    the reason and the way out, and loads when trusted."""
    raw = pickle.dumps({"s": np.array(["ab"]), "x": np.float32(1.5)}, protocol=5)
    with pytest.raises(UnsafeCheckpointError, match="how NumPy pickles .*weights_only=False"):
        load_raw(raw)
    out = load_raw(raw, weights_only=False)
    assert out["s"].tolist() == ["ab"] and out["x"] == np.float32(1.5)


@pytest.mark.parametrize(
    "opcode, name",
    [
        (BUILD, "BUILD"),
        (pickle.INST + b"builtins\nlist\n", "INST"),
        (pickle.OBJ, "OBJ"),
        (pickle.NEWOBJ, "NEWOBJ"),
        (pickle.NEWOBJ_EX, "NEWOBJ_EX"),
        (pickle.EXT1 + b"\x01", "EXT1"),
        (pickle.PERSID + b"x\n", "PERSID"),
        (pickle.BINPERSID, "BINPERSID"),
        (pickle.INT + b"1\n", "INT"),
        (pickle.DUP, "DUP"),
    ],
)
def test_forbidden_opcodes_are_refused_by_name(opcode, name):
    # BUILD on an OrderedDict, NEWOBJ on a tuple ...: whatever they would act on, they are refused.
    raw = program(call("collections", "OrderedDict"), EMPTY_TUPLE, EMPTY_DICT, opcode)
    with pytest.raises(UnsafeCheckpointError, match=f"crafted.ckpt: opcode {name} is not allowed"):
        load_raw(raw)


@pytest.mark.parametrize(
    "token", ["|O", "<U1", "<M8[s]", "<m8[s]", "|S3", "|V8", "[('a', '<f4')]", "(2,)<f4", "f4"]
)
def test_rebuild_array_accepts_only_numeric_dtype_tokens(token):
    with pytest.raises(UnsafeCheckpointError, match="not a plain numeric dtype"):
        load_raw(program(array(b"\x41" * 8, token, (1,))))


def test_rebuild_array_checks_sizes():
    with pytest.raises(mg.CheckpointError, match="12 bytes cannot hold shape"):
        load_raw(program(array(b"\x00" * 12, "<f4", (4,))))
    with pytest.raises(mg.CheckpointError, match="non-negative ints"):
        load_raw(program(array(b"\x00" * 4, "<f4", (-1,))))


@pytest.mark.parametrize(
    "raw, message",
    [
        # _rebuild_located calls only the tensor rebuilders, with a tuple and a location string
        (
            call(HOME, "_rebuild_located", glob("builtins", "list"), tup(EMPTY_LIST), text("cpu")),
            "does not rebuild a tensor",
        ),
        (
            call(
                HOME,
                "_rebuild_located",
                glob("minigenesis.tensor", "_rebuild_tensor"),
                tup(text("a"), text("b")),
                text("cpu"),
            ),
            r"_rebuild_tensor called with \(str, str\)",
        ),
        (call("minigenesis.backend", "device", text("cuda:99999999")), "device 'cuda:99999999'"),
        (call("builtins", "complex", text("x")), "complex called with"),
        (call("builtins", "complex", integer(10**400), integer(0)), "too large"),
        (call("minigenesis.dtypes", "get_dtype", text("weird")), "unknown dtype name 'weird'"),
        (call("collections", "OrderedDict", EMPTY_LIST), "OrderedDict called with"),
        (EMPTY_DICT + EMPTY_LIST + integer(1) + SETITEM, "dict key or set item is a list"),
        (EMPTY_DICT + tup(integer(1)) + integer(1) + SETITEM, "is a tuple"),
        (EMPTY_DICT + integer(2**80) + integer(1) + SETITEM, "an int of 81 bits"),
        (pickle.BINUNICODE + b"\x02\x00\x00\x00\xff\xfe", "not valid UTF-8"),
        (pickle.BINBYTES8 + struct.pack("<Q", 2**62), "length field says 4611686018427387904"),
        (pickle.BINUNICODE8 + struct.pack("<Q", 2**40), "length field"),
        (pickle.LONG4 + struct.pack("<i", 2**31 - 1), "length field"),
        (pickle.FRAME + struct.pack("<Q", 2**60), "FRAME of"),
        (pickle.BYTEARRAY8 + struct.pack("<Q", 2**31), "length field"),
        (binget(7), "memo entry 7 was never stored"),
        (NEXT_BUFFER, "more arrays than the file's 0"),
        (EMPTY_LIST + APPEND, "stack underflow"),
        (NONE + NONE, "STOP with 2 values"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_malformed_payloads_are_checkpoint_errors_naming_the_file(raw, message):
    with pytest.raises(mg.CheckpointError, match=message) as info:
        load_raw(program(raw))
    assert str(info.value).startswith("crafted.ckpt: ")
    assert "at byte" in str(info.value)  # and where in the pickle


def test_unexpected_errors_inside_a_load_become_checkpoint_errors(monkeypatch):
    """One wrapper: even a MemoryError from deep inside is reported against the file."""
    from minigenesis.serialization import restricted_calls

    def out_of_memory(*args):
        raise MemoryError

    monkeypatch.setattr(restricted_calls, "_rebuild_array", out_of_memory)
    with pytest.raises(mg.CheckpointError, match=r"crafted\.ckpt: .*MemoryError"):
        load_raw(program(array(b"\x00" * 4, "<f4", (1,))))


def test_garbage_after_a_valid_header_is_a_checkpoint_error():
    with pytest.raises(mg.CheckpointError, match="opcode"):
        load_raw(b"\x80\x05garbage")
    with pytest.raises(mg.CheckpointError, match="cannot be unpickled"):
        load_raw(b"\x80\x05garbage", weights_only=False)


def deep_lists(levels: int) -> bytes:
    # [[[...]]]: EMPTY_LIST n times, then APPEND n-1 times (2 bytes a level, no MARK at all)
    return program(EMPTY_LIST * levels + APPEND * (levels - 1))


def copy_bomb(n: int, copies: int) -> bytes:
    # one list of n items, then list(x) of it `copies` times: quadratic work from a linear file
    one_copy = glob("builtins", "list") + binget(0) + TUPLE1 + REDUCE + POP
    return program(EMPTY_LIST + binput(0) + MARK + NONE * n + pickle.APPENDS + one_copy * copies)


@pytest.mark.parametrize(
    "raw, message",
    [
        (program(NONE + pickle.LONG_BINPUT + struct.pack("<I", 2**27)), None),  # 2 GB in C
        (deep_lists(20_000), "nest deeper than 100"),  # (50,000: refused for its memory)
        (program(MARK * 50_000), "MARKs nest deeper than 100"),
        (copy_bomb(20_000, 20_000), "more copying|more Python objects"),  # (the copies kept)
        (program(EMPTY_LIST + MEMOIZE + binget(0) + APPEND), "reference cycle"),
        (
            program(
                call(
                    "numpy.core.multiarray",
                    "_reconstruct",
                    glob("numpy", "ndarray"),
                    tup(integer(300_000_000)),
                    raw_bytes(b"b"),
                )
            ),
            "refused",
        ),
        (program(call("builtins", "bytearray", integer(2**31))), "refused"),
    ],
    ids=[
        "memo-index",
        "deep-lists",
        "deep-marks",
        "copy-bomb",
        "cycle",
        "_reconstruct",
        "bytearray",
    ],
)
def test_small_files_cannot_make_the_loader_allocate_much(raw, message):
    """Memory is bounded by a small multiple of the file: the C unpickler sized its memo from an
    index in the file, and NumPy/bytearray allocated what the file asked for."""
    tracemalloc.start()
    try:
        if message is None:
            assert load_raw(raw) is None
        else:
            with pytest.raises(mg.CheckpointError, match=message):
                load_raw(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * len(raw) + (4 << 20), f"{peak / 2**20:.1f} MiB for a {len(raw)}-byte pickle"


def test_a_tensor_from_a_read_only_buffer_is_charged(tmp_path):
    """Each tensor made from in-band (read-only) bytes copies them: many tensors from one
    memoized buffer would be a copy bomb, so copies are charged against the file size."""
    one = call(
        HOME, "_rebuild_located", glob("minigenesis.tensor", "_rebuild_tensor"),
        tup(binget(0), FALSE), text("cpu"),
    ) + POP  # fmt: skip
    big = array(b"\x00" * 400_000, "|u1", (400_000,)) + binput(0) + POP
    with pytest.raises(mg.CheckpointError, match="more copying"):
        load_raw(program(big + one * 200 + NONE))
    assert load_raw(program(big + one * 2 + NONE)) is None  # a few shares are fine


def test_trusted_unpickler_is_not_kept_alive_by_a_cycle():
    """find_class hands out a partial, not a bound method: the unpickler (and the memo with every
    loaded object) is freed by reference counting, without waiting for the cycle collector."""
    import gc
    import weakref

    from minigenesis.serialization.location import make_placer
    from minigenesis.serialization.pickling import CheckpointPickler, CheckpointUnpickler

    stream, buffers = io.BytesIO(), []
    CheckpointPickler(stream, buffers.append).dump({"w": mg.ones(3)})
    stream.seek(0)
    gc.disable()
    try:
        u = CheckpointUnpickler(stream, buffers, make_placer(None, "x"))
        assert u.load()["w"].numpy().tolist() == [1.0, 1.0, 1.0]
        ref = weakref.ref(u)
        del u
        assert ref() is None
    finally:
        gc.enable()


def test_resume_from_a_crafted_file_is_a_one_line_error(tmp_path):
    """The CLI reports a hostile checkpoint like any unusable one: exit 2, one line, no crash."""
    bad = tmp_path / "bad.pth"
    wrap_pickle(program(FORGED_OBJECT_DTYPE), bad)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, "-m", "minigenesis", "train", "--resume", str(bad), "--quiet",
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, cwd=root, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot resume" in lines[0] and "numpy.dtype" in lines[0]


def test_numpy_scalars_devices_and_lr_lists_save_without_numpy_pickling(tmp_path):
    """What save() writes for these loads under weights_only=True (no numpy.dtype, no BUILD)."""
    from minigenesis.optim.lr_scheduler.base import LRList

    obj = {
        "f": np.float32(1.5),
        "bf": np.array(0.1, dtype="float32").astype(mg.bfloat16.numpy_dtype)[()],
        "b": np.bool_(True),
        "dev": mg.device("cuda:1"),
        "lrs": LRList([0.1, 0.2]),
        "od": collections.OrderedDict([("z", 1)]),
    }
    path = tmp_path / "s.ckpt"
    mg.save(obj, path)
    out = mg.load(path)
    for key in ("f", "bf", "b"):
        assert out[key].dtype == obj[key].dtype and out[key].tobytes() == obj[key].tobytes()
    assert out["dev"] == mg.device("cuda:1") and out["lrs"] == [0.1, 0.2]
    assert type(out["od"]) is collections.OrderedDict and out["od"] == obj["od"]


# ------------------------------------------------------------ the allow-list and older files
def test_the_allow_list_holds_no_numpy_internals_nor_raw_constructors():
    from minigenesis.serialization import allowed_globals

    names = {f"{m}.{n}" for m, n in allowed_globals()}
    assert not any(name.startswith(("numpy", "ml_dtypes")) for name in names), names
    assert not names & {"builtins.bytearray", "builtins.getattr", "builtins.eval", "posix.system"}
    assert "minigenesis.serialization._rebuild_array" in names


def _same(a, b, where="") -> None:
    assert type(a) is type(b), where
    if isinstance(a, mg.Tensor):
        assert a.dtype == b.dtype and a.requires_grad == b.requires_grad, where
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes(), where
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.flags.f_contiguous == b.flags.f_contiguous, where
        assert np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def test_a_file_written_before_the_loader_changed_still_loads():
    """tests/data/checkpoint_v1.mgck was saved by the earlier minigenesis (see its generator);
    the rebuild functions it names are public and stable, so it loads, weights-only."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "data"))
    try:
        from make_checkpoint_v1 import build
    finally:
        sys.path.pop(0)
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "checkpoint_v1.mgck")
    with open(path, "rb") as f:
        assert b"minigenesis.tensor" in f.read()  # the name tensors had before _tensor.py
    expected = build()
    for state in expected["optimizer"]["state"].values():
        state["step"] = int(state["step"])  # optimizers of that time counted steps in plain ints
    loaded_groups = mg.load(path)["optimizer"]["param_groups"]
    for group, loaded in zip(expected["optimizer"]["param_groups"], loaded_groups, strict=True):
        added_since = set(group) - set(loaded)  # options the optimizers have gained since then
        assert added_since <= {"capturable", "differentiable"}, added_since
        for key in added_since:
            del group[key]
        for key, value in loaded.items():  # zero defaults are ints now, as PyTorch's signatures
            if type(group.get(key)) is int and type(value) is float:  # (0); that file holds 0.0
                assert group[key] == value, key
                group[key] = value
    _same(mg.load(path), expected)
    _same(mg.load(path, weights_only=False), expected)  # the trusted loader reads it too


def test_tensors_are_saved_under_the_rebuild_name_that_stays(tmp_path):
    path = tmp_path / "t.mgck"
    mg.save({"w": mg.arange(3.0), "p": mg.nn.Parameter(mg.ones(2))}, path)
    raw = path.read_bytes()
    assert b"minigenesis._tensor" in raw and b"minigenesis.tensor" not in raw
    assert b"minigenesis.nn.parameter" in raw
    out = mg.load(path)
    assert out["w"].tolist() == [0.0, 1.0, 2.0] and type(out["p"]) is mg.nn.Parameter
    assert pickle.loads(pickle.dumps(mg.arange(2.0))).tolist() == [0.0, 1.0]


def shared_lists(levels: int) -> bytes:
    """Level k is a list holding level k-1 twice (through the memo): 2**levels paths, but only
    `levels` distinct lists."""
    parts = [EMPTY_LIST + binput(0) + POP]
    for k in range(1, levels):
        parts.append(EMPTY_LIST + (binget(k - 1) + APPEND) * 2 + binput(k) + POP)
    return program(*parts, binget(levels - 1))


def test_shared_containers_are_walked_once_and_counted_at_full_depth():
    import time

    start = time.perf_counter()
    out = load_raw(shared_lists(100))  # 2**100 paths: a walk per path would never end
    assert time.perf_counter() - start < 5
    assert out[0] is out[1] and out[0][0] is out[1][1]  # sharing is kept
    with pytest.raises(mg.CheckpointError, match="nest deeper than 100"):
        load_raw(shared_lists(101))


def test_a_global_that_is_never_called_cannot_reach_the_result():
    with pytest.raises(mg.CheckpointError, match="a global that was never called"):
        load_raw(program(EMPTY_LIST + glob("builtins", "set") + APPEND))


def test_trusted_loads_name_the_file_too():
    with pytest.raises(mg.CheckpointError, match=r"^crafted\.ckpt: _rebuild_array: 12 bytes"):
        load_raw(program(array(b"\x00" * 12, "<f4", (4,))), weights_only=False)
    with pytest.raises(mg.CheckpointError, match=r"^crafted\.ckpt: .*cannot be unpickled"):
        load_raw(program(call("builtins", "complex", text("x"))), weights_only=False)


def test_shapes_load_as_sizes_and_only_from_ints():
    out = load_raw(pickle.dumps({"s": mg.ones(2, 3).shape}, protocol=5))
    assert type(out["s"]) is mg.Size and out["s"] == (2, 3)
    buf = io.BytesIO()
    mg.save([mg.Size([]), mg.zeros(4, 1).size()], buf)
    buf.seek(0)
    assert mg.load(buf) == [(), (4, 1)]
    for bad in (tup(text("x")), tup(integer(-1)), tup(tup(integer(2)))):
        with pytest.raises(mg.CheckpointError, match="Size"):
            load_raw(program(call("minigenesis.size", "Size", bad)))
