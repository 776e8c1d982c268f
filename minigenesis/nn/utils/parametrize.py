"""nn.utils.parametrize: a module's tensor computed from other tensors on every access.

``register_parametrization(layer, "weight", P())`` replaces ``layer.weight`` by ``P()(original)``:
the layer keeps learning ``original`` (a Parameter, now at
``layer.parametrizations.weight.original``), and every read of ``layer.weight`` runs the
parametrization, so the gradient reaches ``original`` through it. Typical uses: a symmetric
weight (``X.triu() + X.triu(1).T``), a weight normalised by its norm (``weight_norm``), a
positive one (``exp``).

How, as in PyTorch: the module's class is swapped for a subclass ``Parametrized<Class>`` with one
property per parametrized name (Python reads a property before the module's registries); its
getter runs the ``ParametrizationList`` stored in ``module.parametrizations[name]``, its setter
calls the list's ``right_inverse``. A parametrization may define ``right_inverse(value)`` (the
original tensor(s) from a wanted value; ``P()(right_inverse(X)) = X``), used at registration and
on ``layer.weight = X``; one that returns a tuple stores ``original0``, ``original1`` ...
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..containers import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside the block each parametrized tensor is computed once, at its first read, and reused
    (e.g. a weight read at every step of an RNN); the cache is emptied on leaving."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s) they
    start from: ``original`` (or ``original0``, ``original1`` ... when the first
    parametrization's ``right_inverse`` returns several tensors)."""

    def __init__(self, modules: list, original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            new = original
            for module in reversed(self):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:  # as PyTorch: the original is kept as it is
                        pass
        requires_grad = original.requires_grad
        self.is_tensor = isinstance(new, Tensor)
        if self.is_tensor:
            self.ntensors = 1
            # the Parameter object itself stays (an optimizer may hold it), with the new values
            if isinstance(original, Parameter):
                with no_grad():
                    original.data = new.detach().clone()
                self.register_parameter("original", original)
            else:
                self.register_buffer("original", new.detach().clone())
        else:
            self.ntensors = len(new)
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError(
                        f"'right_inverse' must return a Tensor or a sequence of them, got "
                        f"{type(t).__name__}"
                    )
                if isinstance(original, Parameter):
                    self.register_parameter(
                        f"original{i}", Parameter(t.detach().clone(), requires_grad)
                    )
                else:
                    self.register_buffer(f"original{i}", t.detach().clone())

    def right_inverse(self, value: Tensor) -> None:
        """Set the original tensor(s) so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(self):  # type: ignore[call-overload]
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                elif not self.unsafe:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement "
                        f"right_inverse, so the parametrized tensor cannot be assigned"
                    )
            if self.is_tensor:
                self.original.copy_(value)
            else:
                for i, t in enumerate(value):
                    getattr(self, f"original{i}").copy_(t)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _property(name: str) -> property:
    def get(self: Module) -> Tensor:
        plist = self.parametrizations[name]
        if not _cache_enabled:
            return plist()
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = plist()
        return _cache[key]

    def set_(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    return property(get, set_)


def _refuse_pickling(self: Module) -> dict:
    """As PyTorch: the made ``Parametrized<Class>`` cannot be found by name when unpickling, so
    pickling (``pickle``, ``copy.copy``, ``mg.save(module)``) is refused with this message."""
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-learning"
    )


def _deepcopy_parametrized(self: Module, memo: dict) -> Module:
    """``copy.deepcopy`` of a parametrized module (which does not pickle): a new instance of the
    same made class with a deep copy of the attributes, as PyTorch's."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the original
    tensor (a Parameter or buffer of ``module``); a second call on the same name appends to its
    list. Returns the module (its class is now ``Parametrized<Class>``)."""
    if not isinstance(parametrization, Module):
        raise TypeError(f"parametrization must be a Module, got {type(parametrization).__name__}")
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor) or tuple(x.shape) != tuple(y.shape) or x.dtype != y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor: {tuple(y.shape)} {y.dtype} -> {getattr(x, 'shape', None)}"
                )
        plist.append(parametrization)
        plist.unsafe = plist.unsafe or unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(
            f"Module '{type(module).__name__}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    if not unsafe:
        with no_grad():
            out = plist()
        if tuple(out.shape) != tuple(original.shape) or out.dtype != original.dtype:
            raise ValueError(
                "Registering a parametrization may not change the shape or dtype of the tensor, "
                f"unless `unsafe` is True: {tuple(original.shape)} {original.dtype} -> "
                f"{tuple(out.shape)} {out.dtype}"
            )
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        namespace = {"_original_class": cls, "__getstate__": _refuse_pickling}
        if not hasattr(cls, "__deepcopy__"):
            namespace["__deepcopy__"] = _deepcopy_parametrized
        new_cls = type(f"Parametrized{cls.__name__}", (cls,), namespace)
        module.__class__ = new_cls
        module.parametrizations = ModuleDict()
    setattr(type(module), tensor_name, _property(tensor_name))
    module.parametrizations[tensor_name] = plist
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (for ``tensor_name``, if given)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(plists, ModuleDict):
        return False
    return tensor_name is None or tensor_name in plists


def type_before_parametrizations(module: Module) -> type:
    """The module's class before any parametrization was registered."""
    return type(module).__dict__.get("_original_class", type(module))


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undo ``register_parametrization`` for ``tensor_name``: the tensor becomes a plain
    Parameter again, holding the parametrized value (``leave_parametrized=True``) or the
    original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    with no_grad():
        if leave_parametrized:
            value = Parameter(plist().detach().clone(), requires_grad=True)
        elif plist.is_tensor:
            value = plist.original
        else:
            raise ValueError(
                "Cannot leave unparametrized (leave_parametrized=False) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
    if plist.is_tensor and isinstance(plist.original, Parameter) and leave_parametrized:
        # the same Parameter object keeps its identity (an optimizer holds it)
        original = plist.original
        with no_grad():
            original.data = value.detach()
        value = original
    del module.parametrizations[tensor_name]
    delattr(type(module), tensor_name)
    if not module.parametrizations._modules:
        del module.parametrizations
        module.__class__ = type_before_parametrizations(module)
    if isinstance(value, Parameter):
        module.register_parameter(tensor_name, value)
    else:
        module.register_buffer(tensor_name, value)
    return module


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Register ``from_module``'s parametrizations (of ``tensor_name``, or all) on ``to_module``
    and copy the original tensors over."""
    names = [tensor_name] if tensor_name else list(from_module.parametrizations)
    for name in names:
        source = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            for p in source:
                register_parametrization(to_module, name, p, unsafe=source.unsafe)
        target = to_module.parametrizations[name]
        with no_grad():
            for key, t in source.named_parameters(recurse=False):
                getattr(target, key).data = t.detach().clone()
    return to_module
