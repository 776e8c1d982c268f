"""Mixed precision: ``autocast`` (ops in float16/bfloat16 where it is safe) and ``GradScaler``
(loss scaling, so float16 gradients do not underflow).

    model = nn.Linear(1024, 512)                  # float32 parameters ("master weights")
    scaler = mg.amp.GradScaler()
    with mg.amp.autocast():                       # bfloat16 on the CPU, float16 on CUDA
        loss = criterion(model(x), y)             # the matmul in low precision, the loss in float32
    scaler.scale(loss).backward()                 # float32 gradients on the float32 parameters
    scaler.step(optimizer)                        # skipped if a gradient overflowed
    scaler.update()

Which op runs in which dtype is an attribute of each op class (``autocast = LOWER`` next to
``MatMul``'s forward); ``minigenesis/autocast_policy.py`` says what each rule does, and its
``policy()`` lists them all.
"""

from .autocast_mode import (
    autocast,
    autocast_enabled_globally,
    get_autocast_dtype,
    is_autocast_enabled,
    set_autocast_globally,
)
from .custom_functions import custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler, OptState
from .underflow import UnderflowDemo, underflow_demo

__all__ = [
    "GradScaler",
    "OptState",
    "UnderflowDemo",
    "autocast",
    "autocast_enabled_globally",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "is_autocast_available",
    "is_autocast_enabled",
    "set_autocast_globally",
    "underflow_demo",
]
