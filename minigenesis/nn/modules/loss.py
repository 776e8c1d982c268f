"""PyTorch's ``torch.nn.modules.loss``: the same classes as ``mg.nn``'s own files."""

from ..deprecated_layers import NLLLoss2d  # noqa: F401
from ..likelihood_losses import CTCLoss, GaussianNLLLoss, PoissonNLLLoss  # noqa: F401
from ..loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    _Loss,
    _WeightedLoss,
)  # noqa: F401
from ..margin_losses import (  # noqa: F401
    CosineEmbeddingLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)

__all__ = [
    "_Loss",
    "_WeightedLoss",
    "CrossEntropyLoss",
    "NLLLoss",
    "NLLLoss2d",
    "MSELoss",
    "L1Loss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "CosineEmbeddingLoss",
    "HingeEmbeddingLoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "GaussianNLLLoss",
    "PoissonNLLLoss",
    "CTCLoss",
]
