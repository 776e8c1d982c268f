"""Module: the base class of every layer and model.

A Module owns three kinds of things, each kept in its own ordered dict so traversal order is the
order of assignment (which fixes the order of ``parameters()`` and of ``state_dict()`` keys):

- ``_parameters``: Parameters (learned, ``requires_grad=True``);
- ``_buffers``: Tensors that are state but not learned (BatchNorm's running mean);
- ``_modules``: child Modules.

``self.weight = Parameter(...)`` and ``self.fc = Linear(...)`` land in those dicts through
``__setattr__``; reading ``self.weight`` back goes through ``__getattr__``, which Python only calls
when normal attribute lookup fails, so ordinary attributes cost nothing extra.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from .. import dtypes as _dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import as_device, module_for, to_device
from ..conversions import ToShortcuts, parse_to_args
from ..hook_handle import RemovableHandle, add_hook
from . import legacy_backward_hooks
from .backward_hooks import bracket_for
from .global_module_hooks import (
    BUFFER_REGISTRATION_HOOKS,
    GLOBAL_NON_FULL_BACKWARD_HOOKS,
    MODULE_REGISTRATION_HOOKS,
    PARAMETER_REGISTRATION_HOOKS,
    forward_hooks_of,
    run_always_call_hooks,
    run_registration_hooks,
)
from .module_memory import ModuleMemory
from .parameter import Buffer, Parameter
from .state_dict_hooks import IncompatibleKeys, StateDictMixin  # noqa: F401


class Module(StateDictMixin, ModuleMemory, ToShortcuts):
    """Base class for layers: subclass it, assign parameters and submodules in ``__init__``, and
    write ``forward``. Call the module (``model(x)``), not ``forward``, so hooks run."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dicts to exist already.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._forward_pre_hooks or self._forward_hooks or "_backward_hooks" in self.__dict__:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        """forward, after the pre-hooks (each may replace the arguments) and before the hooks
        (each may replace the output). A hook registered ``with_kwargs`` also sees (and a
        pre-hook may replace) the keyword arguments; one registered ``always_call`` also runs
        when the call raises (in forward, a pre-hook or a hook; its own error is then only a
        warning, ``run_always_call_hooks``)."""
        # global hooks first; flags: hook id -> (with_kwargs, always_call)
        pre_hooks, hooks, flags = forward_hooks_of(self)
        output, called = None, set()  # called: the always_call hooks that ran
        try:
            for key, hook in pre_hooks:
                if flags.get(key, (False,))[0]:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, "
                                f"new_kwargs), but got {result}."
                            )
                        args, kwargs = result
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
            bracket = bracket_for(self, args)  # full backward hooks: identity nodes around it
            if bracket is not None:
                args = bracket.wrap_inputs(args)
            output = self.forward(*args, **kwargs)
            for key, hook in hooks:
                with_kwargs, always_call = flags.get(key, (False, False))
                if always_call:
                    called.add(key)
                if with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result
            # register_backward_hook / register_module_backward_hook (the older kind)
            if GLOBAL_NON_FULL_BACKWARD_HOOKS or self.__dict__.get("_non_full_backward_hooks"):
                legacy_backward_hooks.attach(self, args, output)
            return output if bracket is None else bracket.wrap_outputs(output)
        except Exception:
            run_always_call_hooks(self, hooks, flags, called, (args, kwargs, output))
            raise

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign a Parameter before Module.__init__() is called")
            self._forget(name, keep="_parameters")
            if PARAMETER_REGISTRATION_HOOKS:
                value = run_registration_hooks(PARAMETER_REGISTRATION_HOOKS, self, name, value)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign a {type(value).__name__} to parameter '{name}' "
                    f"(a Parameter or None is expected); to change its values use "
                    f"`with mg.no_grad(): module.{name}.copy_(...)`"
                )
            params[name] = None
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError("cannot assign a Module before Module.__init__() is called")
            self._forget(name, keep="_modules")
            if MODULE_REGISTRATION_HOOKS:
                value = run_registration_hooks(MODULE_REGISTRATION_HOOKS, self, name, value)
            modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(f"cannot assign a {type(value).__name__} to child module '{name}'")
            if MODULE_REGISTRATION_HOOKS:
                value = run_registration_hooks(MODULE_REGISTRATION_HOOKS, self, name, value)
            self._modules[name] = value
        elif isinstance(value, Buffer):
            if self.__dict__.get("_buffers") is None:
                raise AttributeError("cannot assign a Buffer before Module.__init__() is called")
            self.register_buffer(name, value, value.persistent)
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer '{name}'")
            if BUFFER_REGISTRATION_HOOKS:
                value = run_registration_hooks(BUFFER_REGISTRATION_HOOKS, self, name, value)
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str = "") -> None:
        """Remove ``name`` from wherever it was registered before (it is being re-assigned).
        The registry ``keep`` is left alone, so a replaced entry keeps its place in the order."""
        self.__dict__.pop(name, None)
        for d in ("_parameters", "_buffers", "_modules"):
            if d != keep:
                self.__dict__[d].pop(name, None)
        if keep != "_buffers":
            self._non_persistent_buffers.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: look in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            reg = d.get(registry)
            if reg is not None and name in reg:
                return reg[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            reg = self.__dict__.get(registry)
            if reg is not None and name in reg:
                del reg[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        keys = list(super().__dir__())
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        # as PyTorch's: no names that cannot be attributes (a ModuleList's "0", "1", ...)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (or None: a declared but absent parameter, like a missing bias)."""
        _check_name(self, name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                f"(nn.Parameter or None required; wrap it: nn.Parameter(tensor))"
            )
        self._forget(name, keep="_parameters")
        if param is not None and PARAMETER_REGISTRATION_HOOKS:
            param = run_registration_hooks(PARAMETER_REGISTRATION_HOOKS, self, name, param)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register state that is not learned: saved in ``state_dict`` (unless ``persistent=False``)
        and moved by ``to()``, but not returned by ``parameters()``."""
        _check_name(self, name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(Tensor or None required)"
            )
        self._forget(name, keep="_buffers")
        if BUFFER_REGISTRATION_HOOKS:
            tensor = run_registration_hooks(BUFFER_REGISTRATION_HOOKS, self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name`` (what ``self.name = module`` does)."""
        _check_name(self, name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._forget(name, keep="_modules")
        if MODULE_REGISTRATION_HOOKS:
            module = run_registration_hooks(MODULE_REGISTRATION_HOOKS, self, name, module)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``"encoder.layers.0"``)."""
        mod = self
        for part in target.split(".") if target else []:
            if part not in mod._modules:
                raise AttributeError(f"{type(mod).__name__} has no submodule '{part}' ({target})")
            mod = mod._modules[part]
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target``, replacing what is there (with
        ``strict=True`` something must be there already)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target`` (``"encoder.0.weight"``)."""
        layer, name = self._owner_of(target)
        if not isinstance(getattr(layer, name), Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return getattr(layer, name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target`` (``"bn.running_mean"``)."""
        layer, name = self._owner_of(target)
        if name not in layer._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return layer._buffers[name]

    def _owner_of(self, target: str) -> tuple[Module, str]:
        path, _, name = target.rpartition(".")
        layer = self.get_submodule(path)
        if not hasattr(layer, name):
            raise AttributeError(f"{type(layer).__name__} has no attribute `{name}`")
        return layer, name

    # ------------------------------------------------------------------ traversal
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """(name, module) for self and every descendant, depth first; a shared module once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(
        self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        seen: set = set()
        # remove_duplicate=False also walks a shared submodule under each of its names
        mods = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for mod_prefix, mod in mods:
            for name, value in mod.__dict__[registry].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))  # a tied weight (one Parameter, two names) is listed once
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------------ modes and gradients
    def compile(self, *args: Any, **kwargs: Any) -> None:
        """``module.compile()`` (PyTorch compiles the module's call in place, keeping its
        state_dict keys): minigenesis runs every op eagerly, so nothing changes."""

    def train(self, mode: bool = True) -> Module:
        """Training mode (Dropout drops, BatchNorm uses batch statistics) for self and children."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(mode) expects a bool, got {mode!r}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Turn gradient tracking of every parameter on or off (freezing a layer)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: ``grad = None`` (default, frees the memory), or
        with ``set_to_none=False`` the same gradient tensor zeroed in place, cut from any graph
        (as PyTorch: a reference to ``p.grad`` taken earlier sees the zeros)."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()

    def share_memory(self) -> Module:
        """Move every parameter and buffer into shared memory, so that processes started with
        ``mg.multiprocessing`` train this one model (Hogwild)."""
        for t in [*self.parameters(), *self.buffers()]:
            t.share_memory_()
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn(m)`` on every submodule (children first) and on self; e.g. custom init."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` runs before ``forward``; returning a value replaces the args.
        ``with_kwargs=True``: ``hook(module, args, kwargs)``, returning None or a new
        ``(args, kwargs)``. ``prepend=True``: it runs before the hooks registered earlier."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(
        self,
        hook: Callable,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """``hook(module, args, output)`` runs after ``forward``; returning a value replaces the
        output (handy for printing activation statistics). ``with_kwargs=True``:
        ``hook(module, args, kwargs, output)``. ``prepend=True``: it runs before the hooks
        registered earlier. ``always_call=True``: it also runs when forward raises."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs, always_call)

    def register_full_backward_pre_hook(
        self, hook: Callable, prepend: bool = False
    ) -> RemovableHandle:
        """``hook(module, grad_output)`` when the outputs' gradient is known; returning a tuple
        replaces it (``backward_hooks.py``)."""
        self.__dict__.setdefault("_backward_hooks", OrderedDict())
        hooks = self.__dict__.setdefault("_backward_pre_hooks", OrderedDict())
        return self._add_hook(hooks, hook, prepend, False)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the gradient reached the inputs;
        returning a tuple replaces grad_input (``backward_hooks.py``)."""
        legacy_backward_hooks.refuse_if_legacy(self)
        hooks = self.__dict__.setdefault("_backward_hooks", OrderedDict())
        return self._add_hook(hooks, hook, prepend, False)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """PyTorch's older hook ``hook(module, grad_input, grad_output)`` on the last op's graph
        node only (``legacy_backward_hooks.py``); prefer ``register_full_backward_hook``."""
        return legacy_backward_hooks.register_backward_hook(self, hook)

    def _add_hook(
        self, hooks: dict, hook: Callable, prepend: bool, with_kwargs: bool, always_call=False
    ) -> RemovableHandle:
        handle = add_hook(hooks, hook, prepend)
        if with_kwargs or always_call:  # (a plain hook, the common case, has no entry)
            self.__dict__.setdefault("_hook_flags", {})[handle.id] = (with_kwargs, always_call)
        return handle

    # ------------------------------------------------------------------ dtype and device
    def _convert(self, fn: Callable[[Any], Any], floating_only: bool) -> Module:
        """Replace the array of every parameter, gradient and buffer by ``fn(array)``, IN PLACE:
        the Parameter objects stay the same, so an optimizer built before ``to()`` still holds
        the model's parameters."""
        seen: set = set()
        for m in self.modules():
            for t in itertools.chain(m._parameters.values(), m._buffers.values()):
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                if floating_only and not t.is_floating_point():
                    continue
                new = fn(t._data)
                if new is t._data:
                    continue
                t._data = new
                t._bump_version()  # a graph that saved the old values must not use the new ones
                if t._grad is not None:  # (a buffer may be a non-leaf: no warning)
                    t.grad = Tensor._make(fn(t._grad._data), False)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """PyTorch's hook for custom conversions: ``fn(tensor) -> tensor`` on every parameter
        (its values replaced in place, so the Parameter object stays), gradient and buffer
        (replaced), children first."""
        if recurse:
            for child in self.children():
                child._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                p._data = fn(p)._data
                p._bump_version()
                if p._grad is not None:
                    p.grad = Tensor._make(fn(p._grad)._data, False)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def type(self, dst_type: Any) -> Module:
        """Cast every parameter and buffer to ``dst_type`` (a dtype, or a tensor type name like
        ``"torch.DoubleTensor"``); unlike ``to(dtype)``, integer buffers are cast too."""
        return self._convert(lambda a: Tensor._make(a, False).type(dst_type)._data, False)

    def __setstate__(self, state: dict) -> None:
        """Unpickling (and ``super().__setstate__(state)`` in a subclass): restore the
        attributes, filling in the registries that a module pickled without them lacks."""
        self.__dict__.update(state)
        for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "_forward_pre_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers", set())

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``, ``memory_format=``.
        A dtype applies to floating-point parameters and buffers only (an integer stays one)."""
        if (fmt := kwargs.pop("memory_format", None)) is not None:  # 4-d and 5-d tensors
            self._to_memory_format(fmt)
        dtype, dev, _ = parse_to_args("Module.to", args, kwargs)
        if dtype is not None:
            dtype = _dt.to_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError(f"Module.to() only accepts floating-point dtypes, got {dtype.name}")
        if dev is not None:
            dev = as_device(dev)
            module_for(dev)  # a clear error for "cuda" without CuPy or a GPU
            self._convert(lambda a: to_device(a, dev), floating_only=False)
        if dtype is not None:
            np_dtype = dtype.numpy_dtype
            self._convert(
                lambda a: a if a.dtype == np_dtype else a.astype(np_dtype), floating_only=True
            )
        return self

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text inside the parentheses of ``repr`` (layers override it)."""
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, child in self._modules.items():
            child_repr = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {child_repr}")
        head = type(self).__name__ + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _check_name(module: Module, name: str, kind: str) -> None:
    if "_parameters" not in module.__dict__:
        raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if name == "" or "." in name:
        raise KeyError(f'{kind} name can\'t be empty or contain ".", got "{name}"')
    # a name taken by a parameter, buffer or child of another kind is taken too (as in PyTorch;
    # assigning ``module.name = value`` replaces it instead)
    others = {"parameter": "_parameters", "buffer": "_buffers", "module": "_modules"}
    others.pop(kind)
    taken = any(name in module.__dict__[registry] for registry in others.values())
    if taken or hasattr(type(module), name) or name in module.__dict__:
        raise KeyError(f"attribute '{name}' already exists (cannot register it as a {kind})")
