"""The Tensor's random methods: the in-place fills normal_, uniform_, bernoulli_, exponential_,
geometric_, log_normal_, cauchy_ and random_, and the draws bernoulli and multinomial.

Each checks its parameters as PyTorch does, then fills self from the generator's array-level
draws (``random.py``); a draw has no gradient (bernoulli's input gets a zero one, as in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.tensor_base import TensorBase
from .backend import get_array_module
from .ops import sampling
from .ops import sorting as SO
from .promotion import FLOAT_KINDS, need_float
from .random import fill, fill_normal, fill_uniform


def _check_probabilities(p: Any, name: str) -> None:
    """Bernoulli probabilities (a number or an array) must lie in [0, 1]."""
    xp = get_array_module(p) if hasattr(p, "dtype") else np
    arr = xp.asarray(p, dtype=xp.float64)
    if arr.size and not bool(((arr >= 0) & (arr <= 1)).all()):
        got = p if arr.ndim == 0 else "a tensor with values outside [0, 1]"
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={got}")


class TensorRandom:
    """Mixin of Tensor: random fills and draws."""

    __slots__ = ()

    _data: Any

    def normal_(self, mean: float = 0.0, std: float = 1.0, generator=None):
        self._check_can_write_inplace()
        fill_normal(self, mean, std, generator)
        return self

    def uniform_(self, a: float = 0.0, b: float = 1.0, generator=None):
        self._check_can_write_inplace()
        fill_uniform(self, a, b, generator)
        return self

    def bernoulli_(self, p=0.5, *, generator=None):
        """Every element 1 with probability p (a number, or a tensor of probabilities that
        broadcasts to self), else 0."""
        probs = p._data if isinstance(p, TensorBase) else p
        _check_probabilities(probs, "bernoulli_")
        self._check_can_write_inplace()
        if isinstance(p, TensorBase):
            probs = get_array_module(self._data).broadcast_to(probs, self.shape)
        fill(self, "bernoulli", probs, generator=generator)
        return self

    def bernoulli(self, p=None, *, generator=None):
        """A new tensor of 0/1 draws shaped like self: 1 with probability self (elementwise), or
        with probability p (a number) when given. Self's gradient is 0, as in PyTorch."""
        if p is not None:
            out = self._make(get_array_module(self._data).empty_like(self._data), False)
            return out.bernoulli_(p, generator=generator)
        need_float(self, "bernoulli", NotImplementedError)
        _check_probabilities(self._data, "bernoulli")
        return sampling.bernoulli(self, generator)

    def exponential_(self, lambd: float = 1.0, *, generator=None):
        """Samples of Exp(lambd): density lambd * exp(-lambd * x) on x >= 0 (mean 1/lambd)."""
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        return self._fill_float("exponential_", "exponential", generator, lambd)

    def geometric_(self, p: float, *, generator=None):
        """The number of Bernoulli(p) trials up to and including the first success (1, 2, ...):
        P(k) = (1 - p)^(k - 1) p."""
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        self._check_can_write_inplace()
        fill(self, "geometric", p, generator=generator)
        return self

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
        """exp(N(mean, std^2)): samples whose logarithm is normal with this mean and std."""
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        return self._fill_float("log_normal_", "log_normal", generator, mean, std)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
        """Cauchy samples: density 1 / (pi sigma (1 + ((x - median) / sigma)^2))."""
        if not sigma > 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
        return self._fill_float("cauchy_", "cauchy", generator, median, sigma)

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers drawn uniformly from [from_, to - 1]; random_(to) draws from [0, to - 1].
        Without ``to``: up to the dtype's largest integer (for floats, 2^mantissa bits, so that
        every value is exact)."""
        if to is None and from_ != 0:
            from_, to = 0, from_
        if to is None:
            dt = self._data.dtype
            digits = {2: 11, 4: 24, 8: 53}[dt.itemsize] if dt.kind in FLOAT_KINDS else None
            if dt.kind == "V":
                digits = 8
            to = 2**digits + 1 if digits else (2 if dt.kind == "b" else int(np.iinfo(dt).max) + 1)
        if not from_ < to:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
            )
        self._check_can_write_inplace()
        fill(self, "integers", from_, to, generator=generator)
        return self

    def _fill_float(self, name: str, kind: str, generator, *params):
        if self._data.dtype.kind not in FLOAT_KINDS:
            raise RuntimeError(
                f"{name}: the distribution is continuous: self must be floating point, got "
                f"{self.dtype.name}"
            )
        self._check_can_write_inplace()
        fill(self, kind, *params, generator=generator)
        return self

    def multinomial(self, num_samples: int, replacement: bool = False, *, generator=None):
        return SO.multinomial(self, num_samples, replacement, generator)
