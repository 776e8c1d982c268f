"""``torch.func`` (functorch): function transforms over plain Python functions.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``
and ``vmap`` in ``transforms.py``; ``functional_call``, ``stack_module_state`` and
``replace_all_batch_norm_modules_`` (running a module with parameters passed in, stacking an
ensemble's weights, BatchNorm without running statistics) in ``module_state.py``."""

from .module_state import functional_call, replace_all_batch_norm_modules_, stack_module_state
from .transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
