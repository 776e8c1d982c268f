"""GradScaler: loss scaling for float16 training, with PyTorch's semantics.

float16 cannot hold magnitudes below 2^-24 (about 6e-8): small gradients flush to zero in the
backward pass. Multiplying the loss by a large factor S (65536 to start) multiplies every gradient
by S on the way back, lifting them into range; before the optimizer step the float32 gradients are
divided by S again (``unscale_``). If S was too large some gradient overflowed to inf/NaN: that
step is skipped and S is halved (``backoff_factor``). After ``growth_interval`` clean steps in a
row S is doubled (``growth_factor``), so it tracks the largest scale that does not overflow.

One iteration::

    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)      # optional: only to look at / clip the true gradients
    scaler.step(optimizer)          # unscales if not done yet; skips the step on inf/NaN
    scaler.update()                 # backoff or growth of the scale

Each optimizer goes through READY -> UNSCALED -> STEPPED between two ``update()`` calls; calling
``unscale_`` twice, or after ``step``, is an error, as in PyTorch. The scale, the growth tracker
and the inf flags are arrays on the gradients' device, so a GPU step costs one host sync (reading
the inf flag to decide whether to step). ``enabled=False`` turns every method into a pass-through.

On a GPU the per-step work is a few fused kernels (kernels/amp.py), as in PyTorch: one per
gradient to unscale it and flag inf/NaN, one for ``1 / scale`` and one for the whole ``update()``;
the NumPy code next to each is the same arithmetic, and what runs on the CPU.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from enum import Enum
from typing import Any

import numpy as np

from .. import distributed as dist
from .. import kernels
from .._checks import check_int, check_real
from .._tensor import Tensor
from ..backend import cuda_device_count, device_of, get_array_module, to_device
from ..backend import device as _device


def _names_cuda(spec: Any) -> bool:
    """Does a GradScaler ``device`` argument ask for CUDA ("cuda", "cuda:1", mg.device)?"""
    if isinstance(spec, _device):
        return spec.type == "cuda"
    return isinstance(spec, str) and spec.split(":")[0] == "cuda"


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state() -> dict:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_HINT = "This may indicate your script did not use scaler.scale(loss or outputs) earlier."


class _FactorError(ValueError, AssertionError):
    """A growth factor <= 1 or a backoff factor outside (0, 1): a ValueError, and PyTorch's
    AssertionError (its constructor asserts growth > 1 and backoff < 1)."""


class _OutputsError(TypeError, ValueError):
    """scale() of neither a tensor nor a list/tuple/dict of them: a TypeError, and PyTorch's
    ValueError."""


def _check_factor(value: Any, name: str, **bounds: Any) -> float:
    """check_real, its range error raised as _FactorError (a type error stays a TypeError)."""
    try:
        return check_real(value, name, **bounds)
    except ValueError as err:
        raise _FactorError(str(err)) from None


class _NewScaleTypeError(TypeError, AttributeError):
    """update(new_scale=) given neither a float nor a tensor: a TypeError, and PyTorch's
    AttributeError (its update reads ``new_scale.device``), so either ``except`` catches it."""


class GradScaler:
    """Dynamic loss scaling (see the module docstring).

    ``GradScaler(device=None, init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``, the signature of ``torch.amp.GradScaler``. The scale
    lives wherever the first scaled loss lives. ``device="cuda"`` on a machine without a usable
    GPU disables the scaler with PyTorch's warning (every method becomes a pass-through), as
    ``torch.amp.GradScaler("cuda")`` does. PyTorch's default device is "cuda"; here the default
    (None) scales on any device, so float16 training on the CPU (the course does it) gets loss
    scaling without naming a device. (``minigenesis.cuda.amp.GradScaler`` has the older
    signature, without ``device``, and always means CUDA.)
    """

    _cuda_name = "minigenesis.amp.GradScaler"  # how the warning names the class
    _cuda_stacklevel = 0  # extra frames between the user's call and __init__ (subclasses)

    def __init__(
        self,
        device: Any = None,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if not (device is None or isinstance(device, (str, _device))):
            raise TypeError(
                f"GradScaler: device must be a device name such as 'cuda' or 'cpu', got "
                f"{device!r}; the scale is the second argument (GradScaler('cuda', {device!r})) "
                f"or a keyword (GradScaler(init_scale={device!r}))"
            )
        # checked even when disabled: a typo should not wait for the day the scaler is enabled
        check_real(init_scale, "init_scale", gt=0, label="initial scale")
        _check_factor(growth_factor, "growth_factor", gt=1, label="growth factor")
        _check_factor(backoff_factor, "backoff_factor", gt=0, lt=1, label="backoff factor")
        growth_interval = check_int(growth_interval, "growth_interval", ge=1)
        self._enabled = bool(enabled)
        if self._enabled and _names_cuda(device) and cuda_device_count() == 0:
            # PyTorch's behaviour (and warning): a CUDA scaler without CUDA turns itself off
            warnings.warn(
                f"{self._cuda_name} is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2 + self._cuda_stacklevel,
            )
            self._enabled = False
        if self._enabled:
            self._init_scale = float(init_scale)
            self._growth_factor = float(growth_factor)
            self._backoff_factor = float(backoff_factor)
            self._growth_interval = int(growth_interval)
            self._init_growth_tracker = 0
            self._scale = None  # float32 array of shape (), created on the loss's device
            self._growth_tracker = None  # int32 array of shape ()
            self._per_optimizer_states: defaultdict = defaultdict(_fresh_optimizer_state)

    # ------------------------------------------------------------------ scale
    def _lazy_init(self, like: Any) -> None:
        xp = get_array_module(like)
        self._scale = xp.full((), self._init_scale, dtype=np.float32)
        self._growth_tracker = xp.full((), self._init_growth_tracker, dtype=np.int32)

    def _check_initialised(self, name: str) -> None:
        if self._scale is None:  # (AssertionError: PyTorch's type, an assert there)
            raise AssertionError(
                f"Attempted {name} but the scale has not been initialised. {_HINT}"
            )

    def scale(self, outputs: Any) -> Any:
        """``outputs * scale``: a tensor, or every tensor in a (nested) list/tuple/dict of them."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs._data)
            s = to_device(self._scale, device_of(outputs._data))
            # The scale is a 0-d float32 tensor, and the product follows PyTorch's promotion: a
            # 0-dim half loss becomes float32, a float tensor with dims keeps its dtype, an
            # integer one becomes float32.
            return outputs * Tensor._make(s, False)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, dict):
            return {k: self.scale(v) for k, v in outputs.items()}
        raise _OutputsError(
            "scale() expects a Tensor or a list/tuple/dict of Tensors, got "
            f"{type(outputs).__name__}"
        )

    # ------------------------------------------------------------------ unscale_
    def _unscale_grads(self, optimizer: Any, inv_scale: Any, allow_fp16: bool) -> dict:
        """Divide every gradient by the scale in place; return {device: found_inf array}.

        Per parameter group and device, the inf/NaN check is ONE reduction over all gradients
        joined end to end (taken before unscaling, as PyTorch checks the scaled values). On a
        GPU one kernel per gradient does both, all of a device's kernels raising one flag."""
        found_per_device: dict = {}
        flags: dict = {}  # device -> the flag the fused kernels raise (kernels/amp.py)
        for group in optimizer.param_groups:
            by_device: dict = {}
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if getattr(g, "is_sparse", False):  # Embedding(sparse=True): unscale its values
                    g = g._values()
                if not allow_fp16 and g._data.dtype == np.float16:
                    raise ValueError(
                        "Attempting to unscale FP16 gradients: keep the parameters in float32 "
                        "(autocast casts them for the ops) so their gradients are float32."
                    )
                by_device.setdefault(device_of(g._data), []).append(g)
            for dev, grads in by_device.items():
                arrays = [g._data for g in grads]
                xp = get_array_module(arrays[0])
                inv = to_device(inv_scale, dev)
                if xp is not np and kernels.amp.unscale_and_check(arrays, inv, flags, dev):
                    for g in grads:  # (one launch per gradient, raising the device's flag)
                        g._bump_version()
                    continue
                flat = (
                    arrays[0].reshape(-1)
                    if len(arrays) == 1
                    else xp.concatenate([a.reshape(-1) for a in arrays])
                )
                found = (~xp.isfinite(flat).all()).astype(np.float32)
                for g, a in zip(grads, arrays):
                    if a.dtype.itemsize == 2:  # bfloat16: scale in float32, round once
                        a[...] = (a.astype(np.float32) * inv).astype(a.dtype)
                    else:
                        xp.multiply(a, inv.astype(a.dtype), out=a)
                    g._bump_version()
                prev = found_per_device.get(dev)  # 1 if any group found one, as in PyTorch
                found_per_device[dev] = found if prev is None else xp.maximum(prev, found)
        for dev, buffer in flags.items():
            flag = buffer[0, ...]  # the flag as a 0-d view (no copy)
            prev = found_per_device.get(dev)
            found_per_device[dev] = (
                flag if prev is None else get_array_module(flag).maximum(prev, flag)
            )
        return found_per_device

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale (in place), recording any inf/NaN."""
        if not self._enabled:
            return
        self._check_initialised("unscale_")
        st = self._per_optimizer_states[id(optimizer)]
        if st["stage"] is OptState.UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if st["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # 1/scale in float64, rounded to float32, exactly as PyTorch forms it
        if device_of(self._scale).type == "cuda":
            inv_scale = kernels.amp.inverse_scale(self._scale)  # one launch
        else:
            inv_scale = (1.0 / self._scale.astype(np.float64)).astype(np.float32)
        found = self._unscale_grads(optimizer, inv_scale, allow_fp16=False)
        st["found_inf_per_device"] = _agree_across_ranks(found)
        st["stage"] = OptState.UNSCALED

    # ------------------------------------------------------------------ step
    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet) and run ``optimizer.step()`` unless a gradient is inf/NaN.

        Returns what ``optimizer.step`` returned, or None when the step was skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_initialised("step")
        st = self._per_optimizer_states[id(optimizer)]
        if st["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not st["found_inf_per_device"]:
            raise AssertionError(  # PyTorch's type
                "No inf checks were recorded for this optimizer: none of its parameters has a "
                "gradient. Did backward() reach them?"
            )
        retval = None
        # The one host sync of the step: did any device see inf/NaN?
        if not sum(float(v) for v in st["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        st["stage"] = OptState.STEPPED
        return retval

    # ------------------------------------------------------------------ update
    def update(self, new_scale: Any = None) -> None:
        """Back off the scale if any step of this iteration found inf/NaN, else count a clean
        step and grow it every ``growth_interval`` of them; or set it to ``new_scale``."""
        if not self._enabled:
            return
        self._check_initialised("update")
        if new_scale is not None:
            self._scale[...] = self._new_scale_value(new_scale)
        else:
            founds = [
                to_device(f, device_of(self._scale))
                for st in self._per_optimizer_states.values()
                for f in st["found_inf_per_device"].values()
            ]
            if not founds:
                raise AssertionError("No inf checks were recorded prior to update().")
            found = founds[0]
            for f in founds[1:]:
                found = found + f
            self._update_scale(found)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _new_scale_value(self, new_scale: Any) -> np.float32:
        """update(new_scale=)'s value, PyTorch's rules: a Python float (float32 must hold it),
        or a one-element tensor of shape () on the scale's device without requires_grad,
        whose value is copied (later changes to it do not reach the scale). Anything else
        is PyTorch's AttributeError (raised as an error that is also a TypeError). Beyond
        PyTorch, a scale that cannot work (<= 0, inf, NaN) is refused: ValueError."""
        if isinstance(new_scale, Tensor):
            if (
                new_scale.device.type != device_of(self._scale).type
                or new_scale.numel() != 1
                or new_scale.requires_grad
            ):
                raise AssertionError(  # PyTorch's type (an assert there)
                    "new_scale should be a float or a 1-element tensor with requires_grad=False "
                    "on the scaler's device."
                )
            if new_scale.dim() != 0:  # PyTorch copies it into the 0-d scale, which cannot grow
                shape = list(new_scale.shape)
                raise RuntimeError(
                    f"output with shape [] doesn't match the broadcast shape {shape}"
                )
            value = float(new_scale.item())
        elif isinstance(new_scale, float):
            value = new_scale
            if math.isfinite(value) and abs(value) > float(np.finfo(np.float32).max):
                raise RuntimeError("value cannot be converted to type float without overflow")
        else:
            raise _NewScaleTypeError(
                f"new_scale should be a float or a 1-element tensor, got "
                f"{type(new_scale).__name__} {new_scale!r}"
            )
        check_real(value, "new_scale", gt=0)
        return np.float32(value)

    def _update_scale(self, found_inf: Any) -> None:
        """PyTorch's ``_amp_update_scale_``, written with array ops (no host sync):

        found inf:  scale *= backoff;  tracker = 0
        else:       tracker += 1; if tracker == growth_interval: scale *= growth (unless that
                    overflows float32 to inf), tracker = 0
        """
        if device_of(self._scale).type == "cuda":
            factors = (self._growth_interval, self._growth_factor, self._backoff_factor)
            kernels.amp.update_scale(found_inf, *factors, self._scale, self._growth_tracker)
            return
        xp = get_array_module(self._scale)
        found = found_inf > 0
        scale, tracker = self._scale, self._growth_tracker
        successful = tracker + 1
        grow = xp.logical_and(~found, successful == self._growth_interval)
        # products in float64 then rounded to float32, as the C++ kernel computes them
        backed_off = (scale.astype(np.float64) * self._backoff_factor).astype(np.float32)
        with np.errstate(over="ignore"):
            grown = (scale.astype(np.float64) * self._growth_factor).astype(np.float32)
        grown = xp.where(xp.isfinite(grown), grown, scale)
        new_scale = xp.where(found, backed_off, xp.where(grow, grown, scale))
        new_tracker = xp.where(found | grow, 0, successful).astype(np.int32)
        self._scale[...] = new_scale
        self._growth_tracker[...] = new_tracker

    # ------------------------------------------------------------------ getters and setters
    def get_scale(self) -> float:
        """The current scale as a Python float (a host sync on the GPU); 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

    def is_enabled(self) -> bool:
        return self._enabled

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = check_real(new_factor, "growth_factor", gt=1, label="growth factor")

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = check_real(
            new_factor, "backoff_factor", gt=0, lt=1, label="backoff factor"
        )

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = check_int(new_interval, "growth_interval", ge=1)

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} if off)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        missing = {
            "scale",
            "growth_factor",
            "backoff_factor",
            "growth_interval",
            "_growth_tracker",
        } - set(state_dict)
        if missing:
            raise KeyError(f"GradScaler state dict is missing {sorted(missing)}")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale[...] = np.float32(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker[...] = self._init_growth_tracker

    def __getstate__(self) -> dict:
        st = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise RuntimeError(
                    "A GradScaler instance may only be pickled at the beginning of an iteration, "
                    "or at the end after scaler.update()."
                )
            # arrays become plain numbers, so a pickle does not depend on the device
            st["_init_scale"] = self.get_scale()
            st["_init_growth_tracker"] = self._get_growth_tracker()
            st["_scale"] = None
            st["_growth_tracker"] = None
        return st

    def __setstate__(self, st: dict) -> None:
        self.__dict__.update(st)


def _agree_across_ranks(found_per_device: dict) -> dict:
    """In data-parallel training every rank must skip the same steps: the inf/NaN flag is the
    maximum over the ranks (one all-reduce of one number per step). DistributedDataParallel
    averages the gradients, so the ranks already agree; this covers gradients it does not reach.
    Every rank joins the all-reduce, even one without gradients (its flag is 0)."""
    if not dist.is_initialized() or dist.get_world_size() == 1:
        return found_per_device
    flags = list(found_per_device.values())
    first = flags[0] if flags else np.float32(0.0)  # no gradients here: nothing found
    xp = get_array_module(first)
    total = first
    for f in flags[1:]:
        total = xp.maximum(total, to_device(f, device_of(first)))
    shared = Tensor._make(xp.array(total, dtype=np.float32).reshape(()))
    dist.all_reduce(shared, op=dist.ReduceOp.MAX)
    return {dev: to_device(shared._data, dev) for dev in found_per_device}
