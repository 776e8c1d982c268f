"""nn.Module, Parameter and the containers: registration, traversal, modes, conversion, hooks,
state_dict round trips and every strict-mode error."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(8, 3)
        self.scale = nn.Parameter(mg.ones(1))
        self.register_buffer("steps", mg.zeros(1))
        self.register_buffer("scratch", mg.zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.fc2(self.drop(self.bn(self.fc1(x)).relu())) * self.scale


# ------------------------------------------------------------------------------ Parameter
def test_parameter_is_a_tensor_that_requires_grad_and_shares_memory():
    t = mg.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, mg.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    t._data[0] = 5.0
    assert p[0].item() == 5.0  # no copy
    assert not nn.Parameter(mg.zeros(2), requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:")
    with pytest.raises(RuntimeError, match="floating-point"):
        nn.Parameter(mg.zeros(2, dtype=mg.int64))


def test_parameter_deepcopy_and_pickle_keep_the_class_and_copy_memory():
    p = nn.Parameter(mg.randn(3))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    assert q._data is not p._data and np.array_equal(q.detach().numpy(), p.detach().numpy())
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and np.array_equal(r.detach().numpy(), p.detach().numpy())


# ------------------------------------------------------------------------------ registration
def test_attributes_register_parameters_buffers_and_children_in_order():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "bn.weight",
        "bn.bias",
        "fc2.weight",
        "fc2.bias",
    ]
    assert [n for n, _ in net.named_children()] == ["fc1", "bn", "drop", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "bn", "drop", "fc2"]
    assert [n for n, _ in net.named_buffers()] == [
        "steps",
        "scratch",
        "bn.running_mean",
        "bn.running_var",
        "bn.num_batches_tracked",
    ]
    assert len(list(net.parameters(recurse=False))) == 1
    assert net.note == "plain attribute" and "note" not in net._parameters
    assert "fc1" in dir(net) and "scale" in dir(net)


def test_shared_parameters_and_modules_are_listed_once():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.modules())) == 3  # seq, shared, relu
    assert len(list(seq.named_modules(remove_duplicate=False))) == 4


def test_reassign_delete_and_registration_errors():
    net = Net()
    net.fc1 = nn.Linear(4, 8, bias=False)
    assert net.fc1.bias is None and "fc1.bias" not in dict(net.named_parameters())
    with pytest.raises(TypeError, match="parameter 'scale'"):
        net.scale = mg.ones(1)  # a plain tensor cannot replace a Parameter
    net.scale = None
    assert "scale" not in dict(net.named_parameters())
    del net.drop
    assert "drop" not in dict(net.named_children())
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        net.missing  # noqa: B018
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("note", mg.zeros(1))
    with pytest.raises(KeyError, match='contain "."'):
        net.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="wrap it"):
        net.register_parameter("w", mg.zeros(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(mg.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_forward_missing_is_a_clear_error():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(mg.zeros(1))


# ------------------------------------------------------------------------------ modes and grads
def test_train_eval_propagate_and_change_dropout_and_batchnorm():
    mg.manual_seed(0)
    net = Net()
    x = mg.randn(16, 4)
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    a, b = net(x), net(x)
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())  # deterministic in eval
    net.train()
    c, d = net(x), net(x)
    assert not np.array_equal(c.detach().numpy(), d.detach().numpy())  # dropout in training
    with pytest.raises(ValueError, match="bool"):
        net.train("yes")


def test_zero_grad_requires_grad_and_apply():
    net = Net()
    net(mg.randn(5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())

    net.fc1.requires_grad_(False)
    net(mg.randn(5, 4)).sum().backward()
    assert net.fc1.weight.grad is None and net.fc2.weight.grad is not None

    seen = []
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "BatchNorm1d", "Dropout", "Linear", "Net"]  # children first


# ------------------------------------------------------------------------------ dtype / device
def test_to_dtype_converts_in_place_so_an_existing_optimizer_keeps_working():
    mg.manual_seed(0)
    net = Net()
    params_before = list(net.parameters())
    ids = [id(p) for p in params_before]
    net(mg.randn(4, 4)).sum().backward()
    assert net.double() is net
    assert [id(p) for p in net.parameters()] == ids
    assert all(p.dtype is mg.float64 for p in net.parameters())
    assert all(p.grad.dtype is mg.float64 for p in net.parameters())
    assert net.bn.running_mean.dtype is mg.float64
    assert net.bn.num_batches_tracked.dtype is mg.int64  # integers are left alone
    # An update through the old references is seen by the model (same objects).
    with mg.no_grad():
        params_before[1].zero_()
    assert float(net.fc1.weight.abs().sum()) == 0
    net.half()
    assert net.fc2.weight.dtype is mg.float16
    net.bfloat16()
    assert net.fc2.weight.dtype is mg.bfloat16
    net.float()
    assert net.fc2.weight.dtype is mg.float32
    net.to(mg.float64).to("cpu").to(device="cpu", dtype=mg.float32)
    assert net.fc2.weight.dtype is mg.float32
    with pytest.raises(TypeError, match="floating-point"):
        net.to(mg.int32)


def test_cuda_without_a_gpu_is_a_clear_error():
    if mg.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="CUDA"):
        nn.Linear(2, 2).cuda()


# ------------------------------------------------------------------------------ hooks
def test_forward_hooks_and_pre_hooks_can_observe_and_replace():
    lin = nn.Linear(3, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    y = lin(mg.randn(4, 3))
    expected = lin.bias.detach().numpy() + 1  # input zeroed, output shifted by one
    np.testing.assert_allclose(y.detach().numpy(), np.broadcast_to(expected, (4, 2)), rtol=1e-6)
    assert calls == [(4, 2)]
    h1.remove()
    h2.remove()
    x = mg.randn(4, 3)
    np.testing.assert_allclose(
        lin(x).detach().numpy(), mg.nn.functional.linear(x, lin.weight, lin.bias).detach().numpy()
    )
    assert calls == [(4, 2)]


# ------------------------------------------------------------------------------ state_dict
def test_state_dict_keys_order_and_memory_sharing():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == [
        "scale",
        "steps",
        "fc1.weight",
        "fc1.bias",
        "bn.weight",
        "bn.bias",
        "bn.running_mean",
        "bn.running_var",
        "bn.num_batches_tracked",
        "fc2.weight",
        "fc2.bias",
    ]
    assert "scratch" not in sd  # non-persistent buffer
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"]._data is net.fc1.weight._data
    assert net.state_dict(keep_vars=True)["fc1.weight"] is net.fc1.weight


def test_load_state_dict_copies_into_existing_parameters():
    mg.manual_seed(0)
    src, dst = Net(), Net()
    src(mg.randn(8, 4))  # moves src's running statistics
    weight_obj = dst.fc1.weight
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert dst.fc1.weight is weight_obj  # copied into, not replaced
    for (k, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()), k
        assert a._data is not b._data
    # Values of another dtype are cast to the parameter's dtype.
    sd = {k: v.double() if v.is_floating_point() else v for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)
    assert dst.fc1.weight.dtype is mg.float32


def test_state_dict_survives_save_and_load(tmp_path):
    mg.manual_seed(0)
    src, dst = Net(), Net()
    path = tmp_path / "net.pth"
    mg.save(src.state_dict(), path)
    dst.load_state_dict(mg.load(path))
    x = mg.randn(3, 4)
    src.eval()
    dst.eval()
    np.testing.assert_array_equal(src(x).detach().numpy(), dst(x).detach().numpy())


def test_strict_loading_reports_every_problem_in_one_error():
    net = Net()
    sd = dict(net.state_dict())
    del sd["fc1.bias"]
    del sd["steps"]
    sd["extra.weight"] = mg.zeros(1)
    sd["fc2.weight"] = mg.zeros(5, 5)
    before = net.fc2.weight.detach().numpy().copy()
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    msg = str(info.value)
    assert "Error(s) in loading state_dict for Net" in msg
    assert 'Missing key(s) in state_dict: "steps", "fc1.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in msg
    assert "size mismatch for fc2.weight: copying a param with shape minigenesis.Size([5, 5])" in (
        msg
    )
    assert "the shape in current model is minigenesis.Size([3, 8])." in msg
    np.testing.assert_array_equal(net.fc2.weight.detach().numpy(), before)  # nothing copied


def test_non_strict_loading_returns_the_keys_but_still_refuses_shape_mismatch():
    net = Net()
    sd = dict(net.state_dict())
    del sd["fc1.bias"]
    sd["extra"] = mg.zeros(1)
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc1.bias"] and result.unexpected_keys == ["extra"]
    sd["fc2.bias"] = mg.zeros(4)
    with pytest.raises(RuntimeError, match="size mismatch for fc2.bias"):
        net.load_state_dict(sd, strict=False)
    with pytest.raises(TypeError, match="expects a dict"):
        net.load_state_dict([1, 2])
    bad = dict(net.state_dict())
    bad["fc2.bias"] = "not a tensor"
    with pytest.raises(RuntimeError, match='"fc2.bias", expected Tensor .* received <class .str.>'):
        net.load_state_dict(bad)


def test_load_state_dict_keeps_an_optimizer_working():
    mg.manual_seed(0)
    net, other = nn.Linear(3, 1), nn.Linear(3, 1)
    opt = mg.optim.SGD(net.parameters(), lr=0.1)
    net.load_state_dict(other.state_dict())
    x = mg.randn(4, 3)
    net(x).sum().backward()
    before = net.weight.detach().numpy().copy()
    opt.step()
    assert not np.array_equal(net.weight.detach().numpy(), before)


# ------------------------------------------------------------------------------ containers
def test_sequential_indexing_slicing_len_iter_and_mutation():
    seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    assert len(seq) == 3 and isinstance(seq[0], nn.Linear) and isinstance(seq[-1], nn.Linear)
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is seq[0]
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    x = mg.randn(5, 4)
    np.testing.assert_allclose(seq(x).detach().numpy(), seq[2](seq[1](seq[0](x))).detach().numpy())
    with pytest.raises(IndexError, match="out of range"):
        seq[3]
    seq[1] = nn.Tanh()
    assert isinstance(seq[1], nn.Tanh)
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    del seq[3]
    assert len(seq) == 3
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"] and named.fc is named[0]
    assert "(0): Linear(in_features=4, out_features=8, bias=True)" in repr(seq)


def test_modulelist_and_moduledict():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers.extend([nn.Tanh()])
    layers.insert(0, nn.Identity())
    assert [type(m).__name__ for m in layers] == [
        "Identity",
        "Linear",
        "Linear",
        "Linear",
        "ReLU",
        "Tanh",
    ]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[0]
    assert list(dict(layers.named_children())) == ["0", "1", "2", "3", "4"]
    with pytest.raises(NotImplementedError, match="iterate"):
        layers(mg.zeros(1))

    heads = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.Linear(2, 4)})
    assert list(heads.keys()) == ["a", "b"] and "a" in heads and len(heads) == 2
    assert list(heads.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias"]
    heads["c"] = nn.ReLU()
    assert isinstance(heads.pop("c"), nn.ReLU) and len(heads) == 2
    with pytest.raises(KeyError, match="no key 'z'"):
        heads["z"]


def test_get_submodule_and_repr_nesting():
    net = nn.Sequential(nn.Sequential(nn.Linear(2, 2)), nn.ReLU())
    assert net.get_submodule("0.0") is net[0][0]
    with pytest.raises(AttributeError, match="no submodule"):
        net.get_submodule("0.5")
    text = repr(net)
    assert text.startswith("Sequential(\n  (0): Sequential(\n    (0): Linear(")


@pytest.mark.parametrize("problem", ["missing", "unexpected", "shape"])
def test_each_strict_mode_error_alone(problem):
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    sd = dict(net.state_dict())
    if problem == "missing":
        del sd["2.bias"]
        expected = 'Missing key(s) in state_dict: "2.bias"'
    elif problem == "unexpected":
        sd["3.weight"] = mg.zeros(1)
        expected = 'Unexpected key(s) in state_dict: "3.weight"'
    else:
        sd["0.weight"] = mg.zeros(3, 3)
        expected = "size mismatch for 0.weight"
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    msg = str(info.value)
    assert expected in msg
    others = {"missing": "Missing", "unexpected": "Unexpected", "shape": "size mismatch"}
    assert all(word not in msg for key, word in others.items() if key != problem)


def test_deepcopy_and_pickle_of_a_model():
    mg.manual_seed(0)
    net = Net()
    net(mg.randn(4, 4))
    twin = copy.deepcopy(net)
    assert twin.fc1.weight is not net.fc1.weight
    for (k, a), (_, b) in zip(net.state_dict().items(), twin.state_dict().items()):
        assert np.array_equal(a.numpy(), b.numpy()) and a._data is not b._data, k
    with mg.no_grad():
        twin.fc1.weight.zero_()
    assert float(net.fc1.weight.abs().sum()) > 0  # independent memory
    restored = pickle.loads(pickle.dumps(net))
    assert isinstance(restored.fc1.weight, nn.Parameter)
    net.eval()
    restored.eval()
    x = mg.randn(2, 4)
    np.testing.assert_array_equal(net(x).detach().numpy(), restored(x).detach().numpy())
