"""Hooks on what the graph saves for backward (PyTorch's ``torch.autograd.graph``).

Every op keeps some values for its backward: a Linear its input, a Tanh its output. Inside
``with saved_tensors_hooks(pack, unpack):`` each such value is handed to ``pack(tensor)`` as the
op is recorded, and the graph keeps *only what pack returns*; when backward needs the value it
calls ``unpack(that)`` and uses the tensor it gets back. Between the two, the value is the hooks'
business: they may keep it as it is, move it to another device, compress it, or drop it and
rebuild it later, which is how gradient checkpointing works (``utils/checkpoint.py``).

    store = []
    def pack(t):                     # called during forward, once per saved value
        store.append(t.numpy().copy())
        return len(store) - 1        # the graph keeps this int, not t
    def unpack(i):                   # called during backward
        return mg.tensor(store[i])

Constants an op saves (shapes, Python numbers) do not pass through the hooks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .grad_mode import state
from .multi_grad_hook import register_multi_grad_hook


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Context manager: ops recorded inside save ``pack(tensor)`` and get ``unpack(packed)``
    back in backward. Blocks nest (the innermost hooks apply); the setting is per thread."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables")
        self.hooks = (pack_hook, unpack_hook)
        self._prev: list = []

    def __enter__(self) -> saved_tensors_hooks:
        if state.saved_tensors_hooks_disabled is not None:
            raise RuntimeError(state.saved_tensors_hooks_disabled)
        self._prev.append(state.saved_tensors_hooks)
        state.saved_tensors_hooks = self.hooks
        return self

    def __exit__(self, *exc: Any) -> None:
        state.saved_tensors_hooks = self._prev.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved-tensor hooks that keep each saved value in host memory and move it back to its
    device when backward needs it: GPU memory traded for copies (a no-op for CPU tensors).
    ``pin_memory=True`` keeps the host copy in page-locked memory so the copy back can be
    asynchronous (``non_blocking``)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple:
            packed = tensor.cpu()
            if pin_memory and tensor.device.type != "cpu":
                packed = packed.pin_memory()
            return tensor.device, packed

        def unpack_from_cpu(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """Context manager for code that cannot work with saved-tensor hooks: inside it, entering
    ``saved_tensors_hooks`` (or ``save_on_cpu``) raises RuntimeError(error_message), and
    entering it while such hooks are active raises the same. Blocks nest."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message
        self._prev: list = []

    def __enter__(self) -> None:
        if state.saved_tensors_hooks is not None:
            raise RuntimeError(self.error_message)
        self._prev.append(state.saved_tensors_hooks_disabled)
        state.saved_tensors_hooks_disabled = self.error_message

    def __exit__(self, *exc: Any) -> None:
        state.saved_tensors_hooks_disabled = self._prev.pop()


__all__ = [
    "disable_saved_tensors_hooks", "increment_version", "register_multi_grad_hook",
    "save_on_cpu", "saved_tensors_hooks",
]  # fmt: skip


def increment_version(tensor: Any) -> None:
    """Record an in-place write autograd did not see (a kernel that wrote through
    ``data_ptr()``, a NumPy view of ``t.numpy()``): bump the version counter of ``tensor`` (or of
    each tensor of an iterable), so a backward that saved it before the write raises instead of
    using the changed values. Inference tensors have no counter and are left alone."""
    tensors = (tensor,) if hasattr(tensor, "_bump_version") else tensor
    for t in tensors:
        if not t.is_inference():
            t._bump_version()
