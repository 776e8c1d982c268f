"""What a training checkpoint must hold, written as a schema, and the check of a loaded one.

``--resume`` reads a file that anyone may have edited. Before any value of it is used, the
whole of it is checked against a schema: every dict has exactly the keys the run itself would
save, every number is of the right kind and in its range (finite, where the run needs it), every
tensor has the shape and dtype of the run's own. The first problem found becomes one line
(``where: what was expected, what was found``), so a hostile or damaged file ends the command
with a clear message instead of a traceback somewhere inside the run.

A schema is built from a few small checks, each a function ``check(value, where)`` that returns
a description of the problem, or None when the value fits::

    Record({"scale": Real(above=0), ...})        a dict with exactly these keys
    ListOf(Real(low=0))                          a list whose every item fits
    Count(high=10**6)                            an int in [0, high] (never a bool)
    Real(low=0, below=1)                         an int or float in [0, 1), finite
    TensorOf(shape, dtype)                       a tensor of this shape and dtype, finite values
    like(own_value)                              the structure of the run's own value

Descriptions of the values found never print them whole (an int of 5,000 digits cannot even be
turned into text by default: ``sys.set_int_max_str_digits``), see ``_short``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._tensor import Tensor

# A check: the problem with ``value`` found at ``where``, or None when it fits.
Check = Callable[[Any, str], "str | None"]

# The largest count any field may hold: far beyond any real run (10**6 epochs of 10**6 steps),
# and small enough that every such count is exact as a float.
MAX_COUNT = 10**12


def _short(value: Any) -> str:
    """A short description of ``value`` for an error message (never a huge repr)."""
    if isinstance(value, Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)}"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (bool, int, float, str, type(None))):
        text = repr(value)
        return text if len(text) <= 40 else f"a {type(value).__name__} of {len(value)} chars"
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value)} entries"
    return f"a {type(value).__name__}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _as_float(value: Any) -> float | None:
    """The float of an int or float (not a bool), or None if it is neither or too large."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int beyond 1.8e308
        return None


# ------------------------------------------------------------------ the checks
def Count(high: int = MAX_COUNT, low: int = 0) -> Check:  # noqa: N802 (reads as a type)
    """An int (not a bool) in ``[low, high]``."""

    def check(value: Any, where: str) -> str | None:
        if _is_int(value) and low <= value <= high:
            return None
        return f"{where} should be an integer in [{low}, {high}], got {_short(value)}"

    return check


def Real(  # noqa: N802 (reads as a type)
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    below: float | None = None,
    finite: bool = True,
) -> Check:
    """An int or float (not a bool) within the bounds given: ``low <= x``, ``x <= high``,
    ``above < x``, ``x < below``; finite unless ``finite=False`` (then inf and NaN pass, but
    an int too large for a float still does not)."""
    bounds = [(">=", low), ("<=", high), (">", above), ("<", below)]
    wanted = ("a finite number" if finite else "a number") + "".join(
        f" {sign} {bound:g}" for sign, bound in bounds if bound is not None
    )

    def check(value: Any, where: str) -> str | None:
        x = _as_float(value)
        fits = x is not None and (not finite or math.isfinite(x))
        if fits and not math.isnan(x):
            fits = ((low is None or x >= low) and (high is None or x <= high)
                    and (above is None or x > above) and (below is None or x < below))  # fmt: skip
        return None if fits else f"{where} should be {wanted}, got {_short(value)}"

    return check


def OneOf(*allowed: Any) -> Check:  # noqa: N802 (reads as a type)
    """One of the given values, of the same type (``True`` is not ``1``)."""

    def check(value: Any, where: str) -> str | None:
        if any(type(value) is type(a) and value == a for a in allowed):
            return None
        return f"{where} should be one of {', '.join(map(repr, allowed))}, got {_short(value)}"

    return check


def Optional(inner: Check) -> Check:  # noqa: N802 (reads as a type)
    """None, or a value that fits ``inner``."""
    return lambda value, where: None if value is None else inner(value, where)


def ListOf(item: Check, length: int | None = None, kinds: tuple = (list,)) -> Check:  # noqa: N802
    """A list (or one of ``kinds``) whose every item fits ``item``; of ``length`` items if given."""

    def check(value: Any, where: str) -> str | None:
        if not isinstance(value, kinds) or (length is not None and len(value) != length):
            size = f"{length} " if length is not None else ""
            return f"{where} should be a {kinds[0].__name__} of {size}entries, got {_short(value)}"
        return _first(item(v, f"{where}[{i}]") for i, v in enumerate(value))

    return check


def Items(*items: Check, kinds: tuple = (list,)) -> Check:  # noqa: N802 (reads as a type)
    """A list (or one of ``kinds``) of exactly these items, each fitting its own check."""

    def check(value: Any, where: str) -> str | None:
        if not isinstance(value, kinds) or len(value) != len(items):
            return (f"{where} should be a {kinds[0].__name__} of {len(items)} entries, "
                    f"got {_short(value)}")  # fmt: skip
        return _first(c(v, f"{where}[{i}]") for i, (c, v) in enumerate(zip(items, value)))

    return check


def Record(fields: Mapping[str, Check], optional: tuple[str, ...] = ()) -> Check:  # noqa: N802
    """A dict with exactly the keys of ``fields`` (those in ``optional`` may be absent), each
    value fitting its check. A key the run would not save is refused: loading it would set an
    attribute the run never meant to have."""

    def check(value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where or 'it'} should be a dict, got {_short(value)}"
        unknown = [k for k in value if k not in fields]
        if unknown:
            return f"{where or 'it'} has an unexpected key {_short(unknown[0])}"
        missing = [k for k in fields if k not in value and k not in optional]
        if missing:
            return f"{where or 'it'} lacks the key {missing[0]!r}"
        return _first(c(value[k], _key(where, k)) for k, c in fields.items() if k in value)

    return check


def TensorOf(shape: tuple, dtype: Any, low: float | None = None) -> Check:  # noqa: N802
    """A tensor of this shape and dtype whose values are finite (and ``>= low`` if given)."""

    def check(value: Any, where: str) -> str | None:
        wanted = f"a {dtype} tensor of shape {tuple(shape)}"
        if not isinstance(value, Tensor) or tuple(value.shape) != tuple(shape):
            return f"{where} should be {wanted}, got {_short(value)}"
        if value.dtype != dtype:
            return f"{where} should be {wanted}, got {_short(value)}"
        if value.dtype.is_floating_point:
            values = np.asarray(value.detach().float().cpu().numpy())
            if not np.isfinite(values).all():
                return f"{where} holds inf or NaN values"
            if low is not None and (values < low).any():
                return f"{where} holds values below {low}"
        return None

    return check


def like(own: Any) -> Check:
    """The structure of ``own`` (a value of the run's own state): the same keys, lengths,
    tensor shapes and dtypes, numbers where it has numbers (finite where it has finite ones)."""
    if isinstance(own, dict):
        return Record({k: like(v) for k, v in own.items()})
    if isinstance(own, (list, tuple)):
        return Items(*(like(v) for v in own), kinds=(type(own), list, tuple))
    if isinstance(own, Tensor):
        return TensorOf(tuple(own.shape), own.dtype)
    if _is_int(own):
        return Count(low=-MAX_COUNT)
    if isinstance(own, float):
        return Real(finite=math.isfinite(own))
    return OneOf(own)  # a flag, a name or None: the run's own setting


def Exactly(own: Any) -> Check:  # noqa: N802 (reads as a type)
    """Equal to ``own`` (a list of plain values), item by item and type by type."""

    def check(value: Any, where: str) -> str | None:
        same = type(value) is type(own) and len(value) == len(own) and all(
            type(a) is type(b) and a == b for a, b in zip(value, own))  # fmt: skip
        return None if same else f"{where} should be {own!r}, got {_short(value)}"

    return check


def _key(where: str, key: Any) -> str:
    """The path of ``key`` inside ``where``: ``optimizer_state_dict['param_groups']``."""
    return f"{where}[{_short(key)}]" if where else str(key)


def _first(problems: Any) -> str | None:
    return next((p for p in problems if p), None)


# ------------------------------------------------------------------ the training checkpoint
Number = Real(finite=False)  # a float of the run's logs (inf/NaN allowed), never a huge int
Rate = Real(low=0, high=1e6)  # a learning rate: finite, >= 0, at most --lr's own limit


def Dict(value: Any, where: str) -> str | None:  # noqa: N802 (reads as a type)
    """Any dict (its contents are checked once the run's own state is known)."""
    return None if isinstance(value, dict) else f"{where} should be a dict, got {_short(value)}"


def AnyTensor(value: Any, where: str) -> str | None:  # noqa: N802 (reads as a type)
    return None if isinstance(value, Tensor) else f"{where} should be a tensor, got {_short(value)}"


def Columns(value: Any, where: str) -> str | None:  # noqa: N802 (reads as a type)
    """The history: a dict of columns, each a list of numbers."""
    return Dict(value, where) or _first(
        ListOf(Number)(column, f"{where}[{_short(key)}]") for key, column in value.items()
    )


def Setting(value: Any, where: str) -> str | None:  # noqa: N802 (reads as a type)
    """A setting's value: a bool, a str, a float or an int of at most 64 bits (the settings'
    own types and ranges are checked by ``TrainConfig.validate``)."""
    if isinstance(value, (bool, str, float)) or (_is_int(value) and value.bit_length() <= 64):
        return None
    return f"{where} should be a number, a string or a bool, got {_short(value)}"


def _settings(names: tuple[str, ...]) -> Check:
    return Record(dict.fromkeys(names, Setting), optional=names)


# The fields ``python -m minigenesis train`` saves, checked before anything else reads them (the
# states' contents need the run's own model: see ``fit_schema``). Checkpoints of older versions
# lack epoch_sums, lrs, best, grad_norm, grad_flow and best_loss.
def top_level_schema(setting_names: tuple[str, ...]) -> Check:
    return Record(
        {
            "format": OneOf("minigenesis-train/1"),
            "model_state_dict": Dict,
            "optimizer_state_dict": Dict,
            "scheduler_state_dict": Dict,
            "scaler_state_dict": Dict,
            "rng_state": AnyTensor,
            "epoch": Count(high=10**6),  # --epochs' own limit
            "step": Count(),
            "batch_in_epoch": Count(),
            "epoch_sums": Items(Real(low=0), Count(), Count()),  # loss * n, correct, n
            "history": Columns,
            "lrs": ListOf(Rate),
            "best": Record(
                {
                    "val_acc": Real(low=-1, high=1),
                    "val_loss": Real(low=0),
                    "epoch": Optional(Count(high=10**6)),
                },
                optional=("val_loss",),
            ),  # fmt: skip
            "grad_norm": Number,
            "grad_flow": Record({"steps": Count(), "layers": Dict}),  # the layers: fit_schema
            "config": _settings(setting_names),
            "best_loss": Optional(Real(low=0)),
        },
        optional=("epoch_sums", "lrs", "best", "grad_norm", "grad_flow", "best_loss"),
    )


def fit_schema(own: dict[str, Any], params: list, metric_fields: list[str]) -> Check:
    """The checkpoint's states, against the run's own (``own``: the state_dict of the model,
    optimizer (AdamW), scheduler (LambdaLR) and GradScaler the run has built, and its rng_state;
    ``params``: the model's parameters, in the optimizer's order). It checks a dict of these
    states and the history, taken from the checkpoint (``top_level_schema`` checks the rest)."""
    groups = own["optimizer_state_dict"]["param_groups"]
    adam_group = {
        **{key: like(value) for key, value in groups[0].items()},
        "lr": Rate, "initial_lr": Rate, "eps": Real(above=0, high=1),
        "betas": Items(Real(low=0, below=1), Real(low=0, below=1), kinds=(tuple, list)),
        "weight_decay": Real(low=0, high=1e6),
        "amsgrad": OneOf(False),  # the run's AdamW keeps no max_exp_avg_sq
    }  # fmt: skip
    param_groups = Items(*(Record({**adam_group, "params": Exactly(g["params"])}) for g in groups))
    n_groups = len(groups)
    scheduler = {
        **{key: like(value) for key, value in own["scheduler_state_dict"].items()},
        "base_lrs": ListOf(Rate, length=n_groups), "_last_lr": ListOf(Rate, length=n_groups),
        "last_epoch": Count(low=-1), "_step_count": Count(),
    }  # fmt: skip
    scaler = {}
    if own["scaler_state_dict"]:  # an enabled GradScaler (with amp); {} without
        scaler = {
            "scale": Real(above=0, high=2.0**127),  # finite in float32, > 0
            "growth_factor": Real(above=1, high=1e6), "backoff_factor": Real(above=0, below=1),
            "growth_interval": Count(low=1), "_growth_tracker": Count(),
        }  # fmt: skip
    # grad_flow.png's summary (diagnostics.GradFlowSummary): per parameter of the model, the
    # steps it had a gradient (at least 1, at most the summary's steps), the sum and the max of
    # its gradient norm (>= 0; inf and NaN allowed: a skipped float16 step has them)
    norm = Real(low=0, finite=False)
    layer = Items(Count(low=1), norm, norm)
    names = tuple(own["model_state_dict"])
    grad_flow = Record({"steps": Count(), "layers": Record(dict.fromkeys(names, layer),
                                                            optional=names)})  # fmt: skip
    history_column = {name: ListOf(Number) for name in metric_fields}
    history_column.update(epoch=ListOf(Count(high=10**6)), step=ListOf(Count()),
                          lr=ListOf(Rate), loss_scale=ListOf(Real(above=0)))  # fmt: skip
    return Record(
        {
            "model_state_dict": like(own["model_state_dict"]),
            "optimizer_state_dict": Record(
                {"state": _adam_state(params), "param_groups": param_groups}
            ),  # fmt: skip
            "scheduler_state_dict": Record(scheduler),
            "scaler_state_dict": Record(scaler),
            "rng_state": like(own["rng_state"]),
            "history": Record(history_column),
            "grad_flow": _within_steps(grad_flow),
        },
        optional=("grad_flow",),
    )


def _within_steps(inner: Check) -> Check:
    """``inner``, and no layer counted in more steps than the summary has seen."""

    def check(value: Any, where: str) -> str | None:
        problem = inner(value, where)
        if problem:
            return problem
        for name, (n, _, _) in value["layers"].items():
            if n > value["steps"]:
                return (f"{where}['layers'][{_short(name)}] counts {n} steps of the "
                        f"{value['steps']} the summary has seen")  # fmt: skip
        return None

    return check


def _adam_state(params: list) -> Check:
    """AdamW's per-parameter state: ``{index: {step, exp_avg, exp_avg_sq}}`` for any of the
    parameters' indices, each moment finite and of its parameter's shape and dtype; the second
    moment >= 0 (its square root is taken)."""

    def check(value: Any, where: str) -> str | None:
        if not isinstance(value, dict):
            return f"{where} should be a dict, got {_short(value)}"
        for index, entry in value.items():
            if not (_is_int(index) and 0 <= index < len(params)):
                return f"{where} has an entry {_short(index)} that belongs to no parameter"
            p = params[index]
            shape, dtype = tuple(p.shape), p.dtype
            problem = Record({
                "step": lambda v, w: (TensorOf((), v.dtype)(v, w) if isinstance(v, Tensor)
                                      else None) or _step_value(v, w),
                "exp_avg": TensorOf(shape, dtype),
                "exp_avg_sq": TensorOf(shape, dtype, low=0),
            })(entry, f"{where}[{index}]")  # fmt: skip
            if problem:
                return problem
        return None

    return check


def _step_value(value: Any, where: str) -> str | None:
    number = value.item() if isinstance(value, Tensor) else value
    return Real(low=0, high=MAX_COUNT)(number, where)
