"""The "meta" device: tensors that have a shape and a dtype but no data.

PyTorch uses them to describe a model without allocating it: ``model.to("meta")`` (the
model-ensembling tutorial's stateless base model for ``functional_call``), ``with
torch.device("meta"): big = Model()`` before loading weights. Here a meta tensor's array is a
``MetaArray``: a NumPy array whose every element is one shared scalar (all strides 0), so it
takes no memory whatever its shape. Its values mean nothing and cannot be read: ``to_numpy``
(and so ``.item()``, ``.tolist()``, ``.cpu()``, printing the values) raises, as PyTorch does.

Every NumPy ufunc and function keeps the subclass (``MetaArray.__array_ufunc__`` and
``__array_function__``), so arithmetic, reductions, products and concatenations of meta tensors
give meta results of the right shape and dtype. What NumPy's ``asarray``/``ascontiguousarray``
return is a plain array (they take no part in that protocol): the autograd Function makes any
plain result of an op with a meta input data-less again (``keep_on_meta``: a reduction,
``contiguous()``, a convolution, attention), so no op
hands back a CPU tensor of meaningless values. A write into a meta array (``fill_``, ``copy_``,
``x[i] = v``, a ufunc's ``out=``) keeps nothing; only the shapes are checked. The meta device
here is for describing and replacing parameters, and for shapes through a model's layers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "MetaArray",
    "as_meta",
    "keep_on_meta",
    "meta_like",
    "meta_namespace",
    "no_data_error",
    "no_numpy_message",
    "refuse_data_dependent",
]


class MetaArray(np.ndarray):
    """An array with a shape and a dtype and no data of its own (see the module docstring).

    Every NumPy ufunc and function given one returns data-less results: the values are computed
    on the meaningless data (cheaply: the inputs take no memory) and only their shapes and
    dtypes are kept, so a reduction or a concatenation of meta tensors is a meta tensor, never a
    CPU tensor holding made-up numbers."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        with np.errstate(all="ignore"):  # (the meaningless data may divide by zero)
            result = getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs)
        if out is not None:  # written in place: the caller's arrays are the results
            for o, r in zip(out, result if isinstance(result, tuple) else (result,)):
                if o is not None:
                    _write(o, r)
            return out[0] if len(out) == 1 else out
        return _data_less(result)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func is np.copyto and type(args[0]) is MetaArray:  # a copy into data-less memory
            np.broadcast_to(_plain(args[1]), args[0].shape)  # (the shapes must still agree)
            return None
        return _data_less(super().__array_function__(func, types, args, kwargs))

    def __reduce__(self) -> tuple:
        """Pickled as its dtype and shape: it has no data (``pickle.dumps`` of a meta tensor;
        ``mg.save`` writes the same with a dtype token its weights-only load accepts)."""
        return (meta_like, (self.dtype, self.shape))

    def __reduce_ex__(self, protocol: int) -> tuple:
        return self.__reduce__()

    def __setitem__(self, index: Any, value: Any) -> None:
        """A write into a meta array keeps nothing (it has no data, and every element shares
        one place): ``fill_``, ``copy_``, ``x[i] = v`` and in-place ops of meta tensors are
        checked for shapes only, as PyTorch's meta kernels do."""
        np.broadcast_to(_plain(value) if isinstance(value, np.ndarray) else value,
                        _plain(self)[index].shape)  # fmt: skip


def _write(target: Any, result: Any) -> None:
    """A ufunc's ``out=``: a meta target keeps nothing (shape-checked), a plain one is written."""
    if type(target) is MetaArray:
        np.broadcast_to(_plain(result), target.shape)
    else:
        target[...] = result


def _plain(x: Any) -> Any:
    """A MetaArray seen as a plain ndarray (so NumPy computes without calling back here)."""
    return x.view(np.ndarray) if type(x) is MetaArray else x


def _data_less(result: Any) -> Any:
    """Arrays and NumPy scalars in ``result`` (one, or a tuple/list of them) made data-less."""
    if isinstance(result, (tuple, list)):
        return type(result)(_data_less(r) for r in result)
    if isinstance(result, (np.ndarray, np.generic)):
        return as_meta(result)
    return result


# Whether any meta array was ever made: the autograd Function reads it to keep an op of meta
# inputs on meta, so programs that never use the meta device pay one lookup per op.
made = [False]


def as_meta(x: Any) -> MetaArray:
    """A data-less array of ``x``'s shape and dtype (``x`` itself when it is one already)."""
    if type(x) is MetaArray:
        return x
    x = np.asarray(x)
    made[0] = True
    one = np.zeros(1, dtype=x.dtype)
    spread = np.lib.stride_tricks.as_strided(one, x.shape, (0,) * x.ndim, writeable=True)
    return spread.view(MetaArray)


def meta_like(dtype: Any, shape: tuple) -> MetaArray:
    """A data-less array of ``shape`` and ``dtype`` (nothing of that size is allocated)."""
    one = np.zeros(1, dtype=dtype)
    return as_meta(np.lib.stride_tricks.as_strided(one, shape, (0,) * len(shape)))


def keep_on_meta(result: Any, inputs: list) -> Any:
    """An op's ``result`` (one array or a tuple) made data-less when its ``inputs`` (arrays,
    other values, lists of tensors for cat/stack) hold a meta array: a forward that made a plain
    array from the meaningless data (``np.ascontiguousarray`` of a meta array is a plain one)
    must not hand back a CPU tensor of made-up values."""
    if not any(_is_meta(x) for x in inputs):
        return result
    if type(result) is tuple:
        return tuple(_data_less(r) for r in result)
    return _data_less(result)  # (a NumPy scalar too: a 0-d data-less array)


def _is_meta(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return any(type(getattr(t, "_data", None)) is MetaArray for t in x)
    return type(x) is MetaArray


def refuse_data_dependent(name: str, *arrays: Any) -> None:
    """PyTorch's NotImplementedError for an op whose output shape depends on the values
    (nonzero, masked_select, unique) given a meta array: there are no values to count, and the
    meaningless data would make up a shape."""
    if any(type(a) is MetaArray for a in arrays):
        raise NotImplementedError(
            f"{name}: attempted to run this operator with Meta tensors, but its output shape "
            "depends on the values, which a meta tensor does not have"
        )


def no_data_error() -> NotImplementedError:
    return NotImplementedError(
        "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead "
        "of torch.nn.Module.to() when moving module from meta to a different device."
    )


def no_numpy_message(device_type: str) -> str:
    """PyTorch's words for ``numpy()`` of a tensor whose data is not in host memory."""
    return (
        f"can't convert {device_type} device type tensor to numpy. Use Tensor.cpu() to copy the "
        "tensor to host memory first."
    )


class _MetaNamespace:
    """What ``module_for(device("meta"))`` returns in place of NumPy: each NumPy function, with
    its array result made data-less (``meta.zeros((2, 3))`` is a MetaArray of that shape)."""

    def __getattr__(self, name: str) -> Any:
        if name in ("empty", "zeros", "ones"):  # made data-less: nothing of the size allocated
            return _made_on_meta
        target = getattr(np, name)
        if not callable(target):
            return target

        def on_meta(*args: Any, **kwargs: Any) -> Any:
            out = target(*args, **kwargs)
            return as_meta(out) if isinstance(out, np.ndarray) else out

        return on_meta


def _made_on_meta(shape: Any, dtype: Any = None, *args: Any, **kwargs: Any) -> MetaArray:
    """``empty``/``zeros``/``ones`` on meta: a data-less array of that shape and dtype (what
    NumPy would make, float64 by default), however large: ``mg.empty(10**6, 10**5,
    device="meta")`` describes 373 GiB of float32 and takes none."""
    shape = (int(shape),) if not hasattr(shape, "__len__") else tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")  # (NumPy's words)
    return meta_like(np.dtype(kwargs.get("dtype", dtype)), shape)


meta_namespace = _MetaNamespace()
