"""``mg.library``: your own operators, as PyTorch 2.4+'s ``torch.library.custom_op`` makes them.

    @mg.library.custom_op("mylib::numpy_sin", mutates_args=())
    def numpy_sin(x: Tensor) -> Tensor:
        return mg.from_numpy(np.sin(x.numpy()))

    @numpy_sin.register_fake                 # the output's shape and dtype, without computing
    def _(x):
        return mg.empty_like(x)

    numpy_sin.register_autograd(backward, setup_context=setup_context)

An operator wraps a function that autograd cannot see into (NumPy, a C library): its gradient
comes from ``register_autograd`` (``setup_context(ctx, inputs, output)`` saves what
``backward(ctx, *grads)`` needs; backward returns one gradient per input, None for a
non-tensor). Without it, an input that requires grad gives an output whose backward raises.
``mutates_args`` names the inputs the function writes in place (their version counters move, so
autograd notices a stale saved value); ``opcheck`` tests those claims on sample inputs.

The operator is also reachable as ``mg.ops.<namespace>.<name>`` (and ``.default``). There is no
tracing compiler here, so the fake implementation is used by ``opcheck`` only: it must give the
real output's shape and dtype.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from .autograd import Function
from .autograd.grad_mode import no_grad
from .autograd.tensor_base import TensorBase
from .backend import to_numpy
from .ops.custom_namespace import register

__all__ = ["CustomOpDef", "custom_op", "opcheck", "register_autograd", "register_fake"]

_ops: dict[str, CustomOpDef] = {}  # "namespace::name" -> its operator


class CustomOpDef:
    """A custom operator: call it like its function; register its fake and autograd formulas."""

    def __init__(self, qualname: str, fn: Callable, mutates_args: Iterable[str]) -> None:
        namespace, _, name = qualname.partition("::")
        if not namespace or not name or not name.replace("_", "a").isalnum():
            raise ValueError(
                f"custom_op: expected a name like 'mylib::my_op', got {qualname!r} "
                "(a namespace, '::' and a valid identifier)"
            )
        self._qualname, self._name, self._init_fn = qualname, name, fn
        self._params = list(inspect.signature(fn).parameters)
        unknown = set(mutates_args) - set(self._params)
        if unknown:
            raise ValueError(
                f"custom_op {qualname}: mutates_args names {sorted(unknown)}, which are not "
                f"arguments of the function ({self._params})"
            )
        self._mutates = tuple(mutates_args)
        self._fake_fn: Callable | None = None
        self._backward_fn: Callable | None = None
        self._setup_context_fn: Callable | None = None
        self.default = self  # torch.ops.<ns>.<name>.default: the one overload
        self.__name__ = name
        self.__doc__ = fn.__doc__

    # -------------------------------------------------------------------------- registration
    def register_fake(self, fn: Callable) -> Callable:
        """The shape-and-dtype function (a decorator: returns ``fn``)."""
        self._fake_fn = fn
        return fn

    def register_autograd(self, backward: Callable, *, setup_context: Callable | None = None):
        """The gradient formula: ``setup_context(ctx, inputs, output)`` then
        ``backward(ctx, *grads)`` returning one gradient per input."""
        self._backward_fn, self._setup_context_fn = backward, setup_context

    def register_kernel(self, device_types: str | Iterable[str], fn: Callable | None = None):
        """A device-specific implementation; here one kernel serves every device (NumPy's or
        CuPy's arrays reach it as tensors), so it replaces the function."""

        def register_it(f: Callable) -> Callable:
            self._init_fn = f
            return f

        return register_it if fn is None else register_it(fn)

    # ------------------------------------------------------------------------------- calling
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(self._init_fn).bind(*args, **kwargs)
        bound.apply_defaults()
        args = tuple(bound.arguments.values())
        if self._fake_fn is not None and any(
            isinstance(a, TensorBase) and a.device.type == "meta" for a in args
        ):  # meta inputs have no values: the fake implementation gives the output's shapes
            return self._fake_fn(*args)
        wants_grad = any(isinstance(a, TensorBase) and a.requires_grad for a in args)
        if wants_grad and self._backward_fn is not None:
            return self._autograd_function().apply(*args)
        with no_grad():
            out = self._init_fn(*args)
        _refuse_aliases(self._qualname, out, args)
        for name in self._mutates:  # written in place: autograd must see the new version
            value = bound.arguments[name]
            if isinstance(value, TensorBase):
                value._bump_version()
        if wants_grad and isinstance(out, TensorBase):
            return _NoAutograd.apply(out.detach(), self._qualname, *args)
        return out

    def _autograd_function(self) -> type:
        fn, setup, backward = self._init_fn, self._setup_context_fn, self._backward_fn

        def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
            if setup is not None:
                setup(ctx, inputs, output)

        def backward_all(ctx: Any, *grads: Any) -> Any:
            result = backward(ctx, *grads)
            return result if isinstance(result, tuple) else (result,)

        return type(
            self._name,
            (Function,),
            {
                "forward": staticmethod(fn),
                "setup_context": staticmethod(setup_context),
                "backward": staticmethod(backward_all),
            },
        )

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"


def _root(array: Any) -> Any:
    """The array that owns ``array``'s memory (a view's base, followed down)."""
    while getattr(array, "base", None) is not None:
        array = array.base
    return array


def _refuse_aliases(qualname: str, out: Any, args: tuple) -> None:
    """PyTorch's RuntimeError for an output that is an input or a view of one: a custom op's
    outputs must be new tensors (autograd and the mutation tracking assume it)."""
    inputs = {id(_root(a._data)) for a in args if isinstance(a, TensorBase)}
    for o in out if isinstance(out, tuple | list) else (out,):
        if isinstance(o, TensorBase) and id(_root(o._data)) in inputs:
            raise RuntimeError(
                f"{qualname}: The output "
                "of this custom operator (1) must not also be an input to this custom operator "
                "and (2) may not alias any inputs to this custom operator or other returns. The "
                "most common way to trigger this error is if we have y = custom_op(x) and y and "
                "x are the same Tensor. Please instead return a clone of the offending output "
                "tensor(s) (e.g. return x.clone()) or refactor the custom operator to not return "
                "y."
            )


class _NoAutograd(Function):
    """The output of an operator with no registered gradient, given inputs that require grad:
    it is part of the graph (so the mistake shows), and its backward raises, as PyTorch's."""

    @staticmethod
    def forward(ctx: Any, out: Any, qualname: str, *inputs: Any) -> Any:
        ctx.qualname = qualname
        return out.clone()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        raise RuntimeError(
            f"Autograd has not been implemented for operator {ctx.qualname}. Please register "
            "an autograd formula with torch.library.register_autograd."
        )


def custom_op(
    name: str,
    fn: Callable | None = None,
    /,
    *,
    mutates_args: Iterable[str] | str,
    device_types: str | Iterable[str] | None = None,
    schema: str | None = None,
) -> Any:
    """Make ``fn`` an operator named ``"namespace::name"`` (a decorator when ``fn`` is None).
    ``mutates_args``: the argument names it writes in place (``()`` for none; PyTorch requires
    it to be given); ``"unknown"`` means it may write any of them."""

    def make(f: Callable) -> CustomOpDef:
        mutated = (
            list(inspect.signature(f).parameters) if mutates_args == "unknown" else mutates_args
        )
        op = CustomOpDef(name, f, mutated)
        _ops[name] = op
        namespace, _, op_name = name.partition("::")
        register(namespace, op_name, op)
        return op

    return make if fn is None else make(fn)


def _op(op: str | CustomOpDef) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    if op not in _ops:
        raise RuntimeError(f"operator {op} does not exist: define it with custom_op first")
    return _ops[op]


def register_fake(op: str | CustomOpDef, fn: Callable | None = None, /) -> Any:
    """``register_fake("mylib::crop")`` as a decorator, or with the function."""
    target = _op(op)
    return target.register_fake if fn is None else target.register_fake(fn)


def register_autograd(
    op: str | CustomOpDef, backward: Callable, /, *, setup_context: Callable | None = None
) -> None:
    """``register_autograd("mylib::numpy_sin", backward, setup_context=...)``."""
    _op(op).register_autograd(backward, setup_context=setup_context)


def opcheck(
    op: str | CustomOpDef,
    args: tuple | list,
    kwargs: dict | None = None,
    *,
    test_utils: str | Iterable[str] = (
        "test_schema",
        "test_autograd_registration",
        "test_faketensor",
    ),
    raise_exception: bool = True,
) -> dict[str, str]:
    """Check an operator's claims on one sample input, as PyTorch's opcheck does:

    - test_schema: it writes in place only the arguments in ``mutates_args``;
    - test_autograd_registration: inputs that require grad have a gradient formula to use;
    - test_faketensor: the fake implementation gives the real output's shapes and dtypes.

    Returns ``{test: "SUCCESS"}``; a failing test raises ``OpCheckError`` (or is reported as
    its message with ``raise_exception=False``)."""
    target, kwargs = _op(op), kwargs or {}
    tests = [test_utils] if isinstance(test_utils, str) else list(test_utils)
    results = {}
    for test in tests:
        try:
            _CHECKS[test](target, tuple(args), kwargs)
            results[test] = "SUCCESS"
        except OpCheckError as e:
            if raise_exception:
                raise
            results[test] = str(e)
    return results


class OpCheckError(Exception):
    """An operator's behaviour disagrees with what it declared."""


def _clone_args(args: tuple) -> tuple:
    return tuple(a.detach().clone() if isinstance(a, TensorBase) else a for a in args)


def _check_schema(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    bound = inspect.signature(op._init_fn).bind(*_clone_args(args), **kwargs)
    before = {n: v.clone() for n, v in bound.arguments.items() if isinstance(v, TensorBase)}
    with no_grad():
        op._init_fn(*bound.args, **bound.kwargs)
    for n, v in before.items():
        if n not in op._mutates and not _same(bound.arguments[n], v):
            raise OpCheckError(
                f"opcheck(op, ...): test_schema failed: {op._qualname} wrote its argument "
                f"'{n}' in place but mutates_args does not name it"
            )


def _same(a: TensorBase, b: TensorBase) -> bool:
    """Equal shapes and values (NaN where both have NaN counts as equal)."""
    x, y = to_numpy(a._data), to_numpy(b._data)
    return x.shape == y.shape and bool(((x == y) | ((x != x) & (y != y))).all())


def _check_autograd(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    wants = any(isinstance(a, TensorBase) and a.requires_grad for a in args)
    if wants and op._backward_fn is None:
        raise OpCheckError(
            f"opcheck(op, ...): test_autograd_registration failed: inputs require grad but "
            f"{op._qualname} has no autograd formula (register_autograd)"
        )


def _check_fake(op: CustomOpDef, args: tuple, kwargs: dict) -> None:
    if op._fake_fn is None:
        return  # nothing to compare: PyTorch would need one to trace; here nothing traces
    with no_grad():
        real = op._init_fn(*_clone_args(args), **kwargs)
        fake = op._fake_fn(*_clone_args(args), **kwargs)
    reals = real if isinstance(real, tuple) else (real,)
    fakes = fake if isinstance(fake, tuple) else (fake,)
    for i, (r, f) in enumerate(zip(reals, fakes)):
        if isinstance(r, TensorBase) and (tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype):
            raise OpCheckError(
                f"opcheck(op, ...): test_faketensor failed: output {i} of {op._qualname} is "
                f"{r.dtype.name} {list(r.shape)} but its fake implementation gives "
                f"{f.dtype.name} {list(f.shape)}"
            )


_CHECKS = {
    "test_schema": _check_schema,
    "test_autograd_registration": _check_autograd,
    "test_faketensor": _check_fake,
    "test_aot_dispatch_dynamic": lambda op, args, kwargs: None,  # nothing here traces
}
