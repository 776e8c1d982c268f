"""mg.nn.modules: every layer minigenesis has is also found under PyTorch's module path
(torch.nn.modules.linear.Linear -> mg.nn.modules.linear.Linear), and it is the same class."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import minigenesis as mg
from minigenesis import nn


def test_common_paths_name_the_same_classes():
    assert nn.modules.linear.Linear is nn.Linear
    assert nn.modules.module.Module is nn.Module
    assert nn.modules.container.Sequential is nn.Sequential
    assert nn.modules.conv.Conv2d is nn.Conv2d
    assert nn.modules.batchnorm.BatchNorm2d is nn.BatchNorm2d
    assert issubclass(nn.BatchNorm1d, nn.modules.batchnorm._BatchNorm)
    assert issubclass(nn.CrossEntropyLoss, nn.modules.loss._Loss)
    assert nn.modules.Linear is nn.Linear  # torch.nn.modules.Linear exists too
    from minigenesis.nn.modules.loss import _Loss, _WeightedLoss  # the import statement works

    assert issubclass(_WeightedLoss, _Loss)


def test_shared_bases_are_pytorchs():
    for layer in (nn.BatchNorm1d, nn.BatchNorm2d, nn.InstanceNorm1d, nn.InstanceNorm3d):
        assert issubclass(layer, nn.modules.batchnorm._NormBase)
    assert issubclass(nn.InstanceNorm2d, nn.modules.instancenorm._InstanceNorm)
    for layer in (nn.ConvTranspose1d, nn.ConvTranspose2d):
        assert issubclass(layer, nn.modules.conv._ConvTransposeNd)
    for layer in (nn.Conv1d, nn.Conv2d, nn.ConvTranspose1d, nn.ConvTranspose2d):
        assert issubclass(layer, nn.modules.conv._ConvNd)
    for layer in (nn.AvgPool1d, nn.AvgPool2d):
        assert issubclass(layer, nn.modules.pooling._AvgPoolNd)
    for layer in (nn.MaxPool1d, nn.MaxPool2d):
        assert issubclass(layer, nn.modules.pooling._MaxPoolNd)
    for layer in (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d):
        assert issubclass(layer, nn.modules.pooling._AdaptiveAvgPoolNd)
    for layer in (nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d):
        assert issubclass(layer, nn.modules.pooling._AdaptiveMaxPoolNd)
    for layer in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout):
        assert issubclass(layer, nn.modules.dropout._DropoutNd)


def test_every_layer_sits_where_pytorch_puts_it():
    torch = pytest.importorskip("torch")
    checked = 0
    for name in dir(nn):
        ours = getattr(nn, name)
        theirs = getattr(torch.nn, name, None)
        if not (isinstance(ours, type) and issubclass(ours, nn.Module) and theirs is not None):
            continue
        module = theirs.__module__  # e.g. torch.nn.modules.linear
        if not module.startswith("torch.nn.modules."):
            continue
        sub = module.rsplit(".", 1)[1]
        alias = importlib.import_module(f"minigenesis.nn.modules.{sub}")
        assert getattr(alias, name, None) is ours, f"{name}: expected in nn.modules.{sub}"
        checked += 1
    assert checked >= 30


def test_the_paths_need_no_import_line():
    code = "import minigenesis as mg; print(mg.nn.modules.linear.Linear is mg.nn.Linear)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    with pytest.raises(AttributeError, match="no attribute 'modulez'"):
        mg.nn.modulez  # noqa: B018
