"""nn.utils.stateless.functional_call and torch.func.functional_call (which runs on it): a module
run with given tensors in place of its parameters and buffers, against NumPy and closed forms."""

import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.func import functional_call
from minigenesis.nn.utils import stateless

DEPRECATION = (
    "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
    "and will be removed in a future version of PyTorch. "
    "Please use `torch.func.functional_call` instead which is a drop-in replacement."
)


def _mlp() -> nn.Sequential:
    return nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).double()


def _weights(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = {"0.weight": (4, 3), "0.bias": (4,), "2.weight": (2, 4), "2.bias": (2,)}
    return {k: rng.standard_normal(s) for k, s in shapes.items()}


def _mlp_numpy(w: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    h = np.maximum(x @ w["0.weight"].T + w["0.bias"], 0.0)
    return h @ w["2.weight"].T + w["2.bias"]


def _call(*args, **kwargs):
    """The deprecated form, with its FutureWarning silenced (tested on its own below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return stateless.functional_call(*args, **kwargs)


@pytest.mark.parametrize("call", [_call, functional_call], ids=["stateless", "func"])
def test_dotted_names_reach_the_submodules_and_the_module_keeps_its_own(call):
    net, w = _mlp(), _weights()
    own = {k: v for k, v in net.named_parameters()}
    x = np.random.default_rng(1).standard_normal((5, 3))
    out = call(net, {k: mg.tensor(v) for k, v in w.items()}, mg.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), _mlp_numpy(w, x), rtol=1e-12)
    assert all(p is own[k] for k, p in net.named_parameters())


@pytest.mark.parametrize("call", [_call, functional_call], ids=["stateless", "func"])
def test_gradients_flow_to_the_passed_tensors_not_the_module(call):
    # y = W x + b, L = sum(y^2): dL/dW = 2 y x^T, dL/db = 2 y (summed over the batch).
    lin = nn.Linear(3, 2).double()
    rng = np.random.default_rng(2)
    w, b, x = rng.standard_normal((2, 3)), rng.standard_normal(2), rng.standard_normal((4, 3))
    tw, tb = mg.tensor(w, requires_grad=True), mg.tensor(b, requires_grad=True)
    call(lin, {"weight": tw, "bias": tb}, (mg.tensor(x),)).pow(2).sum().backward()
    y = x @ w.T + b
    np.testing.assert_allclose(tw.grad.numpy(), 2 * y.T @ x, rtol=1e-12)
    np.testing.assert_allclose(tb.grad.numpy(), 2 * y.sum(0), rtol=1e-12)
    assert lin.weight.grad is None and lin.bias.grad is None


def test_the_deprecated_form_warns_as_pytorch_does_and_the_func_form_does_not():
    lin = nn.Linear(2, 2)
    with pytest.warns(FutureWarning) as record:
        stateless.functional_call(lin, {}, mg.zeros(1, 2))
    assert [str(r.message) for r in record] == [DEPRECATION]
    assert record[0].filename == __file__  # points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        functional_call(lin, {}, mg.zeros(1, 2))


def test_a_tuple_of_dicts_gives_parameters_and_buffers():
    # eval-mode BatchNorm1d: y = (x - mean) / sqrt(var + eps) * gamma + beta
    bn = nn.BatchNorm1d(3).double().eval()
    rng = np.random.default_rng(3)
    x, mean, var = rng.standard_normal((4, 3)), rng.standard_normal(3), rng.random(3) + 0.5
    gamma, beta = rng.standard_normal(3), rng.standard_normal(3)
    params = {"weight": mg.tensor(gamma), "bias": mg.tensor(beta)}
    buffers = {"running_mean": mg.tensor(mean), "running_var": mg.tensor(var)}
    out = functional_call(bn, (params, buffers), (mg.tensor(x),))
    want = (x - mean) / np.sqrt(var + bn.eps) * gamma + beta
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(3))


def test_a_key_in_two_dicts_or_a_non_dict_is_a_value_error():
    lin = nn.Linear(2, 2)
    with pytest.raises(ValueError, match=r"\['bias'\] appeared in multiple dictionaries"):
        functional_call(lin, ({"bias": mg.zeros(2)}, {"bias": mg.ones(2)}), mg.zeros(1, 2))
    with pytest.raises(ValueError, match="to be dictionaries"):
        functional_call(lin, ({"bias": mg.zeros(2)}, 3), mg.zeros(1, 2))
    with pytest.raises(ValueError, match="to be a dict, or a list/tuple of dicts"):
        functional_call(lin, 3, mg.zeros(1, 2))


def test_a_buffer_the_forward_updates_is_written_back_into_the_callers_dict():
    # training-mode BatchNorm: running_mean <- (1 - m) running_mean + m batch_mean, m = 0.1
    bn = nn.BatchNorm1d(2).double()
    x = np.array([[1.0, 2.0], [3.0, 6.0]])
    given = {"running_mean": mg.tensor([10.0, 20.0], dtype=mg.float64)}
    functional_call(bn, given, mg.tensor(x))
    np.testing.assert_allclose(
        given["running_mean"].numpy(), 0.9 * np.array([10, 20]) + 0.1 * x.mean(0)
    )
    np.testing.assert_array_equal(bn.running_mean.numpy(), np.zeros(2))
    assert int(bn.num_batches_tracked) == 1  # not given: the module's own buffer counts the step


class Counter(nn.Module):
    """Reassigns its buffer in forward: count <- count + x."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", mg.zeros(()))

    def forward(self, x):
        self.count = self.count + x
        return self.count


def test_a_reassigned_buffer_comes_back_in_the_dict_and_not_in_the_module():
    m = Counter()
    given = {"count": mg.tensor(5.0)}
    assert float(_call(m, given, mg.tensor(2.0))) == 7.0
    assert float(given["count"]) == 7.0 and float(m.count) == 0.0


class Boom(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        raise ValueError("forward failed")


@pytest.mark.parametrize("call", [_call, functional_call], ids=["stateless", "func"])
def test_the_originals_are_restored_when_forward_raises(call):
    m = Boom()
    weight, bias = m.lin.weight, m.lin.bias
    with pytest.raises(ValueError, match="forward failed"):
        call(
            m,
            {"lin.weight": mg.zeros(2, 2), "lin.bias": mg.zeros(2), "extra": mg.ones(1)},
            mg.ones(1, 2),
        )
    assert m.lin.weight is weight and m.lin.bias is bias and not hasattr(m, "extra")


def test_a_bad_path_restores_what_was_swapped_before_it():
    net = _mlp()
    weight = net[0].weight
    with pytest.raises(AttributeError, match="has no attribute `9`"):
        functional_call(net, {"0.weight": mg.zeros(4, 3), "9.weight": mg.zeros(1)}, mg.zeros(1, 3))
    assert net[0].weight is weight


def test_a_non_tensor_value_is_a_type_error():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="is not an instance of torch.Tensor"):
        functional_call(lin, {"weight": np.zeros((2, 2))}, mg.zeros(1, 2))


class Tied(nn.Module):
    """y = W (W x) with one weight under two names."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(2, 2, bias=False).double()
        self.b = nn.Linear(2, 2, bias=False).double()
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


@pytest.mark.parametrize("tie_weights", [True, False])
def test_tie_weights_decides_whether_a_tied_name_follows(tie_weights):
    net = Tied()
    w, x = np.array([[1.0, 2.0], [0.0, 3.0]]), np.array([[1.0, -1.0]])
    own = net.a.weight.detach().numpy()
    out = _call(net, {"a.weight": mg.tensor(w)}, mg.tensor(x), tie_weights=tie_weights)
    second = w if tie_weights else own
    np.testing.assert_allclose(out.detach().numpy(), x @ w.T @ second.T, rtol=1e-12)


def test_the_same_tensor_under_both_tied_names_is_allowed_two_are_not():
    net, w = Tied(), mg.eye(2, dtype=mg.float64)
    out = _call(net, {"a.weight": w, "b.weight": w}, mg.tensor([[3.0, 4.0]], dtype=mg.float64))
    np.testing.assert_array_equal(out.numpy(), [[3.0, 4.0]])
    with pytest.raises(ValueError, match=r"multiple values for keys \['a.weight', 'b.weight'\]"):
        _call(net, {"a.weight": w, "b.weight": w.clone()}, mg.zeros(1, 2))


def test_strict_lists_unexpected_and_missing_keys_as_pytorch_does():
    net = _mlp()
    with pytest.raises(RuntimeError) as err:
        functional_call(
            net, {"0.weight": mg.zeros(4, 3), "zz": mg.zeros(1)}, mg.zeros(1, 3), strict=True
        )
    assert str(err.value) == (
        "Error(s) in reparametrizing for Sequential:\n"
        "\tUnexpected key(s): 'zz'.\n"
        "\tMissing key(s): '0.bias', '2.bias', '2.weight'."
    )
    w = _weights()
    out = _call(
        net, {k: mg.tensor(v) for k, v in w.items()}, mg.ones(1, 3, dtype=mg.float64), strict=True
    )
    np.testing.assert_allclose(out.detach().numpy(), _mlp_numpy(w, np.ones((1, 3))), rtol=1e-12)


def test_strict_counts_a_tied_name_as_given():
    net = Tied()
    _call(
        net,
        {"a.weight": mg.eye(2, dtype=mg.float64)},
        mg.zeros(1, 2, dtype=mg.float64),
        strict=True,
    )
    with pytest.raises(RuntimeError, match=r"Tied:\n\tMissing key\(s\): 'b.weight'\.$"):
        _call(net, {"a.weight": mg.eye(2)}, mg.zeros(1, 2), strict=True, tie_weights=False)


def test_a_name_the_module_lacks_is_an_attribute_for_the_call_only():
    class Scale(nn.Module):
        def forward(self, x):
            return x * self.factor

    m = Scale()
    out = functional_call(m, {"factor": mg.tensor(3.0)}, args=(), kwargs={"x": mg.tensor(2.0)})
    assert float(out) == 6.0 and not hasattr(m, "factor")


class Symmetric(nn.Module):
    """W -> triu(W) + triu(W, 1)^T."""

    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def test_a_parametrization_is_applied_to_a_given_original():
    lin = nn.Linear(2, 2, bias=False).double()
    nn.utils.parametrize.register_parametrization(lin, "weight", Symmetric())
    original = lin.parametrizations.weight.original
    w, x = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    given = {"parametrizations.weight.original": mg.tensor(w)}
    out = functional_call(lin, given, mg.tensor(x))
    np.testing.assert_array_equal(out.numpy(), x @ np.array([[1.0, 2.0], [2.0, 4.0]]).T)
    assert lin.parametrizations.weight.original is original
