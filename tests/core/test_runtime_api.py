"""The run-time switches PyTorch scripts call on their way in: threads, Variable, anomaly mode,
compile and jit."""

from __future__ import annotations

import io
import pickle
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


def test_jit_script_and_trace_hand_back_the_eager_object_as_pytorch_jit_0_does():
    model = mg.nn.Linear(2, 2)

    @mg.jit.script
    def double(x: mg.Tensor) -> mg.Tensor:
        return x * 2

    assert mg.jit.script(model) is model
    assert np.array_equal(double(mg.ones(2)).numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="expected a function or an nn.Module"):
        mg.jit.script(3)

    @mg.jit.ignore
    def helper(x):
        return x + 1

    assert helper(1) == 2 and not mg.jit.is_scripting() and not mg.jit.is_tracing()


def test_jit_trace_runs_the_example_once_without_a_graph_and_fails_on_a_wrong_one():
    calls = []

    def f(x, y):
        calls.append(mg.is_grad_enabled())
        return x @ y

    a, b = mg.ones(2, 3, requires_grad=True), mg.ones(3, 1)
    assert mg.jit.trace(f, (a, b)) is f and calls == [False]
    model = mg.nn.Linear(3, 1)
    assert mg.jit.trace(model, mg.ones(4, 3)) is model
    with pytest.raises(RuntimeError):  # 2 features into a Linear(3, 1): fails while tracing
        mg.jit.trace(model, mg.ones(4, 2))
    with pytest.raises(RuntimeError, match="example_inputs"):
        mg.jit.trace(model)


def test_jit_save_and_load_round_trip_a_whole_module_through_a_buffer():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1)).eval()
    x = mg.randn(5, 3)
    buf = io.BytesIO()
    mg.jit.save(mg.jit.script(model), buf)
    buf.seek(0)
    loaded = mg.jit.load(buf, map_location="cpu")
    assert loaded is not model and isinstance(loaded, mg.nn.Sequential)
    w1, b1, w2, b2 = (p.detach().numpy().astype(np.float64) for p in model.parameters())
    expected = np.tanh(x.numpy() @ w1.T + b1) @ w2.T + b2  # NumPy's forward pass
    np.testing.assert_allclose(loaded(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


class _TwoLayers(mg.nn.Module):  # a model class of the program's own, as people write them
    def __init__(self):
        super().__init__()
        self.hidden, self.out = mg.nn.Linear(2, 3), mg.nn.Linear(3, 1)

    def forward(self, x):
        return self.out(mg.relu(self.hidden(x)))


class _RunsCode:  # what a hostile file holds: unpickling it calls a function the file names
    def __reduce__(self):
        return (print, ("code ran while loading",))


def test_jit_load_makes_the_programs_own_module_classes():
    model = _TwoLayers()
    buf = io.BytesIO()
    mg.jit.save(model, buf)
    buf.seek(0)
    loaded = mg.jit.load(buf)
    assert type(loaded) is _TwoLayers and loaded is not model
    x = mg.randn(4, 2)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())


def test_jit_load_runs_no_code_a_file_names(capsys):
    for payload in (_RunsCode(), {"model": _TwoLayers(), "hook": _RunsCode()}):
        buf = io.BytesIO()
        mg.save(payload, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError, match="print"):
            mg.jit.load(buf)
    assert "code ran" not in capsys.readouterr().out


class _CallsALayer:  # a file that calls a layer's constructor with sizes of its choosing
    def __reduce__(self):
        return (mg.nn.Linear, (10**6, 10**6))


def test_jit_load_makes_modules_from_their_state_but_never_calls_a_constructor():
    buf = io.BytesIO()
    mg.save(_CallsALayer(), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Linear may be made from its saved state"):
        mg.jit.load(buf)  # without the refusal: 4 TB of weights asked for


class _Redefined(mg.nn.Module):  # the first version of a notebook cell's class
    def forward(self, x):
        return x * 0


_FIRST_VERSION = _Redefined  # (alive, as the old class stays while anything refers to it)


class _Redefined(mg.nn.Module):  # noqa: F811  (the cell run again, fixed)
    def forward(self, x):
        return x + 1


def test_jit_load_makes_the_class_its_name_stands_for_now_not_an_older_one_of_that_name():
    buf = io.BytesIO()
    mg.jit.save(_Redefined(), buf)
    buf.seek(0)
    loaded = mg.jit.load(buf)
    assert type(loaded) is _Redefined and type(loaded) is not _FIRST_VERSION
    assert loaded(mg.ones(2)).tolist() == [2.0, 2.0]


def test_jit_freeze_needs_eval_mode_as_in_pytorch():
    model = mg.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="eval mode"):
        mg.jit.freeze(model)
    assert mg.jit.freeze(model.eval()) is model


@pytest.mark.skipif(mg.cuda.is_available(), reason="checks the answers without a GPU")
def test_gpu_facts_without_a_gpu_say_what_is_missing():
    assert not mg.cuda.is_bf16_supported() and mg.cuda.memory_reserved() == 0
    with pytest.raises(RuntimeError, match="CUDA was requested"):
        mg.cuda.get_device_name()
