"""What a recomputation must replay to be *the same* computation as the forward it repeats.

Gradient checkpointing runs a piece of the forward pass a second time, during backward. Two pieces
of global state decide what that piece computes besides its inputs:

- randomness: Dropout draws a mask from the generator, so the generator's state at the start of
  the forward is saved and put back for the rerun (then ours is restored), and the same mask comes
  out twice;
- autocast: the rerun must cast where the forward cast, so it runs under the forward's setting.

``capture()`` takes both at forward time; ``replaying(saved)`` is the context to rerun under.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import random as _random
from ..autograd.grad_mode import state
from ..backend import cupy_module

_MISSING = object()


def _cuda_state_array(gen: Any) -> Any:
    """The device array holding a CuPy generator's cuRAND states (``bit_generator._state``).

    CuPy's generators cannot be pickled or deep-copied (they hold a lock), but their whole state
    is this one array, updated in place by the sampling kernels: copying it out and back is an
    exact save and restore."""
    bit_gen = getattr(gen, "bit_generator", None) or getattr(gen, "_bit_generator", None)
    return getattr(bit_gen, "_state", None)


def _save_cuda_generators() -> dict | None:
    """{device: (generator, copy of its state)} for each CUDA generator created so far, or None
    (with a warning) if this CuPy's generators do not expose their state."""
    saved = {}
    for dev, gen in _random._cuda_generators.items():
        arr = _cuda_state_array(gen)
        if arr is None:
            warnings.warn(
                "checkpoint: cannot save this CuPy version's random state; dropout on the GPU "
                "will not replay identically in the recomputation",
                stacklevel=5,
            )
            return None
        with cupy_module().cuda.Device(dev):  # keep the copy on the generator's own GPU
            saved[dev] = (gen, arr.copy())
    return saved


def get_rng() -> tuple:
    """The CPU generator's state, and the CUDA generators' states."""
    return _random.get_rng_state(), _save_cuda_generators()


def set_rng(saved: tuple) -> None:
    cpu, cuda = saved
    _random.set_rng_state(cpu)
    if cuda is None:
        return
    # A device whose generator did not exist yet when the state was saved gets a fresh one on
    # first use, seeded as before: the same numbers again.
    _random._cuda_generators.clear()
    for dev, (gen, arr) in cuda.items():
        with cupy_module().cuda.Device(dev):
            _cuda_state_array(gen)[...] = arr
        _random._cuda_generators[dev] = gen


def capture(preserve_rng_state: bool) -> tuple:
    """(generator states or None, autocast setting): what ``replaying`` needs, taken now."""
    rng = get_rng() if preserve_rng_state else None
    return rng, state.autocast_dtype


@contextmanager
def replaying(saved: tuple) -> Iterator[None]:
    """Run the block under the generator states and autocast setting of ``capture``; afterwards
    this thread's own generators and autocast setting are as they were."""
    rng, autocast = saved
    current_rng = get_rng() if rng is not None else None
    own = state.__dict__
    current_ac = own.get("autocast_dtype", _MISSING)
    try:
        if rng is not None:
            set_rng(rng)
        state.autocast_dtype = autocast
        yield
    finally:
        # An absent field falls back to the process-wide (class-level) setting, as
        # mg.enable_autocast expects.
        if current_ac is _MISSING:
            own.pop("autocast_dtype", None)
        else:
            state.autocast_dtype = current_ac
        if current_rng is not None:
            set_rng(current_rng)
