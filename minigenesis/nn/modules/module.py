"""PyTorch's ``torch.nn.modules.module``: the same classes as ``mg.nn``'s own files."""

from ..global_module_hooks import (
    register_module_forward_hook,
    register_module_forward_pre_hook,
)
from ..module import Module
from ..state_dict_hooks import _IncompatibleKeys

__all__ = [
    "Module",
    "_IncompatibleKeys",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
]
