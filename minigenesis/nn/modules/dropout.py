"""PyTorch's ``torch.nn.modules.dropout``: the same classes as ``mg.nn``'s own files."""

from ..dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
    _DropoutNd,
)  # noqa: F401

__all__ = [
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "_DropoutNd",
]
