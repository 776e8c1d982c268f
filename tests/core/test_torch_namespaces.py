"""PyTorch's namespaces that scripts touch: mg.accelerator, mg.backends, the default device,
mg.onnx, mg.cuda.amp, mg.set_float32_matmul_precision; checked against PyTorch where it
answers the same question on this machine."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import minigenesis as mg


def test_accelerator_answers_like_cuda():
    assert mg.accelerator.is_available() == mg.cuda.is_available()
    assert mg.accelerator.device_count() == mg.cuda.device_count()
    acc = mg.accelerator.current_accelerator(check_available=True)
    if mg.cuda.is_available():
        assert acc == mg.device("cuda") and mg.accelerator.current_device_index() == 0
    else:
        assert acc is None
        with pytest.raises(RuntimeError, match="CUDA was requested"):
            mg.accelerator.current_device_index()
    mg.accelerator.synchronize()  # never fails


def test_the_device_agnostic_idiom_runs():
    dev = mg.accelerator.current_accelerator(check_available=True) or mg.device("cpu")
    x = mg.ones(2, device=dev)
    assert x.device == dev


def test_accelerator_matches_pytorch_on_a_machine_without_a_gpu():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() or mg.cuda.is_available():
        pytest.skip("compares the answers of two CPU-only installations")
    assert mg.accelerator.is_available() is torch.accelerator.is_available() is False
    assert mg.accelerator.device_count() == torch.accelerator.device_count() == 0
    assert mg.accelerator.current_accelerator(check_available=True) is None
    assert torch.accelerator.current_accelerator(check_available=True) is None


def test_backends_flags_are_settable_with_pytorchs_defaults():
    torch = pytest.importorskip("torch")
    import minigenesis.backends.cudnn as cudnn

    assert cudnn is mg.backends.cudnn
    pairs = [
        (mg.backends.cuda.matmul, torch.backends.cuda.matmul, "allow_tf32"),
        (mg.backends.cudnn, torch.backends.cudnn, "allow_tf32"),
        (mg.backends.cudnn, torch.backends.cudnn, "benchmark"),
        (mg.backends.cudnn, torch.backends.cudnn, "deterministic"),
        (mg.backends.cudnn, torch.backends.cudnn, "enabled"),
    ]
    for ours, theirs, name in pairs:
        assert getattr(ours, name) == getattr(theirs, name), name
        saved = getattr(ours, name)
        setattr(ours, name, not saved)
        assert getattr(ours, name) is (not saved)
        setattr(ours, name, saved)
    assert mg.backends.mps.is_available() is False and mg.backends.mps.is_built() is False
    assert mg.backends.cudnn.is_available() is False and mg.backends.cudnn.version() is None
    for flag_doc in (mg.backends.cudnn.__doc__, mg.backends.cuda.__doc__):
        assert "change" in flag_doc  # each says what setting it does here


def test_float32_matmul_precision_is_recorded_and_sets_the_tf32_flag():
    assert mg.get_float32_matmul_precision() == "highest"
    try:
        mg.set_float32_matmul_precision("high")
        assert mg.get_float32_matmul_precision() == "high"
        assert mg.backends.cuda.matmul.allow_tf32 is True
        with pytest.warns(UserWarning, match="fast is not one of 'highest', 'high', or 'medium'"):
            mg.set_float32_matmul_precision("fast")
        assert mg.get_float32_matmul_precision() == "high"
    finally:
        mg.set_float32_matmul_precision("highest")
    assert mg.backends.cuda.matmul.allow_tf32 is False


def test_default_device_applies_to_creation_functions_only():
    assert mg.get_default_device() == mg.device("cpu")
    x = mg.ones(2)
    try:
        mg.set_default_device("cpu")
        assert mg.zeros(2).device == mg.device("cpu")
        if mg.cuda.is_available():
            mg.set_default_device("cuda")
            assert mg.get_default_device() == mg.device("cuda")
            for t in (mg.zeros(2), mg.tensor([1.0]), mg.arange(3), mg.randn(2), mg.eye(2)):
                assert t.device.type == "cuda"
            assert mg.zeros(2, device="cpu").device.type == "cpu"  # an explicit device wins
            assert (x + 1).device.type == "cpu"  # ops stay where their inputs are
        else:
            mg.set_default_device("cuda")
            with pytest.raises(RuntimeError, match="CUDA was requested"):
                mg.zeros(2)
            assert mg.zeros(2, device="cpu").device.type == "cpu"
    finally:
        mg.set_default_device(None)
    assert mg.get_default_device() == mg.device("cpu") and mg.zeros(1).device.type == "cpu"


def test_onnx_is_importable_and_says_export_is_out_of_scope():
    onnx = importlib.import_module("minigenesis.onnx")
    assert onnx is mg.onnx and mg.onnx.is_in_onnx_export() is False
    model = mg.nn.Linear(2, 1)
    for fn in (mg.onnx.export, mg.onnx.dynamo_export):
        with pytest.raises(NotImplementedError, match="out of scope"):
            fn(model, (mg.ones(1, 2),), "model.onnx")


def test_cuda_amp_is_an_attribute_without_an_import_line():
    code = (
        "import minigenesis as mg; "
        "print(mg.cuda.amp.GradScaler.__module__, mg.cuda.amp.autocast is mg.amp.autocast)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["minigenesis.cuda.amp", "True"]
    with pytest.raises(AttributeError, match="no attribute 'ampp'"):
        mg.cuda.ampp  # noqa: B018
