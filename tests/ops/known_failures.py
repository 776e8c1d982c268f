"""Known failures of the battery: (entry id pattern, check) -> the bug, in one line.

Each one is a strict xfail: when the bug is fixed the test passes, the xfail fails, and the row
is removed here. A pattern may use fnmatch's ``*`` where one bug fails a check for many entries.
Nothing else in tests/ops skips or loosens a check for one op.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

KNOWN_FAILURES: dict[tuple[str, str], str] = {
    ("square", "forward"): "square of a bool tensor stays bool (PyTorch: int64)",
    ("square", "torch"): "square of a bool tensor stays bool (PyTorch: int64)",
    ("i0", "grad_torch"): "i0's backward raises on a NaN input",
    ("nan_to_num*", "forward"): "nan_to_num on bfloat16 raises ValueError",
    ("nan_to_num*", "torch"): "nan_to_num on bfloat16 raises ValueError",
    ("div/*", "variants"): "Tensor.div has no rounding_mode (it is __truediv__)",
    ("div/*", "inplace"): "Tensor.div_ has no rounding_mode",
    ("div/*", "inplace_view"): "Tensor.div_ has no rounding_mode",
    ("div/floor", "inplace_view_grad"): "Tensor.div_ has no rounding_mode",
    ("div/trunc", "inplace_view_grad"): "Tensor.div_ has no rounding_mode",
    (
        "div/floor",
        "requires_grad",
    ): "div(rounding_mode='floor') drops requires_grad (PyTorch: 0 grad)",
    ("div/trunc", "forward"): "div(inf, 1, rounding_mode='trunc') is NaN (PyTorch: inf)",
    ("div/trunc", "torch"): "div(inf, 1, rounding_mode='trunc') is NaN (PyTorch: inf)",
    ("hypot", "forward"): "hypot(NaN, inf) is NaN (PyTorch and C: inf)",
    ("hypot", "torch"): "hypot(NaN, inf) is NaN (PyTorch and C: inf)",
    ("copysign", "requires_grad"): "copysign(int, float requiring grad) does not require grad",
    ("copysign", "grad_torch"): "copysign's gradient at a NaN input is 0 (PyTorch: NaN)",
    ("lerp", "errors"): "lerp with a float64 weight for float32 ends runs (PyTorch: one dtype)",
    ("prod", "gradgrad"): "prod refuses create_graph=True (PyTorch has its second derivative)",
    ("max", "errors"): "max(dim=(0, 2)) runs and returns a wrong shape (PyTorch: TypeError)",
    ("min", "errors"): "min(dim=(0, 2)) runs and returns a wrong shape (PyTorch: TypeError)",
    ("argmax", "errors"): "argmax(dim=(0, 2)) runs (PyTorch: TypeError, dim is one int)",
    ("argmin", "errors"): "argmin(dim=(0, 2)) runs (PyTorch: TypeError, dim is one int)",
    ("isclose", "torch"): "isclose of float32 and float64 runs (PyTorch: RuntimeError)",
    # Not our bugs: at a pole PyTorch's gradient is not the limit; ours is (the float64 truth).
    ("logit", "grad_torch"): "at x = -0.0 PyTorch's gradient is +inf; 1/(x(1-x)) is -inf",
    ("digamma", "grad_torch"): "at x = -1, -2 PyTorch's trigamma is finite (6.6e32); it is inf",
}

# mg.<name>(..., out=) is refused (TypeError) where PyTorch's function takes out=
NO_OUT = (
    "asin acos atan erfinv lgamma digamma floor ceil trunc round round/decimals frac signbit "
    "nan_to_num nan_to_num/limits clamp_min clamp_max bitwise_not logical_and logical_or "
    "logical_xor bitwise_and bitwise_or bitwise_xor lerp cumprod"
)
for _name in NO_OUT.split():
    KNOWN_FAILURES[(_name, "out")] = "out= is not accepted (PyTorch's function takes it)"


def known_failure(entry_id: str, check: str) -> str | None:
    """The description of the known bug that fails this check of this entry, if any."""
    for (pattern, known_check), why in KNOWN_FAILURES.items():
        if known_check == check and fnmatchcase(entry_id, pattern):
            return why
    return None
