"""The stand-in's ``ElementwiseKernel`` and ``ReductionKernel``: CUDA kernel bodies run with NumPy.

A kernel body for one element is translated, statement by statement, into NumPy over the whole
broadcast arrays, keeping C's types: the ``T`` of the arguments, a ``(T)`` cast rounds to ``T``, a
literal with an ``f`` suffix is a float32, and a bare ``0.5`` is a C double, which makes the
arithmetic double (NumPy 2's scalar promotion does exactly that), so a body that forgets its casts
computes here in float64, as it would on the GPU. With the kernel compiled with ``--fmad=false``,
``+ - * /`` and ``sqrt`` round as on the GPU; functions such as ``erf`` are computed in double
precision and rounded to the argument's type (CUDA's are within 2 units in the last place).

Strict where a CPU could hide a bug: host (NumPy) arrays are refused, an output of the wrong
shape is refused, and anything beyond the subset below raises ``NotImplementedError`` rather than
guessing: statements ``[const] TYPE name = expr;``, ``name = expr;``, ``name op= expr;``, and
``if (cond) name = expr;`` (one statement, no braces, no else), one ``cond ? a : b`` at the top of
an expression, ``+ - * /``, comparisons, ``!``, casts of a literal, a name or a parenthesised
expression, and the functions in ``_FUNCTIONS``. An elementwise kernel may take ``raw`` arguments
(not broadcast) and write to them at a flat index, ``name[expr] = expr;`` (nothing else reads or
indexes them); where several elements write one place a GPU keeps one of the values, unspecified
which (here the last element's), so kernels write a common value there (a flag). Reading a raw
argument, indices (``i``, ``_ind``), ``&&``/``||`` are refused.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import numpy as np

_C_TYPES = {
    "float": np.float32,
    "double": np.float64,
    "int": np.int32,
    "long long": np.int64,
    "bool": np.bool_,
    "float16": np.float16,
    "half": np.float16,
}
_NUMPY_TYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _same_type(fn):
    """A double-precision function rounded to its argument's floating type (as CUDA's overloads)."""

    def call(x):
        x = np.asarray(x)
        kind = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
        out = fn(x.astype(np.float64)).astype(kind)
        return out if out.ndim else out[()]

    return call


def _nan_maximum(a, b):  # CUDA's max/fmax ignore a NaN operand, as NumPy's fmax does
    return np.fmax(a, b)


def _nan_minimum(a, b):
    return np.fmin(a, b)


_FUNCTIONS = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "tanh": np.tanh,
    "erf": _same_type(_erf),
    "erfc": _same_type(_erfc),
    "fabs": np.abs,
    "abs": np.abs,
    "max": _nan_maximum,
    "min": _nan_minimum,
    "fmax": _nan_maximum,
    "fmin": _nan_minimum,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "copysign": np.copysign,
}
_FUNCTIONS.update({f"{k}f": v for k, v in list(_FUNCTIONS.items()) if k not in ("abs", "max")})

_FLOAT_LITERAL = re.compile(
    r"(?<![\w.])((?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(f?)(?![\w.])"
)
_STATEMENT = re.compile(
    r"^(?:(?:const\s+)?(?P<type>[A-Za-z_]\w*)\s+)?(?P<name>[A-Za-z_]\w*)"
    r"\s*(?P<op>[-+*/]?=)\s*(?P<expr>.+)$",
    re.S,
)
_INDEXED = re.compile(
    r"^(?P<name>[A-Za-z_]\w*)\s*\[(?P<index>[^\[\]]+)\]\s*=(?!=)\s*(?P<expr>.+)$", re.S
)
_CAST = re.compile(r"\(\s*(T|float|double|int|bool|half|float16|float32|float64)\s*\)")


def _refuse(what: str, code: str) -> NotImplementedError:
    return NotImplementedError(f"the CuPy stand-in does not run {what} in a kernel body: {code!r}")


def _split_params(params: str, raw: set[str] | None = None) -> list[tuple[str, str]]:
    """``"T x, float32 y"`` -> [("T", "x"), ("float32", "y")]. The names of ``raw`` arguments
    are added to ``raw`` (where they are allowed: with ``raw`` given)."""
    out = []
    for part in filter(None, (p.strip() for p in params.split(","))):
        words = part.split()
        if words[0] == "raw":
            if raw is None:
                raise _refuse("a raw argument", part)
            words = words[1:]
            raw.add(words[-1])
        if len(words) != 2:
            raise ValueError(f"cannot read the kernel parameter {part!r}")
        out.append((words[0], words[1]))
    return out


def _matching(text: str, start: int) -> int:
    """The index just after the parenthesis that closes the one at ``text[start]``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    raise ValueError(f"unbalanced parentheses in {text!r}")


def _operand_end(text: str, start: int) -> int:
    """The end of the operand a cast applies to: a literal, a name, a call or a parenthesis."""
    i = start
    while i < len(text) and text[i] == " ":
        i += 1
    if i < len(text) and text[i] == "(":
        return _matching(text, i)
    m = re.compile(r"[\w.]+").match(text, i)
    if m is None:
        raise ValueError(f"a cast with no operand in {text!r}")
    end = m.end()
    if end < len(text) and text[end] == "(":  # a function call
        return _matching(text, end)
    return end


def _expression(expr: str) -> str:
    """One C expression as a Python expression over the namespace of ``_Body``."""
    for bad in ("&&", "||", "[", "++", "--"):
        if bad in expr:
            raise _refuse(f"'{bad}'", expr)
    if re.search(r"\b(i|_ind|_in_ind|_out_ind)\b(?!\.size)", expr):
        raise _refuse("an element index", expr)
    while (m := re.search(r"!(?!=)", expr)) is not None:  # !x -> _not(x)
        if _CAST.match(expr, m.end()) or expr[m.end() :].lstrip().startswith("!"):
            raise _refuse("'!' before a cast or another '!'", expr)
        end = _operand_end(expr, m.end())
        expr = f"{expr[: m.start()]}_not({expr[m.end() : end]}){expr[end:]}"
    while (m := _CAST.search(expr)) is not None:  # (T)x -> _cast["T"](x), innermost-left first
        end = _operand_end(expr, m.end())
        expr = f'{expr[: m.start()]}_cast["{m.group(1)}"]({expr[m.end() : end]}){expr[end:]}'
    expr = _FLOAT_LITERAL.sub(
        lambda m: f"_f32({m.group(1)})" if m.group(2) else f"_f64({m.group(1)})", expr
    )
    return _ternary(expr)


def _ternary(expr: str) -> str:
    """``c ? a : b`` at depth 0 -> ``_where(c, a, b)`` (nested ones are refused)."""
    depth, q = 0, None
    for i, ch in enumerate(expr):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "?" and depth == 0:
            q = i
            break
    if q is None:
        if "?" in expr:
            raise _refuse("a nested ?:", expr)
        return expr
    rest = expr[q + 1 :]
    depth = 0
    for j, ch in enumerate(rest):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ":" and depth == 0:
            a, b = rest[:j], rest[j + 1 :]
            if "?" in a or "?" in b:
                raise _refuse("a nested ?:", expr)
            return f"_where({expr[:q]}, {a}, {b})"
    raise ValueError(f"'?' without ':' in {expr!r}")


class _Body:
    """A kernel body, translated once into Python statements over NumPy arrays (``raw``: the
    names of the raw arguments, which statements may write at an index)."""

    def __init__(
        self, code: str, raw: frozenset[str] = frozenset(), inputs: frozenset[str] = frozenset()
    ) -> None:
        code = re.sub(r"//[^\n]*", "", code)
        # (target, op, declared type or None, compiled expression, source, compiled if-condition)
        self.steps = []
        for source in filter(None, (s.strip() for s in code.split(";"))):
            stmt, cond = source, None
            if re.match(r"if\s*\(", stmt):  # if (cond) statement
                end = _matching(stmt, stmt.index("("))
                cond = compile(_expression(stmt[stmt.index("(") + 1 : end - 1]), source, "eval")
                stmt = stmt[end:].strip()
            if re.match(r"(if|else)\b", stmt):
                raise _refuse("a nested if or an else", source)
            indexed = _INDEXED.match(stmt)
            assigned = _STATEMENT.match(stmt)
            target = indexed["name"] if indexed else assigned["name"] if assigned else None
            if target in inputs and not (assigned and assigned["type"]):
                raise TypeError(  # NVRTC: "expression must be a modifiable lvalue"
                    f"kernel body writes its input {target!r}: CuPy passes inputs as const, so "
                    f"the GPU would not compile {stmt!r}; declare {target!r} among the outputs"
                )
            written = indexed["name"] if indexed is not None and indexed["name"] in raw else None
            rest = stmt[indexed.end("name") :] if written else stmt
            if any(re.search(rf"\b{name}\b", rest) for name in raw):
                raise _refuse("a read or plain assignment of a raw argument", stmt)
            if written:
                index = compile(_expression(indexed["index"]), source, "eval")
                expr = compile(_expression(indexed["expr"]), source, "eval")
                self.steps.append((written, "[]=", index, expr, source, cond))
                continue
            m = _STATEMENT.match(stmt)
            if m is None or "{" in stmt or "}" in stmt:
                raise _refuse("this statement", source)
            if cond is not None and m["type"] is not None:
                raise _refuse("a declaration under if", source)
            expr = compile(_expression(m["expr"]), source, "eval")
            self.steps.append((m["name"], m["op"], m["type"], expr, source, cond))

    def run(self, env: dict[str, Any], types: dict[str, np.dtype], shape: tuple = ()) -> None:
        """Run the statements over ``env`` (the arguments and locals); ``shape``: the
        elementwise loop's (each element of it writes to a raw argument)."""
        fixed = {
            **{k: np.dtype(v) for k, v in _C_TYPES.items()},
            **{n: np.dtype(n) for n in _NUMPY_TYPES},
        }
        cast = {name: functools.partial(_to, dtype=t) for name, t in {**fixed, **types}.items()}
        namespace = {
            **_FUNCTIONS,
            "_cast": cast,
            "_f32": np.float32,
            "_f64": np.float64,
            "_where": _select,
            "_not": np.logical_not,
        }
        declared: dict[str, np.dtype] = {}
        with np.errstate(all="ignore"):  # a GPU does not warn
            for target, op, ctype, code, source, cond in self.steps:
                value = eval(code, namespace, env)  # noqa: S307 (our own translated C)
                taken = True if cond is None else eval(cond, namespace, env)  # noqa: S307
                if op == "[]=":  # ctype holds the compiled index
                    index = eval(ctype, namespace, env)  # noqa: S307
                    _write_raw(env[target], index, value, shape, source, taken)
                    continue
                if op != "=":
                    value = eval(f"_a {op[0]} _b", {}, {"_a": env[target], "_b": value})  # noqa: S307
                if cond is not None:  # the elements where the condition is false keep theirs
                    value = np.where(taken, value, env[target])
                if ctype is not None:
                    declared[target] = _dtype(ctype, types)
                kind = declared.get(target) or types.get(f"var:{target}")
                env[target] = _to(value, kind) if kind is not None else value


def _write_raw(
    target: np.ndarray, index: Any, value: Any, shape: tuple, source: str, taken: Any = True
) -> None:
    """``target[index] = value`` for every element of the loop where ``taken`` (an if's
    condition) holds, at flat indices (the last write wins where several elements write one
    place); an index out of range is refused, where a GPU would write outside the array."""
    taken = np.broadcast_to(np.asarray(taken, dtype=bool), shape).ravel()
    index = np.broadcast_to(np.asarray(index), shape).ravel()[taken]
    if index.dtype.kind not in "iub":
        raise TypeError(f"a raw argument's index must be an integer: {source!r}")
    if index.size and (index.min() < 0 or index.max() >= target.size):
        raise IndexError(f"index out of range for a raw argument of size {target.size}: {source!r}")
    value = np.broadcast_to(np.asarray(value), shape).ravel()[taken]
    target.flat[index.astype(np.intp)] = value.astype(target.dtype)


def _to(x: Any, dtype: np.dtype) -> Any:
    """``x`` converted to ``dtype`` as C converts it. A float16 value is held as the float32
    number it equals: CuPy's float16 has no arithmetic of its own, so a kernel computes
    float16 operands in float32 and rounds only where it assigns or casts to float16 (measured
    on an H200: ``y = x * x * x + x`` is the float32 result rounded once, not NumPy's float16
    rounding after every operation)."""
    out = np.asarray(x).astype(dtype)
    if out.dtype == np.float16:
        return out.astype(np.float32).view(_Half)
    return out if out.ndim else out[()]


def _computed(a: np.ndarray) -> np.ndarray:
    """An argument as kernel arithmetic sees it (float16: its float32 value, see _to)."""
    return a.astype(np.float32).view(_Half) if a.dtype == np.float16 else a


class _Half(np.ndarray):
    """A value of C type float16 in a kernel, held as the float32 number it equals. Arithmetic
    on it gives plain float32 (CuPy's float16 converts to float for every operation); the type
    matters to ``?:`` only (see _select)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(i.view(np.ndarray) if isinstance(i, _Half) else i for i in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)


def _select(cond: Any, a: Any, b: Any) -> Any:
    """``cond ? a : b``. NVRTC refuses a float16 on one side and a float on the other (each
    converts to the other: "ambiguous ?: operation", seen on an H200), so that is refused here."""
    half = (isinstance(a, _Half), isinstance(b, _Half))
    other = b if half[0] else a
    if half[0] != half[1] and np.asarray(other).dtype.kind == "f":
        raise TypeError(
            "a ?: with a float16 on one side and a float on the other does not compile (NVRTC: "
            "ambiguous); cast both sides to T"
        )
    out = np.where(cond, a, b)
    return out.view(_Half) if all(half) else out


def _dtype(ctype: str, types: dict[str, np.dtype]) -> np.dtype:
    if ctype in types:
        return types[ctype]
    if ctype in _C_TYPES:
        return np.dtype(_C_TYPES[ctype])
    if ctype in _NUMPY_TYPES:
        return np.dtype(ctype)
    raise _refuse(f"the type {ctype!r}", ctype)


def _bind(params, values, types: dict[str, np.dtype]) -> None:
    """Bind each placeholder type (``T``) to the dtype of the first array passed for it."""
    for (ctype, _), v in zip(params, values):
        if ctype not in _NUMPY_TYPES and ctype not in types and isinstance(v, np.ndarray):
            types[ctype] = v.dtype
    for (ctype, _), v in zip(params, values):
        if ctype not in _NUMPY_TYPES and ctype not in types:
            types[ctype] = np.asarray(v).dtype  # only scalars for it: their own type


class ElementwiseKernel:
    """CuPy's ``ElementwiseKernel``, run with NumPy (see the module docstring)."""

    def __init__(
        self,
        in_params: str,
        out_params: str,
        operation: str,
        name: str = "kernel",
        reduce_dims: bool = True,
        preamble: str = "",
        no_return: bool = False,
        return_tuple: bool = False,
        loop_prep: str = "",
        after_loop: str = "",
        options: tuple = (),
    ) -> None:
        if preamble or loop_prep or after_loop:
            raise _refuse("a preamble or loop code", preamble or loop_prep or after_loop)
        self.name, self.options = name, tuple(options)
        self.raw: set[str] = set()
        self.in_params = _split_params(in_params, self.raw)
        self.out_params = _split_params(out_params, self.raw)
        inputs = frozenset(name for _, name in self.in_params)
        self.body = _Body(operation, frozenset(self.raw), inputs)
        self.no_return, self.return_tuple = no_return, return_tuple

    def __call__(self, *args: Any, size: Any = None, block_size: Any = None) -> Any:
        from . import _unwrap, _wrap

        n_in, n_out = len(self.in_params), len(self.out_params)
        if len(args) not in (n_in, n_in + n_out):
            raise TypeError(f"Wrong number of arguments for {self.name!r}")
        ins = [_unwrap(a) for a in args[:n_in]]
        outs = [_unwrap(a) for a in args[n_in:]]
        types: dict[str, np.dtype] = {}
        _bind(self.in_params + self.out_params[: len(outs)], ins + outs, types)
        looped = [  # the arguments the loop runs over: all but the raw ones
            a
            for (_, name), a in zip(self.in_params + self.out_params, ins + outs)
            if name not in self.raw and isinstance(a, np.ndarray)
        ]
        shape = np.broadcast_shapes(*(a.shape for a in looped))
        for (_, name), out in zip(self.out_params, outs):
            if name not in self.raw and out.shape != shape:
                raise ValueError(f"Out shape is mismatched: {name} has {out.shape}, not {shape}")
        env: dict[str, Any] = {}
        for (ctype, name), value in zip(self.in_params, ins):
            if name in self.raw and not isinstance(value, np.ndarray):
                raise TypeError(f"the raw argument {name!r} of {self.name!r} must be an array")
            env[name] = (
                _computed(value)
                if isinstance(value, np.ndarray)
                else _to(value, _dtype(ctype, types))
            )
        if not outs:
            if any(name in self.raw for _, name in self.out_params):
                raise ValueError(f"{self.name!r} has a raw output: pass it")
            outs = [np.empty(shape, _dtype(ctype, types)) for ctype, _ in self.out_params]
        for (_, name), out in zip(self.out_params, outs):
            env[name] = out if name in self.raw else _computed(out.copy())  # raw: in place
            types[f"var:{name}"] = out.dtype
        for ctype, name in self.in_params:
            types[f"var:{name}"] = _dtype(ctype, types)
        self.body.run(env, types, shape)
        for (_, name), out in zip(self.out_params, outs):
            if name not in self.raw:
                np.copyto(out, np.broadcast_to(env[name], shape), casting="unsafe")
        if self.no_return:
            return None
        result = [_wrap(o) if type(o) is np.ndarray else o for o in outs]
        result = [args[n_in + k] if k < len(args) - n_in else r for k, r in enumerate(result)]
        return tuple(result) if self.return_tuple or n_out > 1 else result[0]


_REDUCERS = {"a + b": np.sum, "max(a, b)": np.fmax.reduce, "min(a, b)": np.fmin.reduce}


class ReductionKernel:
    """CuPy's ``ReductionKernel``, run with NumPy: ``map_expr`` over the inputs in ``reduce_type``,
    reduced with ``a + b``, ``max(a, b)`` or ``min(a, b)``, then ``post_map_expr`` on ``a``."""

    def __init__(
        self,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity: Any,
        name: str = "reduce_kernel",
        reduce_type: str | None = None,
        reduce_dims: bool = True,
        preamble: str = "",
        options: tuple = (),
    ) -> None:
        if preamble:
            raise _refuse("a preamble", preamble)
        if reduce_expr.strip() not in _REDUCERS:
            raise _refuse(f"the reduction {reduce_expr!r}", reduce_expr)
        self.name, self.options = name, tuple(options)
        self.in_params, self.out_params = _split_params(in_params), _split_params(out_params)
        if len(self.out_params) != 1:
            raise _refuse("a reduction with several outputs", out_params)
        if len(self.in_params) == 1:
            map_expr, post_map_expr = self._as_cub_rewrites_them(map_expr, post_map_expr)
        self.map = _Body(f"_m = {map_expr}")
        self.reduce = _REDUCERS[reduce_expr.strip()]
        self.post = post_map_expr
        self.reduce_type = reduce_type

    def _as_cub_rewrites_them(self, map_expr: str, post_map_expr: str) -> tuple[str, str]:
        """CuPy runs a one-input, one-output reduction over contiguous axes through CUB, and
        rewrites its expressions as plain text first: every occurrence of the input's name in
        ``map_expr`` becomes ``in0`` and of the output's in ``post_map_expr`` ``out0`` (inside
        other words too), and ``_in_ind.size()``/``_out_ind.size()`` are replaced only in a
        kernel whose name contains "mean" (elsewhere they are undefined and the GPU does not
        compile). Done here to the same text, so what would break on a GPU breaks here."""
        (in_type, in_name), (out_type, out_name) = self.in_params[0], self.out_params[0]
        if "mean" in self.name:
            post_map_expr = post_map_expr.replace("_in_ind.size()", "_segment_size")
            post_map_expr = post_map_expr.replace("_out_ind.size()", "1.0")
        elif "_ind.size()" in post_map_expr:
            raise TypeError(
                f"reduction {self.name!r}: with one input and one output CuPy runs it through "
                "CUB, where _in_ind/_out_ind are undefined (the GPU does not compile it): pass the "
                "count as a second input instead"
            )
        self.in_params, self.out_params = [(in_type, "in0")], [(out_type, "out0")]
        return map_expr.replace(in_name, "in0"), post_map_expr.replace(out_name, "out0")

    def __call__(
        self,
        *args: Any,
        out: Any = None,
        axis: Any = None,
        keepdims: bool = False,
        stream: Any = None,
    ) -> Any:
        from . import _unwrap, _wrap

        if len(args) != len(self.in_params):
            raise TypeError(f"Wrong number of arguments for {self.name!r}")
        ins = [_unwrap(a) for a in args]
        types: dict[str, np.dtype] = {}
        _bind(self.in_params, ins, types)
        shape = np.broadcast_shapes(*(np.shape(a) for a in ins if isinstance(a, np.ndarray)))
        env = {}
        for (ctype, name), value in zip(self.in_params, ins):
            env[name] = (
                _computed(value)
                if isinstance(value, np.ndarray)
                else _to(value, _dtype(ctype, types))
            )
            types[f"var:{name}"] = _dtype(ctype, types)
        rtype = _dtype(self.reduce_type or self.in_params[0][0], types)
        types["var:_m"] = rtype
        try:
            self.map.run(env, types)
        except NameError as e:
            raise TypeError(f"reduction {self.name!r} would not compile on a GPU: {e}") from e
        mapped = np.broadcast_to(env["_m"], shape)
        reduced = np.asarray(self.reduce(mapped, axis=axis, keepdims=keepdims), dtype=rtype)
        n_in, n_out = mapped.size, max(reduced.size, 1)
        ctype, name = self.out_params[0]
        otype = _dtype(ctype, types)
        post = self.post.replace("_in_ind.size()", f"({n_in})")
        post = post.replace("_out_ind.size()", f"({n_out})")
        post = re.sub(r"\b_segment_size\b", f"({n_in // n_out})", post)
        post_env = {"a": reduced}  # and the scalar inputs (array inputs are per element)
        post_env.update((n, env[n]) for (_, n), v in zip(self.in_params, ins) if np.ndim(v) == 0)
        types[f"var:{name}"] = otype
        try:
            _Body(post).run(post_env, types)
        except NameError as e:  # a name mangled by the CUB rewriting above, as on a GPU
            raise TypeError(f"reduction {self.name!r} would not compile on a GPU: {e}") from e
        result = np.asarray(np.broadcast_to(post_env[name], reduced.shape)).astype(otype)
        if out is not None:
            np.copyto(_unwrap(out), result, casting="unsafe")
            return out
        return _wrap(result)
