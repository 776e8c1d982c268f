"""``torch.func`` (functorch): function transforms over plain Python functions.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian`` and ``vmap``
in ``transforms.py``; ``functional_call`` and ``stack_module_state`` (running a module with
parameters passed in, stacking an ensemble's weights) in ``module_state.py``."""

from .module_state import functional_call, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]
