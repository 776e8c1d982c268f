"""``autocast``: run a region of code in mixed precision; the global ``mg.enable_autocast`` flag.

Inside ``with mg.autocast():`` each op casts its inputs as its class's ``autocast`` rule says
(``minigenesis/autocast_policy.py``), per device type as PyTorch's lists: matmuls, convolutions
and linear layers in the low dtype, losses in float32, on CUDA also exp/log/softmax/sums/norms,
on the CPU also the LAPACK linear algebra; mixed inputs promoted. The parameters stay float32
("master weights"); only the copies the ops compute with are low precision.

The state is per thread (a region in one thread never changes another) and nests: an inner
``autocast(enabled=False)`` turns autocast off only inside itself. ``mg.enable_autocast = True``
turns it on for every thread at once; a region still overrides it in its thread.

Default dtypes follow PyTorch: bfloat16 on the CPU (float16 has no fast CPU arithmetic, and
bfloat16 keeps float32's range, so no loss scaling is needed), float16 on CUDA.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import autocast_policy as _policy
from .. import dtypes as _dt
from ..autocast_policy import AutocastSetting
from ..autograd.grad_mode import state

_DEFAULT_LOW = {"cpu": _dt.bfloat16, "cuda": _dt.float16}
_LOW_DTYPES = (_dt.float16, _dt.bfloat16)


def _device_type(device_type: Any) -> str | None:
    if device_type is None:
        return None
    kind = getattr(device_type, "type", device_type)  # a mg.device, or a string
    if isinstance(kind, str):
        kind = kind.partition(":")[0]
        if kind in ("cpu", "cuda"):
            return kind
    raise ValueError(f"autocast device_type must be 'cpu', 'cuda' or None, got {device_type!r}")


def _low_dtype(dtype: Any) -> _dt.DType | None:
    if dtype is None:
        return None
    try:
        dt = _dt.to_dtype(dtype)
    except (TypeError, ValueError):
        dt = None
    if dt not in _LOW_DTYPES:
        raise ValueError(
            f"autocast dtype must be minigenesis.float16 or minigenesis.bfloat16, got {dtype!r}"
        )
    return dt


class autocast:  # noqa: N801  (lower case, as torch.autocast)
    """Context manager and decorator: ops inside run in mixed precision.

    ``device_type``: "cpu", "cuda", or None for both (then CPU ops use ``dtype`` or bfloat16 and
    CUDA ops ``dtype`` or float16). ``dtype``: float16 or bfloat16. ``enabled=False`` turns autocast
    off inside the block (also when it is on globally). ``cache_enabled``: cast each float32
    parameter once per region (see ``autocast_policy``).
    """

    def __init__(
        self,
        device_type: Any = None,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool = True,
    ) -> None:
        self.device_type = _device_type(device_type)
        self.dtype = _low_dtype(dtype)
        self.enabled = bool(enabled)
        self.cache_enabled = bool(cache_enabled)
        self._saved: list = []

    def _setting(self, outer: AutocastSetting | None) -> AutocastSetting | None:
        """The setting inside this block, given the one outside it."""
        cpu = outer.cpu if outer is not None else None
        cuda = outer.cuda if outer is not None else None
        for dev in ("cpu", "cuda"):
            if self.device_type not in (None, dev):
                continue  # autocast("cpu") leaves CUDA ops as they were, and vice versa
            low = (self.dtype or _DEFAULT_LOW[dev]).numpy_dtype if self.enabled else None
            if dev == "cpu":
                cpu = low
            else:
                cuda = low
        if cpu is None and cuda is None:
            return None  # off everywhere: Function.apply's one check sees None
        return AutocastSetting(cpu, cuda, self.cache_enabled)

    def __enter__(self) -> autocast:
        # Remember whether this thread had its own setting; if not, leaving the block must fall
        # back to the process-wide one (mg.enable_autocast), not freeze its current value. A stack,
        # so that one autocast object can be entered again inside itself.
        own = state.__dict__
        self._saved.append(own["autocast_dtype"] if "autocast_dtype" in own else _INHERIT)
        state.autocast_dtype = self._setting(state.autocast_dtype)
        _policy.enter_region()
        return self

    def __exit__(self, *exc: Any) -> None:
        _policy.exit_region()
        saved = self._saved.pop()
        if saved is _INHERIT:
            del state.autocast_dtype
        else:
            state.autocast_dtype = saved

    def __call__(self, fn):
        """Used as a decorator: every call of ``fn`` runs inside a fresh block like this one."""
        args = (self.device_type, self.dtype, self.enabled, self.cache_enabled)

        @functools.wraps(fn)
        def wrapper(*a: Any, **kw: Any) -> Any:
            with autocast(*args):
                return fn(*a, **kw)

        return wrapper


_INHERIT = object()  # marker: the thread had no setting of its own before the block


# ----------------------------------------------------------------------------------------------
# Queries, and the global switch
# ----------------------------------------------------------------------------------------------
def is_autocast_enabled(device_type: str = "cpu") -> bool:
    """True when ops on ``device_type`` in this thread are autocast right now."""
    setting = state.autocast_dtype
    return setting is not None and getattr(setting, _device_type(device_type)) is not None


def get_autocast_dtype(device_type: str = "cpu") -> _dt.DType:
    """The low dtype autocast uses (or would use, by default) on ``device_type``."""
    dev = _device_type(device_type)
    setting = state.autocast_dtype
    low = getattr(setting, dev) if setting is not None else None
    return _DEFAULT_LOW[dev] if low is None else _dt.from_numpy_dtype(np.dtype(low))


def set_autocast_globally(enabled: bool) -> None:
    """Turn autocast on (default dtypes) or off for every thread: what ``mg.enable_autocast = x``
    does. The setting goes on the class of the thread-local state, which every thread reads when
    it has no ``autocast`` block of its own (see ``autograd/grad_mode.py``)."""
    cls = type(state)
    cls.autocast_dtype = (
        AutocastSetting(_DEFAULT_LOW["cpu"].numpy_dtype, _DEFAULT_LOW["cuda"].numpy_dtype)
        if enabled
        else None
    )


def autocast_enabled_globally() -> bool:
    return type(state).autocast_dtype is not None
