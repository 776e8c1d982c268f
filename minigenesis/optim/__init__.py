"""Optimizers and learning-rate schedulers, hand-written with PyTorch's update rules.

opt = mg.optim.AdamW(model.parameters(), lr=3e-4)
sched = mg.optim.get_cosine_schedule_with_warmup(opt, 100, 1000)
...; loss.backward(); opt.step(); sched.step(); opt.zero_grad()
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from . import adamw  # noqa: F401  (torch.optim.adamw, PyTorch's path)
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
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
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from . import swa_utils  # noqa: F401,E402  (torch.optim.swa_utils, PyTorch's path)

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "Rprop",
    "ASGD",
    "LBFGS",
    "SparseAdam",
    "Muon",
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
