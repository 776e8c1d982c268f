"""``torch.nn.utils.prune``: zeroing a parameter's entries through a mask, reparametrized.

Pruning ``module.weight`` replaces the parameter by ``weight_orig`` (the same Parameter, which the
optimizer keeps training) and a buffer ``weight_mask`` of 0s and 1s; ``module.weight`` becomes the
plain tensor ``weight_orig * weight_mask``, recomputed by a forward pre-hook before every call, so
gradients reach ``weight_orig`` only where the mask is 1. Pruning the same tensor again composes:
the hook becomes a ``PruningContainer`` whose new method picks among the entries (or channels)
still alive. ``remove`` makes it permanent: ``weight`` is a Parameter again, holding the masked
values.

The methods (``compute_mask``): ``RandomUnstructured`` / ``L1Unstructured`` zero ``amount``
entries (a fraction, rounded, or a count), chosen at random or with the smallest |t|;
``RandomStructured`` / ``LnStructured`` zero whole slices along ``dim`` (random, or the smallest
L_n norms); ``global_unstructured`` ranks the entries of several tensors together.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import creation
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..module import Module
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
    "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
    "l1_unstructured", "random_structured", "ln_structured", "global_unstructured",
    "custom_from_mask", "remove", "is_pruned",
]  # fmt: skip


class BasePruningMethod(ABC):
    """A pruning method is a forward pre-hook: before each call it sets ``module.<name>`` to
    ``<name>_orig * <name>_mask``."""

    _tensor_name: str
    PRUNING_TYPE = "unstructured"

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t``, given the mask already in force."""

    def apply_mask(self, module: Module) -> Tensor:
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls,
        module: Module,
        name: str,
        *args: Any,
        importance_scores: Tensor | None = None,
        **kwargs: Any,
    ):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, composing with earlier pruning."""
        old_method = None
        for key, hook in list(module._forward_pre_hooks.items()):
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            container = (
                old_method
                if isinstance(old_method, PruningContainer)
                else PruningContainer(old_method)
            )
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of {module}"
            )
        scores = orig if importance_scores is None else importance_scores
        if old_method is None:
            default_mask = creation.ones_like(orig)
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        with no_grad():
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(
        self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None
    ) -> Tensor:
        """``t`` times the mask this method computes for it (no module involved)."""
        scores = t if importance_scores is None else importance_scores
        mask = default_mask if default_mask is not None else creation.ones_like(t)
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: ``<name>`` a Parameter holding the masked values."""
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        orig.data = weight.detach()
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied to one tensor in turn: each new method chooses among the
    entries (unstructured) or the slices along its dim (structured) that are still unpruned."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple = ()
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if (
            method is not None
            and self._pruning_methods
            and self._tensor_name != method._tensor_name
        ):
            raise ValueError(
                f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                f"to PruningContainer. Found '{method._tensor_name}'"
            )
        if method is not None:
            self._tensor_name = method._tensor_name
            self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask computed on the part of ``t`` still alive, written into a copy
        of ``default_mask`` (entries or slices already pruned stay 0)."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.clone()
        if method.PRUNING_TYPE == "unstructured":
            alive = default_mask == 1
            new_mask[alive] = method.compute_mask(t[alive], default_mask=default_mask[alive]).to(
                new_mask.dtype
            )
        elif method.PRUNING_TYPE == "structured":
            dim = _structured_dim(t, method.dim)
            others = [d for d in range(t.dim()) if d != dim]
            keep = (default_mask.sum(dim=others) != 0).nonzero().flatten()
            part = method.compute_mask(
                t.index_select(dim, keep), default_mask=default_mask.index_select(dim, keep)
            )
            new_mask.index_copy_(dim, keep, part.to(new_mask.dtype))
        else:
            new_mask = method.compute_mask(t, default_mask=default_mask)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask of ones): the reparametrization alone."""

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str):  # type: ignore[override]
        return super().apply(module, name)


def _validate_amount(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _nparams_toprune(amount: Any, size: int) -> int:
    """A count as given, or round(fraction * size) (Python's round, as PyTorch's)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(
                f"amount={amount} should be smaller than the number of parameters to prune={size}"
            )
        return int(amount)
    return round(amount * size)


class RandomUnstructured(BasePruningMethod):
    """Zero ``amount`` entries chosen uniformly at random."""

    def __init__(self, amount: Any) -> None:
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _nparams_toprune(self.amount, t.numel())
        mask = default_mask.clone()
        if k:
            drop = creation.rand_like(t, dtype=None).reshape(-1).topk(k).indices  # k random entries
            mask.view(-1)[drop] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any):  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Zero the ``amount`` entries with the smallest absolute value."""

    def __init__(self, amount: Any) -> None:
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _nparams_toprune(self.amount, t.numel())
        mask = default_mask.clone()
        if k:
            drop = t.abs().reshape(-1).topk(k, largest=False).indices
            mask.view(-1)[drop] = 0
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, importance_scores: Tensor | None = None):  # type: ignore[override]
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _structured_dim(t: Tensor, dim: int) -> int:
    """``dim`` as a non-negative index into ``t``, refused as PyTorch refuses it: a 1-D tensor has
    no slices to prune (ValueError), a dim outside ``t`` is an IndexError."""
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor of "
            f"shape {tuple(t.shape)} with {t.dim()} dims"
        )
    if not -t.dim() <= dim < t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")
    return dim % t.dim()


def _channel_mask(t: Tensor, dim: int, keep: Tensor, default_mask: Tensor) -> Tensor:
    """1 on the slices ``keep`` along ``dim``, 0 elsewhere, times ``default_mask``."""
    mask = creation.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = keep
    mask[tuple(index)] = 1
    return mask * default_mask


class RandomStructured(BasePruningMethod):
    """Zero ``amount`` whole slices along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _validate_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        dim = _structured_dim(t, self.dim)
        size = t.shape[dim]
        k = _nparams_toprune(self.amount, size)
        if not k:
            return default_mask.clone()
        keep = creation.rand(size).topk(size - k).indices
        return _channel_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(cls, module: Module, name: str, amount: Any, dim: int = -1):  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Zero the ``amount`` slices along ``dim`` with the smallest L_n norm (over the other dims)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _validate_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        dim = _structured_dim(t, self.dim)
        size = t.shape[dim]
        k = _nparams_toprune(self.amount, size)
        if not k:
            return default_mask.clone()
        others = [d for d in range(t.dim()) if d != dim]
        norm = t.norm(p=self.n, dim=others)
        keep = norm.topk(size - k, largest=True).indices
        return _channel_mask(t, dim, keep, default_mask)

    @classmethod
    def apply(
        cls,
        module: Module,
        name: str,
        amount: Any,
        n: Any,
        dim: int,
        importance_scores: Tensor | None = None,
    ):  # type: ignore[override]
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """The mask given (times the one in force)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor):  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: Any) -> Module:
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: Any, importance_scores: Tensor | None = None
) -> Module:
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: Any, dim: int) -> Module:
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module,
    name: str,
    amount: Any,
    n: Any,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Module:
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(
    parameters: Iterable, pruning_method: type, importance_scores: dict | None = None, **kwargs: Any
) -> None:
    """Prune the (module, name) pairs together: the method ranks all their entries as one vector
    (e.g. the 20% smallest |w| over every layer), then each tensor gets its slice of the mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    with no_grad():
        scores = parameters_to_vector(
            [importance_scores.get((m, n), getattr(m, n)).detach() for m, n in parameters]
        )
        default_mask = parameters_to_vector(
            [
                getattr(m, n + "_mask", creation.ones_like(getattr(m, n))).detach()
                for m, n in parameters
            ]
        )
        method = pruning_method(**kwargs)
        method._tensor_name = "temp"
        if method.PRUNING_TYPE != "unstructured":
            raise TypeError(
                'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                f"Found method {pruning_method} of type {method.PRUNING_TYPE}"
            )
        container = PruningContainer(method)
        final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for m, n in parameters:
        param = getattr(m, n)
        custom_from_mask(m, n, mask=final_mask[pointer : pointer + param.numel()].view_as(param))
        pointer += param.numel()


def remove(module: Module, name: str) -> Module:
    """Make the pruning of ``module.<name>`` permanent and drop its hook, _orig and _mask."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether any submodule carries a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for m in module.modules()
        for hook in m._forward_pre_hooks.values()
    )
