"""Folding an eval-mode BatchNorm into the convolution or linear layer before it.

In eval mode BatchNorm is an affine map per channel c, with its running statistics:

.. code-block:: text

    bn(z)_c = (z_c - mean_c) / sqrt(var_c + eps) * gamma_c + beta_c
            = s_c z_c + (beta_c - s_c mean_c),     s_c = gamma_c / sqrt(var_c + eps)

and a convolution (or linear layer) is linear in its weight, so bn(conv(x)) is one convolution
with the weight of output channel c scaled by s_c and the bias b_c made
(b_c - mean_c) s_c + beta_c. One layer does the work of two at inference. (A transposed
convolution keeps its output channels in dim 1 of its weight: ``transpose=True``.)
"""

from __future__ import annotations

import copy
from typing import Any

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def _check_eval(layer: Any, bn: Any) -> None:
    """PyTorch's checks (AssertionError): both modules in eval mode, bn with running stats."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A new convolution (a deep copy of ``conv``) computing ``bn(conv(x))`` of the eval-mode
    modules; see the module docstring. ``transpose`` for a ConvTranspose layer."""
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: Any,
    conv_b: Any,
    bn_rm: Any,
    bn_rv: Any,
    bn_eps: float,
    bn_w: Any,
    bn_b: Any,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """(weight, bias) of the fused convolution: w_c s_c and (b_c - mean_c) s_c + beta_c, with
    s_c = gamma_c / sqrt(var_c + eps) (a missing bias is 0, a missing gamma 1, beta 0). The
    weight keeps ``conv_w``'s dtype, the bias ``conv_b``'s (or the weight's); each is a new
    Parameter that requires grad as its conv tensor did (a bias made here: none)."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    b_requires_grad = conv_b is not None and conv_b.requires_grad
    with no_grad():
        conv_b = bn_rm.new_zeros(bn_rm.shape) if conv_b is None else conv_b
        bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
        bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
        rsqrt = (bn_rv + bn_eps).rsqrt()
        rest = [1] * (conv_w.ndim - 2)  # output channels: dim 0, or dim 1 when transposed
        shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
        w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
        b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, b_requires_grad)


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A new Linear (a deep copy of ``linear``) computing ``bn(linear(x))`` of the eval-mode
    modules. BatchNorm's channels must be the linear layer's outputs (or one shared channel),
    so the fused weight and bias keep their shapes."""
    _check_eval(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
            f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Any,
    linear_b: Any,
    bn_rm: Any,
    bn_rv: Any,
    bn_eps: float,
    bn_w: Any,
    bn_b: Any,
) -> tuple[Parameter, Parameter]:
    """(weight, bias) of the fused Linear: rows W_c s_c and (b_c - mean_c) s_c + beta_c, with
    s_c = gamma_c / sqrt(var_c + eps) (a missing bias is 0, a missing gamma 1, beta 0). New
    Parameters, requiring grad as the linear tensors did (a bias made here: none). A missing bias
    is one 0 per output, so a one-channel BatchNorm still gives a bias per output (PyTorch keeps
    BatchNorm's one entry there and lets F.linear broadcast it)."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    b_requires_grad = linear_b is not None and linear_b.requires_grad
    with no_grad():
        linear_b = bn_rm.new_zeros(linear_w.shape[:1]) if linear_b is None else linear_b
        bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
        bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
        b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(w, linear_w.requires_grad), Parameter(b, b_requires_grad)
