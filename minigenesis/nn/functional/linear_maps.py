"""F.linear and F.bilinear: the affine maps of the layers, their arguments checked
(the op and its autocast form: ops/linear.py).
"""

from __future__ import annotations

import math

from ... import autocast_policy
from ..._tensor import Tensor
from ...autocast_policy import LOWER
from ...autograd.grad_mode import state
from ...autograd.node_names import node_variant
from ...ops.linear import Linear, autocast_linear
from ...ops.round_once import in_float32, same_two_byte_float
from ...ops.same_dtype import check_same_dtype


# ----------------------------------------------------------------------------------------------
# Linear maps
# ----------------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x W^T + b for x of shape (..., in_features), W (out_features, in_features)."""
    w = weight._data  # (the arrays' dtypes and shapes: compared as they are, no lookup)
    plain = isinstance(input, Tensor) and input._data.dtype == w.dtype and w.dtype.kind != "b"
    bias_ok = bias is None or (bias._data.dtype == w.dtype and bias._data.shape == w.shape[:1])
    if not plain or not bias_ok or w.ndim != 2 or input._data.ndim == 0:
        _check_linear_args(input, weight, bias)  # (raises, unless autocast casts them to one)
    autocast_on = state.autocast_dtype is not None  # (one read: nothing of autocast when off)
    if autocast_on and weight.is_floating_point() and autocast_policy.lowers(Linear, input):
        # Autocast casts all three operands to its low dtype itself, before any promotion (as
        # PyTorch's dispatcher does). Promoting a bfloat16 input to the float32 weight's dtype
        # first would cast it twice and keep a second copy of it for backward.
        return autocast_linear(input, weight, bias)
    node = Linear if input._data.ndim == 2 and bias is not None else _linear_node(input, bias)
    return node.apply(input, weight, bias)  # (Linear's node: AddmmBackward0, as PyTorch's)


def _linear_node(input: Tensor, bias: Tensor | None) -> type:
    """The op class whose node carries the name PyTorch's linear leaves for this input."""
    if input._data.ndim == 2:
        return _MM
    return _LINEAR_NODES[input._data.ndim > 2, bias is None]


# The node PyTorch's linear leaves, by (batched input, no bias): addmm/mm on 2-D input, a view
# of it on 3-D and more; on 1-D input, mm squeezed (no bias) or the bias added after.
_MM = node_variant(Linear, "MmBackward0")
_LINEAR_NODES = {
    (True, False): node_variant(Linear, "ViewBackward0"),
    (True, True): node_variant(Linear, "UnsafeViewBackward0"),
    (False, False): node_variant(Linear, "AddBackward0"),  # (mv, then the bias added)
    (False, True): node_variant(Linear, "SqueezeBackward4"),
}


def _check_linear_args(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """F.linear's arguments, each checked with an error that says what is wrong."""
    if not isinstance(input, Tensor):
        raise TypeError(f"linear: input must be a Tensor, got {type(input).__name__}")
    if weight.ndim != 2:
        raise ValueError(f"linear: weight must be 2-D (out, in), got shape {tuple(weight.shape)}")
    if input.ndim == 0:
        raise RuntimeError(
            "linear: input must have at least 1 dim, got a 0-d tensor"
        )  # PyTorch's type
    # One dtype for input, weight and bias (after autocast's casts), as PyTorch: a float64
    # batch into a float32 layer is an error, not a float64 layer. Integers of one dtype compute
    # in that dtype, as in PyTorch (no gradient); bool does not.
    check_same_dtype("linear", LOWER, input=input, weight=weight, bias=bias)
    if weight._data.dtype.kind == "b":
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if bias is not None and bias._data.shape != weight._data.shape[:1]:
        raise ValueError(
            f"linear: bias has shape {tuple(bias.shape)}, expected ({weight.shape[0]},)"
        )


@autocast_policy.without_autocast  # on no autocast list of PyTorch's: its inputs' dtype
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_o = sum_ij x1_i A_oij x2_j + b_o for x1 (*, in1), x2 (*, in2), A (out, in1, in2).
    Computed as one matmul, (x1 A) reshaped to (*, out, in2), times x2, summed over in2."""
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear: weight must be 3-d (out, in1, in2), got {weight.ndim}-d")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1:] != (in1,) or input2.shape[-1:] != (in2,):
        raise RuntimeError(
            f"bilinear: input1 (*, {in1}) and input2 (*, {in2}) must match the weight "
            f"{tuple(weight.shape)}, got {tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear: input1 and input2 must have the same batch dims, got "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}"
        )
    check_same_dtype("bilinear", LOWER, input1=input1, input2=input2, weight=weight, bias=bias)
    if weight._data.dtype.kind == "b":  # PyTorch's bmm has no bool case
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if same_two_byte_float(input1, input2, weight, bias):  # float32 inside, rounded once
        return in_float32(bilinear, input1, input2, weight, bias)
    lead = tuple(input1.shape[:-1])
    b = math.prod(lead)  # (not -1 in the reshapes: ambiguous where out, in1 or in2 is 0)
    # (B, in1) @ (in1, out * in2): row b holds sum_i x1_i A_oij for every (o, j)
    u = input1.reshape((b, in1)) @ weight.permute((1, 0, 2)).reshape((in1, out_f * in2))
    # summed in the inputs' dtype, as PyTorch's bmm (sum would widen int32 / uint8 to int64)
    y = (u.reshape((b, out_f, in2)) * input2.reshape((b, 1, in2))).sum(-1, dtype=u.dtype)
    if bias is not None:
        y = y + bias
    return y.reshape((*lead, out_f))
