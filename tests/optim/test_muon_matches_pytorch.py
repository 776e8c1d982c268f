"""Muon against PyTorch's ``torch.optim.Muon``: a few steps of every option in float32 and float64
(the Newton-Schulz iteration in bfloat16 in both), the refusals' types and words, the constructor's
parameters, and the state_dict's keys."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

OPTIONS = [
    {},
    {"nesterov": False},
    {"momentum": 0.0, "weight_decay": 0.0},
    {"adjust_lr_fn": "original", "weight_decay": 0.2},
    {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.01, "momentum": 0.9},
    {"ns_steps": 3, "ns_coefficients": (3.0, -3.2, 1.2), "eps": 1e-3, "lr": 0.05},
    {"ns_steps": 0},
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", OPTIONS)
def test_steps_match_pytorch(dtype, options):
    rng = np.random.default_rng(0)
    starts = [rng.standard_normal(s).astype(dtype) for s in ((6, 4), (3, 7), (5, 5))]
    theirs = [torch.tensor(a, requires_grad=True) for a in starts]
    ours = [mg.tensor(a, requires_grad=True) for a in starts]
    options = {"lr": 0.02, **options}
    t_opt, m_opt = torch.optim.Muon(theirs, **options), mg.optim.Muon(ours, **options)
    for _ in range(4):
        for t, m in zip(theirs, ours):
            g = rng.standard_normal(t.shape).astype(dtype)
            t.grad, m.grad = torch.tensor(g), mg.tensor(g)
        t_opt.step()
        m_opt.step()
    # The same bfloat16 iteration: each product rounded once from float32. Where the float32
    # sums of the two BLAS differ in their last bit, a rare entry rounds one bfloat16 step the
    # other way (2 matrices in 300 differ so); the update is otherwise the same, the parameters'
    # own arithmetic 1 ulp apart at most.
    tight = 2e-7 if dtype == "float32" else 1e-15
    for t, m in zip(theirs, ours):
        assert str(m.dtype) == f"minigenesis.{dtype}"
        diff = np.abs(m.detach().numpy() - t.detach().numpy())
        assert diff.max() <= 4 * options["lr"] * 2**-7  # bfloat16 steps of an update, at most
        assert np.mean(diff <= tight) >= 0.75  # the rest as PyTorch's
    t_buf = t_opt.state[theirs[0]]["momentum_buffer"].numpy()
    np.testing.assert_allclose(m_opt.state[ours[0]]["momentum_buffer"].numpy(), t_buf, atol=tight)


@pytest.mark.parametrize(
    "dtype, options", [("float16", {}), ("float16", {"nesterov": False}), ("bfloat16", {})]
)
def test_half_precision_steps_match_pytorch(dtype, options):
    # each op computed in float32 and rounded once to the parameter's dtype, as PyTorch's
    # (bfloat16 with nesterov=False left out: PyTorch divides its momentum buffer in place there)
    rng = np.random.default_rng(2)
    start = torch.tensor(rng.standard_normal((6, 4)), dtype=getattr(torch, dtype))
    t = start.clone().requires_grad_()
    m = mg.tensor(start.float().numpy(), dtype=getattr(mg, dtype), requires_grad=True)
    t_opt, m_opt = torch.optim.Muon([t], lr=0.02, **options), mg.optim.Muon([m], lr=0.02, **options)
    for _ in range(4):
        g = torch.tensor(rng.standard_normal((6, 4)), dtype=t.dtype)
        t.grad, m.grad = g, mg.tensor(g.float().numpy(), dtype=m.dtype)
        t_opt.step()
        m_opt.step()
    ours, theirs = m.detach().float().numpy(), t.detach().float().numpy()
    ulp = 2.0**-10 if dtype == "float16" else 2.0**-7
    assert np.abs(ours - theirs).max() <= ulp * np.abs(theirs).max()  # a rare entry 1 ulp apart
    assert np.mean(ours == theirs) >= 0.75
    buf = m_opt.state[m]["momentum_buffer"].float().numpy()
    np.testing.assert_array_equal(buf, t_opt.state[t]["momentum_buffer"].float().numpy())


def test_state_dict_has_pytorchs_keys_and_loads_into_pytorch():
    start = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    t, m = torch.tensor(start, requires_grad=True), mg.tensor(start, requires_grad=True)
    t_opt, m_opt = torch.optim.Muon([t], lr=0.1), mg.optim.Muon([m], lr=0.1)
    t.grad, m.grad = torch.ones(4, 3), mg.ones(4, 3)
    t_opt.step()
    m_opt.step()
    ts, ms = t_opt.state_dict(), m_opt.state_dict()
    assert sorted(ms["param_groups"][0]) == sorted(ts["param_groups"][0])
    assert {k: v for k, v in ms["param_groups"][0].items()} == ts["param_groups"][0]
    assert sorted(ms["state"][0]) == sorted(ts["state"][0])


def test_constructor_takes_pytorchs_parameters():
    def names(cls):
        return list(inspect.signature(cls).parameters)

    assert names(mg.optim.Muon) == names(torch.optim.Muon)
    t_defaults = torch.optim.Muon([torch.zeros(2, 2, requires_grad=True)]).defaults
    assert mg.optim.Muon([mg.zeros(2, 2, requires_grad=True)]).defaults == t_defaults


@pytest.mark.parametrize(
    "options",
    [{"lr": -1.0}, {"momentum": -0.5}, {"weight_decay": -0.1}, {"adjust_lr_fn": "rms"}],
)
def test_refused_options_raise_pytorchs_error(options):
    with pytest.raises(ValueError) as theirs:
        torch.optim.Muon([torch.zeros(2, 2, requires_grad=True)], **options)
    with pytest.raises(ValueError) as ours:
        mg.optim.Muon([mg.zeros(2, 2, requires_grad=True)], **options)
    assert str(ours.value) == str(theirs.value)


def test_a_vector_parameter_is_refused_as_pytorch_refuses_it():
    with pytest.raises(ValueError) as theirs:
        torch.optim.Muon([torch.zeros(3, requires_grad=True)])
    with pytest.raises(ValueError) as ours:
        mg.optim.Muon([mg.zeros(3, requires_grad=True)])
    assert str(ours.value).startswith(str(theirs.value).split("size:")[0])


@pytest.mark.parametrize("options", [{"ns_steps": 100}, {"ns_coefficients": (1.0, 2.0)}])
def test_bad_iteration_options_raise_at_the_step_as_pytorch(options):
    t, m = torch.zeros(2, 2, requires_grad=True), mg.zeros(2, 2, requires_grad=True)
    t_opt, m_opt = torch.optim.Muon([t], **options), mg.optim.Muon([m], **options)
    t.grad, m.grad = torch.ones(2, 2), mg.ones(2, 2)
    with pytest.raises(ValueError) as theirs:
        t_opt.step()
    with pytest.raises(ValueError) as ours:
        m_opt.step()
    assert str(ours.value) == str(theirs.value)


def test_muon_is_exported_where_pytorch_exports_it():
    assert "Muon" in torch.optim.__all__ and "Muon" in mg.optim.__all__
    assert mg.optim.Muon is mg.optim.muon.Muon
