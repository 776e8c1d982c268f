"""Optimizers and learning-rate schedulers, hand-written with PyTorch's update rules.

opt = mg.optim.AdamW(model.parameters(), lr=3e-4)
sched = mg.optim.get_cosine_schedule_with_warmup(opt, 100, 1000)
...; loss.backward(); opt.step(); sched.step(); opt.zero_grad()
"""

from . import lr_scheduler
from .adam import Adam, AdamW
from .lr_scheduler import (
    ChainedScheduler,
    ConstantLR,
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    CyclicLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiplicativeLR,
    MultiStepLR,
    OneCycleLR,
    PolynomialLR,
    ReduceLROnPlateau,
    SequentialLR,
    StepLR,
    get_cosine_schedule_with_warmup,
    get_linear_schedule_with_warmup,
)
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "lr_scheduler",
    "LRScheduler",
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
    "CyclicLR",
    "ReduceLROnPlateau",
    "OneCycleLR",
    "SequentialLR",
    "ChainedScheduler",
    "get_cosine_schedule_with_warmup",
    "get_linear_schedule_with_warmup",
]
