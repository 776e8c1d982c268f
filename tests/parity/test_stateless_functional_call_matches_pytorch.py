"""nn.utils.stateless.functional_call and func.functional_call against PyTorch's: outputs, the
gradients of the passed tensors, the buffers written back, the warning and the error messages."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402
from minigenesis import nn  # noqa: E402
from minigenesis.func import functional_call as mg_func_call  # noqa: E402
from minigenesis.nn.utils import stateless as mg_stateless  # noqa: E402


def _pair():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    return m, t


def _given(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = {"0.weight": (4, 3), "0.bias": (4,), "2.weight": (2, 4), "2.bias": (2,)}
    return {k: rng.standard_normal(s) for k, s in shapes.items()}


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("form", ["stateless", "func"])
def test_outputs_and_gradients_of_the_passed_tensors_match_pytorch(form):
    m, t = _pair()
    given, x = _given(), np.random.default_rng(1).standard_normal((5, 3))
    mg_w = {k: mg.tensor(v, requires_grad=True) for k, v in given.items()}
    t_w = {k: torch.tensor(v, requires_grad=True) for k, v in given.items()}
    mg_fn = mg_stateless.functional_call if form == "stateless" else mg_func_call
    t_fn = (
        torch.nn.utils.stateless.functional_call
        if form == "stateless"
        else torch.func.functional_call
    )
    got = _quiet(mg_fn, m, mg_w, (mg.tensor(x),))
    want = _quiet(t_fn, t, t_w, (torch.tensor(x),))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.pow(2).sum().backward()
    want.pow(2).sum().backward()
    for k in given:
        np.testing.assert_allclose(mg_w[k].grad.numpy(), t_w[k].grad.numpy(), rtol=1e-12)


def test_the_deprecation_warning_matches_pytorchs():
    with pytest.warns(FutureWarning) as want:
        torch.nn.utils.stateless.functional_call(torch.nn.Linear(2, 2), {}, torch.zeros(1, 2))
    with pytest.warns(FutureWarning) as got:
        mg_stateless.functional_call(nn.Linear(2, 2), {}, mg.zeros(1, 2))
    assert [str(w.message) for w in got] == [str(w.message) for w in want]


def test_the_strict_error_matches_pytorchs():
    m, t = _pair()
    with pytest.raises(RuntimeError) as want:
        torch.func.functional_call(
            t, {"2.bias": torch.zeros(2), "zz": torch.zeros(1)}, torch.zeros(1, 3), strict=True
        )
    with pytest.raises(RuntimeError) as got:
        mg_func_call(m, {"2.bias": mg.zeros(2), "zz": mg.zeros(1)}, mg.zeros(1, 3), strict=True)
    assert str(got.value) == str(want.value)


def test_the_repeated_key_error_matches_pytorchs():
    dicts = ({"bias": np.zeros(2)}, {"bias": np.ones(2)})
    with pytest.raises(ValueError) as want:
        torch.func.functional_call(
            torch.nn.Linear(2, 2),
            tuple({k: torch.tensor(v) for k, v in d.items()} for d in dicts),
            torch.zeros(1, 2),
        )
    with pytest.raises(ValueError) as got:
        mg_func_call(
            nn.Linear(2, 2),
            tuple({k: mg.tensor(v) for k, v in d.items()} for d in dicts),
            mg.zeros(1, 2),
        )
    assert str(got.value) == str(want.value)


def test_training_batch_norm_updates_the_given_buffers_as_pytorch_does():
    x = np.random.default_rng(4).standard_normal((6, 3))
    mean, var = np.array([1.0, -2.0, 0.5]), np.array([2.0, 0.5, 1.0])
    m, t = nn.BatchNorm1d(3).double(), torch.nn.BatchNorm1d(3).double()
    mg_b = {"running_mean": mg.tensor(mean), "running_var": mg.tensor(var)}
    t_b = {"running_mean": torch.tensor(mean), "running_var": torch.tensor(var)}
    got = mg_func_call(m, mg_b, (mg.tensor(x),))
    want = torch.func.functional_call(t, t_b, (torch.tensor(x),))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    for k in mg_b:
        np.testing.assert_allclose(mg_b[k].numpy(), t_b[k].numpy(), rtol=1e-12)
        np.testing.assert_array_equal(getattr(m, k).numpy(), getattr(t, k).numpy())
    assert int(m.num_batches_tracked) == int(t.num_batches_tracked) == 1


def test_a_reassigned_buffer_is_written_back_as_pytorch_does():
    class Count(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(()))

        def forward(self, x):
            self.count = self.count + x
            return self.count

    class MgCount(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", mg.zeros(()))

        def forward(self, x):
            self.count = self.count + x
            return self.count

    t_d, mg_d = {"count": torch.tensor(5.0)}, {"count": mg.tensor(5.0)}
    t, m = Count(), MgCount()
    torch.func.functional_call(t, t_d, torch.tensor(2.0))
    mg_func_call(m, mg_d, mg.tensor(2.0))
    assert float(mg_d["count"]) == float(t_d["count"]) == 7.0
    assert float(m.count) == float(t.count) == 0.0
