"""The differential fuzzer's machinery: random op chains run in minigenesis and in PyTorch.

A case is drawn with hypothesis: one or two leaf tensors (shapes with 0-d, size-0 and size-1 dims;
float32/float64/float16/bfloat16/int64/bool), then a chain of 1-3 ops (unary, binary with a
broadcast partner, reductions with dims/keepdim, shape ops, indexing), each applied to the
previous result. Both libraries run the same chain on the same values; then, where PyTorch's
result has a gradient, both compute the first derivatives with ``autograd.grad(create_graph=True)``
and, where PyTorch's first derivatives are in the graph, the second derivatives.

Agreement means: the same shape, dtype and values (NaN where NaN, within a tolerance by dtype),
or both raising. ``run_case`` returns the disagreements as readable lines (empty when none).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

import minigenesis as mg
import minigenesis.nn.functional as mF

try:
    import torch
    import torch.nn.functional as tF
except ImportError:  # the test module skips without torch
    torch = tF = None

FLOATS = ("float32", "float64", "float16", "bfloat16")
DTYPES = (*FLOATS, "int64", "bool")
# rtol, atol per dtype: values of order 1-10 after a short chain; the 2-byte floats round each
# step (and PyTorch sometimes computes in float32 where we round between ops, or the reverse)
TOL = {
    "float64": (1e-9, 1e-12),
    "float32": (1e-4, 1e-5),
    "float16": (2e-2, 2e-3),
    "bfloat16": (8e-2, 2e-2),
}


# ----------------------------------------------------------------------------------------------
# Libraries: one name space per library so an op is written once
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lib:
    name: str
    L: Any  # minigenesis or torch
    F: Any  # their nn.functional

    def dtype(self, name: str) -> Any:
        return getattr(self.L, "bool" if name == "bool" else name)

    def tensor(self, array: np.ndarray, dtype: str, requires_grad: bool = False) -> Any:
        """The same values in both libraries: made from float64/int64/bool host data, then cast
        (float16/bfloat16 through float32, both libraries rounding to nearest even)."""
        L = self.L
        if dtype in ("float16", "bfloat16"):
            t = L.tensor(np.asarray(array, np.float32)).to(self.dtype(dtype))
        else:
            t = L.tensor(np.asarray(array), dtype=self.dtype(dtype))
        return t.requires_grad_(True) if requires_grad else t


MG = Lib("mg", mg, mF)
TORCH = Lib("torch", torch, tF) if torch is not None else None


def dtype_name(t: Any) -> str:
    return str(t.dtype).split(".")[-1]


def to_host(t: Any) -> np.ndarray:
    """float64 (or bool/int64) host copy of either library's tensor (bfloat16 included)."""
    if t is None:
        return None
    t = t.detach()
    if TORCH is not None and isinstance(t, torch.Tensor):
        t = t + 0 if t.dtype != torch.bool else t  # PyTorch's "zero tensors" have no storage
        if t.is_floating_point():
            t = t.to(torch.float64)
        return np.asarray(t.tolist(), dtype=_host_kind(t)).reshape(tuple(t.shape))
    if t.is_floating_point():
        t = t.to(mg.float64)
    return np.asarray(t.tolist(), dtype=_host_kind(t)).reshape(tuple(t.shape))


def _host_kind(t: Any) -> Any:
    name = dtype_name(t)
    return np.bool_ if name == "bool" else np.float64 if "float" in name else np.int64


# ----------------------------------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------------------------------
shapes = st.lists(st.sampled_from([1, 2, 3, 3, 4, 0]), min_size=0, max_size=3).map(
    tuple
)  # 0-d to 3-d; size-0 and size-1 dims included
dtypes = st.sampled_from(
    ("float32",) * 4 + ("float64",) * 2 + ("float16", "bfloat16", "int64", "bool")
)
SPECIAL = np.array([-2.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 3.0])


def host_values(seed: int, shape: tuple, dtype: str, extreme: bool = False) -> np.ndarray:
    """Values with ties and zeros (where masked gradients decide), and ordinary ones;
    ``extreme`` adds inf, -inf and NaN."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "int64":
        return rng.integers(-3, 5, shape).astype(np.int64)
    v = rng.standard_normal(shape) * 1.5
    pick = rng.random(shape)
    v = np.where(pick < 0.35, rng.choice(SPECIAL, shape), v)
    if extreme:
        v = np.where(pick > 0.93, rng.choice([np.inf, -np.inf, np.nan], shape), v)
    return v


def broadcast_partner(data: Any, shape: tuple) -> tuple:
    """A shape that broadcasts with ``shape``: dims kept or set to 1, leading dims dropped or
    one added."""
    dims = [data.draw(st.sampled_from([n, n, 1])) for n in shape]
    if dims and data.draw(st.booleans()):
        dims = dims[data.draw(st.integers(0, len(dims))) :]
    if len(dims) < 3 and data.draw(st.integers(0, 4)) == 0:
        dims = [data.draw(st.sampled_from([1, 2]))] + dims
    return tuple(dims)


# ----------------------------------------------------------------------------------------------
# The ops
# ----------------------------------------------------------------------------------------------
@dataclass
class Op:
    """``fn(lib, x, extra, args)``: x the chain's tensor, extra the op's own leaves (same in both
    libraries), args plain Python values drawn by ``draw(data, shape, dtype)``."""

    name: str
    fn: Callable
    draw: Callable = lambda data, shape, dtype: {}
    floats_only: bool = False
    min_ndim: int = 0
    extra: Callable | None = None  # (data, shape, dtype) -> list of (shape, dtype) leaves


def _dim(data, shape, allow_none=True):
    n = max(len(shape), 1)
    choices = list(range(-n, n)) + ([None] if allow_none else [])
    return data.draw(st.sampled_from(choices))


def _dims(data, shape):
    n = len(shape)
    if n == 0 or data.draw(st.booleans()):
        return _dim(data, shape)
    k = data.draw(st.integers(1, n))
    picked = data.draw(st.permutations(range(n)))[:k]
    return tuple(d - n if data.draw(st.booleans()) else d for d in picked)


def _keep(data):
    return data.draw(st.booleans())


def _reduce_args(data, shape, dtype):
    return {"dim": _dims(data, shape), "keepdim": _keep(data)}


def _dim_keep(data, shape, dtype):
    return {"dim": _dim(data, shape, allow_none=False), "keepdim": _keep(data)}


def _scalar(data, dtype):
    return data.draw(st.sampled_from([2, -1, 0, 0.5, -1.5, 3.0, True]))


def _partner(data, shape, dtype):
    other = broadcast_partner(data, shape)
    odt = dtype if data.draw(st.integers(0, 3)) else data.draw(dtypes)
    return [(other, odt)]


def _with_reduce(method):
    def fn(lib, x, e, a):
        dim = a["dim"]
        if dim is None:  # PyTorch has no keepdim without a dim (except amax/amin's dim=())
            return getattr(x, method)()
        return getattr(x, method)(dim, keepdim=a["keepdim"])

    return fn


def _var_args(data, shape, dtype):
    out = _reduce_args(data, shape, dtype)
    out["correction"] = data.draw(st.sampled_from([0, 1, 2]))
    return out


def _var(method):
    def fn(lib, x, e, a):
        dim = a["dim"]
        return getattr(x, method)(dim=dim, correction=a["correction"], keepdim=a["keepdim"])

    return fn


def _perm(data, shape, dtype):
    return {"perm": tuple(data.draw(st.permutations(range(len(shape)))))}


def _two_dims(data, shape, dtype):
    return {"d0": _dim(data, shape, False), "d1": _dim(data, shape, False)}


def _unsq(data, shape, dtype):
    n = len(shape) + 1
    return {"dim": data.draw(st.integers(-n, n - 1))}


def _squeeze_args(data, shape, dtype):
    return {"dim": _dim(data, shape)}


def _reshape_args(data, shape, dtype):
    size = math.prod(shape)
    options = [(-1,), (size,), (1, size), (size, 1), (-1, 1)]
    if size and size % 2 == 0:
        options += [(2, -1), (size // 2, 2)]
    return {"shape": data.draw(st.sampled_from(options))}


def _expand_args(data, shape, dtype):
    target = [data.draw(st.sampled_from([2, 3])) if n == 1 else n for n in shape]
    if data.draw(st.booleans()):
        target = [2] + target
    return {"shape": tuple(target)}


def _repeat_args(data, shape, dtype):
    reps = [data.draw(st.sampled_from([1, 2])) for _ in shape]
    if data.draw(st.booleans()):
        reps = [2] + reps
    return {"reps": tuple(reps) or (2,)}


def _split_args(data, shape, dtype):
    return {
        "dim": _dim(data, shape, False),
        "size": data.draw(st.sampled_from([1, 2])),
        "piece": data.draw(st.sampled_from([0, -1])),
    }


def _index_args(data, shape, dtype):
    n = shape[0]
    kinds = ["slice", "ellipsis_none"] + (["int", "tensor", "list"] if n else [])
    kind = data.draw(st.sampled_from(kinds))
    if kind == "int":
        return {"kind": kind, "i": data.draw(st.integers(-n, n - 1))}
    if kind in ("tensor", "list"):
        idx = data.draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=4))
        return {"kind": kind, "idx": idx}
    if kind == "slice":
        return {
            "kind": kind,
            "start": data.draw(st.sampled_from([None, 0, 1, -1])),
            "stop": data.draw(st.sampled_from([None, 2, -1, 5])),
            "step": data.draw(st.sampled_from([None, 1, 2])),
        }
    return {"kind": kind}


def _index(lib, x, e, a):
    kind = a["kind"]
    if kind == "int":
        return x[a["i"]]
    if kind == "tensor":
        return x[lib.L.tensor(a["idx"], dtype=lib.L.int64)]
    if kind == "list":
        return x[a["idx"]]
    if kind == "slice":
        return x[a["start"] : a["stop"] : a["step"]]
    return x[..., None]


def _cat_args(data, shape, dtype):
    d = _dim(data, shape, False)
    other = list(shape)
    other[d] = data.draw(st.sampled_from([0, 1, 2]))
    return {"dim": d, "_extra": [(tuple(other), dtype)]}


def _stack_args(data, shape, dtype):
    n = len(shape) + 1
    return {"dim": data.draw(st.integers(-n, n - 1)), "_extra": [(shape, dtype)]}


def _clamp_args(data, shape, dtype):
    lo = data.draw(st.sampled_from([None, -1.0, 0.0, 0.5, -1]))
    hi = data.draw(st.sampled_from([None, 1.0, 0.0, 2, 1.5]))
    if lo is None and hi is None:
        lo = 0.0
    return {"min": lo, "max": hi}


def _norm_args(data, shape, dtype):
    out = _reduce_args(data, shape, dtype)
    out["p"] = data.draw(st.sampled_from([2, 1, 3, float("inf"), 0, "fro"]))
    if out["p"] == "fro" and not (out["dim"] is None or isinstance(out["dim"], int)):
        out["dim"] = None
    return out


def _norm(lib, x, e, a):
    return x.norm(p=a["p"], dim=a["dim"], keepdim=a["keepdim"])


def _mask_fill(data, shape, dtype):
    return {"value": data.draw(st.sampled_from([0.0, -1.0, 2.5]))}


def _softmax_args(data, shape, dtype):
    return {"dim": _dim(data, shape, False)}


def _matmul_extra(data, shape, dtype):
    k = shape[-1] if shape else 2
    return [
        ((k,) if data.draw(st.booleans()) else (k, data.draw(st.sampled_from([1, 2, 3]))), dtype)
    ]


def _pow_args(data, shape, dtype):
    return {"e": data.draw(st.sampled_from([2, 3, 0.5, -1, 0, 1.5, -2.0]))}


UNARY = [
    Op("neg", lambda lib, x, e, a: -x),
    Op("abs", lambda lib, x, e, a: x.abs()),
    Op("exp", lambda lib, x, e, a: x.exp()),
    Op("log", lambda lib, x, e, a: x.log()),
    Op("sqrt", lambda lib, x, e, a: x.sqrt()),
    Op("rsqrt", lambda lib, x, e, a: x.rsqrt()),
    Op("sign", lambda lib, x, e, a: x.sign()),
    Op("relu", lambda lib, x, e, a: x.relu()),
    Op("tanh", lambda lib, x, e, a: x.tanh()),
    Op("sigmoid", lambda lib, x, e, a: x.sigmoid()),
    Op("gelu", lambda lib, x, e, a: lib.F.gelu(x), floats_only=True),
    Op("gelu_tanh", lambda lib, x, e, a: lib.F.gelu(x, approximate="tanh"), floats_only=True),
    Op("silu", lambda lib, x, e, a: lib.F.silu(x), floats_only=True),
    Op("softplus", lambda lib, x, e, a: lib.F.softplus(x), floats_only=True),
    Op("leaky_relu", lambda lib, x, e, a: lib.F.leaky_relu(x, 0.2), floats_only=True),
    Op("clamp", lambda lib, x, e, a: x.clamp(a["min"], a["max"]), _clamp_args),
    Op("pow_scalar", lambda lib, x, e, a: x ** a["e"], _pow_args),
    Op("rpow", lambda lib, x, e, a: 2.0**x),
    Op("scalar_ops", lambda lib, x, e, a: (x * 2.5 + 1) / 3 - x * x),
    Op("rdiv", lambda lib, x, e, a: 1 / x),
    Op("softmax", lambda lib, x, e, a: x.softmax(a["dim"]), _softmax_args, floats_only=True),
    Op(
        "log_softmax", lambda lib, x, e, a: x.log_softmax(a["dim"]), _softmax_args, floats_only=True
    ),
    Op("isnan", lambda lib, x, e, a: x.isnan()),
    Op("cast_float", lambda lib, x, e, a: x.float()),
    Op("cast_double", lambda lib, x, e, a: x.double()),
    Op("cast_half", lambda lib, x, e, a: x.half()),
    Op("masked_fill", lambda lib, x, e, a: x.masked_fill(x > 0, a["value"]), _mask_fill),
    Op("clone", lambda lib, x, e, a: x.clone()),
]
BINARY = [
    Op("add", lambda lib, x, e, a: x + e[0], extra=_partner),
    Op("sub", lambda lib, x, e, a: x - e[0], extra=_partner),
    Op("mul", lambda lib, x, e, a: x * e[0], extra=_partner),
    Op("div", lambda lib, x, e, a: x / e[0], extra=_partner),
    Op("pow", lambda lib, x, e, a: x ** e[0], extra=_partner),
    Op("maximum", lambda lib, x, e, a: lib.L.maximum(x, e[0]), extra=_partner),
    Op("minimum", lambda lib, x, e, a: lib.L.minimum(x, e[0]), extra=_partner),
    Op("where", lambda lib, x, e, a: lib.L.where(x > 0.5, x, e[0]), extra=_partner),
    Op("gt", lambda lib, x, e, a: x > e[0], extra=_partner),
    Op("eq", lambda lib, x, e, a: x == e[0], extra=_partner),
    Op("add_scalar", lambda lib, x, e, a: x + a["s"], lambda d, s, t: {"s": _scalar(d, t)}),
    Op("mul_scalar", lambda lib, x, e, a: x * a["s"], lambda d, s, t: {"s": _scalar(d, t)}),
    Op("rsub_scalar", lambda lib, x, e, a: a["s"] - x, lambda d, s, t: {"s": _scalar(d, t)}),
    Op("matmul", lambda lib, x, e, a: x @ e[0], min_ndim=1, extra=_matmul_extra),
    Op(
        "clamp_tensor",
        lambda lib, x, e, a: x.clamp(e[0], e[0] + 1),
        extra=_partner,
        floats_only=True,
    ),
    Op("remainder", lambda lib, x, e, a: x % e[0], extra=_partner),
]
REDUCE = [
    Op("sum", _with_reduce("sum"), _reduce_args),
    Op("mean", _with_reduce("mean"), _reduce_args, floats_only=True),
    Op("var", _var("var"), _var_args, floats_only=True),
    Op("std", _var("std"), _var_args, floats_only=True),
    Op("max_all", lambda lib, x, e, a: x.max()),
    Op("min_all", lambda lib, x, e, a: x.min()),
    Op("max_dim", lambda lib, x, e, a: x.max(a["dim"], keepdim=a["keepdim"])[0], _dim_keep),
    Op("min_dim", lambda lib, x, e, a: x.min(a["dim"], keepdim=a["keepdim"])[0], _dim_keep),
    Op("argmax", lambda lib, x, e, a: x.argmax(a["dim"], keepdim=a["keepdim"]), _dim_keep),
    Op("amax", _with_reduce("amax"), _reduce_args),
    Op("amin", _with_reduce("amin"), _reduce_args),
    Op(
        "logsumexp",
        lambda lib, x, e, a: x.logsumexp(
            a["dim"] if a["dim"] is not None else tuple(range(x.ndim)), keepdim=a["keepdim"]
        ),
        _reduce_args,
        floats_only=True,
    ),
    Op("norm", _norm, _norm_args, floats_only=True),
    Op("any", lambda lib, x, e, a: x.any(a["dim"], keepdim=a["keepdim"]), _dim_keep),
]
SHAPE = [
    Op("reshape", lambda lib, x, e, a: x.reshape(a["shape"]), _reshape_args),
    Op("flatten", lambda lib, x, e, a: x.flatten()),
    Op("permute", lambda lib, x, e, a: x.permute(a["perm"]), _perm),
    Op("transpose", lambda lib, x, e, a: x.transpose(a["d0"], a["d1"]), _two_dims),
    Op("unsqueeze", lambda lib, x, e, a: x.unsqueeze(a["dim"]), _unsq),
    Op(
        "squeeze",
        lambda lib, x, e, a: x.squeeze() if a["dim"] is None else x.squeeze(a["dim"]),
        _squeeze_args,
    ),
    Op("expand", lambda lib, x, e, a: x.expand(a["shape"]), _expand_args),
    Op("repeat", lambda lib, x, e, a: x.repeat(a["reps"]), _repeat_args),
    Op("mT", lambda lib, x, e, a: x.mT, min_ndim=2),
    Op("t", lambda lib, x, e, a: x.t()),
    Op(
        "split",
        lambda lib, x, e, a: x.split(a["size"], a["dim"])[a["piece"]],
        _split_args,
        min_ndim=1,
    ),
    Op("chunk", lambda lib, x, e, a: x.chunk(2, a["dim"])[a["piece"]], _split_args, min_ndim=1),
    Op("cat", lambda lib, x, e, a: lib.L.cat([x, e[0]], a["dim"]), _cat_args, min_ndim=1),
    Op("stack", lambda lib, x, e, a: lib.L.stack([x, e[0]], a["dim"]), _stack_args),
]
INDEX = [
    Op("index", _index, _index_args, min_ndim=1),
    Op("bool_mask", lambda lib, x, e, a: x[x > 0]),
]


def _pool_args(data, shape, dtype):
    k = data.draw(st.sampled_from([1, 2, 2, 3, (1, 2), (2, 1)]))
    return {
        "kernel_size": k,
        "stride": data.draw(st.sampled_from([None, 1, 2, (1, 2)])),
        "padding": data.draw(st.sampled_from([0, 0, 1])),
        "ceil_mode": data.draw(st.booleans()),
    }


def _max_pool(lib, x, e, a):
    return lib.F.max_pool2d(x, **a)


def _avg_pool(lib, x, e, a):
    return lib.F.avg_pool2d(x, count_include_pad=a["padding"] == 1, **a)


def _setitem(lib, x, e, a):
    x[0] = 1.5
    return x


# In-place ops change the chain's tensor (a leaf that requires grad: both raise; a computed one:
# its graph is rebased on the change)
INPLACE = [
    Op("add_", lambda lib, x, e, a: x.add_(e[0]), extra=_partner),
    Op("mul_", lambda lib, x, e, a: x.mul_(2.5)),
    Op("relu_", lambda lib, x, e, a: lib.F.relu(x, inplace=True)),
    Op("clamp_", lambda lib, x, e, a: x.clamp_(-0.5, 1.0)),
    Op("masked_fill_", lambda lib, x, e, a: x.masked_fill_(x.detach() > 0, 2.0)),
    Op("zero_", lambda lib, x, e, a: x.zero_()),
    Op("fill_", lambda lib, x, e, a: x.fill_(1.5)),
    Op("copy_", lambda lib, x, e, a: x.copy_(e[0]), extra=_partner),
    Op("setitem", _setitem, min_ndim=1),
]
POOL = [
    Op("max_pool2d", _max_pool, _pool_args, min_ndim=2),
    Op("avg_pool2d", _avg_pool, _pool_args, min_ndim=2, floats_only=True),
]
ALL_OPS = UNARY + BINARY + REDUCE + SHAPE + INDEX + INPLACE + POOL
BY_NAME = {op.name: op for op in ALL_OPS}


# ----------------------------------------------------------------------------------------------
# A case
# ----------------------------------------------------------------------------------------------
@dataclass
class Step:
    op: str
    args: dict
    extra: list = field(default_factory=list)  # (shape, dtype, seed) of the op's own leaves


@dataclass
class Case:
    shape: tuple
    dtype: str
    seed: int
    steps: list
    extreme: bool = False

    def describe(self) -> str:
        chain = " -> ".join(
            f"{s.op}({', '.join(f'{k}={v!r}' for k, v in s.args.items())}"
            + (f"; with {[(sh, dt) for sh, dt, _ in s.extra]}" if s.extra else "")
            + ")"
            for s in self.steps
        )
        return f"x: {self.dtype}{list(self.shape)} seed={self.seed}: {chain}"


def draw_case(data: Any, ops: list, max_steps: int = 3, extreme: bool = False) -> Case:
    """Draw a chain: the shapes and dtypes along the way are PyTorch's (the oracle's)."""
    shape, dtype = data.draw(shapes), data.draw(dtypes)
    seed = data.draw(st.integers(0, 2**16))
    case = Case(shape, dtype, seed, [], extreme)
    n_steps = data.draw(st.integers(1, max_steps))
    cur_shape, cur_dtype = shape, dtype
    for _ in range(n_steps):
        usable = [
            op
            for op in ops
            if len(cur_shape) >= op.min_ndim and (not op.floats_only or cur_dtype in FLOATS)
        ]
        op = data.draw(st.sampled_from(usable))
        args = op.draw(data, cur_shape, cur_dtype)
        specs = args.pop("_extra", None) or (
            op.extra(data, cur_shape, cur_dtype) if op.extra else []
        )
        extra = [(sh, dt, data.draw(st.integers(0, 2**16))) for sh, dt in specs]
        case.steps.append(Step(op.name, args, extra))
        try:  # the next op's arguments are drawn for PyTorch's result
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = _run_chain(TORCH, case)[0]
        except Exception:
            break
        if not hasattr(out, "shape"):
            break
        cur_shape, cur_dtype = tuple(out.shape), dtype_name(out)
    return case


def _leaves(lib: Lib, case: Case) -> tuple:
    """The chain's leaves (every float leaf requires grad), in a fixed order."""
    x = lib.tensor(
        host_values(case.seed, case.shape, case.dtype, case.extreme),
        case.dtype,
        case.dtype in FLOATS,
    )
    leaves, per_step = [x], []
    for step in case.steps:
        ts = []
        for sh, dt, sd in step.extra:
            t = lib.tensor(host_values(sd, sh, dt, case.extreme), dt, dt in FLOATS)
            ts.append(t)
            leaves.append(t)
        per_step.append(ts)
    return leaves, per_step


def _run_chain(lib: Lib, case: Case) -> tuple:
    """(the chain's result, its leaves, the loosest tolerance of the dtypes met on the way)."""
    leaves, per_step = _leaves(lib, case)
    cur = leaves[0]
    seen = {dtype_name(t) for t in leaves}
    for step, extra in zip(case.steps, per_step):
        cur = BY_NAME[step.op].fn(lib, cur, extra, step.args)
        seen.add(dtype_name(cur))
    tol = max((TOL[d] for d in seen if d in TOL), default=TOL["float64"])
    return cur, leaves, tol


def _outcome(fn: Callable) -> tuple:
    try:
        return fn(), None
    except Exception as err:  # "both raise" is agreement, whatever the exception types
        return None, f"{type(err).__name__}: {str(err)[:120]}"


def _compare(what: str, ours: Any, theirs: Any, tol: tuple, scale: float = 1.0) -> list:
    """Shape, dtype and values of one tensor pair; [] when they agree. Floats: the same NaNs and
    infinities, finite values within rtol, and within atol times the largest value (a gradient
    is compared relative to its magnitude)."""
    if theirs is None or ours is None:  # an unused leaf: zeros count as PyTorch's None
        other = ours if theirs is None else theirs
        if other is None or not np.any(to_host(other)):
            return []
        mine = None if ours is None else to_host(ours).tolist()
        return [f"{what}: ours {mine}, torch {None if theirs is None else to_host(theirs)}"]
    if tuple(ours.shape) != tuple(theirs.shape):
        return [f"{what}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"]
    if dtype_name(ours) != dtype_name(theirs):
        return [f"{what}: dtype {dtype_name(ours)} vs torch {dtype_name(theirs)}"]
    a, b = to_host(ours), to_host(theirs)
    if a.dtype.kind in "bi":
        bad = a != b
    else:
        rtol, atol = tol
        finite = np.isfinite(a) & np.isfinite(b)
        big = float(np.max(np.abs(b[finite]), initial=1.0))
        close = np.abs(a - b) <= atol * scale * big + rtol * scale * np.abs(b)
        same = (a == b) | (np.isnan(a) & np.isnan(b))  # equal infinities, or both NaN
        bad = ~np.where(finite, close, same)
    if not bad.any():
        return []
    i = tuple(int(k) for k in np.argwhere(bad)[0])
    return [
        f"{what}: {int(bad.sum())} of {bad.size} values differ, first at {list(i)}: "
        f"ours {a[i]!r}, torch {b[i]!r}"
        + (f"\n   ours  {a.tolist()}\n   torch {b.tolist()}" if a.size <= 12 else "")
    ]


def run_case(case: Case, derivatives: bool = True) -> list:
    """Run ``case`` in both libraries: the list of disagreements (empty when they agree)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        t_res, t_err = _outcome(lambda: _run_chain(TORCH, case))
        m_res, m_err = _outcome(lambda: _run_chain(MG, case))
        if t_err or m_err:
            if t_err and m_err:
                return []
            return [
                f"forward: ours {'raised ' + m_err if m_err else 'ran'}, "
                f"torch {'raised ' + t_err if t_err else 'ran'}"
            ]
        (t_out, t_leaves, tol), (m_out, m_leaves, _) = t_res, m_res
        problems = _compare("forward", m_out, t_out, tol)
        if problems or not derivatives or not t_out.requires_grad:
            return problems
        if not m_out.requires_grad:
            return ["forward: ours has no gradient, torch's has one"]
        return _derivatives(case, tol, m_out, m_leaves, t_out, t_leaves)


def _derivatives(case, tol, m_out, m_leaves, t_out, t_leaves) -> list:
    want = [i for i, t in enumerate(t_leaves) if t.requires_grad]
    rng = np.random.default_rng(case.seed + 1)
    w = rng.standard_normal(tuple(t_out.shape))
    dt = dtype_name(t_out)
    firsts = {}
    for lib, out, leaves in ((TORCH, t_out, t_leaves), (MG, m_out, m_leaves)):
        wt = lib.tensor(w, dt)
        firsts[lib.name] = _outcome(
            lambda lib=lib, out=out, leaves=leaves, wt=wt: lib.L.autograd.grad(
                out,
                [leaves[i] for i in want],
                grad_outputs=wt,
                create_graph=True,
                allow_unused=True,
            )
        )
    (t_g, t_err), (m_g, m_err) = firsts["torch"], firsts["mg"]
    if t_err or m_err:
        return (
            []
            if (t_err and m_err)
            else [f"first derivatives: ours {m_err or 'ran'}, torch {t_err or 'ran'}"]
        )
    problems = []
    for k, (a, b) in enumerate(zip(m_g, t_g)):
        problems += _compare(f"first derivative of leaf {want[k]}", a, b, tol, scale=4.0)
    if problems:
        return problems
    t_in = [g is not None and g.requires_grad for g in t_g]
    m_in = [g is not None and g.requires_grad for g in m_g]
    if t_in != m_in:
        return [f"first derivatives in the graph (create_graph): ours {m_in}, torch {t_in}"]
    if not any(t_in):
        return []
    vs = [None if g is None else rng.standard_normal(tuple(g.shape)) for g in t_g]
    seconds = {}
    for lib, gs, leaves in ((TORCH, t_g, t_leaves), (MG, m_g, m_leaves)):

        def second(lib=lib, gs=gs, leaves=leaves):
            total = sum(
                (g * lib.tensor(v, dtype_name(g))).sum() for g, v, i in zip(gs, vs, t_in) if i
            )
            return lib.L.autograd.grad(total, [leaves[i] for i in want], allow_unused=True)

        seconds[lib.name] = _outcome(second)
    (t_s, t_err), (m_s, m_err) = seconds["torch"], seconds["mg"]
    if t_err or m_err:
        return (
            []
            if (t_err and m_err)
            else [f"second derivatives: ours {m_err or 'ran'}, torch {t_err or 'ran'}"]
        )
    for k, (a, b) in enumerate(zip(m_s, t_s)):
        problems += _compare(f"second derivative of leaf {want[k]}", a, b, tol, scale=16.0)
    return problems


def main(argv: list) -> None:
    """Run N random cases and print every disagreement, grouped by op chain and kind (the
    shortest example of each group): ``python tests/parity/fuzz_ops.py N [--extreme]``."""
    from collections import defaultdict

    from hypothesis import HealthCheck, given, settings

    n = int(argv[0]) if argv else 1000
    extreme = "--extreme" in argv
    found = defaultdict(list)

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def collect(data):
        case = draw_case(data, ALL_OPS, extreme=extreme)
        problems = run_case(case)
        if problems:
            key = (tuple(s.op for s in case.steps), problems[0].split(":")[0])
            found[key].append(case.describe() + "\n  " + "\n  ".join(problems))

    collect()
    print(f"{n} cases, {len(found)} kinds of disagreement")
    for (ops, kind), examples in sorted(found.items(), key=lambda kv: -len(kv[1])):
        print(f"== {' -> '.join(ops)}: {kind} ({len(examples)} cases)")
        print(min(examples, key=len)[:1500])


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
