"""Random draws whose parameters are tensors: bernoulli(probabilities), normal(mean, std) and
poisson(rates), each one graph node.

PyTorch does not differentiate a draw through its parameters: their gradient is 0 (the draw is
recorded, so ``backward`` reaches the parameters, with zeros). For a gradient, write the draw as
a function of the parameters by hand, e.g. ``mean + std * randn_like(mean)`` (the
reparameterization trick).
"""

from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..backend import get_array_module
from ..random import draw, generator_for


class Sample(Op):
    """y = sample(*params), a fresh draw;   dy/dparam = 0 for every parameter (PyTorch's rule)."""

    @staticmethod
    def forward(ctx, sample, *params):
        ctx.shapes = [p.shape for p in params]
        return sample(*params)

    @staticmethod
    def backward(ctx, g):
        xp = get_array_module(g._data)
        zeros = (type(g)._make(xp.zeros(s, dtype=g._data.dtype), False) for s in ctx.shapes)
        return (None, *zeros)


def bernoulli(probs, generator=None):
    """1 where a uniform draw falls below probs (elementwise), else 0, in probs' dtype."""

    def sample(p):
        xp = get_array_module(p)
        return draw("bernoulli", p.shape, p.dtype, xp, generator, p)

    return Sample.apply(sample, probs)


def poisson(rates, generator=None):
    """One Poisson(rate) draw per element, in rates' dtype."""

    def sample(r):
        xp = get_array_module(r)
        return draw("poisson", r.shape, r.dtype, xp, generator, r)

    return Sample.apply(sample, rates)


def binomial(count, probs, generator=None):
    """One Binomial(count, probs) draw per element (the two broadcast), in probs' dtype."""

    def sample(n, p):
        xp = get_array_module(p)
        shape = np.broadcast_shapes(n.shape, p.shape)
        return draw("binomial", shape, p.dtype, xp, generator, n, p)

    return Sample.apply(sample, count, probs)


def normal(mean, std, shape: tuple, dtype, generator=None):
    """mean + std * N(0, 1), broadcast to ``shape``; mean and std are arrays or numbers (only the
    tensors among them are recorded as parameters)."""

    def sample(*params):
        it = iter(params)
        m = next(it) if not isinstance(mean, (int, float)) else mean
        s = next(it) if not isinstance(std, (int, float)) else std
        xp = get_array_module(params[0])
        gen = generator_for(xp, generator)
        wide = dtype if dtype.itemsize >= 4 else np.dtype(np.float32)
        return (gen.standard_normal(shape, dtype=wide) * s + m).astype(dtype, copy=False)

    params = [p for p in (mean, std) if not isinstance(p, (int, float))]
    return Sample.apply(sample, *params)
