"""Activation layers: ``nn.ReLU`` ... hold the options of the functions ``F.relu`` ...

The functional forms (PyTorch's signatures: ``inplace=``, ``dim=``, ``approximate=``) are in
``nn/functional/activations.py``; the math and its derivatives in ``ops/activation.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from ..creation import full
from ..size import plain_int
from . import functional as F
from .module import Module
from .parameter import Parameter


class ReLU(Module):
    """y = max(x, 0)"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """y = x if x > 0 else negative_slope * x"""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """y = x Phi(x)"""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate='{self.approximate}'"


class SiLU(Module):
    """y = x sigmoid(x)"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)


class Tanh(Module):
    """y = tanh(x)"""

    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    """y = 1 / (1 + e^-x)"""

    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()


class Softplus(Module):
    """y = log(1 + e^(beta x)) / beta"""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)


class Softmax(Module):
    """y = softmax(x) along ``dim``"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """y = log_softmax(x) along ``dim``"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


# ELU, Hardtanh, PReLU and Mish: their functional forms are in nn/functional/activations.py.
class ELU(Module):
    """y = x if x > 0 else alpha (e^x - 1)"""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    """y = clamp(x, min_val, max_val) (gradient 0 at and beyond the bounds)"""

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:  # PyTorch's old spelling, still accepted
            warnings.warn("keyword argument `min_value` is deprecated, use `min_val`", stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated, use `max_val`", stacklevel=2)
            max_val = max_value
        if max_val <= min_val:  # PyTorch asserts
            raise AssertionError(
                f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})"
            )
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else ""
        )


class PReLU(Module):
    """y = x if x > 0 else a x, with a learned slope a (one, or one per channel: dim 1)."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        num_parameters = plain_int(num_parameters)  # (a NumPy integer counts as an int)
        if not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(
                f"PReLU: num_parameters must be a positive int, got {num_parameters!r}"
            )
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(full((num_parameters,), float(init), dtype=dtype, device=device))

    def reset_parameters(self) -> None:
        self.weight.data.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Mish(Module):
    """y = x tanh(softplus(x))"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


# LogSigmoid ... Softmax2d: the math and PyTorch's gradient at each kink are in F's docstrings.
class LogSigmoid(Module):
    """y = log sigmoid(x) = -softplus(-x)"""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softmin(Module):
    """y = softmax(-x) along ``dim``"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softsign(Module):
    """y = x / (1 + |x|)"""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """y = x - tanh(x)"""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Hardswish(Module):
    """y = x relu6(x + 3) / 6 (MobileNetV3's cheap swish). PyTorch's repr omits inplace."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Hardsigmoid(Module):
    """y = relu6(x + 3) / 6 (a piecewise-linear sigmoid). PyTorch's repr omits inplace."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class SELU(Module):
    """y = scale * elu(x, alpha) with the self-normalising constants (F.SELU_ALPHA, SELU_SCALE)"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    """y = max(0, x) + min(0, alpha (e^(x/alpha) - 1))"""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """y = a * sigmoid(b), a and b the two halves of x along ``dim``"""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """y = x if x > threshold else value"""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class ReLU6(Hardtanh):
    """y = min(max(x, 0), 6): a Hardtanh(0, 6), as in PyTorch"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class RReLU(Module):
    """y = x if x > 0 else a x; a ~ U(lower, upper) per element in training, the mean slope
    (lower + upper) / 2 in eval mode"""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


class Softshrink(Module):
    """y = x - lambd for x > lambd, x + lambd for x < -lambd, else 0"""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Module):
    """y = x where |x| > lambd, else 0"""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) at every pixel of (N, C, H, W) or (C, H, W)"""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)
