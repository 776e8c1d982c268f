"""``torch._foreach_*``: one op applied to every tensor of a list.

PyTorch fuses these into few kernel launches (its optimizers' ``foreach=True`` path); programs
call them directly for weight averaging, as timm's model EMA does::

    torch._foreach_lerp_(ema_params, model_params, weight=1 - decay)
    torch._foreach_mul_(ema_params, decay); torch._foreach_add_(ema_params, params, alpha=1 - decay)

Here each is a loop over the tensors calling the Tensor method of the same name, so the values,
the dtype rules, the in-place checks and autograd are exactly those of the single-tensor op:
``_foreach_add(xs, ys, alpha=a)[i] = xs[i] + a * ys[i]``. The second operand of a binary op is a
list of tensors (one per tensor), a list of numbers (one per tensor), a number or a single
tensor (for every tensor), as in PyTorch. As PyTorch's, the out-of-place forms return a tuple,
the in-place forms of the arithmetic ops (and ``_foreach_zero_``) return ``self`` itself
(``_foreach_lerp_`` and ``_foreach_copy_`` too), and an empty list is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._tensor import Tensor

__all__ = [
    "_foreach_abs", "_foreach_abs_", "_foreach_add", "_foreach_add_", "_foreach_addcdiv",
    "_foreach_addcdiv_", "_foreach_addcmul", "_foreach_addcmul_", "_foreach_clamp_max",
    "_foreach_clamp_max_", "_foreach_clamp_min", "_foreach_clamp_min_", "_foreach_copy_",
    "_foreach_div", "_foreach_div_", "_foreach_exp", "_foreach_exp_", "_foreach_lerp",
    "_foreach_lerp_", "_foreach_log", "_foreach_log_", "_foreach_maximum", "_foreach_maximum_",
    "_foreach_minimum", "_foreach_minimum_", "_foreach_mul", "_foreach_mul_", "_foreach_neg",
    "_foreach_neg_", "_foreach_norm", "_foreach_pow", "_foreach_pow_", "_foreach_reciprocal",
    "_foreach_reciprocal_", "_foreach_sign", "_foreach_sign_", "_foreach_sqrt", "_foreach_sqrt_",
    "_foreach_sub", "_foreach_sub_", "_foreach_zero_",
]  # fmt: skip


def _tensors(name: str, xs: Any) -> list:
    if isinstance(xs, Tensor) or not isinstance(xs, Sequence):
        raise TypeError(f"{name}(): argument 'self' must be a list or tuple of Tensors")
    xs = list(xs)
    if not xs:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if not all(isinstance(x, Tensor) for x in xs):
        raise TypeError(f"{name}(): argument 'self' must be a list or tuple of Tensors")
    return xs


def _per_tensor(name: str, xs: list, other: Any) -> list:
    """``other`` spread to one operand per tensor of ``xs``: a list (of tensors or numbers) as
    it is, after a length check; a number or one tensor repeated."""
    if isinstance(other, (list, tuple)):
        if len(other) != len(xs):
            raise RuntimeError(
                f"{name}(): tensor lists must have the same number of tensors, got "
                f"{len(xs)} and {len(other)}"
            )
        return list(other)
    return [other] * len(xs)


# Tensor.maximum / minimum take tensors only; with a number they are clamp_min / clamp_max
_BY_NUMBER = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _binary(method: str, inplace: bool):
    name = f"_foreach_{method}{'_' if inplace else ''}"
    attr = method + ("_" if inplace else "")

    def op(self, other, *, alpha=None):
        xs = _tensors(name, self)
        ys = _per_tensor(name, xs, other)
        kw = {} if alpha is None else {"alpha": alpha}
        out = tuple(_apply(x, y, kw) for x, y in zip(xs, ys))
        return self if inplace else out

    def _apply(x, y, kw):
        if method in _BY_NUMBER and not isinstance(y, Tensor):  # maximum(x, 0.5): clamp_min
            return getattr(x, _BY_NUMBER[method] + ("_" if inplace else ""))(y)
        if inplace and not hasattr(Tensor, attr):  # maximum_, minimum_: no Tensor method
            # (written in place with the in-place dtype rule: int8 with float16 is refused)
            return x._inplace(lambda a, b: getattr(a, method)(b), y)
        return getattr(x, attr)(y, **kw)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"``[x.{attr}(y) for x, y in zip(self, other)]``{'' if not inplace else ' in place'}."
    )
    return op


def _unary(method: str, inplace: bool):
    name = f"_foreach_{method}{'_' if inplace else ''}"
    attr = method + ("_" if inplace else "")

    def op(self):
        out = tuple(getattr(x, attr)() for x in _tensors(name, self))
        return self if inplace else out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``[x.{attr}() for x in self]``{'' if not inplace else ' in place'}."
    return op


def _ternary(method: str, inplace: bool):
    """addcmul / addcdiv: x + value * t1 * t2 (or t1 / t2); value a number or one per tensor."""
    name = f"_foreach_{method}{'_' if inplace else ''}"
    attr = method + ("_" if inplace else "")

    def op(self, tensor1, tensor2, value=1):
        xs = _tensors(name, self)
        t1, t2 = _per_tensor(name, xs, tensor1), _per_tensor(name, xs, tensor2)
        vs = _per_tensor(name, xs, value.tolist() if isinstance(value, Tensor) else value)
        out = tuple(getattr(x, attr)(a, b, value=v) for x, a, b, v in zip(xs, t1, t2, vs))
        return self if inplace else out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"``[x.{attr}(a, b, value=v) ...]``: x + v * a {'*' if 'mul' in method else '/'} b."
    )
    return op


_foreach_add, _foreach_add_ = _binary("add", False), _binary("add", True)
_foreach_sub, _foreach_sub_ = _binary("sub", False), _binary("sub", True)
_foreach_mul, _foreach_mul_ = _binary("mul", False), _binary("mul", True)
_foreach_div, _foreach_div_ = _binary("div", False), _binary("div", True)
_foreach_pow_tensor_exponent, _foreach_pow_ = _binary("pow", False), _binary("pow", True)


def _foreach_pow(self, exponent):
    """``[x ** e ...]``, or, with a number first, ``[self ** e for e in exponent]`` (PyTorch's
    ``_foreach_pow(Scalar self, Tensor[] exponent)``)."""
    if isinstance(self, (int, float, bool)) and not isinstance(self, Tensor):
        es = _tensors("_foreach_pow", exponent)
        return tuple(e.__rpow__(self) for e in es)
    return _foreach_pow_tensor_exponent(self, exponent)


_foreach_maximum, _foreach_maximum_ = _binary("maximum", False), _binary("maximum", True)
_foreach_minimum, _foreach_minimum_ = _binary("minimum", False), _binary("minimum", True)
_foreach_clamp_min, _foreach_clamp_min_ = _binary("clamp_min", False), _binary("clamp_min", True)
_foreach_clamp_max, _foreach_clamp_max_ = _binary("clamp_max", False), _binary("clamp_max", True)
_foreach_addcmul, _foreach_addcmul_ = _ternary("addcmul", False), _ternary("addcmul", True)
_foreach_addcdiv, _foreach_addcdiv_ = _ternary("addcdiv", False), _ternary("addcdiv", True)
_foreach_abs, _foreach_abs_ = _unary("abs", False), _unary("abs", True)
_foreach_neg, _foreach_neg_ = _unary("neg", False), _unary("neg", True)
_foreach_sqrt, _foreach_sqrt_ = _unary("sqrt", False), _unary("sqrt", True)
_foreach_exp, _foreach_exp_ = _unary("exp", False), _unary("exp", True)
_foreach_log, _foreach_log_ = _unary("log", False), _unary("log", True)
_foreach_sign, _foreach_sign_ = _unary("sign", False), _unary("sign", True)
_foreach_reciprocal = _unary("reciprocal", False)
_foreach_reciprocal_ = _unary("reciprocal", True)

# The rest of PyTorch's elementwise unary foreach ops, each with its in-place form
_MORE_UNARY = (
    "acos asin atan ceil cos cosh erf erfc expm1 floor frac lgamma log10 log1p log2 round "
    "rsqrt sigmoid sin sinh tan tanh trunc"
).split()
for _m in _MORE_UNARY:
    globals()[f"_foreach_{_m}"] = _unary(_m, False)
    globals()[f"_foreach_{_m}_"] = _unary(_m, True)
    __all__ += [f"_foreach_{_m}", f"_foreach_{_m}_"]
del _m


def _foreach_clone(self, *, memory_format=None) -> tuple:
    """``[x.clone() for x in self]``."""
    return tuple(x.clone() for x in _tensors("_foreach_clone", self))


def _foreach_max(self) -> tuple:
    """The largest element of each whole tensor, one 0-d tensor per input (an empty tensor has
    none: RuntimeError, as in PyTorch)."""
    xs = _tensors("_foreach_max", self)
    for x in xs:
        if x.numel() == 0:
            raise RuntimeError(
                "_foreach_max cannot compute the maximum of an empty tensor; max over zero "
                "elements is undefined."
            )
    return tuple(x.max() for x in xs)


__all__ += ["_foreach_clone", "_foreach_max"]


def _foreach_lerp(self, tensors1, weight) -> tuple:
    """``[x + w (end - x) for x, end in zip(self, tensors1)]``; weight a number, a tensor, or a
    list of either (one per tensor)."""
    xs = _tensors("_foreach_lerp", self)
    ends, ws = _per_tensor("_foreach_lerp", xs, tensors1), _per_tensor("_foreach_lerp", xs, weight)
    return tuple(x.lerp(e, w) for x, e, w in zip(xs, ends, ws))


def _foreach_lerp_(self, tensors1, weight):
    """In place: ``x <- x + w (end - x)`` for every x of ``self``; returns ``self``."""
    xs = _tensors("_foreach_lerp_", self)
    ends, ws = (
        _per_tensor("_foreach_lerp_", xs, tensors1),
        _per_tensor("_foreach_lerp_", xs, weight),
    )
    for x, e, w in zip(xs, ends, ws):
        x.lerp_(e, w)
    return self


def _foreach_copy_(self, src, non_blocking: bool = False):
    """``x.copy_(s)`` for every pair (broadcasting and casting as copy_ does); returns ``self``."""
    xs = _tensors("_foreach_copy_", self)
    for x, s in zip(xs, _per_tensor("_foreach_copy_", xs, _tensors("_foreach_copy_", src))):
        x.copy_(s, non_blocking=non_blocking)
    return self


def _foreach_zero_(self):
    """``x.zero_()`` for every tensor; returns ``self``."""
    for x in _tensors("_foreach_zero_", self):
        x.zero_()
    return self


def _foreach_norm(self, ord: float = 2, dtype=None) -> tuple:
    """The vector norm of each whole tensor, ``(sum |x|^ord)^(1/ord)`` (max |x| for inf), as
    ``torch.linalg.vector_norm(x, ord)``: one 0-d tensor per input."""
    xs = _tensors("_foreach_norm", self)
    return tuple(x.norm(p=ord) if dtype is None else x.to(dtype).norm(p=ord) for x in xs)
