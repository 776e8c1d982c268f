"""Tensor names PyTorch code calls that are aliases, legacy forms or short compositions of
existing methods: ``ndimension``, ``itemsize`` / ``nbytes``, ``is_signed``, ``is_nonzero``,
``get_device``, the legacy ``new(...)``, the conjugate family on real dtypes (``conj``,
``resolve_conj``, ``H`` / ``mH`` / ``adjoint`` ...: a real tensor is its own conjugate),
``sum_to_size``, ``split_with_sizes``, the ``*_scatter`` forms (a copy of self with a slice, a
row, a diagonal or a strided window replaced by ``src``), ``vdot``, ``hardshrink``, ``prelu``,
``igamma`` / ``igammac``, and the legacy linear algebra (``lu``, ``lu_solve``,
``triangular_solve``).

Each differentiable one is written with ops that already have gradients (a scatter is a clone
with an in-place copy into a view of it: the gradient to ``src`` is the gradient's slice, to
self the gradient with that slice zeroed), so its derivatives follow by the chain rule.
"""

from __future__ import annotations

from typing import Any

from . import return_types
from .autograd.tensor_base import TensorBase
from .input_keyword import sizes_or_keyword
from .memory_format import contiguous_format
from .ops import linalg as L
from .ops import lu as LU
from .ops.incomplete_gamma import IncompleteGamma
from .promotion import result_type
from .size import norm_dim
from .sparse_coo_math import sparse_mask

TriangularSolve = return_types.triangular_solve


def _sizes(args: tuple) -> tuple[int, ...]:
    """``f(2, 3)`` or ``f((2, 3))`` -> (2, 3)."""
    if len(args) == 1 and not isinstance(args[0], int):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


class TensorAliases:
    """Mixin of ``Tensor``: aliases, legacy forms and scatter compositions (see module doc)."""

    # ------------------------------------------------------------------ facts about the tensor
    def ndimension(self) -> int:
        """Alias of ``dim()``."""
        return self.ndim

    @property
    def itemsize(self) -> int:
        """Bytes per element (``element_size()``)."""
        return self.element_size()

    @property
    def nbytes(self) -> int:
        """Bytes the elements take: numel * itemsize (a view counts its own elements)."""
        return self.numel() * self.element_size()

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor on which ``retain_grad()`` was called."""
        return self.grad_fn is not None and bool(self.__dict__.get("_retains_grad", False))

    @property
    def output_nr(self) -> int:
        """Which output of its graph node this tensor is; the engine's multi-output ops hand
        each output its own node, so this is always 0 (as for a leaf)."""
        return 0

    def is_signed(self) -> bool:
        """False for bool and uint8, True for every other dtype."""
        return bool(self.dtype.is_signed)

    def is_nonzero(self) -> bool:
        """``bool(x)`` of a one-element tensor; more or fewer elements are ambiguous."""
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item() != 0)

    def is_same_size(self, other: Any) -> bool:
        """Do self and ``other`` have the same shape?"""
        return tuple(self.shape) == tuple(other.shape)

    def get_device(self) -> int:
        """-1 for a CPU tensor, else the GPU's index."""
        if self.device.type == "cpu":
            return -1
        return 0 if self.device.index is None else int(self.device.index)

    def is_pinned(self, device: Any = None) -> bool:
        """No page-locked memory without an accelerator: always False."""
        return False

    def pin_memory(self, device: Any = None) -> Any:
        """Page-locking needs an accelerator; PyTorch without one raises this error."""
        if self.device.type == "cpu":
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return self

    def const_data_ptr(self) -> int:
        """``data_ptr()`` (PyTorch's read-only promise is not enforced here)."""
        return self.data_ptr()

    def is_set_to(self, tensor: Any) -> bool:
        """Do both tensors view the same memory with the same geometry?"""
        return (
            self.data_ptr() == tensor.data_ptr()
            and tuple(self.shape) == tuple(tensor.shape)
            and tuple(self.stride()) == tuple(tensor.stride())
        )

    def dim_order(self) -> tuple[int, ...]:
        """The dims from outermost to innermost in memory (by decreasing stride)."""
        strides = self.stride()
        return tuple(sorted(range(self.ndim), key=lambda d: -strides[d]))

    # ------------------------------------------------------------------ the legacy constructor
    def new(self, *args: Any, **kwargs: Any) -> Any:
        """Legacy ``x.new(...)``: no argument -> an empty tensor; sizes (ints or a Size) -> an
        uninitialized tensor of that shape; data (a list, a tuple) -> a tensor of that data;
        all with self's dtype and device."""
        if kwargs.get("device") is not None and kwargs["device"] != self.device:
            raise RuntimeError(f"legacy constructor expects device type: {self.device.type}")
        if not args:
            return self.new_empty((0,))
        if all(isinstance(a, int) for a in args):
            return self.new_empty(args)
        if len(args) == 1 and type(args[0]).__name__ == "Size":
            return self.new_empty(tuple(args[0]))
        if len(args) == 1:
            return self.new_tensor(args[0])
        raise TypeError(f"new(): invalid arguments {args!r}")

    def new_empty_strided(
        self, size: Any, stride: Any, *, dtype=None, device=None, requires_grad=False
    ) -> Any:
        """An uninitialized tensor with the given sizes and strides, laid over a fresh buffer
        just large enough for the elements they reach."""
        size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
        if len(size) != len(stride):
            raise RuntimeError(
                f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}"
            )
        extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
        buffer = self.new_empty((extent,), dtype=dtype, device=device)
        out = buffer.as_strided(size, stride).detach()
        return out.requires_grad_(requires_grad)

    # ------------------------------------------------------------------ conjugates (real)
    def conj(self) -> Any:
        """The complex conjugate: a real tensor is its own (the same object, as in PyTorch)."""
        return self

    resolve_conj = resolve_neg = conj

    def conj_physical(self) -> Any:
        """The conjugate materialized: a real tensor is returned as is."""
        return self

    def conj_physical_(self) -> Any:
        """In-place conjugate: nothing to do for a real tensor."""
        return self

    def is_conj(self) -> bool:
        """Is the conjugate bit set? Never, without complex dtypes."""
        return False

    def is_neg(self) -> bool:
        """Is the negative bit set? Never, without complex dtypes."""
        return False

    @property
    def real(self) -> Any:
        """The real part: self, for a real dtype."""
        return self

    @property
    def imag(self) -> Any:
        """A real dtype has no imaginary part to view (PyTorch's error)."""
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")

    @property
    def H(self) -> Any:  # noqa: N802
        """The conjugate transpose of a matrix (a 0-d tensor: itself)."""
        if self.ndim == 0:
            return self
        if self.ndim != 2:
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
            )
        return self.t()

    @property
    def mH(self) -> Any:  # noqa: N802
        """The conjugate transpose of the last two dims (real: ``mT``)."""
        if self.ndim < 2:
            raise RuntimeError(
                f"tensor.mH is only supported on matrices or batches of matrices. Got "
                f"{self.ndim}-D tensor."
            )
        return self.mT

    def adjoint(self) -> Any:
        """The conjugate transpose of the last two dims, a view (real: ``mT``)."""
        if self.ndim < 2:
            raise RuntimeError(
                f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                f"{self.ndim}-D tensor."
            )
        return self.transpose(-2, -1)

    # ------------------------------------------------------------------ shapes
    def pow(self, exponent: Any) -> Any:
        """self ** exponent, with PyTorch's keyword for it (``x.pow(exponent=2)``)."""
        return self._pow(exponent)

    def sum_to_size(self, *sizes: Any, size: Any = None) -> Any:
        """Sum self down to ``size``, a shape self broadcasts from (the reverse of expand):
        the leading extra dims are summed away, dims where ``size`` has 1 summed with keepdim.
        The size given dim by dim, as a sequence, or as PyTorch's keyword ``size=``."""
        target = _sizes(sizes_or_keyword("sum_to_size", sizes, size, "size"))
        shape = tuple(self.shape)
        lead = len(shape) - len(target)
        if lead < 0 or any(t not in (1, s) for t, s in zip(target, shape[lead:])):
            raise RuntimeError(
                f"size {{{list(target)}}} is not expandable to size {{{list(shape)}}}."
            )
        out = self.sum(tuple(range(lead))) if lead else self
        kept = tuple(d for d, (t, s) in enumerate(zip(target, shape[lead:])) if t == 1 and s != 1)
        return out.sum(kept, keepdim=True) if kept else out

    def split_with_sizes(self, split_sizes: Any, dim: int = 0) -> tuple:
        """Pieces of the given sizes along ``dim``, which must add up to its length."""
        sizes = [int(s) for s in split_sizes]
        (d,) = norm_dim(dim, self.ndim)
        if sum(sizes) != self.shape[d] or any(s < 0 for s in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {self.shape[d]} (input "
                f"tensor's size at dimension {dim}), but got split_sizes={sizes}"
            )
        return tuple(self.split(sizes, d))

    unsafe_split_with_sizes = split_with_sizes

    def unsafe_split(self, split_size: Any, dim: int = 0) -> tuple:
        """``split`` (PyTorch's unchecked-aliasing variant; the pieces are the same views)."""
        return tuple(self.split(split_size, dim))

    def unsafe_chunk(self, chunks: int, dim: int = 0) -> tuple:
        """``chunk`` (PyTorch's unchecked-aliasing variant)."""
        return tuple(self.chunk(chunks, dim))

    def narrow_copy(self, dim: int, start: int, length: int) -> Any:
        """``narrow`` as a new, row-major tensor (not a view)."""
        return self.narrow(dim, start, length).clone(memory_format=contiguous_format)

    def nonzero_static(self, *, size: int, fill_value: int = -1) -> Any:
        """``nonzero()`` cut or padded with ``fill_value`` rows to exactly ``size`` rows."""
        found = self.nonzero()
        n = min(size, found.shape[0])
        out = found.new_full((size, self.ndim), fill_value)
        out[:n] = found[:n]
        return out

    def resize_as_(self, other: Any) -> Any:
        """``resize_`` to other's shape."""
        return self.resize_(tuple(other.shape))

    # ------------------------------------------------------------------ scatters
    def _scatter_into_view(self, src: Any, view: Any) -> Any:
        """A copy of self whose part picked by ``view(copy)`` holds ``src``."""
        if not isinstance(src, TensorBase):
            raise TypeError(f"argument 'src' must be Tensor, not {type(src).__name__}")
        out = self.clone()
        part = view(out)
        if tuple(part.shape) != tuple(src.shape):
            raise RuntimeError(
                f"expected src to have a size equal to the slice of self. src size = "
                f"{list(src.shape)}, slice size = {list(part.shape)}"
            )
        part.copy_(src)
        return out

    def slice_scatter(
        self, src: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
    ) -> Any:
        """self with ``self[..., start:end:step, ...]`` (along ``dim``) replaced by src."""
        (d,) = norm_dim(dim, self.ndim)
        index = (slice(None),) * d + (slice(start, end, step),)
        return self._scatter_into_view(src, lambda t: t[index])

    def select_scatter(self, src: Any, dim: int, index: int) -> Any:
        """self with ``self.select(dim, index)`` replaced by src."""
        return self._scatter_into_view(src, lambda t: t.select(dim, index))

    def diagonal_scatter(self, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        """self with ``self.diagonal(offset, dim1, dim2)`` replaced by src."""
        return self._scatter_into_view(src, lambda t: t.diagonal(offset, dim1, dim2))

    def as_strided_scatter(
        self, src: Any, size: Any, stride: Any, storage_offset: int | None = None
    ) -> Any:
        """self (read as a contiguous buffer) with ``as_strided(size, stride, offset)``
        replaced by src."""
        base = self.contiguous()
        return base._scatter_into_view(src, lambda t: t.as_strided(size, stride, storage_offset))

    # ------------------------------------------------------------------ math
    def vdot(self, other: Any) -> Any:
        """sum_i conj(a_i) b_i of two 1-D tensors (real dtypes: ``dot``)."""
        return self.dot(other)

    def hardshrink(self, lambd: float = 0.5) -> Any:
        """0 where -lambd <= x <= lambd, else x (NaN passes through); floating types only, as
        F.hardshrink (PyTorch has no integer or bool kernel)."""
        if not self.dtype.is_floating_point:
            raise NotImplementedError(
                f'"hardshrink_cpu" not implemented for {self.dtype.name} input'
            )
        if isinstance(lambd, TensorBase):  # a number (PyTorch's Scalar): -uint8 7 is 249
            lambd = lambd.item()
        return self.masked_fill((self >= -lambd) & (self <= lambd), 0)

    def prelu(self, weight: Any) -> Any:
        """x where x > 0, else a x, with one slope a per channel (dim 1) or one shared slope."""
        channels = self.shape[1] if self.ndim >= 2 else 1
        n = weight.numel()
        if n not in (1, channels):
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {n} and channel size = {channels}."
            )
        a = weight.reshape(()) if n == 1 else weight.reshape((channels,) + (1,) * (self.ndim - 2))
        return self.where(self > 0, a * self)

    def _incomplete_gamma(self, other: Any, upper: bool, name: str) -> Any:
        if not isinstance(other, TensorBase):
            raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(other)}")
        dtype = result_type(self, other)
        if not dtype.is_floating_point:
            raise RuntimeError(f"\"{name}_cpu\" not implemented for '{dtype.name.capitalize()}'")
        return IncompleteGamma.apply(self.to(dtype), other.to(dtype), upper)

    def igamma(self, other: Any) -> Any:
        """P(a, x), the regularized lower incomplete gamma function (a = self, x = other);
        ``special.gammainc``."""
        return self._incomplete_gamma(other, False, "igamma")

    def igammac(self, other: Any) -> Any:
        """Q(a, x) = 1 - P(a, x) (``special.gammaincc``)."""
        return self._incomplete_gamma(other, True, "igammac")

    def igamma_(self, other: Any) -> Any:
        """In-place igamma."""
        return self._inplace(lambda x, o: x.igamma(o), other)

    def igammac_(self, other: Any) -> Any:
        """In-place igammac."""
        return self._inplace(lambda x, o: x.igammac(o), other)

    # ------------------------------------------------------------------ legacy linear algebra
    def lu(self, pivot: bool = True, get_infos: bool = False) -> tuple:
        """Legacy ``torch.lu``: (LU, pivots) of ``linalg.lu_factor`` (and ``infos`` with
        ``get_infos``); a singular matrix does not raise."""
        if not pivot:
            raise RuntimeError("lu without pivoting is not implemented on the CPU")
        lu_, pivots, info = LU.LUFactor.apply(self)
        return (lu_, pivots, info) if get_infos else (lu_, pivots)

    def lu_solve(self, LU_data: Any, LU_pivots: Any) -> Any:  # noqa: N803
        """X with A X = self, given A's (LU, pivots) (``linalg.lu_solve(LU, pivots, self)``)."""
        return LU.lu_solve_left(LU_data, LU_pivots, self, False)

    def triangular_solve(
        self,
        A: Any,
        upper: bool = True,
        transpose: bool = False,
        unitriangular: bool = False,  # noqa: N803
    ) -> TriangularSolve:
        """(X, A.clone()) with A X = self (``transpose``: A^T X = self), A triangular; as
        PyTorch's, the clone of A is broadcast to the batch dims of X."""
        a = A.mT if transpose else A
        x = L.solve_triangular(a, self, bool(upper) != bool(transpose), True, bool(unitriangular))
        return TriangularSolve(x, A.expand(*x.shape[:-2], *A.shape[-2:]).clone())

    # ------------------------------------------------------------------ sparse views of dense
    def sparse_dim(self) -> int:
        """A dense (strided) tensor has no sparse dims."""
        return 0

    def dense_dim(self) -> int:
        """A dense (strided) tensor's dims are all dense."""
        return self.ndim

    def to_sparse_coo(self) -> Any:
        """``to_sparse()``: a sparse COO tensor holding self's nonzeros."""
        return self.to_sparse()

    def sparse_mask(self, mask: Any) -> Any:
        """Sparse: ``mask``'s indices with this tensor's elements there (differentiable)."""
        return sparse_mask(self, mask)
