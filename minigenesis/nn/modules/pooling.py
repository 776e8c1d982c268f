"""PyTorch's ``torch.nn.modules.pooling``: the same classes as ``mg.nn``'s own files."""

from ..fractional_pool import (  # noqa: F401
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    _FractionalMaxPoolNd,  # noqa: F401
)
from ..lp_pool import LPPool1d, LPPool2d, LPPool3d, _LPPoolNd  # noqa: F401
from ..pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
    _AdaptiveAvgPoolNd,
    _AdaptiveMaxPoolNd,
    _AvgPoolNd,
    _MaxPoolNd,
)  # noqa: F401
from ..pooling3d import (  # noqa: F401
    AdaptiveAvgPool3d,
    AdaptiveMaxPool3d,
    AvgPool3d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
    _MaxUnpoolNd,
)

__all__ = [
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "_LPPoolNd",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d",
    "AvgPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "_MaxUnpoolNd",
    "AvgPool1d",
    "AvgPool2d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "_MaxPoolNd",
    "_AvgPoolNd",
    "_AdaptiveAvgPoolNd",
    "_AdaptiveMaxPoolNd",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "_FractionalMaxPoolNd",
]
