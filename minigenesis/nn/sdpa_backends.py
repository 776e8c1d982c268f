"""``torch.nn.attention``'s choice of kernel for ``F.scaled_dot_product_attention``.

PyTorch has several implementations of the same formula softmax(Q K^T * scale + mask) V: the
plain composition ("math"), FlashAttention, memory-efficient attention, cuDNN's. Scripts choose
among them with a context manager::

    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v)

minigenesis has one implementation, the math one (``ops/attention.py``), and it computes every
call whatever the block allows: the fused kernels compute the same numbers, only faster and with
less memory on a GPU. The context records the backends it was given (``enabled_backends``), so a
script can read its choice back, and checks them as PyTorch does (each an ``SDPBackend``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = ["SDPBackend", "enabled_backends", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The kernels PyTorch may pick for scaled dot-product attention (PyTorch's numbering)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:  # "SDPBackend.MATH", as PyTorch prints it (IntEnum would print 0)
        return f"SDPBackend.{self.name}"


_ALL = [b for b in SDPBackend if b is not SDPBackend.ERROR]
_enabled: list[SDPBackend] = list(_ALL)


def enabled_backends() -> list[SDPBackend]:
    """The backends the innermost ``sdpa_kernel`` block allows (all of them outside any)."""
    return list(_enabled)


@contextmanager
def sdpa_kernel(
    backends: SDPBackend | Iterable[SDPBackend], set_priority: bool = False
) -> Iterator[None]:
    """Allow only ``backends`` (one or a list) for scaled dot-product attention inside the block;
    ``set_priority=True`` would also make their order the order of preference. The previous
    choice is restored on exit."""
    global _enabled
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend")
    saved, _enabled = _enabled, chosen
    try:
        yield
    finally:
        _enabled = saved
