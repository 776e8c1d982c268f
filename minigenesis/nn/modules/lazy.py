"""PyTorch's ``torch.nn.modules.lazy``: LazyModuleMixin (see ``nn/lazy.py``)."""

from ..lazy import LazyModuleMixin  # noqa: F401

__all__ = ["LazyModuleMixin"]
