"""A layer that writes its own ``_load_from_state_dict`` (PyTorch's per-module load protocol) is
called by ``load_state_dict``: parents before children, with its slice of the state dict, the
``version`` its class saved in ``_metadata``, and the three lists it may append to."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


class Renamed(nn.Module):
    """Version 1 called its weight ``w``; version 2 calls it ``weight``."""

    _version = 2

    def __init__(self) -> None:
        super().__init__()
        self.weight = nn.Parameter(mg.zeros(3))
        self.seen_versions: list = []

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing,
                              unexpected, errors):  # fmt: skip
        version = local_metadata.get("version")
        self.seen_versions.append(version)
        if (version is None or version < 2) and prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing,
                                      unexpected, errors)  # fmt: skip


def _net() -> nn.Sequential:
    return nn.Sequential(nn.Linear(2, 3), Renamed())


def test_state_dict_saves_the_class_version_in_metadata():
    state = _net().state_dict()
    assert state._metadata["1"] == {"version": 2}
    assert state._metadata["0"] == {"version": 1}


def test_override_renames_an_old_key_reading_the_version_from_metadata():
    old = _net().state_dict()
    old["1.w"] = old.pop("1.weight")
    old["1.w"] = mg.tensor([1.0, 2.0, 3.0])
    old._metadata["1"] = {"version": 1}
    net = _net()
    assert net.load_state_dict(old).missing_keys == []
    np.testing.assert_array_equal(net[1].weight.detach().numpy(), [1.0, 2.0, 3.0])
    assert net[1].seen_versions == [1]
    assert "1.w" in old  # the caller's dict is not changed


def test_current_state_round_trips_through_the_override():
    source = _net()
    source[1].weight.data = mg.tensor([4.0, 5.0, 6.0])
    net = _net()
    net.load_state_dict(source.state_dict())
    np.testing.assert_array_equal(net[1].weight.detach().numpy(), [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(net[0].weight.detach().numpy(), source[0].weight.detach().numpy())
    assert net[1].seen_versions == [2]


class AddsKeys(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing,
                              unexpected, errors):  # fmt: skip
        missing.append(prefix + "calibration")
        unexpected.append(prefix + "legacy_scale")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing,
                                      unexpected, errors)  # fmt: skip


def test_strict_error_lists_the_keys_an_override_added():
    net = nn.Sequential(AddsKeys())
    before = net[0].lin.weight.detach().numpy().copy()
    state = nn.Sequential(AddsKeys()).state_dict()
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(state)
    assert '"0.calibration"' in str(info.value) and '"0.legacy_scale"' in str(info.value)
    np.testing.assert_array_equal(net[0].lin.weight.detach().numpy(), before)  # nothing copied
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["0.calibration"]
    assert result.unexpected_keys == ["0.legacy_scale"]
    np.testing.assert_array_equal(net[0].lin.weight.detach().numpy(), state["0.lin.weight"].numpy())


def test_super_reaches_the_default_that_loads_own_tensors_and_reports_unexpected_keys():
    layer = nn.Linear(2, 2)
    missing, unexpected, errors = [], [], []
    state = {"p.weight": mg.ones(2, 2), "p.junk": mg.ones(1), "other": mg.ones(1)}
    nn.Module._load_from_state_dict(layer, state, "p.", {}, True, missing, unexpected, errors)
    np.testing.assert_array_equal(layer.weight.detach().numpy(), np.ones((2, 2)))
    assert missing == ["p.bias"] and unexpected == ["p.junk"] and errors == []


class Recorder(nn.Module):
    def __init__(self, name: str, log: list, *children: nn.Module) -> None:
        super().__init__()
        self.name, self.log = name, log
        for i, child in enumerate(children):
            self.add_module(str(i), child)

    def _load_from_state_dict(self, state_dict, prefix, *rest):
        self.log.append((self.name, prefix, sorted(state_dict)))
        super()._load_from_state_dict(state_dict, prefix, *rest)


def test_overrides_are_called_parents_first_with_their_slice_of_the_state_dict():
    log: list = []
    tree = Recorder("root", log, Recorder("a", log, nn.Linear(1, 1)), Recorder("b", log))
    state = tree.state_dict()
    log.clear()
    tree.load_state_dict(state)
    assert [(name, prefix) for name, prefix, _ in log] == [("root", ""), ("a", "0."), ("b", "1.")]
    assert log[1][2] == ["0.0.bias", "0.0.weight"] and log[2][2] == []


def test_a_size_mismatch_beside_an_override_copies_nothing():
    net = _net()
    before = [p.detach().numpy().copy() for p in net.parameters()]
    state = _net().state_dict()
    state["0.bias"] = mg.ones(5)
    with pytest.raises(RuntimeError, match="size mismatch for 0.bias"):
        net.load_state_dict(state)
    for p, old in zip(net.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), old)


def test_load_hooks_still_run_beside_an_override():
    net = _net()
    calls = []
    net[1].register_load_state_dict_pre_hook(lambda m, sd, prefix, *rest: calls.append(prefix))
    net.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
    state = net.state_dict()
    del state["0.bias"]
    assert net.load_state_dict(state).missing_keys == []
    assert calls == ["1."]


def test_old_batchnorm_state_beside_an_override_loads_without_num_batches_tracked():
    net = nn.Sequential(nn.BatchNorm1d(3), Renamed())
    state = net.state_dict()
    del state["0.num_batches_tracked"]
    assert net.load_state_dict(state, strict=False).missing_keys == ["0.num_batches_tracked"]
    state._metadata["0"]["version"] = 1  # saved before BatchNorm had the counter
    assert net.load_state_dict(state).missing_keys == []


def test_the_default_called_directly_assigns_when_the_metadata_asks_for_it():
    layer = nn.Linear(2, 2)
    value = mg.ones(2, 2)
    state = {"weight": value, "bias": mg.zeros(2)}
    nn.Module._load_from_state_dict(
        layer, state, "", {"assign_to_params_buffers": True}, True, [], [], []
    )
    assert isinstance(layer.weight, nn.Parameter) and layer.weight.requires_grad
    value[0, 0] = 5.0  # the loaded tensor's memory is the parameter's
    assert layer.weight.detach().numpy()[0, 0] == 5.0
