"""PyTorch's implementation switches of an optimizer: ``foreach``, ``fused``, ``capturable`` and
``differentiable``.

They choose among PyTorch's code paths (a loop per tensor, one multi-tensor kernel, one fused
kernel, a CUDA-graph-safe step, a step autograd can see through). There is one code path here, so
they change no number; they are accepted and kept in the parameter groups (a state_dict then has
PyTorch's keys), and the combinations PyTorch refuses are refused the same way.
"""

from __future__ import annotations


def check_fused_flags(foreach: bool | None, fused: bool | None, differentiable: bool) -> None:
    """Refuse what PyTorch's SGD, Adam, AdamW and Adagrad refuse on construction: a fused step
    cannot also be a foreach one, nor a differentiable one (RuntimeError, PyTorch's words)."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
