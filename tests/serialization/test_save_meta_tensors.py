"""``mg.save`` of meta tensors, as PyTorch's ``torch.save``: a meta tensor is written as its dtype
and shape (no bytes, whatever its size) and loads back on meta, with either loader and whatever
``map_location`` says; a Parameter stays a Parameter, requires_grad is kept; a module built on
meta and its state_dict round-trip; copying a meta state_dict into a module with data is
refused with PyTorch's RuntimeError, ``assign=True`` takes it. Creating a large meta tensor
allocates nothing either, and plain ``pickle`` of one works."""

from __future__ import annotations

import io
import pickle

import pytest

import minigenesis as mg


def _round_trip(obj, **load_kw):
    buf = io.BytesIO()
    mg.save(obj, buf)
    buf.seek(0)
    return mg.load(buf, **load_kw), len(buf.getvalue())


@pytest.mark.parametrize("dtype", [mg.float32, mg.float16, mg.bfloat16, mg.int64, mg.bool])
@pytest.mark.parametrize("weights_only", [True, False])
def test_a_meta_tensor_saves_and_loads_on_meta(dtype, weights_only):
    t = mg.empty(3, 4, dtype=dtype, device="meta")
    r, _ = _round_trip(t, weights_only=weights_only)
    assert type(r) is mg.Tensor and r.device.type == "meta"
    assert tuple(r.shape) == (3, 4) and r.dtype == dtype and not r.requires_grad


def test_a_meta_tensor_stays_on_meta_whatever_map_location_says():
    r, _ = _round_trip(mg.empty(2, 5, device="meta"), map_location="cpu")
    assert r.device.type == "meta" and tuple(r.shape) == (2, 5)


def test_a_huge_meta_tensor_is_made_and_saved_without_its_bytes():
    big = mg.empty(10**6, 10**5, device="meta")  # 373 GiB of float32, described only
    r, size = _round_trip(big)
    assert size < 10_000 and tuple(r.shape) == (10**6, 10**5) and r.device.type == "meta"
    assert tuple(mg.zeros(10**6, 10**5, device="meta").shape) == (10**6, 10**5)


def test_meta_parameters_and_requires_grad_survive_and_mix_with_cpu_tensors():
    p = mg.nn.Parameter(mg.empty(2, device="meta"))
    t = mg.empty(2, device="meta", requires_grad=True)
    (rp, rt, cpu), _ = _round_trip([p, t, mg.ones(2)])
    assert type(rp) is mg.nn.Parameter and rp.requires_grad and rp.device.type == "meta"
    assert type(rt) is mg.Tensor and rt.requires_grad and rt.device.type == "meta"
    assert cpu.device.type == "cpu" and cpu.tolist() == [1.0, 1.0]


def test_a_module_on_meta_round_trips_and_its_state_dict_loads_by_assign_only():
    with mg.device("meta"):
        m = mg.nn.Linear(3, 2)
    sd, _ = _round_trip(m.state_dict())
    assert {k: (v.device.type, tuple(v.shape)) for k, v in sd.items()} == {
        "weight": ("meta", (2, 3)),
        "bias": ("meta", (2,)),
    }
    m2, _ = _round_trip(m, weights_only=False)
    assert m2.weight.device.type == "meta" and type(m2.weight) is mg.nn.Parameter
    target = mg.nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="Cannot copy out of meta tensor; no data!"):
        target.load_state_dict(sd)
    target.load_state_dict(sd, assign=True)
    assert target.weight.device.type == "meta"


def test_plain_pickle_of_a_meta_tensor_keeps_it_on_meta():
    r = pickle.loads(pickle.dumps(mg.empty(3, 4, device="meta")))
    assert r.device.type == "meta" and tuple(r.shape) == (3, 4)
