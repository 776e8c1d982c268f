"""Randomness: one generator per device, seeded by ``manual_seed``; dropout and init draw from it.

The CPU generator is NumPy's PCG64. ``get_rng_state()`` returns its state as a uint8 tensor (as
PyTorch does), so it can be stored in a checkpoint and restored with ``set_rng_state``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import as_device, cupy_module, get_array_module, to_numpy
from .meta_array import meta_namespace

_cuda_generators: dict[int, Any] = {}

# A new Generator() starts from this fixed seed, as a new torch.Generator() does.
NEW_GENERATOR_SEED = 67280421310721


class Generator:
    """A random stream: ``mg.default_generator`` (what ``mg.manual_seed`` seeds and returns) or a
    private one (``DataLoader(generator=...)``, ``randperm(generator=...)``)."""

    def __init__(self, device: str = "cpu") -> None:
        self.device = as_device(device)
        self.manual_seed(NEW_GENERATOR_SEED)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = _seed_bits(seed)
        self._np = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        """The seed this stream was last seeded with."""
        return self._seed

    def get_state(self):
        """The stream's position and its seed, as a uint8 tensor (PyTorch's state carries the
        seed too, so ``set_state`` brings ``initial_seed()`` back with the stream)."""
        return _encode(self._np.bit_generator.state, self._seed)

    def set_state(self, state) -> None:
        self._np.bit_generator.state, self._seed = _decode(state, self._seed)


def _seed_bits(seed: Any) -> int:
    """PyTorch's seed rule: ``int(seed)`` in [-2**63, 2**64), a negative seed read as its 64-bit
    two's complement (-1 is 2**64 - 1)."""
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise ValueError(f"manual_seed: seed must be in [-2**63, 2**64 - 1], got {seed}")
    return seed % 2**64


def _fresh_seed() -> int:
    """63 bits of the operating system's entropy: a seed no run is likely to share."""
    return int.from_bytes(os.urandom(8), "little") >> 1


# The CPU stream every draw without a generator= uses. Like PyTorch's, it starts from a fresh
# seed in every process (``initial_seed()`` tells which): two runs of a program that does not call
# ``manual_seed`` draw different numbers, so run-to-run variation shows. ``manual_seed(s)`` makes
# a run repeatable.
default_generator = Generator().manual_seed(_fresh_seed())


def manual_seed(seed: int) -> Generator:
    """Seed every device's generator: the same seed gives the same numbers. Returns the CPU's
    generator (``mg.default_generator``), as PyTorch does."""
    default_generator.manual_seed(seed)
    _cuda_generators.clear()
    return default_generator


def initial_seed() -> int:
    return default_generator.initial_seed()


def seed() -> int:
    """Seed every device's generator from the operating system's entropy (different on every
    call) and return that seed, so a run can be repeated with ``manual_seed(returned)``."""
    fresh = _fresh_seed()
    manual_seed(fresh)
    return fresh


def generator_for(xp: Any, generator: Generator | None = None) -> Any:
    """The NumPy or CuPy generator that draws arrays for module ``xp``."""
    if generator is not None:
        if not isinstance(generator, Generator):  # PyTorch's TypeError, naming what came
            raise TypeError(
                f"generator must be an mg.Generator (or None), got {type(generator).__name__} "
                f"{generator!r:.40}"
            )
        return generator._np
    if xp is np:
        return default_generator._np
    cp = cupy_module()
    dev = cp.cuda.runtime.getDevice()
    gen = _cuda_generators.get(dev)
    if gen is None:
        gen = _cuda_generators[dev] = cp.random.default_rng(default_generator.initial_seed() + dev)
    return gen


def _encode(state: dict, seed: int):
    """The bit generator's state and the seed it started from, as JSON bytes in a uint8 tensor."""
    raw = np.frombuffer(json.dumps({**state, "initial_seed": seed}).encode(), dtype=np.uint8)
    return TensorBase._make(raw.copy(), False)


def _decode(state, current_seed: int) -> tuple[dict, int]:
    """(bit generator state, seed) from ``_encode``'s tensor; a state saved without its seed
    (an older checkpoint) leaves the seed as it is."""
    # A state may come back on the GPU (a checkpoint loaded with map_location="cuda"): read it
    # through the backend, never with np.asarray (which CuPy arrays refuse).
    arr = to_numpy(state._data) if hasattr(state, "_data") else np.asarray(state)
    decoded = json.loads(bytes(arr.astype(np.uint8, copy=False)).decode())
    seed = decoded.pop("initial_seed", current_seed)
    return decoded, seed


def get_rng_state():
    """The CPU generator's state, as a uint8 tensor (picklable, checkpoint-safe)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore a state from ``get_rng_state()``: the following draws repeat exactly."""
    try:
        default_generator.set_state(state)
    except (ValueError, TypeError, KeyError) as err:
        raise ValueError(f"set_rng_state: not a state from get_rng_state() ({err})") from None


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str = "cuda",
) -> Iterator[None]:
    """``with torch.random.fork_rng(): ...``: the draws inside come from the global generators
    as usual, and on exit their states are put back, so the code after the block draws what it
    would have drawn without it (the CPU generator's state, and that of each GPU generator made
    so far whose bit generator exposes a ``state``; ``devices`` is accepted as PyTorch's).
    ``enabled=False`` forks nothing."""
    if not enabled:
        yield
        return
    cpu_state = default_generator._np.bit_generator.state
    cpu_seed = default_generator._seed  # a manual_seed inside must not outlive the block
    gpu_states = {
        dev: gen.bit_generator.state
        for dev, gen in _cuda_generators.items()
        if hasattr(gen.bit_generator, "state")
    }
    try:
        yield
    finally:
        default_generator._np.bit_generator.state = cpu_state
        default_generator._seed = cpu_seed
        for dev, state in gpu_states.items():
            _cuda_generators[dev].bit_generator.state = state


# ---------------------------------------------------------------------------------------------
def _draw(kind: str, shape: tuple, dtype: _dt.DType, xp: Any, generator, *params) -> Any:
    if not dtype.is_floating_point:  # (NumPy's draw would be refused, or cast to garbage)
        kernel = "normal_kernel_cpu" if kind == "normal" else "check_uniform_bounds"
        raise NotImplementedError(
            f'"{kernel}" not implemented for {_dt.scalar_type_name(dtype)!r}: {kind} samples '
            "need a floating dtype"
        )
    if xp is meta_namespace:  # a meta tensor holds no values: nothing is drawn
        return xp.empty(shape, dtype=dtype.numpy_dtype)
    gen = generator_for(xp, generator)
    # NumPy draws float32/float64 natively; 2-byte floats are drawn in float32 and rounded.
    draw_dtype = dtype.numpy_dtype if dtype.itemsize >= 4 else np.float32
    if kind == "normal":
        out = gen.standard_normal(shape, dtype=draw_dtype)
        mean, std = params
        if std != 1:
            out *= std
        if mean != 0:
            out += mean
    else:
        lo, hi = params
        out = gen.random(shape, dtype=draw_dtype)
        if (lo, hi) != (0, 1):
            out = out * (hi - lo) + lo
        elif dtype.itemsize == 2:
            # A float32 draw above 1 - 2^-12 rounds to 1.0 in float16 (2^-9 in bfloat16);
            # PyTorch's U[0, 1) never gives 1, so those become the largest value below 1.
            below_one = 1.0 - 2.0 ** (-11 if dtype.name == "float16" else -8)
            out = xp.minimum(out.astype(dtype.numpy_dtype), below_one)
    return out.astype(dtype.numpy_dtype, copy=False)


def fill_normal(t, mean: float, std: float, generator=None) -> None:
    """t <- samples of N(mean, std^2), in place."""
    if not std >= 0:
        raise RuntimeError(f"normal_: std must be >= 0, got {std}")
    xp = get_array_module(t._data)
    t._data[...] = _draw("normal", t.shape, t.dtype, xp, generator, mean, std)
    t._bump_version()


def fill_uniform(t, a: float, b: float, generator=None) -> None:
    """t <- samples of U(a, b), in place."""
    if not a <= b:
        raise RuntimeError(f"uniform_: expects a [from, to) range with from <= to, got {a} > {b}")
    xp = get_array_module(t._data)
    t._data[...] = _draw("uniform", t.shape, t.dtype, xp, generator, a, b)
    t._bump_version()


def bernoulli_mask(shape: tuple, keep: float, like: Any, generator=None) -> Any:
    """An array of 0/1 in ``like``'s dtype and device, 1 with probability ``keep`` (dropout)."""
    xp = get_array_module(like)
    gen = generator_for(xp, generator)
    return (gen.random(shape, dtype=np.float32) < keep).astype(like.dtype)


# ---------------------------------------------------------------------------------------------
# The other distributions of PyTorch's in-place draws (Tensor.bernoulli_, exponential_ ...) and of
# mg.bernoulli / mg.poisson. Each is the generator's own draw, or a closed-form transform of one:
#   exponential(rate):        E / rate, E ~ Exp(1)
#   log_normal(mean, std):    exp(mean + std * N), N ~ N(0, 1)
#   cauchy(median, sigma):    median + sigma * tan(pi * (U - 1/2)), U ~ U[0, 1)
#   geometric(p):             the number of Bernoulli(p) trials up to the first success (1, 2, ...)
#   bernoulli(p):             1 where U < p, else 0
#   poisson(rate):            the generator's Poisson draw, one per rate
def draw(kind: str, shape: tuple, dtype: Any, xp: Any, generator=None, *params) -> Any:
    """An array of samples of ``kind`` in NumPy dtype ``dtype`` (floats of 2 bytes are drawn in
    float32 and rounded; the integer-valued draws are made as int64 and cast)."""
    gen = generator_for(xp, generator)
    wide = dtype if (dtype.kind == "f" and dtype.itemsize >= 4) else np.dtype(np.float32)
    if kind == "exponential":
        (rate,) = params
        out = gen.standard_exponential(shape, dtype=wide) / wide.type(rate)
    elif kind == "log_normal":
        mean, std = params
        out = xp.exp(gen.standard_normal(shape, dtype=wide) * std + mean)
    elif kind == "cauchy":
        median, sigma = params
        out = median + sigma * xp.tan(np.pi * (gen.random(shape, dtype=np.float64) - 0.5))
    elif kind == "geometric":
        (p,) = params
        out = gen.geometric(p, shape)
    elif kind == "bernoulli":
        (p,) = params
        out = gen.random(shape, dtype=np.float64) < p
    elif kind == "poisson":
        (rate,) = params
        out = gen.poisson(rate, shape)
    elif kind == "binomial":
        count, p = params
        out = gen.binomial(count.astype(np.int64), p.astype(np.float64), shape)
    elif kind == "integers":
        lo, hi = params
        out = gen.integers(lo, hi, shape, dtype=np.int64)
    else:
        raise ValueError(f"draw: unknown distribution {kind!r}")
    return out.astype(dtype, copy=False)


def fill(t, kind: str, *params, generator=None) -> None:
    """t <- samples of ``kind`` (see ``draw``), in place."""
    xp = get_array_module(t._data)
    t._data[...] = draw(kind, t.shape, t._data.dtype, xp, generator, *params)
    t._bump_version()
