"""Linear (fully connected) layer: y = x W^T + b, and Identity.

The default initialisation is PyTorch's, so a model starts from the same distributions:
W ~ U(-1/sqrt(in), 1/sqrt(in)) (which is ``kaiming_uniform_(W, a=sqrt(5))``) and
b ~ U(-1/sqrt(in), 1/sqrt(in)).
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..creation import empty
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


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
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A plain Linear under the name PyTorch gives ``MultiheadAttention.out_proj`` (its quantization
    tooling tells the two apart), so ``print(model)`` reads as in PyTorch."""


class Identity(Module):
    """y = x (a placeholder; accepts and ignores any constructor arguments)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:
        return input


class Bilinear(Module):
    """y_o = x1^T A_o x2 + b_o with A: (out_features, in1_features, in2_features), b: (out,).
    PyTorch's initialisation: A and b ~ U(-1/sqrt(in1), 1/sqrt(in1))."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / self.weight.shape[1] ** 0.5
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
