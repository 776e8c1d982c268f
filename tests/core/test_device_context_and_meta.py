"""``with mg.device(...)`` makes a device the default for the block (nested blocks restore the
outer one), and the meta device: tensors with a shape and a dtype and no data, made by the
creation functions, by ``Module.to("meta")`` and inside ``with mg.device("meta")``; reading
their values raises, and ``to_empty`` gives a meta module real memory again."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn


def test_device_block_sets_and_restores_the_default() -> None:
    assert mg.get_default_device() == mg.device("cpu")
    with mg.device("meta") as dev:
        assert dev == mg.device("meta") and mg.get_default_device() == mg.device("meta")
        with mg.device("cpu"):
            assert mg.zeros(2).device.type == "cpu"
        assert mg.zeros(2).device.type == "meta"
    assert mg.get_default_device() == mg.device("cpu") and mg.zeros(2).device.type == "cpu"


def test_meta_tensors_have_shape_and_dtype_and_no_data() -> None:
    t = mg.empty(3, 4, dtype=mg.float64, device="meta")
    assert t.shape == (3, 4) and t.dtype == mg.float64 and t.device == mg.device("meta")
    assert t._data.strides == (0, 0)  # one shared scalar: no memory for the elements
    assert repr(t) == "tensor(..., device='meta', size=(3, 4), dtype=minigenesis.float64)"
    for read in (lambda: t.tolist(), lambda: t.cpu(), lambda: t[0, 0].item()):
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
            read()
    assert (t * 2).device.type == "meta"  # elementwise arithmetic keeps the device


def test_modules_on_meta_and_back_with_to_empty() -> None:
    with mg.device("meta"):
        layer = nn.Linear(5, 3)
    assert layer.weight.device.type == "meta" and layer.weight.shape == (3, 5)
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad
    moved = nn.Linear(2, 2).to("meta")
    assert all(p.device.type == "meta" for p in moved.parameters())
    with pytest.raises(NotImplementedError, match="to_empty"):
        moved.to("cpu")
    layer.to_empty(device="cpu")
    nn.init.ones_(layer.weight)
    nn.init.zeros_(layer.bias)
    np.testing.assert_array_equal(layer(mg.ones(1, 5)).detach().numpy(), [[5.0, 5.0, 5.0]])


def test_unknown_device_types_are_refused() -> None:
    with pytest.raises(ValueError, match="expected 'cpu', 'cuda' or 'meta'"):
        mg.device("tpu")


def test_skip_init_builds_without_initialising() -> None:
    calls = []

    class Probe(nn.Linear):
        def reset_parameters(self) -> None:
            calls.append(self.weight.device.type)  # where the initialiser ran
            super().reset_parameters()

    layer = nn.utils.skip_init(Probe, 4, 2)
    assert calls == ["meta"] and layer.weight.device.type == "cpu" and layer.weight.shape == (2, 4)
    data = layer.weight._data  # real memory of its own now, not the meta device's shared scalar
    assert type(data) is np.ndarray and data.strides == (16, 4) and data.flags.writeable
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)


def test_a_checkpoint_loads_onto_the_meta_device() -> None:
    buffer = io.BytesIO()
    mg.save(nn.Linear(3, 2).state_dict(), buffer)
    buffer.seek(0)
    state = mg.load(buffer, map_location="meta")
    assert {k: (v.device.type, tuple(v.shape)) for k, v in state.items()} == {
        "weight": ("meta", (2, 3)),
        "bias": ("meta", (2,)),
    }


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.sum(),
        lambda x: x.mean(0),
        lambda x: x.amax(1),
        lambda x: x.var(),
        lambda x: x.norm(),
        lambda x: mg.cat([x, x]),
        lambda x: mg.stack([x, x]),
        lambda x: x.exp().sum(1),
        lambda x: x.softmax(-1),
        lambda x: x.argmax(1),
        lambda x: x.sort(1).values,
        lambda x: x @ x.T,
        lambda x: mg.where(x > 0, x, 0.0),
        lambda x: x.cumsum(0),
        lambda x: x.prod(),
    ],
)
def test_every_result_computed_from_meta_tensors_is_on_meta(op) -> None:
    x = mg.empty(3, 4, device="meta")
    out = op(x)
    assert out.device == mg.device("meta")
    with pytest.raises(NotImplementedError):
        out.item() if out.numel() == 1 else out.tolist()


def test_a_meta_module_step_stays_on_meta_and_refuses_numpy() -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to("meta")
    loss = model(mg.empty(5, 4, device="meta")).pow(2).mean()
    loss.backward()
    assert loss.device.type == "meta" and loss.shape == ()
    assert all(p.grad.device.type == "meta" and p.grad.shape == p.shape for p in model.parameters())
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        loss.detach().numpy()
    with pytest.raises(TypeError, match="meta"):
        np.asarray(loss.detach())
