"""mg.save / mg.load of GPU tensors that view one storage: the storage is copied to the host once,
saved once, and every tensor comes back as a view of one storage on its target device (GPU or
CPU, whatever ``map_location`` says), with its offset and strides, as PyTorch saves and moves a
storage once. A CPU file loaded onto the GPU keeps its sharing too. The oracle is NumPy: the same
write applied to the saved base array."""

import copy
import io

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.backend import cupy_module
from minigenesis.serialization import CheckpointError
from minigenesis.serialization.device_storage import DeviceStorages

needs_cuda = pytest.mark.skipif(
    not mg.cuda.is_available(), reason="needs CuPy and a CUDA device (or the CuPy stand-in)"
)
gpu = [pytest.mark.gpu, needs_cuda]

MAP_LOCATIONS = {
    "none": None,
    "cuda": "cuda",
    "cpu": "cpu",
    "device": mg.device("cuda", 0),
    "dict_to_cpu": {"cuda:0": "cpu"},
    "dict_to_cuda": {"cpu": "cuda:0"},
    "callable_default": lambda tensor, location: None,
}


def _round_trip(obj, map_location, weights_only, mmap=False):
    f = io.BytesIO()
    mg.save(obj, f)
    f.seek(0)
    return mg.load(f, map_location=map_location, weights_only=weights_only, mmap=mmap)


def _views_of(base):
    """A state dict of views of ``base`` (3x4): the whole, a row slice, a transpose, a column."""
    return {"whole": base, "rows": base[1:], "t": base.t(), "col": base[:, 2]}


def _check_shared(got, device_type):
    """Write through one loaded view; the others must see it exactly as NumPy views do."""
    ref = np.arange(12.0).reshape(3, 4)
    got["col"][0] = 100.0  # buffer element (0, 2)
    got["rows"][0, 1] = -5.0  # buffer element (1, 1)
    ref[0, 2], ref[1, 1] = 100.0, -5.0
    for k in got:
        assert got[k].device.type == device_type
    assert got["t"].stride() == (1, 4) and got["col"].stride() == (4,)
    np.testing.assert_array_equal(got["whole"].cpu().numpy(), ref)
    np.testing.assert_array_equal(got["rows"].cpu().numpy(), ref[1:])
    np.testing.assert_array_equal(got["t"].cpu().numpy(), ref.T)
    np.testing.assert_array_equal(got["col"].cpu().numpy(), ref[:, 2])


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("where", list(MAP_LOCATIONS))
@pytest.mark.parametrize(
    "saved_on", [pytest.param("cuda", marks=gpu), pytest.param("cpu", marks=gpu)]
)
def test_views_saved_together_load_as_views_of_one_storage(saved_on, where, weights_only):
    base = mg.arange(12.0).reshape(3, 4).to(saved_on)
    got = _round_trip(_views_of(base), MAP_LOCATIONS[where], weights_only)
    target = {"none": saved_on, "cpu": "cpu", "dict_to_cpu": "cpu", "callable_default": saved_on}
    if where == "dict_to_cuda":
        target["dict_to_cuda"] = "cuda"
    _check_shared(got, target.get(where, "cuda"))


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize(
    "saved_on", [pytest.param("cuda", marks=gpu), pytest.param("cpu", marks=gpu)]
)
def test_mapped_file_views_land_on_the_gpu_as_views_of_one_storage(
    saved_on, weights_only, tmp_path
):
    base = mg.arange(12.0).reshape(3, 4).to(saved_on)
    path = tmp_path / "views.ckpt"
    mg.save({"other": mg.ones(5).to(saved_on), **_views_of(base)}, path)
    got = mg.load(path, map_location="cuda", weights_only=weights_only, mmap=True)
    other = got.pop("other")
    _check_shared(got, "cuda")
    assert other.cpu().tolist() == [1.0] * 5  # a storage of its own, untouched by the writes


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("where", [None, "cpu"])
@pytest.mark.parametrize("dtype", [mg.bfloat16, mg.float16, mg.bool, mg.int8, mg.float64])
def test_gpu_views_of_any_dtype_and_dtype_views_share_after_loading(dtype, where):
    base = mg.arange(12).to(dtype).reshape(3, 4).cuda()
    same_size = {1: mg.uint8, 2: mg.int16, 8: mg.int64}[dtype.itemsize]
    got = _round_trip({"t": base.t(), "row": base[1], "bits": base.view(same_size)}, where, True)
    got["row"].fill_(0)  # buffer row 1
    ref = np.arange(12).reshape(3, 4).astype(bool if dtype is mg.bool else np.float64) * 1.0
    ref[1] = 0
    assert got["t"].stride() == (1, 4)
    np.testing.assert_array_equal(got["t"].double().cpu().numpy(), ref.T)
    np.testing.assert_array_equal(got["bits"][1].cpu().numpy(), np.zeros(4))  # 0 is all-0 bits
    got["bits"][0].zero_()
    np.testing.assert_array_equal(got["t"][:, 0].double().cpu().numpy(), np.zeros(4))


@pytest.mark.gpu
@needs_cuda
def test_saving_gpu_views_reads_each_storage_to_the_host_once():
    cp = cupy_module()
    if not hasattr(cp, "counting_host_reads"):
        pytest.skip("counts host reads on the CuPy stand-in")
    base = mg.arange(12.0, device="cuda").reshape(3, 4)
    other = mg.ones(3, device="cuda")
    with cp.counting_host_reads():
        mg.save({**_views_of(base), "other": other, "other_tail": other[1:]}, io.BytesIO())
    assert cp.counting_host_reads.last.count == 2  # two storages, six tensors


@pytest.mark.gpu
@needs_cuda
def test_parameters_viewing_one_gpu_storage_load_as_parameters_sharing_it():
    base = mg.arange(6.0, device="cuda")
    sd = {"w": mg.nn.Parameter(base[:4]), "b": mg.nn.Parameter(base[4:], requires_grad=False)}
    got = _round_trip(sd, None, True)
    assert all(type(p) is mg.nn.Parameter for p in got.values())
    assert got["w"].requires_grad and not got["b"].requires_grad
    with mg.no_grad():
        got["w"].add_(10.0)
    assert got["b"].cpu().tolist() == [4.0, 5.0]  # disjoint parts of one storage
    assert got["w"].data_ptr() + 4 * got["w"].element_size() == got["b"].data_ptr()


@pytest.mark.gpu
@needs_cuda
def test_deepcopy_of_gpu_views_keeps_them_views_of_one_new_storage():
    base = mg.arange(12.0, device="cuda").reshape(3, 4)
    got = copy.deepcopy(_views_of(base))
    _check_shared(got, "cuda")
    loaded = _round_trip(_views_of(base), None, True)  # views of one storage made by load
    _check_shared(copy.deepcopy(loaded), "cuda")
    _check_shared(_round_trip(loaded, None, True), "cuda")  # and saved again
    assert base.cpu().numpy().tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_a_device_view_outside_its_loaded_storage_is_refused():
    memory = np.zeros(8)
    storage, outside = memory[:4], memory[2:6]  # bytes 16..48 of a 32-byte storage
    storages = DeviceStorages()
    storages._storage = lambda arr: storage  # as if the file's buffer were 32 bytes long
    with pytest.raises(CheckpointError, match="outside its 32-byte storage"):
        storages.to_device(outside, mg.device("cuda"))
