"""Global module hooks (torch.nn.modules.module.register_module_*) and
autograd.graph.register_multi_grad_hook against PyTorch: the same program, run on both
libraries, logs the same hook calls with the same values."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
W = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])


def _hooks(lib):
    return importlib.import_module(lib.__name__ + ".nn.modules.module")


def _values(t):
    return None if t is None else np.round(t.detach().numpy(), 12).tolist()


def _registrations(lib) -> list:
    h, nn, log = _hooks(lib), lib.nn, []
    handles = [
        h.register_module_parameter_registration_hook(
            lambda m, n, v: log.append(("p", type(m).__name__, n))
        ),
        h.register_module_buffer_registration_hook(
            lambda m, n, v: log.append(("b", type(m).__name__, n, v is None))
        ),
        h.register_module_module_registration_hook(
            lambda m, n, v: log.append(("m", type(m).__name__, n, v is None))
        ),
    ]
    try:
        model = nn.Sequential(
            nn.Linear(2, 3, bias=False), nn.BatchNorm1d(3), nn.Conv2d(1, 1, 2),
            nn.LayerNorm(3), nn.Embedding(3, 2), nn.LSTM(2, 3), nn.MultiheadAttention(4, 2),
        )  # fmt: skip
        model.extra = None
        model.register_buffer("z", None)
        model[0].weight = None
        model[1] = None
    finally:
        for handle in handles:
            handle.remove()
    return log


def test_registration_hooks_log_what_pytorchs_log() -> None:
    assert _registrations(mg) == _registrations(torch)


def _backward_log(lib, x_needs_grad: bool) -> list:
    h, nn, log = _hooks(lib), lib.nn, []
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    with lib.no_grad():
        model[0].weight.copy_(lib.tensor(W))
        model[0].bias.fill_(0.25)
    model[0].register_full_backward_pre_hook(lambda m, go: log.append("own pre"))
    model[0].register_full_backward_hook(lambda m, gi, go: log.append("own hook"))

    def pre(m, go):
        log.append(("pre", type(m).__name__, [_values(g) for g in go]))
        return (go[0] * 3,) if isinstance(m, nn.Tanh) else None

    def hook(m, gi, go):
        log.append(("hook", type(m).__name__, [_values(g) for g in gi]))
        return (gi[0] * 2,) if isinstance(m, nn.Linear) and gi[0] is not None else None

    handles = [h.register_module_full_backward_pre_hook(pre)]
    handles.append(h.register_module_full_backward_hook(hook))
    x = lib.tensor(X, requires_grad=x_needs_grad)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model(x).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    model(x).sum().backward()  # removed: nothing more is logged
    early = [str(w.message)[:48] for w in caught]  # hooks that fire before the inputs' grads
    return [*log, early, _values(x.grad), _values(model[0].weight.grad)]


@pytest.mark.parametrize("x_needs_grad", [True, False])
def test_global_backward_hooks_log_and_replace_as_pytorchs(x_needs_grad: bool) -> None:
    assert _backward_log(mg, x_needs_grad) == _backward_log(torch, x_needs_grad)


def _error_paths(lib) -> list:
    h, nn, log = _hooks(lib), lib.nn, []

    class Failing(nn.Module):
        def forward(self, x, scale=1.0):
            raise ValueError("boom")

    layer = nn.Identity()
    layer.register_forward_hook(lambda m, a, o: log.append(("own", _values(o))), always_call=True)
    handles = [
        h.register_module_forward_hook(
            lambda m, *r: log.append(("kw", len(r))), with_kwargs=True, always_call=True
        ),
        h.register_module_forward_hook(lambda m, a, o: 1 / 0, always_call=True),
        h.register_module_forward_pre_hook(
            lambda m, a: (_ for _ in ()).throw(KeyError("pre")) if a[0].numel() == 2 else None
        ),
    ]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for call in (lambda: Failing()(lib.ones(1), scale=2.0), lambda: layer(lib.ones(2))):
                with pytest.raises((ValueError, KeyError)):
                    call()
            log.append(layer(lib.ones(1)).tolist())  # the hook's own error raises here
    except ZeroDivisionError:
        log.append("ZeroDivisionError")
    finally:
        for handle in handles:
            handle.remove()
    return [*log, [str(w.message)[:40] for w in caught]]


def test_always_call_hooks_on_errors_as_pytorchs() -> None:
    assert _error_paths(mg) == _error_paths(torch)


def _multi_grad(lib) -> list:
    reg = importlib.import_module(lib.__name__ + ".autograd.graph").register_multi_grad_hook
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    c, d, out = a * b, a * b, []
    reg((a, b, c, d), lambda gs: out.append([_values(g) for g in gs]))
    c.sum().backward(retain_graph=True)
    (c * 2 + d).sum().backward(retain_graph=True)
    reg((a, b, c), lambda g: out.append(("any", _values(g))), mode="any")
    (c * 3).sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    lib.autograd.grad(c.sum(), (c,))
    return out


def test_multi_grad_hook_calls_as_pytorchs() -> None:
    assert _multi_grad(mg) == _multi_grad(torch)
