"""Tensor: an array, plus what autograd needs (requires_grad, grad, grad_fn).

The array (``_data``) is a NumPy array on the CPU or a CuPy array on the GPU; the tensor's dtype and
device are read off it. Methods are thin calls into ``ops/``; arithmetic goes through ``binary_op``,
which applies PyTorch's type promotion before the op runs.

In-place methods (``add_``, ``mul_`` ...) write into the array and bump a *version counter* shared
by every view of that memory; a backward that needs a value that has since changed notices the
version mismatch and refuses (``Function.saved_tensors``).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from . import backend as _backend
from . import dtypes as _dt
from . import shared_memory
from ._tensor_str import tensor_repr
from .autograd.engine import backward_into, run_backward, seed_grads
from .autograd.grad_mode import state
from .autograd.tensor_base import TensorBase, warn_non_leaf_grad
from .autograd.vmap_samples import refuse_item
from .axis_alias import AXIS_NAMES, accepts_axis
from .backend import as_device, device_of, get_array_module, module_for, to_numpy
from .conversions import ToShortcuts, as_array, parse_to_args
from .inplace import InPlace, track_view
from .input_keyword import sizes_or_keyword
from .numpy_ufuncs import tensor_array_ufunc
from .ops import elementwise as E
from .ops import shape as S
from .promotion import written_int
from .size import Size, as_shape
from .sparse_coo import SparseCOOTensor, dense_to_sparse, strided
from .storage_sharing import deepcopy_array, deepcopy_attributes, with_attributes
from .tensor_aliases import TensorAliases
from .tensor_common import TensorCommon
from .tensor_composites import TensorComposites
from .tensor_indexing import TensorIndexing
from .tensor_inplace import TensorInPlace
from .tensor_linalg import TensorLinalg
from .tensor_math import TensorMath
from .tensor_memory import TensorMemory
from .tensor_pointwise import TensorPointwise
from .tensor_random import TensorRandom
from .tensor_reductions import TensorReductions
from .tensor_shape import TensorShape
from .tensor_stats import TensorStatistics

_new_size = tuple.__new__  # Size(shape) without its checks: .shape is on hot paths

# dtype name -> PyTorch's legacy tensor type name (x.type(), mg.FloatTensor ...)
_LEGACY_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}

_FLOAT_KINDS = "fV"


class Tensor(
    TensorMath,
    TensorReductions,
    TensorInPlace,
    TensorRandom,
    TensorShape,
    TensorIndexing,
    TensorLinalg,
    TensorPointwise,
    TensorStatistics,
    TensorComposites,
    TensorCommon,
    TensorMemory,
    TensorAliases,
    InPlace,
    ToShortcuts,
    TensorBase,
    ops_return=True,
):
    """A multi-dimensional array that can record the operations applied to it.

    This file holds the tensor's own state (data, grad, versions, conversions); the methods come
    from mixins, one file each: ``TensorMath`` (``tensor_math.py``: operators, pointwise math),
    ``TensorReductions`` (``tensor_reductions.py``: sum, max, cumsum, sort ...),
    ``TensorInPlace`` (``tensor_inplace.py``: add_, +=, copy_, fill_ ...), ``TensorRandom``
    (``tensor_random.py``: normal_, bernoulli_ ...), ``TensorShape`` (``tensor_shape.py``: views,
    reshapes, dims), ``TensorIndexing`` (``tensor_indexing.py``: x[i], gather / scatter, index_*,
    masks), ``TensorLinalg`` (``tensor_linalg.py``: matrix products, det, svd ...),
    ``TensorPointwise`` (``tensor_pointwise.py``: logical/bitwise, logaddexp, special functions)
    and ``TensorStatistics`` (``tensor_stats.py``: median, quantile, nanmean, cov ...); the
    in-place machinery they share comes from ``InPlace`` (``inplace.py``), and
    the fields autograd reads (``requires_grad``, ``grad_fn``, the version counter) from
    ``TensorBase`` (``autograd/tensor_base.py``, which says why it exists). ``ops_return=True``
    declares this the class every op returns.
    """

    __slots__ = ()
    _base = None  # for a view: the tensor that owns the memory (PyTorch's ._base)
    __array_priority__ = 1000
    # np.exp(t) is a tensor; ndarray (op) Tensor runs Tensor's reflected operator (numpy_ufuncs)
    __array_ufunc__ = tensor_array_ufunc

    def __init__(
        self, *args: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
    ) -> None:
        """PyTorch's legacy constructor: ``Tensor(data)`` is data in the default dtype (a tensor
        keeps its own); ``Tensor(2, 3)`` or ``Tensor(size)`` is an uninitialised tensor of that
        shape, ``Tensor()`` an empty one. ``mg.tensor(data)`` is the constructor to use."""
        if (
            not args
            or all(isinstance(a, int | np.integer) for a in args)
            or (len(args) == 1 and isinstance(args[0], Size))
        ):
            shape = tuple(args[0]) if args and isinstance(args[0], Size) else args or (0,)
            target = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
            xp = module_for(as_device(device))
            self._data = xp.empty(tuple(int(n) for n in shape), dtype=target.numpy_dtype)
        elif len(args) == 1:
            data = args[0]
            if dtype is None and not isinstance(data, TensorBase):
                dtype = _dt.get_default_dtype()
            self._data = as_array(data, dtype, device)
        else:
            raise TypeError(
                f"Tensor(): expected sizes (ints), a Size or one piece of data, got {args!r}"
            )
        if requires_grad:
            self.requires_grad_(True)

    # ------------------------------------------------------------------ basic properties
    @property
    def shape(self) -> Size:
        return _new_size(Size, self._data.shape)

    @property
    def dtype(self) -> _dt.DType:
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    # PyTorch's other device and storage flags: no such devices or formats here
    is_xpu = is_mps = is_meta = is_ipu = is_mtia = is_maia = is_xla = is_vulkan = False
    is_quantized = is_mkldnn = is_nested = is_sparse_csr = False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel  # PyTorch's older name

    def size(self, dim: int | None = None):
        return _new_size(Size, self._data.shape) if dim is None else self._data.shape[dim]

    def element_size(self) -> int:
        return self._data.dtype.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind in _FLOAT_KINDS

    @property
    def data(self) -> Tensor:
        """The same memory as a tensor outside the graph (changes to it are not tracked)."""
        return Tensor._make(self._data, False)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):  # (PyTorch's words)
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self.requires_grad and value._data.dtype.kind not in "fcV":  # V: bfloat16
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        self._data = value._data

    @property
    def grad(self) -> Tensor | None:
        """dL/d(self), filled in by ``backward`` (leaves, and tensors that ``retain_grad``)."""
        if self._grad is None and self.grad_fn is not None:
            warn_non_leaf_grad(self)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            _check_assigned_grad(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def T(self) -> Tensor:  # noqa: N802
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        """The last two dims swapped (batched matrix transpose). A 0-d tensor is its own
        transpose (a view of it, as PyTorch); a 1-D one is refused, as in PyTorch."""
        n = self._data.ndim
        if n == 0:
            return self.reshape(())
        if n == 1:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
            )
        dims = (*range(n - 2), n - 1, n - 2)  # (a valid order: permute's checks not needed)
        return S.Permute.apply(self, dims)._view_of(self, lambda b: S.Permute.apply(b, dims))

    # ------------------------------------------------------------------ versions and views
    def _view_of(self, base: Tensor, replay, index: Any = None) -> Tensor:
        """Mark self as sharing base's memory (if it really does): one version counter for both,
        and ``replay`` (base -> this view, as a graph op: S.Reshape.apply(b, shape) ...) kept so
        that an in-place write of either one reaches the other's history (inplace.py)."""
        data = self._data  # (an empty result shares no memory, but is a view as in PyTorch)
        if data is not base._data and (
            data.size == 0 or get_array_module(data).may_share_memory(data, base._data)
        ):
            self._vc = base._version_counter()
            self._is_view = True
            self._base = base._base if base._base is not None else base
            if base._inference_tensor:  # a view of an inference tensor is one (as in PyTorch)
                self._inference_tensor = True
            track_view(self, base, replay, index)
        return self

    # ------------------------------------------------------------------ autograd interface
    def backward(
        self,
        gradient: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Add d(self)/d(leaf) into each leaf's ``.grad`` (``inputs``' only if given); a
        non-scalar's ``gradient`` is the vector of the vector-Jacobian product; frees the graph."""
        grads = seed_grads([self], None if gradient is None else [gradient])
        if retain_graph is None:
            retain_graph = create_graph
        if inputs is not None:
            return backward_into([self], grads, retain_graph, create_graph, inputs)
        run_backward([self], grads, retain_graph, create_graph)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and not self.is_floating_point():
            raise RuntimeError(
                f"only floating-point tensors can require gradients, this one is {self.dtype.name}"
            )
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError(
                "requires_grad can only be turned off on a leaf tensor; use .detach() for a "
                "tensor that is computed from others"
            )
        self.requires_grad = requires_grad
        return self

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this non-leaf tensor after backward (leaves always keep it)."""
        if not self.requires_grad:
            raise RuntimeError("retain_grad() on a tensor that does not require grad")
        if self.grad_fn is None:
            return
        self.__dict__["_retains_grad"] = True  # read by the retains_grad property
        ref = weakref.ref(self)

        def keep(g: Tensor) -> None:
            t = ref()
            if t is not None:
                g = g.detach() if not state.grad_enabled else g
                t.grad = g if t.grad is None else t.grad + g

        keep.retains_grad = True  # type: ignore[attr-defined]  (register_hook keeps it last)
        self.grad_fn.register_hook(self._output_nr, keep)

    def register_hook(self, hook) -> _HookHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; a returned tensor replaces
        the gradient. Returns a handle whose ``remove()`` unregisters it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that does not require grad")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            self.grad_fn.register_hook(self._output_nr, hook)
            hooks = self.grad_fn._grad_hooks[self._output_nr]
            # as PyTorch: retain_grad's hook runs after every other hook, so .grad is the
            # gradient as the hooks left it
            retain = [h for h in hooks if getattr(h, "retains_grad", False)]
            if retain and hooks[-1] is not retain[-1]:
                hooks[:] = [h for h in hooks if h not in retain] + retain
        hooks.append(hook) if hook not in hooks else None
        return _HookHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook) -> _HookHandle:
        """``hook(tensor)`` runs after backward has added this leaf's gradient into ``.grad``
        (once per backward pass, with the gradient complete). Returns a handle whose ``remove()``
        unregisters it. Data-parallel training starts its gradient all-reduce from such hooks."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that does not require grad")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = []
        hooks = self._post_accumulate_grad_hooks
        hooks.append(hook) if hook not in hooks else None
        return _HookHandle(hooks, hook)

    # ------------------------------------------------------------------ conversion
    def item(self) -> Any:
        refuse_item(self)  # inside vmap, one sample's number: PyTorch's RuntimeError
        if self._data.size != 1:
            raise RuntimeError(
                f"item() needs a tensor with exactly one element, this one has shape {self.shape}"
            )
        value = to_numpy(self._data.reshape(()))[()]  # (a GPU's queued checks: the same read)
        return value.item() if hasattr(value, "item") else float(value)

    def __dlpack__(self, *args: Any, **kwargs: Any):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            # (PyTorch's words: also what ``float_tensor * [1, 2]`` raises, through list's *)
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        refuse_item(self, control_flow=True)  # `if t > 0:` inside vmap
        if self._data.size != 1:
            raise RuntimeError(
                f"the truth value of a tensor with {self._data.size} elements is ambiguous: "
                f"use .any() or .all()"
            )
        return bool(self.item())

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self.ndim == 0:  # refused when iter() is called, as PyTorch (not at the first next())
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    __hash__ = object.__hash__  # by identity, so tensors can key dicts (optimizer state)

    def __repr__(self) -> str:
        """``tensor([1., 2.], requires_grad=True)``, as PyTorch prints it (``_tensor_str.py``)."""
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        """As PyTorch: a 0-d tensor formats as its Python number (``f"{loss}"`` is ``0.25``,
        ``f"{loss:.3f}"`` is ``0.250``; ``str(loss)`` and ``"%s" % loss`` stay ``tensor(0.2500)``).
        Any other tensor, and a subclass such as Parameter, formats as ``str(t)`` with an empty
        spec and refuses a non-empty one."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        if spec:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        """A copy with its own memory on the same device (pickling would go through the host).
        As in PyTorch, only tensors made by the user (leaves) can be deep-copied."""
        if id(self) in memo:
            return memo[id(self)]
        if self.grad_fn is not None:
            raise RuntimeError(
                "only tensors created by the user (graph leaves) support deepcopy: "
                "use .detach().clone() for a computed tensor"
            )
        out = Tensor._make(deepcopy_array(self._data, memo), self.requires_grad)  # views stay views
        if self.grad is not None:
            out.grad = Tensor._make(deepcopy_array(self.grad._data, memo), False)
        memo[id(self)] = out
        deepcopy_attributes(self, out, memo)
        return out

    def __reduce_ex__(self, protocol: int):
        # Pickled as (host array, requires_grad), a GPU tensor as (its array, requires_grad,
        # its device) (backend.pickled_array); the safe unpickler allows _rebuild_tensor.
        array, *location = _backend.pickled_array(self._data)
        return with_attributes(self, (_rebuild_tensor, (array, self.requires_grad, *location)))

    # ------------------------------------------------------------------ dtype and device
    def _cast(self, np_dtype: Any) -> Tensor:
        """Differentiable cast to a NumPy dtype (internal; ``to`` is the public form)."""
        if self._data.dtype == np_dtype:
            return self
        return E.Cast.apply(self, np_dtype)

    def share_memory_(self) -> Tensor:
        """Move the elements into shared memory (once): processes that receive this tensor
        through ``mg.multiprocessing`` then update the same elements (``shared_memory.py``)."""
        if not shared_memory.is_shared(self):
            shared_memory.share(self)
        return self

    def is_shared(self) -> bool:
        return shared_memory.is_shared(self)

    # ------------------------------------------------------------------ layout
    layout = strided  # every element is stored (sparse_coo.py has the other layout)
    is_sparse = False

    def to_sparse(self, sparse_dim: int | None = None) -> SparseCOOTensor:
        """The nonzero entries as a sparse COO tensor (gradients flow back to self)."""
        return dense_to_sparse(self, sparse_dim)

    def to_dense(self, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
        return self if dtype is None else self.to(dtype)  # a strided tensor is dense already

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other_tensor)``; returns self
        when nothing changes. ``memory_format=`` lays the result out in that format (``x.to(
        memory_format=mg.channels_last)``). Differentiable."""
        fmt = kwargs.pop("memory_format", None)
        dtype, dev, copy = parse_to_args("to", args, kwargs, allow_copy=True)
        out = self if fmt is None else self._to_memory_format(fmt)
        if dev is not None:
            dev = as_device(dev)
            module_for(dev)  # raises a clear error for "cuda" without CuPy/GPU
            if device_of(self._data) != dev:
                out = E.ToDevice.apply(out, dev)
        if dtype is not None:
            out = out._cast(_dt.to_dtype(dtype).numpy_dtype)
        if copy and out is self:
            out = self.clone()
        return out

    def long(self) -> Tensor:
        return self.to(_dt.int64)

    def int(self) -> Tensor:
        return self.to(_dt.int32)

    def bool(self) -> Tensor:
        return self.to(_dt.bool_)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """``x.type()``: the legacy type name, ``"minigenesis.FloatTensor"`` (with ``.cuda.`` on
        a GPU), as ``torch.FloatTensor``. ``x.type(dtype)``: ``x`` cast to ``dtype``, given as a
        dtype, a legacy type (``mg.DoubleTensor``) or its name (``"torch.DoubleTensor"`` too)."""
        if dtype is None:
            where = ".cuda" if self.is_cuda else ""
            return f"minigenesis{where}.{_LEGACY_NAMES[self.dtype.name]}"
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            found = [d for d, n in _LEGACY_NAMES.items() if n == name]
            if not found or not dtype.startswith(("minigenesis.", "torch.")):
                raise ValueError(
                    f"invalid type: {dtype!r} (expected e.g. 'minigenesis.FloatTensor' or "
                    "'torch.LongTensor', or a dtype)"
                )
            dtype = _dt.get_dtype(found[0])
        dtype = getattr(dtype, "legacy_dtype", dtype)  # mg.DoubleTensor -> mg.float64
        return self.to(dtype)

    # ------------------------------------------------------------------ new tensors like self
    def _new_array(self, size: tuple, dtype: Any, fill: Any) -> Tensor:
        dt = (_dt.to_dtype(dtype) if dtype is not None else self.dtype).numpy_dtype
        shape = as_shape(size, "new tensor")
        xp = module_for(self.device)  # (on meta: a data-less array)
        # the fill is converted as a written value (checked; a float into float16 through float32)
        arr = xp.empty(shape, dt) if fill is None else xp.full(shape, written_int(fill, dt), dt)
        return Tensor._make(arr, False)

    def _placed(self, t: Tensor, device: Any, requires_grad: bool) -> Tensor:
        if device is not None:
            t = t.to(device)
        return t.requires_grad_(True) if requires_grad else t

    def new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
        """Zeros of ``size``, with this tensor's dtype and device unless given."""
        size = sizes_or_keyword("new_zeros", sizes, size, "size")
        return self._placed(self._new_array(size, dtype, 0), device, requires_grad)

    def new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
        """Ones of ``size``, with this tensor's dtype and device unless given."""
        size = sizes_or_keyword("new_ones", sizes, size, "size")
        return self._placed(self._new_array(size, dtype, 1), device, requires_grad)

    def new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad=False) -> Tensor:
        """An uninitialised tensor of ``size``, with this tensor's dtype and device."""
        size = sizes_or_keyword("new_empty", sizes, size, "size")
        return self._placed(self._new_array(size, dtype, None), device, requires_grad)

    def new_full(self, size: Any, fill_value: Any, *, dtype=None, device=None,
                 requires_grad=False) -> Tensor:  # fmt: skip
        """``fill_value`` everywhere in ``size``, with this tensor's dtype and device."""
        return self._placed(self._new_array((size,), dtype, fill_value), device, requires_grad)

    def new_tensor(self, data: Any, dtype=None, device=None, requires_grad=False) -> Tensor:
        """A copy of ``data`` with this tensor's dtype and device unless given (a tensor as
        ``data`` is copied and detached, as in PyTorch)."""
        dt = dtype if dtype is not None else self.dtype
        arr = as_array(data, dt, device if device is not None else self.device)
        if isinstance(data, TensorBase) or arr is data:
            arr = arr.copy()
        t = Tensor._make(arr, False)
        return t.requires_grad_(True) if requires_grad else t


class _HookHandle:
    def __init__(self, hooks: list, hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


# x.amax(axis=1), x.cumsum(axis=0) ...: PyTorch's argument parser takes NumPy's spellings for
# every method with a dim (axis_alias.py); sum and mean take them in their own signatures.
for _name in AXIS_NAMES:
    if hasattr(Tensor, _name):
        setattr(Tensor, _name, accepts_axis(getattr(Tensor, _name)))


# Pickles name this function ``minigenesis._tensor._rebuild_tensor``: that is its stable name, kept
# as long as files written with it should load (as PyTorch keeps its ``torch._utils`` rebuild
# functions). Files written before this module was named ``_tensor`` say
# ``minigenesis.tensor._rebuild_tensor``; both loaders read that old name as this one (``RENAMED``
# in serialization/pickling.py).
def _rebuild_tensor(array: Any, requires_grad: bool, location: str | None = None) -> Tensor:
    """Unpickling entry point for tensors (Parameter has its own, ``nn/parameter.py``); a
    tensor pickled on a GPU names its device (``location``) and comes back on it."""
    t = Tensor._make(_backend.unpickled_array(array, location), False)
    return t.requires_grad_(bool(requires_grad))  # an int tensor cannot require grad


def _check_assigned_grad(t: Tensor, value: Any) -> None:
    """As PyTorch: ``t.grad = value`` takes only a tensor like ``t`` (the optimizers read it as
    such): a Tensor of t's size, dtype and device."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"assigned grad expected to be a Tensor or None but got grad of type "
            f"{type(value).__name__}"
        )
    for what, mine, its in (
        ("size", tuple(t.shape), tuple(value.shape)),
        ("dtype", t.dtype, value.dtype),
        ("device", t.device, value.device),
    ):
        if mine != its:
            raise RuntimeError(
                f"assigned grad has data of a different {what}: the tensor has {mine}, "
                f"the gradient {its}"
            )
