"""nn.utils.weight_norm: the older, hook-based weight normalisation (deprecated in PyTorch in
favour of ``nn.utils.parametrizations.weight_norm``, still common in programs).

``weight_norm(layer)`` replaces the Parameter ``weight`` by two, ``weight_g`` (the lengths,
shaped like ``weight`` with size 1 in every dim but ``dim``) and ``weight_v`` (the directions),
and a forward pre-hook recomputes ``layer.weight = weight_g * weight_v / ||weight_v||`` before
every call (see ``_weight_norm_math.py``). ``remove_weight_norm`` makes ``weight`` a Parameter
again, with the current value.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...autograd.grad_mode import no_grad
from ..module import Module
from ..parameter import Parameter
from ._weight_norm_math import norm_except_dim
from ._weight_norm_math import weight_norm as _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook: recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if not isinstance(weight, Parameter):
            raise TypeError(f"weight_norm: {name} must be a Parameter of the module")
        del module._parameters[name]
        with no_grad():
            g = norm_except_dim(weight, fn.dim).detach().clone()
        module.register_parameter(name + "_g", Parameter(g))
        module.register_parameter(name + "_v", Parameter(weight.detach().clone()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module).detach().clone()
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """w = g v / ||v|| with g = ``<name>_g`` and v = ``<name>_v`` learned instead of w; the norm is
    over every dim but ``dim`` (None: the whole tensor). Returns the module."""
    warnings.warn(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo weight_norm: ``<name>`` is one Parameter again, holding g v / ||v||."""
    return remove_reparametrization_hook(module, WeightNorm, name, "weight_norm")


def remove_reparametrization_hook(module: Module, kind: type, name: str, what: str) -> Module:
    """Remove the forward pre-hook of class ``kind`` that recomputes ``module.<name>`` (weight
    norm's, spectral norm's): the hook writes ``<name>`` back as one Parameter, then goes."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
