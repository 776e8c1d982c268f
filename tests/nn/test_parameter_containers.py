"""nn.ParameterList / nn.ParameterDict: registered parameters, PyTorch's wrapping and repr."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


class Mixture(nn.Module):
    def __init__(self, k: int) -> None:
        super().__init__()
        self.means = nn.ParameterList([nn.Parameter(mg.full((2,), float(i))) for i in range(k)])
        self.scales = nn.ParameterDict({"a": mg.ones(2), "b": mg.ones(2) * 2})

    def forward(self, x):
        return sum((x - m) ** 2 for m in self.means).sum() * self.scales["a"].sum()


def test_parameters_are_registered_so_they_train_save_and_move():
    model = Mixture(3)
    names = [n for n, _ in model.named_parameters()]
    assert names == ["means.0", "means.1", "means.2", "scales.a", "scales.b"]
    assert list(model.state_dict()) == names
    opt = mg.optim.SGD(model.parameters(), lr=0.1)
    before = model.means[1].detach().clone()
    model(mg.zeros(2)).backward()
    opt.step()
    assert not np.allclose(model.means[1].detach().numpy(), before.numpy())
    fresh = Mixture(3)
    fresh.load_state_dict(model.state_dict())
    assert np.array_equal(fresh.means[1].detach().numpy(), model.means[1].detach().numpy())
    assert model.double().means[0].dtype == mg.float64


def test_plain_tensors_become_parameters_and_other_values_stay_plain():
    plist = nn.ParameterList([mg.randn(2)])
    plist.append(3)
    plist.extend([nn.Parameter(mg.ones(1))])
    assert type(plist[0]) is nn.Parameter and plist[0].requires_grad
    assert plist[1] == 3 and len(plist) == 3
    assert [n for n, _ in plist.named_parameters()] == ["0", "2"]
    pdict = nn.ParameterDict({"w": mg.zeros(2)})
    pdict["note"] = "text"
    assert type(pdict["w"]) is nn.Parameter and pdict["note"] == "text"
    assert list(pdict) == ["w", "note"] and "w" in pdict and len(pdict) == 2
    assert pdict.pop("w").shape == (2,) and list(pdict.keys()) == ["note"]


def test_indexing_errors_name_the_container():
    with pytest.raises(IndexError, match="ParameterList of length 1"):
        nn.ParameterList([mg.ones(1)])[3]
    with pytest.raises(KeyError, match="ParameterDict has no key 'x'"):
        nn.ParameterDict({"w": mg.ones(1)})["x"]
    with pytest.raises(TypeError, match="keys must be strings"):
        nn.ParameterDict()[1] = mg.ones(1)
    with pytest.raises(TypeError, match="iterable of parameters"):
        nn.ParameterList().extend(mg.ones(2))


def test_repr_lists_dtype_and_size_as_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.ParameterList([nn.Parameter(mg.randn(3)), nn.Parameter(mg.randn(2, 2))])
    theirs = torch.nn.ParameterList(
        [torch.nn.Parameter(torch.randn(3)), torch.nn.Parameter(torch.randn(2, 2))]
    )
    assert repr(ours).replace("minigenesis.", "") == repr(theirs).replace("torch.", "")
    ours_d = nn.ParameterDict({"a": mg.randn(3)})
    theirs_d = torch.nn.ParameterDict({"a": torch.randn(3)})
    assert repr(ours_d).replace("minigenesis.", "") == repr(theirs_d).replace("torch.", "")
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"
