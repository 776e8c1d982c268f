"""Dropout: during training, zero each activation with probability p and scale the rest by
1/(1-p); in eval mode (``model.eval()``) it is the identity.

Randomly silencing units keeps a network from relying on any single one (a cheap ensemble). The
mask is drawn from the minigenesis generator (``mg.manual_seed`` makes it reproducible).
"""

from __future__ import annotations

from .._tensor import Tensor
from . import functional as F
from .module import Module


class _DropoutNd(Module):
    """The options every dropout layer holds: p (checked) and inplace."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """``nn.Dropout(p=0.5)``: drops in training mode, passes through in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """``nn.Dropout2d(p=0.5)``: zeroes whole channels of (N, C, H, W) in training mode (see
    ``F.dropout2d``); the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """``nn.Dropout1d(p=0.5)``: zeroes whole channels of (N, C, L) or (C, L) in training mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """``nn.Dropout3d(p=0.5)``: zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """``nn.AlphaDropout(p=0.5)``: dropout that keeps SELU's mean 0 / variance 1 (see
    ``F.alpha_dropout``); the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``nn.FeatureAlphaDropout(p=0.5)``: alpha dropout of whole channels of (N, C, *)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
