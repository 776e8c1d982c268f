"""The autocast cast policy: which ops run in the low dtype, which in float32, which promote,
on each device type.

Autocast (``mg.autocast()``, ``mg.enable_autocast = True``) does not change any op. Each op class
that autocast should cast says so next to its forward, in one class attribute::

    class MatMul(Op):
        autocast = LOWER

and while autocast is on, ``Function.apply`` hands the op's rule and arguments to the active
setting (:meth:`AutocastSetting.cast`), which casts the tensor arguments by what the rule says for
their device type (the first tensor's: NumPy is "cpu", CuPy "cuda"):

- "lower": float32 tensors become the low dtype (bfloat16 on the CPU, float16 on the GPU by
  default). Matmul-like ops: they are where low precision pays (tensor cores; half the memory for
  the activations they save) and they accumulate in float32 anyway.
- "float32": float16/bfloat16 tensors become float32. Ops whose result loses too much in 8 or 11
  bits of mantissa, or overflows float16's range of 65504.
- "promote": mixed float inputs become the widest of them (bf16 + f32 -> f32), so that an op that
  takes several tensors never mixes dtypes.

A :class:`Rule` holds one of these (or None) per device type, because PyTorch 2.13, the contract,
keeps separate lists for ``autocast("cpu")`` and ``autocast("cuda")``, and they differ:

==================  =====================================================================
``LOWER``           both: matmul, mm, bmm, addmm, baddbmm, einsum, linear, conv1d/2d/3d,
                    conv_transpose1d/2d/3d, prelu, scaled_dot_product_attention
``FLOAT32``         both: prod, cdist, cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1,
                    huber, kl_div, poisson_nll, binary_cross_entropy_with_logits, the margin
                    losses (soft_margin, multi_margin, multilabel_margin, hinge_embedding,
                    margin_ranking, cosine_embedding, triplet_margin)
``CUDA_FLOAT32``    CUDA only: exp, expm1, log, log1p, log2, log10, pow, reciprocal, tan, asin,
                    acos, sinh, cosh, erfinv, softmax, log_softmax, sum, cumsum, cumprod,
                    logsumexp, layer_norm, rms_norm, group_norm, softplus, cosine_similarity,
                    the upsample kernels (the CPU's low dtype, bfloat16, has float32's range,
                    and its kernels accumulate in float32)
``CPU_FLOAT32``     CPU only: inv, solve, cholesky, qr, eigh, svd (LAPACK has no bfloat16),
                    binary_cross_entropy, ctc_loss
``PROMOTE``         both: cat, stack, and the elementwise ops' usual type promotion
==================  =====================================================================

Ops without a rule (relu, reshape, mean, var, batch_norm, logsigmoid, indexing ...) run in
whatever dtype their input has, so a bfloat16 activation stays bfloat16 from one matmul to the
next. :func:`policy` reads the whole table off the op classes.

float64 tensors are never cast (as PyTorch). The casts are ordinary differentiable ``Cast`` ops, so
backward sends each gradient back through them: a float32 parameter used in a bfloat16 matmul gets
a float32 ``.grad``.

**Cast cache.** Inside one ``with autocast():`` region a float32 parameter (a leaf that requires
grad) used by several low-precision ops is cast once: the cast is kept, keyed by the tensor and
its version (an optimizer step writes into the parameter and bumps the version, which invalidates
the entry), and dropped when the outermost region exits.

**Linear layers** (``F.linear``, so ``nn.Linear``) take one step more on the CPU: the cast of the
weight and bias is folded into the layer's op (``ops/linear.py``, ``AutocastLinear``). The cache
then keeps each parameter's values rounded to the low dtype as a bare array (:func:`rounded_copy`),
and the layer sends float32 gradients straight to the float32 parameters: no ``Cast`` node per
weight, and no rounding of a weight gradient that would be widened again at once.

**Composite ops.** An op written as a Python function of several ops (``conv2d`` = im2col + matmul
+ bias add) is made one policy unit with the decorator :func:`autocast_function`: its tensor
arguments are cast first, so the bias add sees two bfloat16 tensors and the result stays
bfloat16. The units so marked: ``LOWER`` for the convolutions, ``prelu``, ``addmm``/``baddbmm``
and ``scaled_dot_product_attention``; ``FLOAT32`` for ``cdist`` and the losses on both lists;
``CUDA_FLOAT32`` for ``layer_norm``, ``rms_norm``, ``group_norm`` and ``cosine_similarity``;
``CPU_FLOAT32`` for ``binary_cross_entropy`` and ``ctc_loss``. ``gaussian_nll_loss`` and
``multilabel_soft_margin_loss`` are on no list: their ops' rules apply.

The other way round, a function PyTorch computes in one kernel that is on no list, but that is
written here with ops on one (adaptive average pooling and bicubic or antialiased resampling are
matmuls with averaging or weight matrices), is marked :func:`without_autocast`: autocast is off
inside it, so it runs in its input's dtype as PyTorch's kernel does.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import dtypes as _dt
from .autograd.function import Function
from .autograd.grad_mode import state
from .autograd.tensor_base import TensorBase
from .conversions import convert

# What autocast does to one op's tensor arguments on one device type (see the module docstring).
_LOWER, _FLOAT32, _PROMOTE = "lower", "float32", "promote"


@dataclass(frozen=True)
class Rule:
    """An op's autocast rule per device type: ``cpu`` for NumPy tensors, ``cuda`` for CuPy
    tensors, each "lower", "float32", "promote" or None (the op runs as it comes there).

    PyTorch keeps one list per device type, and they differ: its CUDA lists run exp, softmax and
    sum in float32; its CPU lists leave them in the input's dtype and run LAPACK's linear algebra
    in float32 instead."""

    cpu: str | None
    cuda: str | None

    def on(self, device: str) -> str | None:
        """The rule on ``device`` ("cpu" or "cuda")."""
        return self.cpu if device == "cpu" else self.cuda


LOWER = Rule(_LOWER, _LOWER)  # on both of PyTorch's lower-precision lists (matmul, conv, linear)
FLOAT32 = Rule(_FLOAT32, _FLOAT32)  # on both float32 lists (prod, cdist, most losses)
PROMOTE = Rule(_PROMOTE, _PROMOTE)  # mixed float inputs -> the widest (cat, stack, add ...)
CUDA_FLOAT32 = Rule(None, _FLOAT32)  # float32 on CUDA only (exp, log, pow, softmax, sum, norms)
CPU_FLOAT32 = Rule(_FLOAT32, None)  # float32 on the CPU only (linalg, binary_cross_entropy)


def policy() -> dict[type, Rule]:
    """The whole table, read off the op classes: ``{op class: rule}`` for every class of
    ``Function`` (ops and their subclasses) that has an ``autocast`` rule."""
    table: dict[type, Rule] = {}
    stack = [Function]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        # (not MulBackward0, Mul's node; nor Sum's node_variant for SumBackward1: Sum's rule)
        if cls.autocast is not None and not cls._is_node_class and "_node_name" not in vars(cls):
            table[cls] = cls.autocast
    return table


def rule_for(op: type) -> Rule | None:
    """The rule of an op class (a :class:`Rule`, e.g. ``LOWER``) or None: run as it comes."""
    return op.autocast


# ----------------------------------------------------------------------------------------------
# The setting autocast stores in ``state.autocast_dtype`` while it is on
# ----------------------------------------------------------------------------------------------
class AutocastSetting:
    """What autocast does on each device: the low dtype for CPU ops and for CUDA ops (a NumPy
    dtype, or None where autocast is off for that device), and whether casts are cached."""

    __slots__ = ("cpu", "cuda", "cache_enabled")

    def __init__(self, cpu: Any = None, cuda: Any = None, cache_enabled: bool = True) -> None:
        self.cpu, self.cuda, self.cache_enabled = cpu, cuda, cache_enabled

    def cast(self, rule: Rule, args: tuple) -> tuple:
        """Called by ``Function.apply`` for an op with an ``autocast`` rule while this setting is
        on: the op's arguments with the tensors cast as ``rule`` says."""
        return cast_args(rule, args, self)

    def __repr__(self) -> str:
        return f"AutocastSetting(cpu={self.cpu}, cuda={self.cuda})"


class _Regions(threading.local):
    """Per thread: how deep we are in ``with autocast()`` blocks, and the cast cache they share
    (Cast ops, and the rounded float32 copies of the Linear layers' parameters)."""

    def __init__(self) -> None:
        self.depth = 0
        self.cache: dict[int, tuple] = {}
        self.rounded: dict[int, tuple] = {}


_regions = _Regions()


def enter_region() -> None:
    """Called by ``autocast.__enter__``: the cache lives as long as the outermost region."""
    _regions.depth += 1


def exit_region() -> None:
    """Called by ``autocast.__exit__``: leaving the outermost region drops every cached cast."""
    _regions.depth -= 1
    if _regions.depth == 0:
        _regions.cache.clear()
        _regions.rounded.clear()


def cache_size() -> int:
    """How many casts this thread's cache holds (for tests and curious learners): Cast ops and
    rounded copies of parameters."""
    return len(_regions.cache) + len(_regions.rounded)


# ----------------------------------------------------------------------------------------------
# Applying a rule to the arguments of one op
# ----------------------------------------------------------------------------------------------
def _is_float(dt: np.dtype) -> bool:
    return dt.kind in "fV"  # 'V' is how NumPy reports ml_dtypes' bfloat16


def _to_low(a: Any, low: np.dtype, setting: AutocastSetting) -> Any:
    """A float32 (or the other 2-byte float) tensor -> ``low``, through the cache for parameters."""
    d = a._data.dtype
    if d == low or not _is_float(d) or d == np.float64:
        return a
    # a parameter's cast every use can share; but one made under no_grad has no graph: not kept
    if state.grad_enabled and _cacheable(a, setting):
        cache = _regions.cache
        hit = cache.get(id(a))
        version = a._version
        if hit is not None and hit[0] is a and hit[1] == version:
            return hit[2]
        out = a._cast(low)
        cache[id(a)] = (a, version, out)  # keeping `a` keeps its id from being reused
        return out
    return a._cast(low)


def _cacheable(a: Any, setting: AutocastSetting) -> bool:
    """A parameter (a float32 leaf that requires grad) inside a region with the cache on."""
    return (
        a.requires_grad
        and a.grad_fn is None
        and a._data.dtype == np.float32
        and setting.cache_enabled
        and _regions.depth > 0
    )


def rounded_copy(a: Any, low: np.dtype, setting: AutocastSetting) -> Any:
    """A float32 tensor's array rounded to ``low``, with no graph: the op that uses it sends its
    gradient to ``a`` itself. Cached per region for a parameter, like the casts, and keyed by its
    version: an optimizer step or an in-place edit under no_grad makes a new copy."""
    if not _cacheable(a, setting):
        return convert(a._data, low)
    hit = _regions.rounded.get(id(a))
    version = a._version
    if hit is not None and hit[0] is a and hit[1] == version:
        return hit[2]
    out = convert(a._data, low)
    _regions.rounded[id(a)] = (a, version, out)  # keeping `a` keeps its id from being reused
    return out


def _device(t: Any) -> str:
    """ "cpu" for a NumPy tensor, "cuda" for a CuPy one."""
    return "cpu" if isinstance(t._data, np.ndarray) else "cuda"


def cast_args(rule: Rule, args: tuple, setting: AutocastSetting | None = None) -> tuple:
    """The arguments of one op, with the tensors cast as ``rule`` says for their device type
    (others unchanged)."""
    setting = state.autocast_dtype if setting is None else setting
    first = next((a for a in args if isinstance(a, TensorBase)), None)
    if first is None:
        return args
    # the device of the first tensor decides which low dtype and which list apply
    device = _device(first)
    low = setting.cpu if device == "cpu" else setting.cuda
    kind = rule.on(device)
    if low is None or kind is None:
        return args
    if kind == _LOWER:
        return tuple(_to_low(a, low, setting) if isinstance(a, TensorBase) else a for a in args)
    if kind == _FLOAT32:
        return tuple(
            a._cast(np.float32)
            if isinstance(a, TensorBase)
            and a._data.dtype.itemsize == 2
            and _is_float(a._data.dtype)
            else a
            for a in args
        )
    # PROMOTE: nothing to do unless two float tensors differ in dtype
    floats = {a._data.dtype for a in args if isinstance(a, TensorBase) and _is_float(a._data.dtype)}
    if len(floats) < 2:
        return args
    widest = None
    for d in floats:
        dt = _dt.from_numpy_dtype(d)
        widest = dt if widest is None else _dt.promote_types(widest, dt)
    target = widest.numpy_dtype
    return tuple(
        a._cast(target) if isinstance(a, TensorBase) and _is_float(a._data.dtype) else a
        for a in args
    )


def dtype_after(rule: Rule | None, t: Any) -> np.dtype:
    """The dtype tensor ``t`` has once autocast applied ``rule`` to it: its own dtype while
    autocast is off for its device (or for ``rule`` None). ``ops/same_dtype.py`` asks, so that an
    op autocast will cast is checked on the dtypes it will compute in."""
    d = t._data.dtype
    setting = state.autocast_dtype
    if setting is None or rule is None or not _is_float(d) or d == np.float64:
        return d
    device = _device(t)
    low = setting.cpu if device == "cpu" else setting.cuda
    kind = rule.on(device)
    if low is None:
        return d
    if kind == _LOWER:
        return np.dtype(low)
    if kind == _FLOAT32 and d.itemsize == 2:
        return np.dtype(np.float32)
    return d


def _rule_here(op: type, t: Any) -> str | None:
    """``op``'s rule on tensor ``t``'s device type when autocast is on there, else None."""
    setting = state.autocast_dtype
    rule = rule_for(op)
    if setting is None or rule is None:
        return None
    device = _device(t)
    low = setting.cpu if device == "cpu" else setting.cuda
    return None if low is None else rule.on(device)


def on_for(t: Any, device: str) -> bool:
    """True when tensor ``t`` is on ``device`` ("cpu" or "cuda") and autocast is on for it."""
    setting = state.autocast_dtype
    if setting is None or _device(t) != device:
        return False
    return (setting.cpu if device == "cpu" else setting.cuda) is not None


def casts_to_float32(op: type, t: Any) -> bool:
    """True when autocast is on for tensor ``t``'s device and ``op`` runs in float32 there.

    ``promotion.binary_op`` asks before rounding a bfloat16 op's float32 result back to bfloat16
    (NumPy upcasts ``bf16_array ** 2.0``; PyTorch keeps bfloat16): under CUDA autocast, ``pow``
    is float32 on purpose."""
    return _rule_here(op, t) == _FLOAT32


def lowers(op: type, t: Any) -> bool:
    """True when autocast is on for tensor ``t``'s device and casts ``op``'s operands to its low
    dtype (``F.linear`` asks, so it leaves the casting to autocast instead of promoting first)."""
    return _rule_here(op, t) == _LOWER


def autocast_function(rule: Rule) -> Callable:
    """Decorator: make a Python function of several ops one policy unit.

    ``@autocast_function(LOWER) def conv2d(x, weight, bias=None, ...)`` casts the tensor arguments
    (positional and keyword) by ``rule`` before the body runs, so ``conv2d``'s bias add happens in
    bfloat16 and the result is bfloat16, as PyTorch's single conv2d kernel gives. With autocast off
    the only cost is one attribute check.
    """
    if not isinstance(rule, Rule):
        raise ValueError(f"autocast rule must be an autocast_policy.Rule (LOWER ...), got {rule!r}")

    def decorate(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if state.autocast_dtype is None:
                return fn(*args, **kwargs)
            if kwargs:  # cast keyword tensors together with the positional ones
                keys = list(kwargs)
                cast = cast_args(rule, args + tuple(kwargs[k] for k in keys))
                args, kwargs = cast[: len(args)], dict(zip(keys, cast[len(args) :]))
            else:
                args = cast_args(rule, args)
            return fn(*args, **kwargs)

        wrapper.autocast_rule = rule  # type: ignore[attr-defined]
        return wrapper

    return decorate


def without_autocast(fn: Callable) -> Callable:
    """Decorator: run ``fn`` with autocast off (see the module docstring: an op on no list of
    PyTorch's, written with ops that are on one). Outside autocast the cost is one check."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if state.autocast_dtype is None:
            return fn(*args, **kwargs)
        own = state.__dict__  # this thread's own setting, if any (else the process-wide one)
        saved = own.get("autocast_dtype", _NO_OWN_SETTING)
        state.autocast_dtype = None
        try:
            return fn(*args, **kwargs)
        finally:
            if saved is _NO_OWN_SETTING:
                del state.autocast_dtype
            else:
                state.autocast_dtype = saved

    return wrapper


_NO_OWN_SETTING = object()  # marker: the thread had no autocast setting of its own
