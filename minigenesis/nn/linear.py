"""Linear (fully connected) layer: y = x W^T + b, and Identity.

The default initialisation is PyTorch's, so a model starts from the same distributions:
W ~ U(-1/sqrt(in), 1/sqrt(in)) (which is ``kaiming_uniform_(W, a=sqrt(5))``) and
b ~ U(-1/sqrt(in), 1/sqrt(in)).
"""

from __future__ import annotations

from typing import Any

from .. import autocast_policy
from .. import dtypes as _dt
from ..creation import empty
from ..ops import linear as L
from ..tensor import Tensor
from . import init
from .module import Module
from .parameter import Parameter


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b for x of shape (..., in_features), W (out_features, in_features)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linear: input must be a Tensor, got {type(input).__name__}")
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out, in), got shape {tuple(weight.shape)}")
    if input.ndim == 0:
        raise ValueError("linear: input must have at least 1 dim")
    # Mixed dtypes (a float16 input into a float32 layer) promote, as matmul does.
    dt = _dt.promote_types(input.dtype, weight.dtype)
    # integers of one dtype compute in that dtype, as in PyTorch (no gradient); bool does not
    if dt is _dt.bool_:
        raise TypeError("linear: bool tensors are not supported (as in PyTorch)")
    if not dt.is_floating_point and input.dtype is not weight.dtype:
        raise TypeError(
            f"linear: integer operands must have one dtype, got {input.dtype.name} and "
            f"{weight.dtype.name}"
        )
    if bias is not None and bias.shape != (weight.shape[0],):
        raise ValueError(
            f"linear: bias has shape {tuple(bias.shape)}, expected ({weight.shape[0]},)"
        )
    if dt.is_floating_point and autocast_policy.lowers(L.Linear, input):
        # Autocast casts all three operands to its low dtype itself, before any promotion (as
        # PyTorch's dispatcher does). Promoting a bfloat16 input to the float32 weight's dtype
        # first would cast it twice and keep a second copy of it for backward.
        return L.Linear.apply(input, weight, bias)
    x, w = input._cast(dt.numpy_dtype), weight._cast(dt.numpy_dtype)
    b = None if bias is None else bias._cast(dt.numpy_dtype)
    return L.Linear.apply(x, w, b)


class Linear(Module):
    """y = x W^T + b with W: (out_features, in_features), b: (out_features,)."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init._default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Identity(Module):
    """y = x (a placeholder; accepts and ignores any constructor arguments)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input
