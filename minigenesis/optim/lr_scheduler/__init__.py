"""Learning-rate schedulers with PyTorch's semantics (``torch.optim.lr_scheduler``).

Every scheduler applies its epoch-0 value in the constructor, advances one epoch per ``step()``,
reports ``get_last_lr()`` (a list, one lr per param group) and round-trips ``state_dict()``.
"""

from .base import LRList, LRScheduler
from .cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from .cyclic import CyclicLR
from .decay import ConstantLR, ExponentialLR, LinearLR, MultiStepLR, PolynomialLR, StepLR
from .lambda_lr import LambdaLR, MultiplicativeLR
from .one_cycle import OneCycleLR
from .plateau import ReduceLROnPlateau
from .sequential import ChainedScheduler, SequentialLR
from .warmup import get_cosine_schedule_with_warmup, get_linear_schedule_with_warmup

_LRScheduler = LRScheduler  # the pre-2.0 PyTorch name

__all__ = [
    "LRScheduler",
    "LRList",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "ConstantLR",
    "LinearLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
    "ReduceLROnPlateau",
    "OneCycleLR",
    "SequentialLR",
    "ChainedScheduler",
    "CyclicLR",
    "get_cosine_schedule_with_warmup",
    "get_linear_schedule_with_warmup",
]
