"""The "meta" device: tensors that have a shape and a dtype but no data.

PyTorch uses them to describe a model without allocating it: ``model.to("meta")`` (the
model-ensembling tutorial's stateless base model for ``functional_call``), ``with
torch.device("meta"): big = Model()`` before loading weights. Here a meta tensor's array is a
``MetaArray``: a NumPy array whose every element is one shared scalar (all strides 0), so it
takes no memory whatever its shape. Its values mean nothing and cannot be read: ``to_numpy``
(and so ``.item()``, ``.tolist()``, ``.cpu()``, printing the values) raises, as PyTorch does.

NumPy's ufuncs keep the subclass, so elementwise arithmetic on meta tensors gives meta results
of the right shape; other operations are not promised to (they may compute on the meaningless
values): the meta device here is for describing and replacing parameters, not for running a
model's shape inference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MetaArray", "as_meta", "meta_namespace", "no_data_error"]


class MetaArray(np.ndarray):
    """An array with a shape and a dtype and no data of its own (see the module docstring)."""


def as_meta(x: Any) -> MetaArray:
    """A data-less array of ``x``'s shape and dtype (``x`` itself when it is one already)."""
    if type(x) is MetaArray:
        return x
    x = np.asarray(x)
    one = np.zeros(1, dtype=x.dtype)
    spread = np.lib.stride_tricks.as_strided(one, x.shape, (0,) * x.ndim, writeable=True)
    return spread.view(MetaArray)


def no_data_error() -> NotImplementedError:
    return NotImplementedError(
        "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead "
        "of torch.nn.Module.to() when moving module from meta to a different device."
    )


class _MetaNamespace:
    """What ``module_for(device("meta"))`` returns in place of NumPy: each NumPy function, with
    its array result made data-less (``meta.zeros((2, 3))`` is a MetaArray of that shape)."""

    def __getattr__(self, name: str) -> Any:
        target = getattr(np, name)
        if not callable(target):
            return target

        def on_meta(*args: Any, **kwargs: Any) -> Any:
            out = target(*args, **kwargs)
            return as_meta(out) if isinstance(out, np.ndarray) else out

        return on_meta


meta_namespace = _MetaNamespace()
