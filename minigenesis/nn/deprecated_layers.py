"""Two layers PyTorch keeps only for old programs, each warning when made, as PyTorch's do:

- ``nn.Container(**modules)``: the pre-0.4 base class; today a ``Module`` that registers each
  keyword argument as a child (``FutureWarning``: subclass ``Module`` instead).
- ``nn.NLLLoss2d``: ``NLLLoss`` from before it took (N, C, d1, d2 ...) input; the same loss
  (``FutureWarning``: use ``NLLLoss``)."""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from .loss import NLLLoss
from .module import Module


class Container(Module):
    """A Module whose children are the keyword arguments (deprecated: subclass Module)."""

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name for image-shaped input (deprecated: use NLLLoss)."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for "
            "more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
