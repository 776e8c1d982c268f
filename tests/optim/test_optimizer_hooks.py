"""Optimizer hooks, as PyTorch's: step pre/post hooks (per optimizer and global, their order, a
pre-hook's (args, kwargs) replacing the step's), state_dict and load_state_dict hooks (a returned
dict replaces the one built or loaded), RemovableHandle, and no cost while none is registered."""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.optim.optimizer import (
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
)

torch = pytest.importorskip("torch")
torch_optimizer = importlib.import_module("torch.optim.optimizer")  # (the global hooks)


def _setup(lib, cls_name="SGD", **options):
    w = lib.tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = getattr(lib.optim, cls_name)([w], lr=0.5, **options)
    return w, opt


def _grad(w):
    w.grad = None
    (w * w).sum().backward()  # g = 2 w


def _events(lib, register_global_pre, register_global_post):
    """The order in which hooks run around two steps, for one library."""
    w, opt = _setup(lib)
    seen = []
    handles = [
        register_global_pre(lambda o, a, k: seen.append(("global pre", o is opt, len(a)))),
        register_global_post(lambda o, a, k: seen.append(("global post", o is opt))),
        opt.register_step_pre_hook(lambda o, a, k: seen.append(("pre", a[0] is opt, k))),
        opt.register_step_post_hook(lambda o, a, k: seen.append(("post", o is opt))),
    ]
    try:
        _grad(w)
        opt.step()
        handles[2].remove()
        _grad(w)
        opt.step()
    finally:
        for h in handles:
            h.remove()
    _grad(w)
    opt.step()  # after removal: nothing runs
    return seen, w.detach().numpy().tolist()


def test_step_hooks_run_in_pytorchs_order_and_stop_when_removed():
    ours = _events(mg, register_optimizer_step_pre_hook, register_optimizer_step_post_hook)
    theirs = _events(
        torch,
        torch_optimizer.register_optimizer_step_pre_hook,
        torch_optimizer.register_optimizer_step_post_hook,
    )
    assert ours == theirs
    assert ours[0][:4] == [
        ("global pre", True, 1),
        ("pre", True, {}),
        ("post", True),
        ("global post", True),
    ]
    # three SGD steps of w <- w - 0.5 * 2 w = 0: w is zero after the first
    assert ours[1] == [0.0, 0.0]


def test_a_pre_hook_returning_args_and_kwargs_replaces_them():
    w, opt = _setup(mg, "LBFGS")
    calls = []

    def closure():
        calls.append("closure")
        opt.zero_grad()
        loss = ((w - 3.0) ** 2).sum()
        loss.backward()
        return loss

    def swap(o, args, kwargs):
        return (args[0],), {"closure": closure}  # the step gets the hook's closure

    h = opt.register_step_pre_hook(swap)
    loss = opt.step(lambda: pytest.fail("the replaced closure was called"))
    h.remove()
    assert calls and loss.item() == pytest.approx(29.0)  # the first evaluation, at w = (1, -2)

    bad = opt.register_step_pre_hook(lambda o, a, k: "oops")
    with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args"):
        opt.step(closure)
    bad.remove()


def test_global_hook_runs_for_an_optimizer_that_writes_its_own_step_once():
    class Halving(mg.optim.SGD):
        def step(self, closure=None):
            for g in self.param_groups:
                g["lr"] *= 0.5
            return super().step(closure)  # (the base step: hooks must not run twice)

    w, _ = _setup(mg)
    opt = Halving([w], lr=0.5)
    seen = []
    with register_optimizer_step_pre_hook(lambda o, a, k: seen.append(type(o).__name__)):
        _grad(w)
        opt.step()
        _, sgd = _setup(mg)
        sgd.step()  # (no gradient: nothing moves, the hook still runs)
    _grad(w)
    opt.step()
    assert seen == ["Halving", "SGD"]
    # two steps of w <- w - lr 2 w with lr 0.25 then 0.125: w (1 - 0.5)(1 - 0.25)
    np.testing.assert_allclose(w.detach().numpy(), np.array([1.0, -2.0]) * 0.5 * 0.75)
    assert mg.optim.SGD.step is mg.optim.Optimizer.__dict__["step"]  # unwrapped again


def test_no_step_hook_leaves_step_unwrapped():
    _, opt = _setup(mg)
    assert "step" not in vars(opt)
    assert type(opt).step is mg.optim.Optimizer.__dict__["step"]


def _state_dict_hooks(lib):
    w, opt = _setup(lib, momentum=0.9)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: seen.append("first"), prepend=True)

    def add_note(o, sd):
        seen.append("post")
        sd["note"] = "kept"

    opt.register_state_dict_post_hook(add_note)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "replaced": True})
    _grad(w)
    opt.step()
    sd = opt.state_dict()
    return seen, sorted(sd), sd["note"]


def test_state_dict_hooks_run_in_order_and_a_returned_dict_replaces_it():
    ours = _state_dict_hooks(mg)
    assert ours == _state_dict_hooks(torch)
    assert ours == (["first", "pre", "post"], ["note", "param_groups", "replaced", "state"], "kept")


def _load_hooks(lib):
    w, opt = _setup(lib, momentum=0.9)
    _grad(w)
    opt.step()
    saved = opt.state_dict()
    w2, opt2 = _setup(lib, momentum=0.9)
    seen = []

    def rescale(o, sd):
        seen.append(sorted(sd))
        sd = copy.deepcopy(sd)
        sd["param_groups"][0]["lr"] = 0.125  # a new dict: loaded instead of the caller's
        return sd

    opt2.register_load_state_dict_pre_hook(lambda o, sd: sd.pop("extra") and None)
    opt2.register_load_state_dict_pre_hook(rescale)
    opt2.register_load_state_dict_post_hook(lambda o: seen.append(o.param_groups[0]["lr"]))
    opt2.load_state_dict({**saved, "extra": 1})
    buf = opt2.state[w2]["momentum_buffer"]
    return seen, buf.detach().numpy().tolist(), saved["param_groups"][0]["lr"]


def test_load_state_dict_hooks_see_a_copy_and_may_return_a_new_dict():
    ours = _load_hooks(mg)
    assert ours == _load_hooks(torch)
    # the buffer is the first step's gradient 2 w; the caller's dict keeps its lr
    assert ours == ([["param_groups", "state"], 0.125], [2.0, -4.0], 0.5)


def test_hooks_are_not_saved_with_the_optimizer():
    w, opt = _setup(mg)
    opt.register_step_pre_hook(lambda o, a, k: None)
    opt.register_state_dict_post_hook(lambda o, sd: None)
    for other in (pickle.loads(pickle.dumps(opt)), copy.deepcopy(opt)):
        assert not other._optimizer_step_pre_hooks and not other._optimizer_state_dict_post_hooks
        assert "step" not in vars(other)


@pytest.mark.parametrize("scheduler_first", [True, False])
def test_step_hooks_and_a_scheduler_on_an_optimizer_with_its_own_step(scheduler_first):
    w, opt = _setup(mg, "LBFGS")
    seen = []

    def closure():
        opt.zero_grad()
        loss = ((w - 3.0) ** 2).sum()
        loss.backward()
        return loss

    if scheduler_first:
        sched = mg.optim.lr_scheduler.StepLR(opt, 1)
    with register_optimizer_step_post_hook(lambda o, a, k: seen.append("global")):
        opt.register_step_post_hook(lambda o, a, k: seen.append("own"))
        if not scheduler_first:
            sched = mg.optim.lr_scheduler.StepLR(opt, 1)
        opt.step(closure)
    assert seen == ["own", "global"]  # once each, the scheduler's wrapper between them or not
    assert opt._opt_called
    sched.step()  # (no warning that the scheduler stepped first)
    np.testing.assert_allclose(w.detach().numpy(), [3.0, 3.0], atol=1e-4)  # (lr 0.5)
