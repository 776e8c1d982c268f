"""``torch.name(x, ...)`` = ``x.name(...)`` for the Tensor methods PyTorch also exposes as
functions: the in-place forms (``torch.abs_(x)``, ``torch.clamp_(x, 0, 1)``, ``torch.zero_``),
the predicates and aliases (``torch.is_nonzero``, ``torch.conj``, ``torch.adjoint``), the
scatters (``torch.slice_scatter``) and legacy linear algebra (``torch.lu``); and the ``*_copy``
forms of the views (``torch.view_copy(x, s)`` is ``x.view(s).clone()``: the same values in
memory of their own, so writing to the result never reaches x)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..memory_format import contiguous_format

# torch.name_(input, ...) -> input.name_(...)
INPLACE_FORMS = (
    "abs_", "acos_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_",
    "atan_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_",
    "detach_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_",
    "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "trunc_", "xlogy_", "zero_", "addmv_", "resize_as_", "as_strided_",
)  # fmt: skip

# torch.name(input, ...) -> input.name(...), for methods of tensor_aliases.py and a few others
METHOD_FORMS = (
    "is_nonzero", "is_same_size", "is_signed", "get_device", "conj", "conj_physical",
    "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "adjoint",
    "split_with_sizes", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "narrow_copy",
    "slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter", "vdot",
    "igamma", "igammac", "lu_solve", "triangular_solve", "is_inference", "nonzero_static",
)  # fmt: skip

# torch.name_copy(input, ...) -> input.name(...), cloned
VIEW_COPIES = (
    "view", "permute", "expand", "diagonal", "select", "split", "split_with_sizes", "squeeze",
    "t", "transpose", "unbind", "unfold", "unsqueeze", "detach", "as_strided",
)  # fmt: skip


def method_form(name: str) -> Callable[..., Any]:
    """``torch.name(input, *args, **kwargs)`` = ``input.name(*args, **kwargs)``."""

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``input.{name}(...)`` (see Tensor.{name})."
    return function


def _cloned(out: Any) -> Any:
    """The view(s) copied into new row-major memory (PyTorch's ``*_copy`` results are
    contiguous, whatever the view's strides)."""
    if isinstance(out, tuple | list):
        return type(out)(t.clone(memory_format=contiguous_format) for t in out)
    return out.clone(memory_format=contiguous_format)


def copy_form(view: str) -> Callable[..., Any]:
    """``torch.{view}_copy(input, ...)``: the view ``input.{view}(...)`` as a new tensor."""
    method = method_form(view)

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        return _cloned(method(input, *args, **kwargs))

    function.__name__ = function.__qualname__ = f"{view}_copy"
    function.__doc__ = f"``input.{view}(...).clone()``: the view's values in new memory."
    return function


def slice_copy(
    input: Tensor,
    dim: int = 0,
    start: Any = None,
    end: Any = None,
    step: int = 1,  # noqa: A002
) -> Tensor:
    """``input[..., start:end:step, ...]`` along ``dim``, as a new tensor."""
    d = dim % max(input.ndim, 1)
    return _cloned(input[(slice(None),) * d + (slice(start, end, step),)])


def alias_copy(input: Tensor) -> Tensor:  # noqa: A002
    """A copy of input (the copy form of aliasing it), row-major."""
    return _cloned(input)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:  # noqa: N803
    """Legacy ``torch.lu``: (LU, pivots[, infos]) (see ``Tensor.lu``)."""
    return A.lu(pivot, get_infos)


def fill(input: Tensor, value: Any) -> Tensor:  # noqa: A002
    """A new tensor like input, every element ``value``."""
    return input.clone().fill_(value)


def all_forms() -> dict[str, Callable[..., Any]]:
    """Every function this module builds, by its ``torch.*`` name (only the methods the Tensor
    class has: a name is never exported as a function that fails on every call)."""
    forms = {n: method_form(n) for n in INPLACE_FORMS + METHOD_FORMS if hasattr(Tensor, n)}
    forms.update({f"{v}_copy": copy_form(v) for v in VIEW_COPIES})
    forms.update(slice_copy=slice_copy, alias_copy=alias_copy, lu=lu, fill=fill)
    return forms
