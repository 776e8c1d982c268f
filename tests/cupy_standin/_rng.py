"""``cupy.random`` of the stand-in: Philox streams, never NumPy's PCG64 that the CPU uses.

The draws are deliberately unrelated to the CPU generator's for the same seed, as real CuPy's
(XORWOW) are: nothing may depend on the two devices' random streams being equal.
"""

from __future__ import annotations

import numpy as np

from . import _NAMES, _unwrap, _wrap

_GENERATOR_METHODS = frozenset(_NAMES["random_Generator"])


def _philox(seed) -> np.random.Generator:
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(seed)))


class _BitGenerator:
    """Like CuPy's: the whole generator state is one device array, ``_state``, that every draw
    reads and updates in place (minigenesis' checkpoint replay copies it out and back)."""

    def __init__(self, seed) -> None:
        self._philox = np.random.Philox(np.random.SeedSequence(seed))
        self._state = _wrap(np.zeros(13, dtype=np.uint64))
        self._store()

    def _store(self) -> None:
        st = self._philox.state
        words = [*st["state"]["counter"], *st["state"]["key"], *st["buffer"]]
        words += [st["buffer_pos"], st["has_uint32"], st["uinteger"]]
        self._state._a[...] = np.array(words, dtype=np.uint64)

    def _load(self) -> np.random.Generator:
        w = self._state._a
        self._philox.state = {
            "bit_generator": "Philox",
            "state": {"counter": w[0:4].copy(), "key": w[4:6].copy()},
            "buffer": w[6:10].copy(),
            "buffer_pos": int(w[10]),
            "has_uint32": int(w[11]),
            "uinteger": int(w[12]),
        }
        return np.random.Generator(self._philox)


class Generator:
    """``cupy.random.Generator``: only the methods CuPy 14's generator has."""

    def __init__(self, seed=None) -> None:
        self._bit_generator = _BitGenerator(seed)

    def _draw(self, fn):
        out = fn(self._bit_generator._load())
        self._bit_generator._store()
        return _wrap(np.asarray(out))

    def random(self, size=None, dtype=np.float64, out=None):
        return self._draw(lambda g: g.random(size, dtype=dtype))

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return self._draw(lambda g: g.standard_normal(size, dtype=dtype))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return self._draw(lambda g: g.integers(low, high, size, dtype=dtype, endpoint=endpoint))

    def uniform(self, low=0.0, high=1.0, size=None, dtype=np.float64):
        return self._draw(lambda g: g.uniform(low, high, size).astype(dtype))

    def standard_exponential(self, size=None, dtype=np.float64, method="inv", out=None):
        return self._draw(lambda g: g.standard_exponential(size, dtype=dtype))

    def geometric(self, p, size=None):
        return self._draw(lambda g: g.geometric(p, size))

    def poisson(self, lam=1.0, size=None):
        return self._draw(lambda g: g.poisson(_unwrap(lam), size))

    def binomial(self, n, p, size=None, dtype=np.int64):
        return self._draw(lambda g: g.binomial(_unwrap(n), _unwrap(p), size).astype(dtype))

    def standard_gamma(self, shape, size=None, dtype=np.float64):
        return self._draw(lambda g: g.standard_gamma(_unwrap(shape), size, dtype=dtype))

    def __getattr__(self, name: str):
        if name in _GENERATOR_METHODS:
            raise NotImplementedError(f"cupy.random.Generator.{name} is not in the stand-in")
        raise AttributeError(f"'Generator' object has no attribute '{name}'")


def default_rng(seed=None) -> Generator:
    return Generator(seed)


_global = _philox(None)


def seed(seed=None) -> None:
    global _global
    _global = _philox(seed)


def rand(*size, dtype=float):
    return _wrap(np.asarray(_global.random(size or None).astype(dtype)))


def randn(*size, dtype=float):
    return _wrap(np.asarray(_global.standard_normal(size or None).astype(dtype)))


def permutation(num):
    return _wrap(_global.permutation(num))
