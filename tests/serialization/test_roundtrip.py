"""Checkpoints: what goes in comes back (values bit for bit, dtypes, flags, sharing, placement)."""

from __future__ import annotations

import collections
import io
import pathlib

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
from minigenesis import serialization as ser
from minigenesis.backend import cupy_module


def _cuda_usable() -> bool:
    cp = cupy_module()
    if cp is None:
        return False
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def roundtrip(obj, tmp_path, **load_kwargs):
    path = tmp_path / "obj.ckpt"
    mg.save(obj, path)
    return mg.load(path, **load_kwargs)


def bits(a: np.ndarray) -> bytes:
    """The raw bytes of an array (so NaN payloads and -0.0 count, unlike ==)."""
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize(
    "dtype",
    [
        mg.float16,
        mg.bfloat16,
        mg.float32,
        mg.float64,
        mg.int8,
        mg.int16,
        mg.int32,
        mg.int64,
        mg.uint8,
        mg.bool,
    ],
)
def test_every_dtype_round_trips_bit_exactly(tmp_path, dtype):
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=(3, 5, 8), dtype=np.uint8)  # every bit pattern, NaNs included
    arr = raw.view(dtype.numpy_dtype) if dtype is not mg.bool else raw[..., :1] % 2 == 1
    t = mg.from_numpy(arr.copy())
    out = roundtrip({"t": t}, tmp_path)["t"]
    assert isinstance(out, mg.Tensor)
    assert out.dtype is dtype and out.shape == t.shape
    assert bits(out.numpy()) == bits(arr)


def test_half_and_bfloat16_special_values_are_exact(tmp_path):
    specials = [0.0, -0.0, 1.0, -2.5, 65504.0, 6.1e-5, 5.96e-8, np.inf, -np.inf, np.nan]
    for np_dtype in (np.float16, ml_dtypes.bfloat16):
        arr = np.array(specials, dtype=np.float32).astype(np_dtype)
        out = roundtrip(mg.from_numpy(arr), tmp_path).numpy()
        assert out.dtype == np_dtype
        assert bits(out) == bits(arr)


def test_requires_grad_and_leafness(tmp_path):
    w = mg.randn(4, 3, requires_grad=True)
    loss = (w * w).sum()  # a non-leaf: comes back as a leaf that still requires grad, as PyTorch
    out = roundtrip({"w": w, "loss": loss, "c": mg.ones(2)}, tmp_path)
    assert out["w"].requires_grad and out["w"].is_leaf and out["w"].grad is None
    assert out["loss"].requires_grad and out["loss"].grad_fn is None
    assert float(out["loss"].item()) == float(loss.item())
    assert not out["c"].requires_grad
    # A loaded tensor is a normal leaf: gradients flow into it.
    (out["w"] * 2).sum().backward()
    assert np.array_equal(out["w"].grad.numpy(), np.full((4, 3), 2, np.float32))


def test_loaded_tensors_own_writeable_memory(tmp_path):
    out = roundtrip({"a": mg.zeros(3), "b": mg.ones(3)}, tmp_path)
    out["a"].add_(1)  # in-place works (the array is writeable)...
    assert out["b"].numpy().tolist() == [1, 1, 1]  # ...and touches nothing else
    assert out["a"].numpy().tolist() == [1, 1, 1]


def test_parameter_stays_a_parameter(tmp_path):
    Parameter = pytest.importorskip("minigenesis.nn.parameter").Parameter
    p = Parameter(mg.randn(3))
    frozen = Parameter(mg.randn(2), requires_grad=False)
    out = roundtrip({"p": p, "frozen": frozen}, tmp_path)
    assert type(out["p"]) is Parameter and out["p"].requires_grad
    assert type(out["frozen"]) is Parameter and not out["frozen"].requires_grad
    assert bits(out["p"].detach().numpy()) == bits(p.detach().numpy())


def test_shared_objects_are_stored_once_and_stay_shared(tmp_path):
    w = mg.randn(1000)
    arr = np.arange(1000.0)
    obj = {"encoder.weight": w, "decoder.weight": w, "a": arr, "b": arr}
    path = tmp_path / "tied.ckpt"
    mg.save(obj, path)
    assert path.stat().st_size < 2 * 8000 + 1000  # one copy of each, not two
    out = mg.load(path)
    assert out["encoder.weight"] is out["decoder.weight"]
    assert out["a"] is out["b"]


def test_containers_numbers_strings_and_numpy_objects(tmp_path):
    obj = {
        "epoch": 10,
        "big": 2**100,
        "loss": 0.125,
        "nan": float("nan"),
        "c": 1 - 2j,
        "name": "模型 ✓",
        "blob": b"\x00\xff",
        "flags": [True, False, None],
        "tuple": (1, (2, 3)),
        "set": {1, 2},
        "frozen": frozenset({"a"}),
        "ordered": collections.OrderedDict([("z", 1), ("a", 2)]),
        "slice": slice(1, 5, 2),
        "np_scalar": np.float32(1.5),
        "np_int": np.int64(-3),
        "np_bf16_scalar": ml_dtypes.bfloat16(0.1),
        "dtype": mg.bfloat16,
        "device": mg.device("cpu"),
        "nested": {"deeper": [{"x": mg.arange(3)}]},
    }
    out = roundtrip(obj, tmp_path)
    assert list(out) == list(obj)
    for key in (
        "epoch",
        "big",
        "loss",
        "c",
        "name",
        "blob",
        "flags",
        "tuple",
        "set",
        "frozen",
        "slice",
        "np_int",
    ):
        assert out[key] == obj[key] and type(out[key]) is type(obj[key]), key
    assert out["nan"] != out["nan"]
    assert type(out["ordered"]) is collections.OrderedDict and list(out["ordered"]) == ["z", "a"]
    assert out["np_scalar"] == np.float32(1.5) and out["np_scalar"].dtype == np.float32
    assert out["np_bf16_scalar"].dtype == ml_dtypes.bfloat16
    assert out["dtype"] is mg.bfloat16
    assert out["device"] == mg.device("cpu")
    assert out["nested"]["deeper"][0]["x"].numpy().tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(24.0).reshape(2, 3, 4),  # C order
        lambda: np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)),  # F order
        lambda: np.arange(40.0).reshape(5, 8)[::2, 1::3],  # strided view
        lambda: np.array(3.5),  # 0-d
        lambda: np.zeros((0, 4), np.float32),  # empty
        lambda: np.arange(6, dtype=">i4"),  # big-endian stays big-endian
        lambda: np.array([1 + 2j, 3 - 1j]),
        lambda: np.ones(5, dtype=ml_dtypes.bfloat16),
        lambda: np.ones(3, dtype=ml_dtypes.float8_e4m3fn),
        # NumPy's own pickling (trusted loads only, see the next test):
        lambda: np.array(["ab", "c"]),
        lambda: np.arange(4).astype("datetime64[s]"),
        lambda: np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")]),  # structured
        lambda: np.array([1, "x", None], dtype=object),
    ],
)
def test_numpy_arrays_round_trip(tmp_path, make):
    arr = make()
    trusted = arr.dtype.kind not in "biufc" and arr.dtype.type.__module__ == "numpy"
    out = roundtrip({"a": arr}, tmp_path, weights_only=not trusted)["a"]
    assert type(out) is np.ndarray
    assert out.dtype == arr.dtype and out.shape == arr.shape
    if arr.dtype != object:
        assert bits(out) == bits(arr)
    else:
        assert out.tolist() == arr.tolist()
    if arr.flags.f_contiguous and not arr.flags.c_contiguous:
        assert out.flags.f_contiguous  # memory layout kept, not just values


@pytest.mark.parametrize(
    "arr",
    [
        np.array(["ab", "c"]),
        np.arange(4).astype("datetime64[s]"),
        np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")]),
        np.array([1, "x", None], dtype=object),
    ],
    ids=["str", "datetime", "structured", "object"],
)
def test_non_numeric_arrays_need_a_trusted_load(tmp_path, arr):
    """Only numeric arrays are rebuilt from raw bytes by a weights-only load; NumPy's own
    pickling (needed for these dtypes) is refused with a hint."""
    with pytest.raises(ser.UnsafeCheckpointError, match="weights_only=False"):
        roundtrip({"a": arr}, tmp_path)


def test_read_only_array_comes_back_writeable(tmp_path):
    arr = np.frombuffer(np.arange(4.0).tobytes())
    assert not arr.flags.writeable
    out = roundtrip(arr, tmp_path)
    assert out.flags.writeable and out.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_rng_state_restores_the_stream(tmp_path):
    mg.manual_seed(123)
    mg.randn(7)
    path = tmp_path / "rng.ckpt"
    mg.save({"rng": mg.get_rng_state()}, path)
    expected = mg.randn(5).numpy()
    mg.randn(11)  # move on
    mg.set_rng_state(mg.load(path)["rng"])
    assert bits(mg.randn(5).numpy()) == bits(expected)


def test_save_and_load_through_file_objects(tmp_path):
    buf = io.BytesIO()
    mg.save({"x": mg.arange(5)}, buf)
    buf.seek(0)
    assert mg.load(buf)["x"].numpy().tolist() == [0, 1, 2, 3, 4]
    path = pathlib.Path(tmp_path) / "x.ckpt"
    mg.save_checkpoint({"y": 1}, str(path))  # str and Path both work; the aliases too
    assert mg.load_checkpoint(path) == {"y": 1}
    assert mg.save_checkpoint is mg.save and mg.load_checkpoint is mg.load


# ----------------------------------------------------------------------------- map_location
def test_map_location_cpu_forms(tmp_path):
    t = mg.randn(3, requires_grad=True)
    for ml in (None, "cpu", mg.device("cpu"), {"cuda:0": "cpu"}, lambda tensor, loc: tensor):
        out = roundtrip({"t": t}, tmp_path, map_location=ml)["t"]
        assert out.device == mg.device("cpu") and out.requires_grad
        assert bits(out.detach().numpy()) == bits(t.detach().numpy())


def test_map_location_callable_sees_the_saved_location_and_may_replace(tmp_path):
    seen = []

    def to_double(tensor, location):
        seen.append(location)
        return tensor.double()

    Parameter = pytest.importorskip("minigenesis.nn.parameter").Parameter
    out = roundtrip({"p": Parameter(mg.ones(2))}, tmp_path, map_location=to_double)["p"]
    assert seen == ["cpu"]
    assert type(out) is Parameter and out.dtype is mg.float64
    assert out.requires_grad and out.grad_fn is None  # the result supplies data, not a graph
    out2 = roundtrip({"t": mg.ones(2)}, tmp_path, map_location=lambda t, loc: None)["t"]
    assert out2.device == mg.device("cpu")  # None: default placement


def test_bad_map_location_is_refused_before_reading(tmp_path):
    with pytest.raises(TypeError, match="map_location"):
        mg.load(tmp_path / "does-not-even-exist.ckpt", map_location=3)
    with pytest.raises(ValueError, match="unknown device type"):
        mg.load(tmp_path / "x.ckpt", map_location="tpu")
    path = tmp_path / "bad.ckpt"
    mg.save(mg.ones(1), path)
    with pytest.raises(TypeError, match="Tensor or None"):
        mg.load(path, map_location=lambda t, loc: "cpu")


@pytest.mark.skipif(_cuda_usable(), reason="checks the error you get without a GPU")
def test_cuda_without_gpu_is_a_clear_error(tmp_path):
    path = tmp_path / "x.ckpt"
    mg.save(mg.ones(1), path)
    with pytest.raises(RuntimeError, match="CUDA"):
        mg.load(path, map_location="cuda")
    # A file saved on a GPU, read on a machine without one: the error says what to pass.
    from minigenesis.serialization.format import write_checkpoint
    from minigenesis.serialization.pickling import CheckpointPickler

    class GpuLabel(CheckpointPickler):  # records location "cuda:0" for a CPU tensor
        def reducer_override(self, obj):
            rv = super().reducer_override(obj)
            if isinstance(obj, mg.Tensor):
                fn, (rebuild, args, _), *rest = rv
                return (fn, (rebuild, args, "cuda:0"), *rest)
            return rv

    with open(path, "wb") as f:
        write_checkpoint(f, {"t": mg.ones(2)}, GpuLabel)
    with pytest.raises(RuntimeError, match="saved on cuda:0.*map_location='cpu'"):
        mg.load(path)
    assert mg.load(path, map_location="cpu")["t"].numpy().tolist() == [1, 1]
    assert mg.load(path, map_location={"cuda": "cpu"})["t"].device == mg.device("cpu")
    seen = []
    mg.load(path, map_location=lambda t, loc: seen.append(loc) or t)
    assert seen == ["cuda:0"]


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_usable(), reason="needs CuPy and a GPU")
def test_gpu_tensors_round_trip_and_map(tmp_path):
    cp = cupy_module()
    t = mg.randn(64, 32, dtype=mg.bfloat16).cuda()
    h = mg.randn(5, dtype=mg.float16).cuda()
    c = mg.arange(4)
    path = tmp_path / "gpu.ckpt"
    mg.save({"t": t, "h": h, "c": c}, path)
    out = mg.load(path)  # back where each was saved
    assert out["t"].device == mg.device("cuda:0") and isinstance(out["t"]._data, cp.ndarray)
    assert out["c"].device == mg.device("cpu")
    assert bits(out["t"].cpu().numpy()) == bits(t.cpu().numpy())
    assert bits(out["h"].cpu().numpy()) == bits(h.cpu().numpy())
    on_cpu = mg.load(path, map_location="cpu")
    assert on_cpu["t"].device == mg.device("cpu") and bits(on_cpu["t"].numpy()) == bits(
        t.cpu().numpy()
    )
    all_gpu = mg.load(path, map_location="cuda")
    assert all(v.device == mg.device("cuda:0") for v in all_gpu.values())
    by_dict = mg.load(path, map_location={"cuda:0": "cpu"})
    assert by_dict["t"].device == mg.device("cpu") and by_dict["c"].device == mg.device("cpu")
    locations = []
    mg.load(path, map_location=lambda tensor, loc: locations.append(loc) or tensor)
    assert sorted(locations) == ["cpu", "cuda:0", "cuda:0"]
    by_device = mg.load(path, map_location=mg.device("cuda", 0))
    assert by_device["c"].device == mg.device("cuda:0")
    # A Parameter sent to the GPU by a callable stays a leaf Parameter; a bare CuPy array is
    # stored (and comes back) as a NumPy array.
    Parameter = pytest.importorskip("minigenesis.nn.parameter").Parameter
    mg.save({"p": Parameter(mg.ones(3)), "raw": cp.arange(3)}, path)
    out = mg.load(path, map_location=lambda tensor, loc: tensor.cuda())
    assert type(out["p"]) is Parameter and out["p"].is_leaf and out["p"].requires_grad
    assert out["p"].device == mg.device("cuda:0")
    assert type(out["raw"]) is np.ndarray and out["raw"].tolist() == [0, 1, 2]


def test_save_streams_and_load_makes_one_copy(tmp_path):
    """Saving never holds a second copy of the arrays (they go out of band, straight to the file);
    loading allocates each array once, in its final place. tracemalloc sees NumPy's buffers."""
    import tracemalloc

    state = {f"layer{i}.weight": mg.zeros(256, 1024) for i in range(16)}  # 16 MiB
    state["embed"] = mg.zeros(1024, 1024, dtype=mg.bfloat16)  # 2 MiB, bf16 too
    nbytes = sum(t.numel() * t.element_size() for t in state.values())
    path = tmp_path / "big.ckpt"
    tracemalloc.start()
    try:
        mg.save(state, path)
        save_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        loaded = mg.load(path)
        load_peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert save_peak < nbytes / 16, f"save peaked at {save_peak} bytes for {nbytes} of arrays"
    assert load_peak < 1.05 * nbytes, f"load peaked at {load_peak} bytes for {nbytes} of arrays"
    assert loaded["embed"].dtype is mg.bfloat16 and loaded["layer3.weight"].shape == (256, 1024)


def test_file_object_with_a_prefix_and_array_subclasses(tmp_path):
    buf = io.BytesIO()
    buf.write(b"some header of the caller's own")
    start = buf.tell()
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    mg.save({"m": masked, "mm": np.arange(3.0)}, buf)
    buf.seek(start)
    with pytest.raises(ser.UnsafeCheckpointError, match="numpy.ma"):
        mg.load(buf)  # a masked array is more than its data: not silently flattened
    buf.seek(start)
    out = mg.load(buf, weights_only=False)
    assert isinstance(out["m"], np.ma.MaskedArray) and out["m"].mask.tolist() == [0, 1, 0]
