"""The Tensor's shape methods: views and reshapes, the order of dims, flips and rolls, splits and
repeats (PyTorch's "slicing, joining, mutating" names that change a shape, not values).

Every method is a call into the shape ops of ``ops/shape.py`` or a composition of other methods,
so each gradient follows from theirs: ``reshape``, ``permute`` and ``expand`` return views (an
in-place write to one reaches its base, see ``inplace.py``); ``roll`` is two slices ``cat``-ed in
the other order; ``tile`` is ``repeat`` with leading 1s; ``repeat_interleave`` is an ``expand``
of a new dim, then a ``reshape`` (with a tensor of counts, an ``index_select``).
"""

from __future__ import annotations

import math
from typing import Any

from .autograd.grad_mode import state
from .autograd.node_names import node_variant
from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .dtypes import DType, bool_, float64, int64
from .input_keyword import sizes_or_keyword
from .memory_format import contiguous_format
from .ops import shape as S
from .ops.view_dtype import check_view_dtype, contiguous_strides, view_dtype_array
from .size import as_shape, int_tuple, norm_dim, plain_int

# The views PyTorch records under their own node names (ours are Permute and Reshape)
_TRANSPOSE = node_variant(S.Permute, "TransposeBackward0")
_T = node_variant(S.Permute, "TBackward0")
_T_1D = node_variant(S.Reshape, "TBackward0")
_UNSQUEEZE = node_variant(S.Reshape, "UnsqueezeBackward0")
_SQUEEZE_ALL = node_variant(S.Reshape, "SqueezeBackward0")  # squeeze()
_SQUEEZE_DIM = node_variant(S.Reshape, "SqueezeBackward1")  # squeeze(1)
_SQUEEZE_DIMS = node_variant(S.Reshape, "SqueezeBackward2")  # squeeze((1, 2))

_PYTHON_TYPES = {float: float64, int: int64, bool: bool_}  # view(float): PyTorch's dtype


def _tuple(x: Any) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def _check_sizes(shape: tuple) -> None:
    """RuntimeError for a size below -1, as PyTorch's (NumPy reads any negative size as -1, the
    inferred one, so ``reshape(-2)`` would pass)."""
    try:
        bad = min(shape, default=0) < -1
    except TypeError:  # not all numbers: NumPy's error names the bad one
        return
    if bad:
        at = next(i for i, n in enumerate(shape) if n < -1)
        raise RuntimeError(
            f"invalid shape dimension {shape[at]} at index {at} of shape {list(shape)}"
        )


class TensorShape:
    """Mixin of Tensor: the shape methods."""

    __slots__ = ()

    _data: Any

    # ------------------------------------------------------------------ views and reshapes
    def reshape(self, *shape_given, shape=None):
        shape = sizes_or_keyword("reshape", shape_given, shape, "shape")  # (2, 3) or ((2, 3),)
        try:
            shape = tuple(shape)
            _check_sizes(shape)
            return S.Reshape.apply(self, shape)._view_of(self, lambda b: S.Reshape.apply(b, shape))
        except ValueError:  # NumPy's; PyTorch raises RuntimeError ("shape '[4, 1]' is invalid")
            raise RuntimeError(
                f"reshape: shape '{list(shape)}' is invalid for input of size {self.numel()} "
                f"(a tensor of shape {tuple(self.shape)})"
            ) from None

    def view(self, *shape: Any, dtype: Any = None, size: Any = None):
        """reshape that never copies: PyTorch's view refuses memory that the new shape cannot
        describe with strides (e.g. after transpose), where reshape would copy. ``view(dtype)``
        (or ``view(dtype=...)``) reads the same bytes as another dtype (ops/view_dtype.py)."""
        if dtype is None and len(shape) == 1 and isinstance(shape[0], (DType, type)):
            dtype, shape = shape[0], ()
        if (dtype is not None) + (size is not None) + bool(shape) > 1 or any(
            isinstance(n, (DType, type)) for n in shape
        ):
            raise TypeError("view() takes either one dtype or a shape (ints, a tuple or size=)")
        if dtype is not None:
            return self._view_dtype(dtype)
        out = self.reshape(*(shape if size is None else (size,)))
        arr, src = out._data, self._data
        if arr is not src and arr.size and not get_array_module(src).may_share_memory(arr, src):
            raise RuntimeError(
                f"view: a tensor of shape {self.shape} and these strides cannot be viewed as "
                f"{out.shape} without a copy: use .reshape(...) or .contiguous().view(...)"
            )
        return out

    def _view_dtype(self, dtype: Any):
        """The same memory read as ``dtype``: it shares self's version counter, but carries no
        gradient and is no view for autograd, as in PyTorch."""
        dtype = _PYTHON_TYPES.get(dtype, dtype)  # PyTorch's: float is float64 here
        if not isinstance(dtype, DType):
            raise TypeError(f"view(): dtype must be a dtype, not {type(dtype).__name__}")
        shape = self.shape  # (an empty tensor's strides: PyTorch's for a new one, as NumPy's vary)
        stride = self.stride() if self.numel() else contiguous_strides(shape)
        check_view_dtype(shape, stride, self.storage_offset(), self.dtype, dtype)
        out = self._make(view_dtype_array(self._data, dtype), False)
        out._vc = self._version_counter()
        return out

    def view_as(self, other):
        return self.reshape(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1):
        if self.ndim == 0:
            return self.reshape(1)
        s, e = norm_dim(start_dim, self.ndim)[0], norm_dim(end_dim, self.ndim)[0]
        if s > e:
            raise RuntimeError(  # PyTorch's type and wording
                f"flatten() has invalid args: start_dim cannot come after end_dim (got "
                f"start_dim={start_dim}, end_dim={end_dim})"
            )
        if s == e:  # nothing to flatten: PyTorch returns the tensor itself
            return self
        shape = self.shape
        middle = 1
        for n in shape[s : e + 1]:
            middle *= n
        return self.reshape(shape[:s] + (middle,) + shape[e + 1 :])

    def ravel(self):
        """The elements as one dim: a view when the layout allows it, else a copy (as reshape)."""
        return self.reshape(-1)

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along ``dim``, each without that dim: x.unbind(0) == (x[0], x[1], ...)."""
        d = norm_dim(dim, self.ndim)[0]
        lead = (slice(None),) * d
        return tuple(self[lead + (i,)] for i in range(self.shape[d]))

    def narrow(self, dim: int, start: int, length: int):
        """The view ``self[..., start:start + length, ...]`` along ``dim`` (a negative ``start``
        counts from the end); ``start`` may be a 0-d integer tensor."""
        d = norm_dim(dim, self.ndim)[0]
        size = self.shape[d]
        if isinstance(start, TensorBase):  # (as a Python int: uint8 -size would wrap)
            if start.ndim or start._data.dtype.kind not in "iu":
                raise RuntimeError("start must be an 0-dim integral Tensor.")
            start = int(start._data)
        if not -size <= start <= size:
            raise IndexError(
                f"start out of range (expected to be in range of [{-size}, {size}], but got "
                f"{start})"
            )
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        start = start + size if start < 0 else start
        if start + length > size:
            raise RuntimeError(
                f"start ({start}) + length ({length}) exceeds dimension size ({size})."
            )
        return self[(slice(None),) * d + (slice(start, start + length),)]

    def select(self, dim: int, index: int):
        """The view ``self[..., index, ...]`` with ``index`` taken along ``dim`` (which goes)."""
        d = norm_dim(dim, self.ndim)[0]
        size = self.shape[d]
        if not -size <= index < size:
            raise IndexError(
                f"select(): index {index} out of range for tensor of size {list(self.shape)} at "
                f"dimension {dim}"
            )
        return self[(slice(None),) * d + (index,)]

    # ------------------------------------------------------ dims: order, add, remove, broadcast
    def permute(self, *dims_given, dims=None):
        dims = sizes_or_keyword("permute", dims_given, dims, "dims")
        dims = tuple(norm_dim(d, self.ndim)[0] for d in dims)
        if sorted(dims) != list(range(self.ndim)):
            raise RuntimeError(f"permute: {dims} is not a permutation of the dims of {self.shape}")
        return S.Permute.apply(self, dims)._view_of(self, lambda b: S.Permute.apply(b, dims))

    def transpose(self, dim0: int, dim1: int):
        d0, d1 = norm_dim(dim0, self.ndim)[0], norm_dim(dim1, self.ndim)[0]
        if self.ndim == 0:  # dims 0 and -1 of a 0-d tensor: a view of the whole tensor
            return self.reshape(())
        dims = list(range(self.ndim))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return self._viewed(_TRANSPOSE, tuple(dims))

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dims, got {self.ndim}: transpose")
        if self.ndim == 2:
            return self._viewed(_T, (1, 0))
        return self._viewed(_T_1D, self.shape)  # a view of the whole tensor

    def movedim(self, source, destination):
        """Move dims ``source`` to places ``destination``, the others keeping their order."""
        src, dst = int_tuple(source), int_tuple(destination)
        if len(src) != len(dst):
            raise RuntimeError(
                f"movedim: source {src} and destination {dst} must have the same length"
            )
        src = tuple(norm_dim(s, self.ndim)[0] for s in src)
        dst = tuple(norm_dim(s, self.ndim)[0] for s in dst)
        if len(set(src)) != len(src) or len(set(dst)) != len(dst):
            raise RuntimeError("movedim: repeated dim in source or destination")
        rest = iter(d for d in range(self.ndim) if d not in src)
        placed = dict(zip(dst, src, strict=True))
        return self.permute([placed[i] if i in placed else next(rest) for i in range(self.ndim)])

    moveaxis = movedim

    def swapaxes(self, axis0: int, axis1: int):
        return self.transpose(axis0, axis1)

    swapdims = swapaxes

    def squeeze(self, dim=None):
        if dim is None:
            return self._viewed(_SQUEEZE_ALL, tuple(n for n in self.shape if n != 1))
        dims = norm_dim(dim, self.ndim)
        op = _SQUEEZE_DIMS if isinstance(dim, (tuple, list)) else _SQUEEZE_DIM
        return self._viewed(
            op, tuple(n for i, n in enumerate(self.shape) if not (i in dims and n == 1))
        )

    def unsqueeze(self, dim: int):
        d = norm_dim(dim, self.ndim + 1)[0]  # dims -ndim-1 .. ndim: the new dim's place
        shape = self.shape
        return self._viewed(_UNSQUEEZE, shape[:d] + (1,) + shape[d:])

    def _viewed(self, op: type, arg: Any):
        """``op`` (Permute or Reshape, under one of PyTorch's node names) as a view of self."""
        return op.apply(self, arg)._view_of(self, lambda b: op.apply(b, arg))

    # ------------------------------------------------------ in-place shape changes
    def _reshape_inplace(self, fn):
        """``x.unsqueeze_(0)`` and friends: x itself takes the new shape (the same memory) and, in
        a graph, the node of the out-of-place result (PyTorch changes x's metadata in place)."""
        if state.grad_enabled and self.requires_grad and self.grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        out = fn(self)
        self._data = out._data
        self._bump_version()  # (as PyTorch: a node that saved x refuses its new shape)
        self.__dict__.pop("_view_src", None)  # no longer base[index] in that index's shape
        if out.requires_grad:
            self.grad_fn, self._output_nr = out.grad_fn, out._output_nr
        return self

    def unsqueeze_(self, dim: int):
        return self._reshape_inplace(lambda x: x.unsqueeze(dim))

    def squeeze_(self, dim=None):
        return self._reshape_inplace(lambda x: x.squeeze(dim))

    def t_(self):
        return self._reshape_inplace(lambda x: x.t())

    def transpose_(self, dim0: int, dim1: int):
        return self._reshape_inplace(lambda x: x.transpose(dim0, dim1))

    def swapaxes_(self, axis0: int, axis1: int):
        return self.transpose_(axis0, axis1)

    swapdims_ = swapaxes_

    def resize_(self, *sizes):
        """The new shape on the same elements in order; growing adds uninitialised (zero)
        elements after them, as PyTorch's storage grows (refused for a tensor requiring grad)."""
        shape = as_shape(sizes, "resize_")
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        n = math.prod(shape)
        if n == self._data.size:
            self._data = self._data.reshape(shape)
        else:
            xp = get_array_module(self._data)
            flat = xp.zeros(n, dtype=self._data.dtype)
            keep = min(n, self._data.size)
            flat[:keep] = self._data.reshape(-1)[:keep]
            self._data = flat.reshape(shape)
        self._bump_version()
        return self

    def expand(self, *sizes, size=None):
        sizes = sizes_or_keyword("expand", sizes, size, "size")  # (2, 3), ((2, 3),) or size=
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise RuntimeError(f"expand: cannot expand {self.shape} to fewer dims {tuple(sizes)}")
        shape = tuple(
            self.shape[i - lead] if (n == -1 and i >= lead) else n for i, n in enumerate(sizes)
        )
        if shape == self.shape:  # a view, as PyTorch (not self)
            return self.reshape(shape)
        try:
            return S.Expand.apply(self, shape)._view_of(self, lambda b: S.Expand.apply(b, shape))
        except ValueError:
            raise RuntimeError(f"expand: cannot expand shape {self.shape} to {shape}") from None

    def expand_as(self, other):
        return self.expand(other.shape)

    def broadcast_to(self, size):
        return self.expand(size)

    # ------------------------------------------------------------------ reversing and rolling
    def flip(self, *dims_given, dims=None):
        """The elements in reverse order along each of ``dims`` (a copy; ``flip(0, 1)`` too)."""
        dims = sizes_or_keyword("flip", dims_given, dims, "dims")
        axes = tuple(norm_dim(d, self.ndim)[0] for d in dims)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"flip: dims {tuple(dims)} name a dim twice")
        return S.Flip.apply(self, axes) if axes else self.clone()

    def __reversed__(self):
        """``reversed(t)`` is a tensor, as in PyTorch: t flipped along dim 0 (0-d: t itself)."""
        return self if self.ndim == 0 else self.flip(0)

    def fliplr(self):
        """Reverse the columns (dim 1); needs at least 2 dims."""
        if self.ndim < 2:
            raise RuntimeError(f"fliplr needs a tensor with at least 2 dims, got {self.ndim}")
        return self.flip(1)

    def flipud(self):
        """Reverse the rows (dim 0); needs at least 1 dim."""
        if self.ndim < 1:
            raise RuntimeError("flipud needs a tensor with at least 1 dim")
        return self.flip(0)

    def roll(self, shifts, dims=None):
        """out[(i + shift) % n] = x[i] along each dim; without dims, over the flattened tensor."""
        if dims is None:
            return self.reshape(-1).roll(shifts, 0).reshape(self.shape)
        shifts = int_tuple(shifts)
        dims = int_tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"roll: shifts {shifts} and dims {dims} must have the same length")
        out = self
        for s, dim in zip(shifts, dims, strict=True):
            d = norm_dim(dim, self.ndim)[0]
            n = self.shape[d]
            s = s % n if n else 0
            if s:
                lead = (slice(None),) * d
                out = S.Cat.apply(d, out[lead + (slice(n - s, n),)], out[lead + (slice(0, n - s),)])
        return out if out is not self else self.clone()

    # ------------------------------------------------------------------ splitting and repeating
    def split(self, split_size, dim: int = 0):
        # (PyTorch's method names its first argument split_size, torch.split split_size_or_sections)
        d = norm_dim(dim, self.ndim)[0]
        n, split_size = self.shape[d], plain_int(split_size)
        if isinstance(split_size, int):
            step = split_size
            if step < 0 or (step == 0 and n > 0):  # (PyTorch's RuntimeError)
                raise RuntimeError(f"split: the split size must be positive, got {step}")
            sizes = [min(step, n - i) for i in range(0, n, step)] if n else [0]
        else:
            sizes = list(split_size)
            if any(s < 0 for s in sizes):  # [4, -1] adds up to 3 but is no split of 3
                raise RuntimeError(f"split: sizes {sizes} must not be negative")
            if sum(sizes) != n:
                raise RuntimeError(f"split: sizes {sizes} do not add up to dim {d} of size {n}")
        sizes = tuple(sizes)

        def piece(k):  # the replay of piece k
            def replay(b):
                return _tuple(S.Split.apply(b, sizes, d))[k]

            replay.multiple_views = True  # (PyTorch refuses in-place ops on these in a graph)
            return replay

        pieces = _tuple(S.Split.apply(self, sizes, d))
        return tuple(p._view_of(self, piece(k)) for k, p in enumerate(pieces))

    def chunk(self, chunks: int, dim: int = 0):
        chunks = plain_int(chunks)
        n = self.shape[norm_dim(dim, self.ndim)[0]]
        if chunks <= 0:
            raise RuntimeError(f"chunk: the number of chunks must be greater than 0, got {chunks}")
        if n == 0:  # PyTorch gives ``chunks`` empty pieces of an empty dim
            return self.split([0] * chunks, dim)
        step = -(-n // chunks)
        return self.split(step, dim)

    def repeat(self, *repeats_given, repeats=None):
        repeats = sizes_or_keyword("repeat", repeats_given, repeats, "repeats")
        if len(repeats) < self.ndim:
            raise ValueError(
                f"repeat: {len(repeats)} repeat counts for a tensor with {self.ndim} dims"
            )
        if any(r < 0 for r in repeats):  # (NumPy's ValueError; PyTorch's RuntimeError)
            raise RuntimeError(f"repeat: repeat counts must not be negative, got {tuple(repeats)}")
        return S.Repeat.apply(self, tuple(repeats))

    def tile(self, *dims_given, dims=None):
        """repeat with ``dims`` padded by leading 1s to x's number of dims."""
        dims = sizes_or_keyword("tile", dims_given, dims, "dims")
        dims = (1,) * (self.ndim - len(dims)) + tuple(dims)
        return self.repeat(*dims)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        """Each element ``repeats`` times in a row along dim (over the flattened x without dim).

        ``repeats`` is an int (every element as often) or an integer tensor with one count per
        element along dim (or one count for all): out = x.index_select(dim, i) with i = 0
        repeated repeats[0] times, then 1 repeated repeats[1] times ... ``output_size``, when
        given, must be the total."""
        if isinstance(repeats, TensorBase):
            counts = _repeat_counts(repeats)
            if counts.size == 1:
                repeats = int(counts.reshape(()))
            else:
                x = self.reshape(-1) if dim is None else self
                d = 0 if dim is None else norm_dim(dim, self.ndim)[0]
                if counts.size != (x.shape[d] if x.ndim else 1):
                    raise RuntimeError(
                        f"repeat_interleave: repeats must have one count per element along dim "
                        f"{d} ({x.shape[d] if x.ndim else 1}), got {counts.size}"
                    )
                xp = get_array_module(counts)
                idx = xp.repeat(xp.arange(counts.size), counts.tolist())
                _check_output_size(output_size, idx.size)
                return x.index_select(d, type(self)._make(idx, False))
        repeats = plain_int(repeats)
        if not isinstance(repeats, int) or isinstance(repeats, bool):
            raise TypeError(
                f"repeat_interleave: repeats must be an int or an integer tensor, got "
                f"{type(repeats).__name__}"
            )
        if repeats < 0:
            raise RuntimeError(f"repeat_interleave: repeats must be non-negative, got {repeats}")
        if dim is None:
            return self.reshape(-1).repeat_interleave(repeats, 0, output_size=output_size)
        d = norm_dim(dim, self.ndim)[0]
        x = self.reshape(1) if self.ndim == 0 else self
        shape = x.shape
        _check_output_size(output_size, shape[d] * repeats)
        wide = x.unsqueeze(d + 1).expand(shape[: d + 1] + (repeats,) + shape[d + 1 :])
        # always a new tensor, as PyTorch's: reshape alone would return a view of x when
        # repeats is 1 (a write to it would change x) or a stride-0 view when x.shape[d] is 1
        fresh = x.clone(memory_format=contiguous_format) if repeats == 1 else wide.contiguous()
        return fresh.reshape(shape[:d] + (shape[d] * repeats,) + shape[d + 1 :])

    # ------------------------------------------------------------------ more splits, unflatten
    def unflatten(self, dim: int, sizes):
        """Dim ``dim`` split into dims of ``sizes`` (one of them may be -1)."""
        d = norm_dim(dim, self.ndim)[0]
        sizes = tuple(sizes)
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        n = self.shape[d]
        if (
            sizes.count(-1) > 1
            or (-1 not in sizes and known != n)
            or (-1 in sizes and (known == 0 or n % known))
        ):
            raise RuntimeError(
                f"unflatten: sizes {sizes} don't multiply up to the size of dim {dim} ({n})"
            )
        return self.reshape(self.shape[:d] + sizes + self.shape[d + 1 :])

    def tensor_split(self, indices_or_sections, dim: int = 0):
        """Views along dim: n parts (the first size % n one longer) for an int, or the pieces
        between the given indices for a list (as Python slicing, so past-the-end is empty)."""
        d = norm_dim(dim, self.ndim)[0]
        n = self.shape[d]
        spec = plain_int(indices_or_sections, tensors=False)  # (a tensor is checked here)
        if hasattr(spec, "_data"):  # a tensor: 0-d means sections, 1-d indices
            if spec._data.dtype.name != "int64" or spec.ndim > 1:  # (PyTorch's refusals)
                raise RuntimeError(
                    f"tensor_split expected tensor_indices_or_sections to be a 0-d or 1-d tensor "
                    f"of dtype long, got {spec.ndim}-d {spec.dtype}"
                )
            spec = int(spec._data) if spec.ndim == 0 else [int(v) for v in spec._data.tolist()]
        if isinstance(spec, int):
            if spec <= 0:
                raise RuntimeError(f"tensor_split: number of sections must be > 0, got {spec}")
            small, extra = divmod(n, spec)
            bounds, start = [], 0
            for i in range(spec - 1):
                start += small + (1 if i < extra else 0)
                bounds.append(start)
        else:
            bounds = list(spec)
        out, edges = [], [0, *bounds, n]
        for a, b in zip(edges[:-1], edges[1:]):
            start, stop, _ = slice(a, b).indices(n)  # piece i is x[b_(i-1):b_i], as slicing
            out.append(self.narrow(d, start, max(stop - start, 0)))
        return tuple(out)

    def _split_at(self, name: str, dim: int, sections):
        if isinstance(sections, int):
            n = self.shape[dim]
            if sections <= 0 or n % sections:
                raise RuntimeError(
                    f"{name} attempted to split along dimension {dim}, but the size of the "
                    f"dimension {n} is not divisible by the split_size {sections}!"
                )
        return self.tensor_split(sections, dim)

    def hsplit(self, sections):
        """tensor_split along dim 1 (dim 0 for a 1-D tensor); an int must divide evenly."""
        if self.ndim < 1:
            raise RuntimeError("hsplit needs a tensor with at least 1 dim, got a 0-d tensor")
        return self._split_at("hsplit", 1 if self.ndim > 1 else 0, sections)

    def vsplit(self, sections):
        if self.ndim < 2:
            raise RuntimeError(f"vsplit needs a tensor with at least 2 dims, got {self.ndim}")
        return self._split_at("vsplit", 0, sections)

    def dsplit(self, sections):
        if self.ndim < 3:
            raise RuntimeError(f"dsplit needs a tensor with at least 3 dims, got {self.ndim}")
        return self._split_at("dsplit", 2, sections)

    # ------------------------------------------------------------------ rotation and diagonals
    def rot90(self, k: int = 1, dims=(0, 1)):
        """Rotate by 90 degrees k times in the plane of ``dims``, from the first dim toward the
        second: a flip and a transpose."""
        if len(dims) != 2:
            raise RuntimeError(f"rot90: expected total rotation dims == 2, got {len(dims)}")
        if self.ndim < 2:
            raise RuntimeError(f"rot90: expected total dims >= 2, got {self.ndim}")
        d0, d1 = (norm_dim(d, self.ndim)[0] for d in dims)
        if d0 == d1:
            raise RuntimeError(f"rot90: the rotation dims must differ, got {tuple(dims)}")
        k %= 4
        if k == 1:
            return self.flip(d1).transpose(d0, d1)
        if k == 2:
            return self.flip(d0, d1)
        if k == 3:
            return self.flip(d0).transpose(d0, d1)
        return self.clone()

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1):
        """The elements x[..i.., ..i + offset..] of the plane (dim1, dim2), in a new last dim: a
        view, as in PyTorch (``x.diagonal().fill_(0)`` zeroes x's diagonal outside autograd)."""
        if self.ndim < 2:
            raise RuntimeError(f"diagonal: expected a tensor with at least 2 dims, got {self.ndim}")
        d1, d2 = norm_dim(dim1, self.ndim)[0], norm_dim(dim2, self.ndim)[0]
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        out = S.Diagonal.apply(self, offset, d1, d2)
        return out._view_of(self, lambda b: S.Diagonal.apply(b, offset, d1, d2))

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1):
        """A tensor whose diagonals (offset, dim1, dim2) hold the last dim of self:
        out.diagonal(offset, dim1, dim2) == self, zero elsewhere."""
        offset, nd = plain_int(offset), self.ndim + 1
        n = self.shape[-1] + abs(offset)
        d1, d2 = norm_dim(dim1, nd)[0], norm_dim(dim2, nd)[0]
        if d1 == d2:
            raise RuntimeError(
                f"diag_embed: diagonal dimensions cannot be identical {dim1}, {dim2}"
            )
        xp = get_array_module(self._data)
        out = type(self)._make(xp.zeros(self.shape[:-1] + (n, n), self._data.dtype), False)
        rows = xp.arange(self.shape[-1]) + max(-offset, 0)
        make = type(self)._make
        out[(Ellipsis, make(rows, False), make(rows + offset, False))] = self  # a tracked write
        return out.movedim((-2, -1), (d1, d2)).contiguous()  # row-major, as PyTorch's

    def diagflat(self, offset: int = 0):
        """The flattened tensor on diagonal ``offset`` of a square matrix."""
        return self.reshape(-1).diag(offset)


def _repeat_counts(repeats: Any) -> Any:
    """repeat_interleave's tensor of counts, checked: integers, at most 1-d, non-negative."""
    counts = repeats._data
    if counts.dtype.kind not in "iu":
        raise RuntimeError(
            f"repeat_interleave: repeats must be an integer tensor, got {repeats.dtype.name}"
        )
    if counts.ndim > 1:
        raise RuntimeError(f"repeat_interleave: repeats must be 0-d or 1-d, got {counts.ndim} dims")
    if counts.size and int(counts.min()) < 0:
        raise RuntimeError("repeat_interleave: repeats can not be negative")
    return counts.reshape(-1)


def _check_output_size(output_size: Any, total: int) -> None:
    if output_size is not None and output_size != total:
        raise RuntimeError(
            f"repeat_interleave: output_size {output_size} does not match the total of the "
            f"repeats ({total})"
        )
