"""Shapes and views as functions: ``mg.reshape``, ``mg.permute``, ``mg.squeeze``, ``mg.flip``,
``mg.roll``, ``mg.split``, ``mg.tril``, ``mg.diag`` ..., and the facts of a tensor (``mg.numel``,
``mg.is_tensor``, ``mg.as_tensor``, ``mg.clone``). Each is the Tensor method of the same name
(``mg.roll(x, 1)`` is ``x.roll(1)``; PyTorch has both spellings)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor
from ..backend import get_array_module
from ..conversions import as_array
from ._common import _check, _with_out


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def numel(x: Tensor) -> int:
    return x.numel()


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a tensor, sharing memory when it already is one (or a NumPy array) of the
    right dtype and device; a copy otherwise (PyTorch's ``as_tensor``)."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    return Tensor._make(as_array(data, dtype, device), False)


def clone(x: Tensor) -> Tensor:
    return x.clone()


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002 (PyTorch's name)
    """``input[..., index, ...]`` along ``dim``, a view without that dim."""
    return input.select(dim, index)


def reshape(x: Tensor, shape: Any) -> Tensor:
    return x.reshape(shape)


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return x.flatten(start_dim, end_dim)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:  # noqa: A002
    return input.unflatten(dim, sizes)


def ravel(x: Tensor) -> Tensor:
    return x.ravel()


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    return x.narrow(dim, start, length)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    return x.transpose(dim0, dim1)


def permute(x: Tensor, dims: Any) -> Tensor:
    return x.permute(dims)


def t(x: Any) -> Any:
    return x.t()


def movedim(x: Any, source: Any, destination: Any) -> Any:
    return x.movedim(source, destination)


moveaxis = movedim


def swapaxes(x: Any, axis0: int, axis1: int) -> Any:
    return x.swapaxes(axis0, axis1)


swapdims = swapaxes


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    return x.squeeze(dim)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    return x.unsqueeze(dim)


def broadcast_to(x: Any, size: Any) -> Any:
    return x.broadcast_to(size)


def flip(x: Tensor, dims: Any) -> Tensor:
    return x.flip(dims)


def fliplr(x: Tensor) -> Tensor:
    return x.fliplr()


def flipud(x: Tensor) -> Tensor:
    return x.flipud()


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:  # noqa: A002
    return input.rot90(k, dims)


def roll(x: Any, shifts: Any, dims: Any = None) -> Any:
    return x.roll(shifts, dims)


def tile(x: Any, dims: Any) -> Any:
    return x.tile(dims)


def repeat_interleave(
    x: Any, repeats: Any = None, dim: Any = None, *, output_size: Any = None
) -> Any:
    """x.repeat_interleave(repeats, dim); with x alone (a tensor of counts r), the indices
    0, 1, ... each repeated r[i] times (PyTorch's repeat_interleave(repeats))."""
    if repeats is None:
        counts = _check(x, "repeat_interleave")
        dtype = counts._data.dtype  # PyTorch's kernel: int32 or int64 counts, indices alike
        if dtype not in (np.int32, np.int64):
            name = _dt.scalar_type_name(counts.dtype)
            raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for {name!r}')
        xp = get_array_module(counts._data)
        positions = Tensor._make(xp.arange(counts.numel(), dtype=dtype), False)
        return positions.repeat_interleave(counts, output_size=output_size)
    return x.repeat_interleave(repeats, dim, output_size=output_size)


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    return x.split(split_size_or_sections, dim)


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple:
    return x.chunk(chunks, dim)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:  # noqa: A002
    return input.tensor_split(indices_or_sections, dim)


def hsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.hsplit(sections)


def vsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.vsplit(sections)


def dsplit(input: Tensor, sections: Any) -> tuple:  # noqa: A002
    return input.dsplit(sections)


def unbind(x: Tensor, dim: int = 0) -> tuple:
    return x.unbind(dim)


@_with_out
def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    return x.tril(diagonal)


@_with_out
def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    return x.triu(diagonal)


@_with_out
def diag(x: Any, diagonal: int = 0) -> Any:
    return x.diag(diagonal)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    return input.diag_embed(offset, dim1, dim2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    return input.diagflat(offset)
