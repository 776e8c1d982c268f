"""``mg.onnx``: importable so PyTorch scripts load, but exporting to ONNX is out of scope.

minigenesis records a graph for autograd, not a traced program that an ONNX exporter could walk,
so ``export`` raises ``NotImplementedError`` saying so. To deploy a model trained here, save its
``state_dict`` (``mg.save``), load it into the same architecture written in PyTorch (the parameter
names and layouts match) and export from there.
"""

from __future__ import annotations

from typing import Any

_OUT_OF_SCOPE = (
    "minigenesis.onnx.{name}: exporting to ONNX is out of scope for minigenesis (it has no traced "
    "program to export). Save the weights with mg.save(model.state_dict(), path), load them into "
    "the same model written in PyTorch, and export with torch.onnx.{name} there."
)


class OnnxExporterError(RuntimeError):
    """PyTorch's exporter error class (nothing here raises it)."""


def export(*args: Any, **kwargs: Any) -> Any:
    """Out of scope: raises ``NotImplementedError`` (see the module docstring)."""
    raise NotImplementedError(_OUT_OF_SCOPE.format(name="export"))


def dynamo_export(*args: Any, **kwargs: Any) -> Any:
    """Out of scope: raises ``NotImplementedError`` (see the module docstring)."""
    raise NotImplementedError(_OUT_OF_SCOPE.format(name="dynamo_export"))


def is_in_onnx_export() -> bool:
    """False: no export is ever running (models test this to skip export-only branches)."""
    return False
