"""GradScaler: scale trajectory, skipped steps and weights with inf/NaN injected at chosen steps
(a hand-derived trajectory, and PyTorch's GradScaler when torch is importable), the per-optimizer
state machine, state_dict, enabled=False, and the float16 underflow demonstration."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.amp import GradScaler
from minigenesis.amp import grad_scaler as gs_module

INF, NAN = float("inf"), float("nan")


class TinySGD:
    """A hand-made optimizer with the interface GradScaler relies on: param_groups and step()."""

    def __init__(self, params, lr):
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.steps = 0

    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p._data -= np.float32(group["lr"]) * p.grad._data
                    p._bump_version()
        self.steps += 1
        return "stepped"

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None


def _make_optimizer(kind, params, lr):
    if kind == "tiny":
        return TinySGD(params, lr)
    return mg.optim.SGD(params, lr=lr)


def _data(step, bad_steps):
    """The 'input' of each step; bad_steps maps a step to the value injected (inf or nan)."""
    d = np.array([1.0, -2.0, 0.5], np.float32) * (1 + 0.1 * step)
    if step in bad_steps:
        d[step % 3] = bad_steps[step]
    return d


def _run_ours(n, bad_steps, kind="tiny", lr=0.1, device="cpu", **scaler_kw):
    w = mg.zeros(3, requires_grad=True, device=device)
    opt = _make_optimizer(kind, [w], lr)
    scaler = GradScaler(**scaler_kw)
    scales, trackers, weights, stepped = [], [], [], []
    for i in range(n):
        opt.zero_grad()
        loss = (w * mg.tensor(_data(i, bad_steps), device=device)).sum()
        scaler.scale(loss).backward()
        before = w.detach().cpu().numpy().copy()
        scaler.step(opt)
        scaler.update()
        stepped.append(not np.array_equal(before, w.detach().cpu().numpy()))
        scales.append(scaler.get_scale())
        trackers.append(scaler.state_dict()["_growth_tracker"])
        weights.append(w.detach().cpu().numpy().copy())
    return scales, trackers, weights, stepped


@pytest.mark.parametrize("kind", ["tiny", "mg.optim.SGD"])
def test_hand_derived_trajectory(kind, device):
    # init 8, doubling after 2 clean steps in a row, halving on every inf/NaN step:
    # step:   0  1   2    3  4   5    6    7  8  9
    # bad:           inf         nan  inf
    # scale:  8  16  8    8  16  8    4    4  8  8
    bad = {2: INF, 5: NAN, 6: -INF}
    scales, trackers, weights, stepped = _run_ours(
        10, bad, kind=kind, device=device, init_scale=8.0, growth_interval=2
    )
    assert scales == [8, 16, 8, 8, 16, 8, 4, 4, 8, 8]
    assert trackers == [1, 0, 0, 1, 0, 0, 0, 1, 0, 1]
    assert stepped == [i not in bad for i in range(10)]
    # the weights: plain SGD over the clean steps only (dL/dw = data), computed in float32
    w = np.zeros(3, np.float32)
    for i in range(10):
        if i not in bad:
            w = w - np.float32(0.1) * _data(i, bad)
        np.testing.assert_allclose(weights[i], w, rtol=1e-6)
        assert np.isfinite(weights[i]).all()


_TORCH_CASE = dict(
    bad={1: INF, 4: NAN, 5: INF, 11: INF},
    n=16,
    kw=dict(init_scale=2.0**10, growth_factor=4.0, backoff_factor=0.25, growth_interval=3),
)
# What torch.amp.GradScaler("cpu") + torch.optim.SGD(lr=0.05) gave for _TORCH_CASE (torch 2.13;
# test_matches_pytorch_gradscaler below reruns torch itself, marked slow for torch's import time).
_TORCH_SCALES = [1024, 256, 256, 256, 64, 16, 16, 16, 64, 64, 64, 16, 16, 16, 64, 64]
_TORCH_TRACKERS = [1, 0, 1, 2, 0, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]
_TORCH_STEPPED = [1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1]
_TORCH_FINAL_W = [-1.095000147819519, 2.190000295639038, -0.5475000739097595]


def test_matches_committed_pytorch_trajectory(device):
    c = _TORCH_CASE
    scales, trackers, weights, stepped = _run_ours(
        c["n"], c["bad"], kind="mg.optim.SGD", lr=0.05, device=device, **c["kw"]
    )
    assert scales == _TORCH_SCALES
    assert trackers == _TORCH_TRACKERS
    assert [int(s) for s in stepped] == _TORCH_STEPPED
    np.testing.assert_allclose(weights[-1], _TORCH_FINAL_W, rtol=1e-6)


@pytest.mark.slow
def test_matches_pytorch_gradscaler():
    torch = pytest.importorskip("torch")
    bad, n, kw = _TORCH_CASE["bad"], _TORCH_CASE["n"], _TORCH_CASE["kw"]
    scales, trackers, weights, stepped = _run_ours(n, bad, kind="mg.optim.SGD", lr=0.05, **kw)

    w = torch.zeros(3, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.05)
    scaler = torch.amp.GradScaler("cpu", **kw)
    for i in range(n):
        opt.zero_grad()
        scaler.scale((w * torch.from_numpy(_data(i, bad))).sum()).backward()
        before = w.detach().clone()
        scaler.step(opt)
        scaler.update()
        assert scales[i] == scaler.get_scale()
        assert trackers[i] == scaler.state_dict()["_growth_tracker"]
        assert stepped[i] == (not torch.equal(before, w.detach()))
        np.testing.assert_allclose(weights[i], w.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_scale_never_grows_to_inf():
    # 2^127 * 2 overflows float32: PyTorch keeps the old scale (and resets the tracker)
    w = mg.zeros(2, requires_grad=True)
    opt = TinySGD([w], lr=1.0)
    scaler = GradScaler(init_scale=2.0**127, growth_interval=1)
    for _ in range(3):
        opt.zero_grad()
        scaler.scale((w * 1e-30).sum()).backward()  # scaled gradients ~1.7e8: finite
        scaler.step(opt)
        scaler.update()
        assert scaler.get_scale() == 2.0**127
        assert scaler.state_dict()["_growth_tracker"] == 0
    assert opt.steps == 3


def test_unscale_then_clip_then_step():
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    opt = TinySGD([w], lr=1.0)
    scaler = GradScaler(init_scale=1024.0)
    scaler.scale((w * w).sum() / 2).backward()  # dL/dw = w
    np.testing.assert_array_equal(w.grad.numpy(), [3072.0, 4096.0])
    scaler.unscale_(opt)
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 4.0])  # true gradients, e.g. to clip
    w.grad._data *= 0.5
    scaler.step(opt)  # does not unscale a second time
    np.testing.assert_array_equal(w.detach().numpy(), [1.5, 2.0])
    scaler.update()
    assert scaler.get_scale() == 1024.0


def test_state_machine_errors():
    w = mg.ones(2, requires_grad=True)
    opt = TinySGD([w], lr=0.1)
    scaler = GradScaler()
    with pytest.raises(AssertionError, match="scaler.scale"):  # PyTorch's type
        scaler.step(opt)
    with pytest.raises(AssertionError, match="scaler.scale"):
        scaler.update()
    scaler.scale(w.sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="after step"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="[Cc]losure"):
        scaler.step(opt, closure=lambda: 0)
    scaler.update()
    scaler.unscale_(opt)  # a new iteration: allowed again


def test_no_gradient_and_fp16_gradients_are_refused():
    w = mg.ones(2, requires_grad=True)
    scaler = GradScaler()
    scaler.scale(w.sum())
    with pytest.raises(AssertionError, match="No inf checks"):  # PyTorch's type
        scaler.step(TinySGD([w], lr=0.1))
    h = mg.ones(2, dtype=mg.float16, requires_grad=True)
    (h.float().sum()).backward()
    with pytest.raises(ValueError, match="FP16 gradients"):
        _unscale_fresh(h)


def _unscale_fresh(p):
    scaler = GradScaler()
    scaler.scale(mg.ones(()))
    scaler.unscale_(TinySGD([p], lr=0.1))


def test_bfloat16_gradients_are_unscaled_in_float32():
    p = mg.ones(3, dtype=mg.bfloat16, requires_grad=True)
    scaler = GradScaler(init_scale=256.0)
    (scaler.scale((p.float() * mg.tensor([1.0, 0.5, 3.0])).sum())).backward()
    scaler.unscale_(TinySGD([p], lr=0.1))
    assert p.grad.dtype is mg.bfloat16
    np.testing.assert_array_equal(p.grad.float().numpy(), [1.0, 0.5, 3.0])


def test_each_optimizer_steps_on_its_own_flags_and_update_combines_them():
    a, b = mg.ones(2, requires_grad=True), mg.ones(2, requires_grad=True)
    opt_a, opt_b = TinySGD([a], lr=0.1), TinySGD([b], lr=0.1)
    scaler = GradScaler(init_scale=16.0)
    loss = (a * 2.0).sum() + (b * mg.tensor([1.0, INF])).sum()
    scaler.scale(loss).backward()
    assert scaler.step(opt_a) == "stepped"
    assert scaler.step(opt_b) is None  # skipped: its gradient has an inf
    assert opt_a.steps == 1 and opt_b.steps == 0
    scaler.update()
    assert scaler.get_scale() == 8.0
    np.testing.assert_allclose(a.detach().numpy(), [0.8, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(b.detach().numpy(), [1.0, 1.0])


def test_inf_check_is_one_reduction_per_param_group(monkeypatch):
    params = [mg.ones(n, requires_grad=True) for n in (2, 3, 4, 5, 6)]
    opt = TinySGD(params[:3], lr=0.1)
    opt.param_groups.append({"params": params[3:], "lr": 0.1})
    scaler = GradScaler()
    scaler.scale(sum((p * p).sum() for p in params)).backward()
    params[4].grad._data[2] = NAN  # in the last parameter of the second group

    calls = []

    class CountingNumPy:
        def __getattr__(self, name):
            attr = getattr(np, name)
            if name == "isfinite":
                return lambda x: calls.append(x.size) or attr(x)
            return attr

    monkeypatch.setattr(gs_module, "get_array_module", lambda x: CountingNumPy())
    scaler.unscale_(opt)
    assert calls == [2 + 3 + 4, 5 + 6]  # one check per group, over all its gradients at once
    scaler.step(opt)
    assert opt.steps == 0


def test_state_dict_round_trip():
    scaler = GradScaler(init_scale=64.0, growth_factor=3.0, backoff_factor=0.25, growth_interval=5)
    w = mg.ones(2, requires_grad=True)
    opt = TinySGD([w], lr=0.1)
    for bad in (False, False, True, False):
        opt.zero_grad()
        scaler.scale((w * mg.tensor([1.0, INF if bad else 2.0])).sum()).backward()
        scaler.step(opt)
        scaler.update()
    sd = scaler.state_dict()
    assert sd == {
        "scale": 16.0,
        "growth_factor": 3.0,
        "backoff_factor": 0.25,
        "growth_interval": 5,
        "_growth_tracker": 1,
    }
    fresh = GradScaler()
    fresh.load_state_dict(sd)
    assert fresh.state_dict() == sd
    assert fresh.get_scale() == 16.0 and fresh.get_growth_interval() == 5
    # a loaded scaler continues the trajectory where the saved one stood
    for s in (scaler, fresh):
        opt.zero_grad()
        s.scale((w * 2.0).sum()).backward()
        s.step(opt)
        s.update()
    assert fresh.state_dict() == scaler.state_dict()
    restored = pickle.loads(pickle.dumps(scaler))
    assert restored.state_dict() == scaler.state_dict()
    with pytest.raises(RuntimeError, match="empty"):
        GradScaler().load_state_dict({})
    with pytest.raises(RuntimeError, match="pickled"):
        scaler.scale((w * 2.0).sum()).backward()
        scaler.step(opt)
        pickle.dumps(scaler)


@pytest.mark.slow
def test_state_dict_keys_match_pytorch():
    torch = pytest.importorskip("torch")
    ours = GradScaler(init_scale=128.0, growth_interval=7).state_dict()
    theirs = torch.amp.GradScaler("cpu", init_scale=128.0, growth_interval=7).state_dict()
    assert ours == theirs


def test_update_with_new_scale_and_setters():
    scaler = GradScaler()
    scaler.scale(mg.ones(()))
    scaler.update(new_scale=4.0)
    assert scaler.get_scale() == 4.0
    scaler.update(new_scale=mg.tensor(32.0))
    assert scaler.get_scale() == 32.0
    with pytest.raises(AssertionError, match="1-element"):  # PyTorch's type
        scaler.update(new_scale=mg.ones(2))
    with pytest.raises(AssertionError, match="requires_grad=False"):
        scaler.update(new_scale=mg.tensor(2.0, requires_grad=True))
    # a float64 (or integer) 1-element tensor is copied into the float32 scale, as PyTorch's
    scaler.update(new_scale=mg.tensor(8.0, dtype=mg.float64))
    assert scaler.get_scale() == 8.0
    scaler.set_growth_factor(3.0)
    scaler.set_backoff_factor(0.1)
    scaler.set_growth_interval(9)
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor()) == (3.0, 0.1)
    assert scaler.get_growth_interval() == 9
    with pytest.raises(ValueError, match="growth factor"):
        GradScaler(growth_factor=1.0)
    with pytest.raises(ValueError, match="backoff factor"):
        GradScaler(backoff_factor=1.5)


def test_scale_outputs_and_dtypes():
    scaler = GradScaler(init_scale=4.0)
    a, b = mg.tensor([1.0, 2.0]), mg.tensor(3.0)
    la, lb = scaler.scale([a, b])
    np.testing.assert_array_equal(la.numpy(), [4.0, 8.0])
    assert lb.item() == 12.0
    assert isinstance(scaler.scale((a,)), tuple)
    assert scaler.scale({"x": b})["x"].item() == 12.0
    # a 0-dim half loss meets the 0-dim float32 scale: float32, as PyTorch promotes
    assert scaler.scale(mg.tensor(1.0).bfloat16()).dtype is mg.float32
    assert scaler.scale(mg.ones(3).bfloat16()).dtype is mg.bfloat16
    with pytest.raises(TypeError, match="Tensor"):
        scaler.scale(3.0)
    assert GradScaler(device="cpu").get_scale() == 2.0**16
    if mg.cuda.is_available():
        assert GradScaler("cuda").get_scale() == 2.0**16  # PyTorch's spelling; the scale is lazy


def test_constructor_arguments_follow_both_pytorch_signatures():
    import inspect

    from minigenesis.cuda.amp import GradScaler as CudaGradScaler

    torch = pytest.importorskip("torch")
    # torch.amp.GradScaler: device first; torch.cuda.amp.GradScaler: init_scale first.
    for ours, theirs in [
        (mg.amp.GradScaler, torch.amp.GradScaler),
        (CudaGradScaler, torch.cuda.amp.GradScaler),
    ]:
        assert list(inspect.signature(ours).parameters) == list(
            inspect.signature(theirs).parameters
        )
    assert GradScaler("cpu", 8.0).get_scale() == 8.0
    if mg.cuda.is_available():  # (without CUDA it disables itself: see the next test)
        assert CudaGradScaler(8.0, growth_interval=3).state_dict() == {
            "scale": 8.0,
            "growth_factor": 2.0,
            "backoff_factor": 0.5,
            "growth_interval": 3,
            "_growth_tracker": 0,
        }
    with pytest.raises(TypeError, match="init_scale=1024.0"):
        GradScaler(1024.0)  # a scale where the device goes: say which argument is which


@pytest.mark.skipif(mg.cuda.is_available(), reason="needs a machine without CUDA")
def test_a_cuda_scaler_without_cuda_disables_itself_with_pytorchs_warning():
    from minigenesis.cuda.amp import GradScaler as CudaGradScaler

    message = "GradScaler is enabled, but CUDA is not available.  Disabling."
    for make in (
        lambda: mg.amp.GradScaler("cuda"),
        lambda: mg.amp.GradScaler(device=mg.device("cuda")),
        lambda: CudaGradScaler(enabled=True),
        lambda: mg.cuda.amp.GradScaler(),
    ):
        with pytest.warns(UserWarning, match=message) as record:
            scaler = make()
        assert record[0].filename == __file__  # the warning points at the caller
        assert not scaler.is_enabled() and scaler.get_scale() == 1.0
        loss = mg.tensor(2.0)
        assert scaler.scale(loss) is loss  # a pass-through, as PyTorch's disabled scaler
    # no device, "cpu", or enabled=False: no warning, and the first two scale as before
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert GradScaler().is_enabled() and GradScaler("cpu").is_enabled()
        assert not GradScaler("cuda", enabled=False).is_enabled()
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        with pytest.warns(UserWarning, match=message):
            assert not torch.amp.GradScaler("cuda").is_enabled()


def test_disabled_scaler_is_a_pass_through():
    scaler = GradScaler(enabled=False)
    w = mg.ones(2, requires_grad=True)
    opt = TinySGD([w], lr=0.5)
    loss = (w * 2.0).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    assert scaler.unscale_(opt) is None
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0])
    assert scaler.step(opt) == "stepped"
    scaler.update()
    scaler.update(new_scale=3.0)
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 0.0])
    assert scaler.get_scale() == 1.0 and not scaler.is_enabled()
    assert scaler.state_dict() == {}
    scaler.load_state_dict({})
    assert GradScaler().is_enabled()


def test_underflow_demo():
    demo = mg.amp.underflow_demo()
    assert np.all(demo.expected != 0)
    # float16's smallest subnormal is 2^-24 ~ 6e-8: a 1e-8 gradient rounds to zero
    assert np.all(demo.without_scaling == 0)
    np.testing.assert_allclose(demo.with_scaling, demo.expected, rtol=2e-3)
    assert demo.scale == 2.0**16


def test_scale_promotes_as_a_product_with_a_0d_float32_scale():
    """An integer output becomes float32, a float output with dims keeps its dtype, a 0-d half
    loss becomes float32 (PyTorch's promotion with its 0-d float32 scale)."""
    scaler = mg.amp.GradScaler(init_scale=8.0)
    ints = scaler.scale(mg.tensor([3, -1]))
    assert ints.dtype == mg.float32 and ints.tolist() == [24.0, -8.0]
    half = scaler.scale(mg.tensor([0.5, 0.25], dtype=mg.float16))
    assert half.dtype == mg.float16 and half.tolist() == [4.0, 2.0]
    loss = scaler.scale(mg.tensor(0.5, dtype=mg.float16))
    assert loss.dtype == mg.float32 and loss.item() == 4.0
