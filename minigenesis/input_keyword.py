"""PyTorch's ``input=`` keyword for the ``mg.*`` functions whose first parameter has a shorter
name in this code (``x``, ``a`` or ``t``): ``torch.add(input=x, other=y)``,
``torch.sum(input=x, dim=1)``, ``torch.clamp(input=x, min=0)``.

PyTorch names the tensor an op reads ``input`` in every ``torch.*`` function, and its argument
parser takes it by keyword like any other parameter. Here the functions are written with ``x``
(the name the math uses), so ``accepts_input(fn)`` wraps each one whose first parameter is so
named; ``__init__.py`` applies it to the package's functions. A call that gives the first
argument twice (``mg.add(x, input=y)``) is refused, as Python refuses it for a plain function,
instead of shifting every positional argument one place to the right.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

# the names this code gives the tensor PyTorch calls ``input``
INPUT_SPELLINGS = frozenset({"x", "a", "t"})
# functions whose first parameter PyTorch names otherwise: its own name, or None where PyTorch
# uses this code's name too (torch.vander(x=...), torch.tensordot(a=..., b=...)) or takes the
# argument by position only (torch.is_tensor)
FIRST_NAMES: dict[str, str | None] = {
    "split": "tensor", "vander": None, "tensordot": None, "promote_types": None,
    "is_tensor": None, "set_default_tensor_type": None, "get_array_module": None,
}  # fmt: skip


def first_parameter(fn: Callable[..., Any]) -> str | None:
    """The name of ``fn``'s first positional parameter, looking through ``functools.wraps``
    wrappers (``out=``, ``axis=``); None for a function without one (``def f(*args)``) or
    without Python code (a class, a builtin)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None or code.co_argcount == 0:
        return None
    return code.co_varnames[0]


def accepts_input(fn: Callable[..., Any], keyword: str = "input") -> Callable[..., Any]:
    """``fn`` that also takes its first argument as ``keyword=`` (PyTorch's name for it).

    Every ``mg.*`` call goes through this, so it costs as little as it can: ``fn`` itself where
    its outermost layer already names the parameter so (the ``out=`` wrapper of a one-argument
    op: tanh, exp, sigmoid ...); a one-line wrapper with the keyword as its parameter where ``fn``
    takes exactly one argument (relu ...; a Python-to-Python call packs no tuple or dict);
    otherwise a wrapper that passes a call without keywords straight on."""
    code = getattr(fn, "__code__", None)
    if code is not None and code.co_argcount > 0 and code.co_varnames[0] == keyword:
        return fn
    first = first_parameter(fn)
    name = getattr(fn, "__name__", "function")
    if keyword == "input" and code is not None and _takes_one_argument(fn, code):

        def call_one(input: Any) -> Any:  # noqa: A002  (PyTorch's name)
            return fn(input)

        return functools.wraps(fn)(call_one)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # most calls: nothing to look at
            return fn(*args)
        if keyword in kwargs:
            if args or first in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{keyword}'")
            args = (kwargs.pop(keyword),)
        return fn(*args, **kwargs)

    return call


def _takes_one_argument(fn: Callable[..., Any], code: Any) -> bool:
    """Whether ``fn`` (of this code) takes exactly one argument, by position or keyword, and
    nothing else (no defaults, keyword-only parameters, ``*args`` or ``**kwargs``)."""
    packs = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    one = code.co_argcount == 1 and not code.co_kwonlyargcount and not packs
    return one and not getattr(fn, "__defaults__", None)


def torch_first_name(name: str, fn: Any) -> str | None:
    """PyTorch's keyword for the first argument of the package's function ``name`` where this
    code names that parameter otherwise (``input``, or ``FIRST_NAMES``'s entry); None where
    ``fn`` already takes PyTorch's keyword (or is no function)."""
    if not callable(fn) or isinstance(fn, type) or first_parameter(fn) not in INPUT_SPELLINGS:
        return None
    return FIRST_NAMES.get(name, "input")


def sizes_or_keyword(name: str, given: tuple, keyword: Any, keyword_name: str) -> tuple:
    """The sizes (or dims) of a method that takes them one by one, as one sequence, or by
    PyTorch's keyword: ``x.expand(2, 3)``, ``x.expand((2, 3))``, ``x.expand(size=(2, 3))``.
    ``given``: the positional ones; ``keyword``: the keyword's value (None when not given)."""
    if keyword is not None:
        if given:
            raise TypeError(f"{name}() got multiple values for argument '{keyword_name}'")
        given = (keyword,)
    return given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given
