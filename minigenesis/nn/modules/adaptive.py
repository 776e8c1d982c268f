"""PyTorch's ``torch.nn.modules.adaptive``: the same class as ``mg.nn``'s own file."""

from ..adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401

__all__ = ["AdaptiveLogSoftmaxWithLoss"]
