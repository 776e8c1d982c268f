"""Lazy modules: layers whose input size is read off the first input (``nn.LazyLinear(10)``
learns in_features at its first call), as PyTorch's LazyModuleMixin.

A lazy layer is built as its ordinary class with the unknown size 0, its size-dependent tensors
replaced by ``UninitializedParameter`` / ``UninitializedBuffer`` (empty placeholders). A forward
pre-hook runs once: it reads the size from the input, builds the ordinary layer with it (so the
default initialisation is the usual one, from the same random draws), moves that layer's arrays
into the placeholder objects (an optimizer made before the first call holds the same
Parameters and keeps working), and the module becomes the ordinary class (``LazyLinear`` ->
``Linear``). A state_dict loaded before the first call materializes the placeholders with the
loaded shapes.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..backend import get_array_module, to_numpy
from ..creation import empty
from .conv import Conv1d, Conv2d
from .conv3d import Conv3d, ConvTranspose3d
from .conv_variants import ConvTranspose1d, ConvTranspose2d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .parameter import Parameter

# What PyTorch lets a placeholder do before it has a shape (UninitializedTensorMixin): be moved
# and cast, say its size (0), dtype and device, take a copy, be detached (a state_dict keeps
# the placeholder). Every other public tensor method
# (numel, dim, sum, norm, tolist, mul_ ...) would answer for the empty placeholder as if
# it were the parameter (``sum(p.numel() for p in lazy.parameters())`` was 0): PyTorch's
# ValueError instead. (Only placeholders pay for the check: a materialized one changes class.)
_ALLOWED = frozenset(
    "size copy_ is_complex is_floating_point half float double bfloat16 char short int long "
    "cuda cpu to get_device materialize cls_to_become data dtype device requires_grad "
    "requires_grad_ grad grad_fn is_leaf shape ndim is_cuda layout detach".split()
)


def _refuse_use(t: Any, name: str) -> Any:
    """The attribute ``name`` of placeholder ``t``, or PyTorch's ValueError for a method that
    would read the missing values or shape."""
    value = object.__getattribute__(t, name)
    if name[0] == "_" or name in _ALLOWED or not callable(value):
        return value
    raise ValueError(
        f"Attempted to use an uninitialized parameter in {name}. This error happens when you "
        "are using a `LazyModule` or explicitly manipulating `torch.nn.parameter."
        f"{type(t).__name__}` objects. When using LazyModules Call `forward` with a dummy batch "
        "to initialize the parameters before calling torch functions"
    )


def _materialize(t: Any, array: Any) -> None:
    """Give placeholder ``t`` its values and make it an ordinary Parameter / Tensor."""
    t._data = array
    t.__class__ = t.cls_to_become


class UninitializedParameter(Parameter):
    """A Parameter of a lazy module before its first call: an empty placeholder until
    ``materialize`` gives it values (the same object then is an ordinary Parameter)."""

    cls_to_become = Parameter
    materialize = _materialize

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(empty(0, device=device, dtype=dtype), requires_grad)

    __getattribute__ = _refuse_use

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    def __deepcopy__(self, memo: dict) -> UninitializedParameter:
        """Another placeholder (a deep-copied lazy module is still lazy)."""
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: int):
        # pickled as a placeholder again (on the host, as every tensor pickles), not as the
        # empty Parameter it holds
        return (UninitializedParameter, (self.requires_grad, None, self.dtype))


class UninitializedBuffer(Tensor):
    """A buffer of a lazy module before its first call (see UninitializedParameter)."""

    cls_to_become = Tensor
    materialize = _materialize

    __getattribute__ = _refuse_use

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    def __deepcopy__(self, memo: dict) -> UninitializedBuffer:
        if id(self) not in memo:
            memo[id(self)] = UninitializedBuffer(self._data[:0].copy())
        return memo[id(self)]

    def __reduce_ex__(self, protocol: int):
        return (UninitializedBuffer, (to_numpy(self._data[:0]),))


def is_lazy(t: Any) -> bool:
    return isinstance(t, UninitializedParameter | UninitializedBuffer)


class LazyModuleMixin(Module):
    """The first-call machinery (see the module docstring). A subclass names ``cls_to_become``,
    the argument the input decides (``_size_arg``: its position among the ordinary class's
    arguments) and how it is read off the input (``_size_from``)."""

    cls_to_become: type
    _size_arg: int = 0

    def _lazy_setup(self, args: tuple, kwargs: dict) -> None:
        object.__setattr__(self, "_lazy_call", (args, kwargs))
        registries = (self._parameters, self._buffers)
        for registry in registries:
            for name, t in list(registry.items()):
                if t is None or name == "num_batches_tracked":
                    continue
                if isinstance(t, Parameter):
                    registry[name] = UninitializedParameter(t.requires_grad, t.device, t.dtype)
                else:
                    placeholder = UninitializedBuffer(t._data[:0])
                    registry[name] = placeholder
        self._lazy_hook = self.register_forward_pre_hook(_LazyInitHook())
        self._lazy_load_hook = self.register_load_state_dict_pre_hook(_LazyLoadHook())

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(t) for t in (*self._parameters.values(), *self._buffers.values()))

    def _size_from(self, input: Tensor) -> int:  # noqa: A002
        return input.shape[1]

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        """Build the ordinary layer with the size ``input`` has and take its tensors."""
        self._take(self._real(int(self._size_from(input))))

    def _real(self, size: int) -> Module:
        """The ordinary layer with ``size``, made in the dtype and on the device the placeholders
        have now: ``.double()``, ``.to(...)`` ... since the module was made changed theirs (as
        PyTorch's materialize makes each tensor in its placeholder's dtype and device)."""
        args, kwargs = self._lazy_call
        args = list(args)
        args.insert(self._size_arg, size)
        lazy = [t for t in (*self._parameters.values(), *self._buffers.values()) if is_lazy(t)]
        if lazy:
            kwargs = {**kwargs, "dtype": lazy[0].dtype, "device": lazy[0].device}
        return self.cls_to_become(*args, **kwargs)

    def _take(self, real: Module) -> None:
        for registry in ("_parameters", "_buffers"):
            ours, theirs = getattr(self, registry), getattr(real, registry)
            for name, t in ours.items():
                if is_lazy(t):
                    t.materialize(theirs[name]._data)
        for key, value in real.__dict__.items():  # the sizes and what follows from them
            if not key.startswith("_") and key != "training":
                object.__setattr__(self, key, value)
        self._lazy_hook.remove()
        self._lazy_load_hook.remove()
        del self._lazy_hook, self._lazy_load_hook, self._lazy_call
        self.__class__ = self.cls_to_become

    def _materialize_from(self, state_dict: Any, prefix: str) -> None:
        """Before the first call, a state_dict being loaded (into this module or a model that
        holds it) decides the sizes: each placeholder whose key it has takes the loaded shape, in
        the placeholder's dtype and on its device. The load then copies the values in, as into
        any parameter (a float32 checkpoint loaded into a ``.double()`` module gives float64
        parameters). A loaded placeholder (the state_dict of a lazy module) changes nothing."""
        own = {**self._parameters, **self._buffers}
        for name, t in own.items():
            value = state_dict.get(prefix + name)
            if is_lazy(t) and isinstance(value, Tensor) and not is_lazy(value):
                xp = get_array_module(t._data)
                t.materialize(xp.zeros(tuple(value.shape), dtype=t._data.dtype))
        if not self.has_uninitialized_params():
            # (the weight; BatchNorm with affine=False has None there: its running_mean)
            first = next(t for t in own.values() if t is not None)
            self._take(self._real(self._size_from_weight(first)))

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """As any module's, with each placeholder itself in place of a detached copy (PyTorch's
        lazy state_dict: loading it into another lazy module leaves that one lazy)."""
        Module._save_to_state_dict(self, destination, prefix, keep_vars)
        for name, t in {**self._parameters, **self._buffers}.items():
            if is_lazy(t) and prefix + name in destination:
                destination[prefix + name] = t

    def _size_from_weight(self, weight: Tensor) -> int:
        return weight.shape[1]


class _LazyInitHook:
    """The one-time forward pre-hook: materialize from the first input."""

    def __call__(self, module: Any, args: tuple) -> None:
        module.initialize_parameters(*args)


class _LazyLoadHook:
    """The load_state_dict pre-hook until the first call: materialize from the loaded shapes."""

    def __call__(self, module: Any, state_dict: Any, prefix: str, *_: Any) -> None:
        if module.has_uninitialized_params():
            module._materialize_from(state_dict, prefix)


def _name_as_published(cls: type) -> None:
    """Name a made class and its ``__init__`` as this module publishes them (``LazyLinear``,
    ``LazyLinear.__init__``), so pickle finds both by name (the ``__init__`` is a closure)."""
    cls.__module__ = cls.__init__.__module__ = __name__
    cls.__init__.__qualname__ = f"{cls.__qualname__}.__init__"


def _lazy_class(base: type, doc: str, size_from=None, size_from_weight=None, size_arg=0) -> type:
    """A Lazy<base> class: base's constructor without its first size argument."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        base.__init__(self, *args[:size_arg], 0, *args[size_arg:], **kwargs)
        self._lazy_setup(args, kwargs)

    namespace = {
        "__init__": __init__,
        "__doc__": doc,
        "cls_to_become": base,
        "_size_arg": size_arg,
    }
    if size_from is not None:
        namespace["_size_from"] = size_from
    if size_from_weight is not None:
        namespace["_size_from_weight"] = size_from_weight
    cls = type(f"Lazy{base.__name__}", (LazyModuleMixin, base), namespace)
    _name_as_published(cls)
    return cls


def _last_dim(self: Any, input: Tensor) -> int:  # noqa: A002
    return input.shape[-1]


def _channels(spatial: int):
    """in_channels: dim 0 of an unbatched input, else dim 1 (PyTorch's _get_in_channels)."""

    def size(self: Any, input: Tensor) -> int:  # noqa: A002
        return input.shape[0] if input.ndim == spatial + 1 else input.shape[1]

    return size


def _conv_in(self: Any, weight: Tensor) -> int:
    return weight.shape[1] * self.groups


def _transposed_in(self: Any, weight: Tensor) -> int:
    return weight.shape[0]


def _num_features(self: Any, weight: Tensor) -> int:
    return weight.shape[0]


LazyLinear = _lazy_class(
    Linear, "Linear with in_features read off the first input's last dim.", _last_dim
)
LazyConv1d = _lazy_class(
    Conv1d, "Conv1d with in_channels read off the first input.", _channels(1), _conv_in
)
LazyConv2d = _lazy_class(
    Conv2d, "Conv2d with in_channels read off the first input.", _channels(2), _conv_in
)
LazyConv3d = _lazy_class(
    Conv3d, "Conv3d with in_channels read off the first input.", _channels(3), _conv_in
)
LazyConvTranspose1d = _lazy_class(
    ConvTranspose1d, "ConvTranspose1d, in_channels from the first input.", _channels(1),
    _transposed_in,
)  # fmt: skip
LazyConvTranspose2d = _lazy_class(
    ConvTranspose2d, "ConvTranspose2d, in_channels from the first input.", _channels(2),
    _transposed_in,
)  # fmt: skip
LazyConvTranspose3d = _lazy_class(
    ConvTranspose3d, "ConvTranspose3d, in_channels from the first input.", _channels(3),
    _transposed_in,
)  # fmt: skip
LazyBatchNorm1d = _lazy_class(
    BatchNorm1d, "BatchNorm1d with num_features read off the first input's dim 1.", None,
    _num_features,
)  # fmt: skip
LazyBatchNorm2d = _lazy_class(
    BatchNorm2d, "BatchNorm2d with num_features read off the first input's dim 1.", None,
    _num_features,
)  # fmt: skip
LazyBatchNorm3d = _lazy_class(
    BatchNorm3d, "BatchNorm3d with num_features read off the first input's dim 1.", None,
    _num_features,
)  # fmt: skip


def _lazy_instance_norm(base: type) -> type:
    """Lazy<base> with PyTorch's defaults for the lazy instance norms, which differ from the
    eager ones': ``affine=True`` and ``track_running_stats=True``. num_features is the first
    input's dim 1, batched or not (as in PyTorch, where an unbatched input with affine=True
    then fails the size check)."""
    lazy = _lazy_class(base, "", None, _num_features)

    def __init__(
        self: Any, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
        track_running_stats: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        lazy.__init__(
            self, eps=eps, momentum=momentum, affine=affine,
            track_running_stats=track_running_stats, device=device, dtype=dtype,
        )  # fmt: skip

    doc = f"{base.__name__} with num_features read off the first input's dim 1."
    cls = type(lazy.__name__, (lazy,), {"__init__": __init__, "__doc__": doc})
    _name_as_published(cls)
    return cls


LazyInstanceNorm1d = _lazy_instance_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_instance_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_instance_norm(InstanceNorm3d)
