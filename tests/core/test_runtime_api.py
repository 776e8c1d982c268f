"""The run-time switches PyTorch scripts call on their way in: threads, Variable, anomaly mode,
compile and jit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg


def test_set_num_threads_limits_blas_and_get_num_threads_reads_it_back():
    before = mg.get_num_threads()
    try:
        mg.set_num_threads(1)
        assert mg.get_num_threads() == 1
    finally:
        mg.set_num_threads(before)
    assert mg.get_num_threads() == before
    with pytest.raises(ValueError, match="positive int"):
        mg.set_num_threads(0)
    mg.set_num_interop_threads(2)
    assert mg.get_num_interop_threads() == 2


def test_variable_returns_the_tensor_and_every_tensor_is_a_variable():
    from minigenesis.autograd import Variable

    x = mg.ones(3)
    assert Variable(x) is x and isinstance(mg.zeros(1), Variable)
    w = Variable(mg.tensor([2.0]), requires_grad=True)
    (w * w).sum().backward()
    assert w.is_leaf and w.grad.tolist() == [4.0]
    with pytest.raises(TypeError, match="has to be a tensor"):
        Variable([1.0])


def test_set_detect_anomaly_switches_on_and_restores_as_a_context():
    assert not mg.autograd.is_anomaly_enabled()
    with mg.autograd.set_detect_anomaly(True):
        assert mg.autograd.is_anomaly_enabled()
        x = mg.tensor([-1.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            mg.sqrt(x).sum().backward()  # NaN gradient, caught in anomaly mode
    assert not mg.autograd.is_anomaly_enabled()
    mg.set_detect_anomaly(True)  # the plain-call form stays on
    try:
        assert mg.autograd.is_anomaly_enabled()
    finally:
        mg.set_detect_anomaly(False)
    assert not mg.autograd.is_anomaly_enabled()


def test_compile_wraps_a_module_as_orig_mod_and_says_so_once(monkeypatch):
    import minigenesis.compiler as compiler

    monkeypatch.setattr(compiler, "_warned", False)
    model = mg.nn.Linear(3, 2)
    with pytest.warns(UserWarning, match="runs eagerly"):
        compiled = mg.compile(model)
    assert compiled._orig_mod is model and compiled.weight is model.weight
    assert list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    x = mg.randn(4, 3)
    assert np.array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    assert model.compile() is None and list(model.state_dict()) == ["weight", "bias"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.compile(model, mode="max-autotune")  # no second warning

    @mg.compile(fullgraph=True)
    def f(x):
        return x * 2

    assert np.array_equal(f(mg.ones(2)).numpy(), [2.0, 2.0])
    assert not mg.compiler.is_compiling()
    with pytest.raises(TypeError, match="module or a function"):
        mg.compile(3)


def test_torchscript_is_refused_clearly_but_its_decorators_import():
    with pytest.raises(NotImplementedError, match="TorchScript is out of scope"):
        mg.jit.script(mg.nn.Linear(2, 2))
    with pytest.raises(NotImplementedError, match="torch.jit.trace there"):
        mg.jit.trace(mg.nn.Linear(2, 2), mg.ones(1, 2))

    @mg.jit.ignore
    def helper(x):
        return x + 1

    assert helper(1) == 2 and not mg.jit.is_scripting()


@pytest.mark.skipif(mg.cuda.is_available(), reason="checks the answers without a GPU")
def test_gpu_facts_without_a_gpu_say_what_is_missing():
    assert not mg.cuda.is_bf16_supported() and mg.cuda.memory_reserved() == 0
    with pytest.raises(RuntimeError, match="CUDA was requested"):
        mg.cuda.get_device_name()
