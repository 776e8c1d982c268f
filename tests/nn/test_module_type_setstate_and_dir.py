"""Module.type(dst_type), Module.__setstate__ and Module.__dir__, as PyTorch's."""

import pickle

import minigenesis as mg
from minigenesis import nn


def test_module_type_casts_parameters_and_every_buffer_including_integer_ones() -> None:
    norm = nn.BatchNorm1d(2)
    weight = norm.weight
    assert norm.type(mg.float64) is norm
    assert norm.weight is weight  # cast in place: an optimizer keeps the same Parameter
    assert norm.weight.dtype == mg.float64 and norm.running_mean.dtype == mg.float64
    assert norm.num_batches_tracked.dtype == mg.float64  # to(float64) would leave it int64
    norm.type("torch.FloatTensor")
    assert norm.weight.dtype == mg.float32


class _Scaled(nn.Module):
    """A module with its own __setstate__ that calls Module's (a common pattern)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.Linear(1, 1)

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.restored = True

    def forward(self, x):
        return self.layer(x)


def test_a_subclass_setstate_can_call_module_setstate() -> None:
    model = _Scaled()
    copy = pickle.loads(pickle.dumps(model))
    assert copy.restored
    assert copy.layer.weight.tolist() == model.layer.weight.tolist()
    state = {k: v for k, v in model.__dict__.items() if k not in ("_forward_hooks",)}
    bare = _Scaled.__new__(_Scaled)
    bare.__setstate__(state)  # a registry missing from an old pickle is recreated empty
    assert len(bare._forward_hooks) == 0
    assert bare(mg.ones(1, 1)).shape == (1, 1)


def test_dir_lists_registered_names_but_not_numeric_child_names() -> None:
    layers = nn.ModuleList([nn.ReLU()])
    layers.head = nn.Linear(1, 1)
    names = dir(layers)
    assert "head" in names and "append" in names
    assert "0" not in names
