"""Weight initialisation: fill a tensor in place from a distribution (``nn.init.xavier_uniform_``).

Why the scales matter: a layer y = W x with fan_in inputs sums fan_in terms, so Var(y) =
fan_in * Var(W) * Var(x). Choosing Var(W) = gain^2 / fan_in keeps the signal's variance steady
through a deep stack (Kaiming/He); averaging fan_in and fan_out balances forward signals and
backward gradients (Xavier/Glorot). ``gain`` corrects for what the nonlinearity does to the
variance (ReLU halves it: gain sqrt 2).

Every function writes into ``tensor`` without recording a graph, draws from the minigenesis
generator (so ``mg.manual_seed`` makes it reproducible), and returns the tensor.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import get_array_module
from ..random import _draw, fill_normal, fill_uniform, generator_for

_LINEAR_GAINS = {
    "linear",
    "identity",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table): 1 for linear and sigmoid,
    5/3 for tanh, sqrt 2 for relu, sqrt(2 / (1 + slope^2)) for leaky_relu, 3/4 for selu."""
    if nonlinearity in _LINEAR_GAINS:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}")


def calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """fan_in = in_features * receptive field, fan_out = out_features * receptive field, for a
    weight laid out (out, in, *kernel) as Linear and Conv weights are."""
    if tensor.ndim < 2:
        raise ValueError(
            f"fan in and fan out cannot be computed for a tensor with fewer than 2 dims "
            f"(shape {tuple(tensor.shape)})"
        )
    receptive = 1
    for n in tensor.shape[2:]:
        receptive *= n
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


_calculate_fan_in_and_fan_out = calculate_fan_in_and_fan_out  # PyTorch's private spelling


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode {mode!r} is not supported, use 'fan_in' or 'fan_out'")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _check(tensor: Any, name: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{name} expects a Tensor, got {type(tensor).__name__}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """U(a, b)"""
    _check(tensor, "uniform_")
    fill_uniform(tensor, a, b, generator)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """N(mean, std^2)"""
    _check(tensor, "normal_")
    fill_normal(tensor, mean, std, generator)
    return tensor


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """N(mean, std^2) restricted to [a, b] (a and b are absolute bounds, as in PyTorch), drawn
    by rejection as PyTorch draws it, so a seeded stream is used the same way:

    - when [a, b] holds more than 30% of the mass p = Phi((b - mean)/std) - Phi((a - mean)/std),
      draw N(mean, std^2) everywhere and redraw (a whole tensor of draws, kept where needed)
      until every value lies in [a, b];
    - otherwise propose x ~ U(a, b) and accept it when log u <= log pdf(x) - log pdf(mode),
      u ~ U(0, 1), mode the point of [a, b] nearest the mean: the uniform envelope makes far
      tails ([5, 6] standard deviations: p ~ 3e-7) as cheap as central intervals.
    """
    _check(tensor, "trunc_normal_")
    if not a < b:
        raise ValueError(f"trunc_normal_: need a < b, got a={a}, b={b}")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    xp, shape, dtype = get_array_module(tensor._data), tensor.shape, tensor.dtype

    def draw(kind: str, lo: float, hi: float) -> Any:
        return _draw(kind, shape, dtype, xp, generator, lo, hi)

    p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    if p > 0.3:
        lo, hi = xp.asarray(a, dtype=tensor._data.dtype), xp.asarray(b, dtype=tensor._data.dtype)
        out = draw("normal", mean, std)
        while (outside := (out < lo) | (out > hi)).any():
            out = xp.where(outside, draw("normal", mean, std), out)
    else:
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def rejected(x: Any) -> Any:  # log u > log pdf(x) - log pdf(mode)
            return xp.log(draw("uniform", 0.0, 1.0)) > -0.5 * ((x - mean) / std) ** 2 - log_peak

        out = draw("uniform", a, b)
        pending = rejected(out)
        while pending.any():
            candidates = draw("uniform", a, b)
            out = xp.where(pending, candidates, out)
            pending = xp.where(pending, rejected(candidates), pending)
    tensor._data[...] = out
    tensor._bump_version()
    return tensor


def _norm_cdf(x: float) -> float:
    """Phi(x), the standard normal CDF."""
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def constant_(tensor: Tensor, val: float) -> Tensor:
    _check(tensor, "constant_")
    with no_grad():  # an init fills a parameter in place, which autograd must not see
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    _check(tensor, "zeros_")
    with no_grad():
        return tensor.fill_(0)


def ones_(tensor: Tensor) -> Tensor:
    _check(tensor, "ones_")
    with no_grad():
        return tensor.fill_(1)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (2-D tensors)."""
    if tensor.ndim != 2:
        raise ValueError(f"eye_ needs a 2-D tensor, got shape {tuple(tensor.shape)}")
    xp = get_array_module(tensor._data)
    tensor._data[...] = xp.eye(*tensor.shape, dtype=tensor._data.dtype)
    tensor._bump_version()
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """A convolution kernel that passes its input through: out channel d of each of the ``groups``
    copies input channel d (a 1 at the kernel's centre, 0 elsewhere). 3-, 4- or 5-D tensors."""
    _check(tensor, "dirac_")
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(f"dirac_ needs a 3-, 4- or 5-D tensor, got shape {tuple(tensor.shape)}")
    out_channels = tensor.shape[0]
    if groups <= 0 or out_channels % groups:
        raise ValueError(f"dirac_: dim 0 ({out_channels}) must divide into groups={groups}")
    per_group = out_channels // groups
    centre = tuple(k // 2 for k in tensor.shape[2:])
    tensor._data[...] = 0
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            tensor._data[(g * per_group + d, d) + centre] = 1
    tensor._bump_version()
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """N(0, std^2) with ceil(sparsity * rows) entries of every column set to zero (2-D tensors),
    the rows chosen at random for each column."""
    _check(tensor, "sparse_")
    if tensor.ndim != 2:
        raise ValueError(f"sparse_ needs a 2-D tensor, got shape {tuple(tensor.shape)}")
    if not 0.0 <= sparsity <= 1.0:
        raise ValueError(f"sparse_: sparsity must lie in [0, 1], got {sparsity}")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    fill_normal(tensor, 0.0, std, generator)
    rng = generator_for(get_array_module(tensor._data), generator)
    for c in range(cols):
        tensor._data[rng.permutation(rows)[:zeros], c] = 0
    tensor._bump_version()
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain``: rows = size(0), cols = the other dims flattened.

    Draw A ~ N(0, 1) of shape (rows, cols) (transposed when rows < cols), factor A = QR and
    multiply each column of Q by sign(R_ii): that makes Q uniform over the orthogonal matrices
    (QR alone would favour a sign). Then Q^T Q = I (or Q Q^T = I when rows < cols), so the layer
    keeps the norm of every input: the reason it helps deep and recurrent stacks.
    """
    _check(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError(f"orthogonal_ needs at least 2 dims, got shape {tuple(tensor.shape)}")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    fill_normal(tensor, 0.0, 1.0, generator)
    xp = get_array_module(tensor._data)
    a = tensor._data.reshape(rows, cols).astype(xp.float64)
    if rows < cols:
        a = a.T
    q, r = xp.linalg.qr(a)
    q = q * xp.sign(xp.diagonal(r))
    if rows < cols:
        q = q.T
    tensor._data[...] = (gain * q).reshape(tensor.shape).astype(tensor._data.dtype)
    tensor._bump_version()
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)), so Var = gain^2 2 / (fan_in + fan_out)."""
    _check(tensor, "xavier_uniform_")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    _check(tensor, "xavier_normal_")
    fan_in, fan_out = calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """U(-bound, bound), bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a)."""
    _check(tensor, "kaiming_uniform_")
    if 0 in tensor.shape:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def _default_weight_and_bias_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default initialisation of Linear and Conv layers: ``W`` by kaiming_uniform_ with
    a = sqrt(5), which is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); ``b`` from the same range, with
    ``fan_in`` read off ``W`` (in_features, or in_channels / groups * kernel area)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """N(0, std^2), std = gain / sqrt(fan)."""
    _check(tensor, "kaiming_normal_")
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def _deprecated(fn: Any) -> Any:
    """An old spelling without the trailing underscore: ``fn`` after PyTorch's FutureWarning."""
    new_name = fn.__name__
    old_name = new_name[:-1]

    def old(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return fn(*args, **kwargs)

    old.__name__, old.__qualname__ = old_name, old_name
    old.__doc__ = f"{old_name}(...): deprecated, use ``{new_name}``."
    return old


# Old spellings without the trailing underscore, kept by PyTorch with a deprecation warning.
uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
eye, dirac = _deprecated(eye_), _deprecated(dirac_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse = _deprecated(orthogonal_), _deprecated(sparse_)
