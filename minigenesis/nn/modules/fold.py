"""PyTorch's ``torch.nn.modules.fold``: the same classes as ``mg.nn``'s own files."""

from ..fold import Fold, Unfold  # noqa: F401

__all__ = ["Fold", "Unfold"]
