"""The Optimizer base class: parameter groups, per-parameter state, and (de)serialisation.

An optimizer owns a list of *parameter groups*. Each group is a dict holding ``"params"`` (a list of
tensors) and the hyper-parameters that apply to them (``"lr"``, ``"momentum"`` ...); options a group
does not name come from the optimizer's ``defaults``. Per-parameter buffers (momentum, Adam's
moments) live in ``optimizer.state[param]``, a dict keyed by the parameter itself (tensors hash by
identity).

``Optimizer.step`` is the loop every optimizer shares (groups, parameters, lazy state); a subclass
supplies only its maths: ``init_state`` (its buffers) and ``update``, which reads the gradient's
array and writes into the parameter's with the array module (``xp``) of the parameter, so an
optimizer step never builds an autograd graph. Where a GPU kernel does the same update in one
launch, one line of ``update`` hands the work to it (``kernels/optim.py``).
"""

from __future__ import annotations

import copy
import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import numpy as np

from .._checks import check_real
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..backend import CPU, device_of, get_array_module, quiet_fp, to_device
from ..dtypes import float64, get_default_dtype
from .hooks import (  # noqa: F401  (the global step hooks: torch.optim.optimizer's names)
    OptimizerHooks,
    init_hook_dicts,
    load_post_hooks,
    load_pre_hooks,
    on_new_optimizer_class,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
    state_dict_with_hooks,
)


class _RequiredParameter:
    """Marks a default that every parameter group must set itself (``lr`` in some optimizers)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _check_betas(betas: Any) -> tuple[float, float]:
    """PyTorch's check of Adam-style ``betas``: a pair, each finite and in [0, 1)."""
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
    b1, b2 = betas
    label = "beta parameter at index {}"  # PyTorch's words
    return (
        check_real(b1, "betas[0]", ge=0, lt=1, label=label.format(0)),
        check_real(b2, "betas[1]", ge=0, lt=1, label=label.format(1)),
    )


# The range of every hyper-parameter an optimizer here takes, and how PyTorch's message names it
# ("Invalid learning rate: -0.1"; others "Invalid <name> value"). Same name, same range, in every
# optimizer; finite in all of them (PyTorch checks the sign only, so lr=inf or NaN got through).
_OPTION_RULES: dict[str, dict[str, Any]] = {
    "lr": dict(ge=0, label="learning rate"),
    "eps": dict(ge=0, label="epsilon value"),
    "weight_decay": dict(ge=0),
    "momentum": dict(ge=0),
    "dampening": dict(),
    "alpha": dict(ge=0),
    "rho": dict(ge=0, le=1),
    "lr_decay": dict(ge=0),
    "initial_accumulator_value": dict(ge=0),
    "momentum_decay": dict(ge=0),
    "tolerance_grad": dict(ge=0),
    "tolerance_change": dict(ge=0),
}


def _check_options(**options: Any) -> dict[str, Any]:
    """The checks of an optimizer's hyper-parameters, in the order given: ``betas`` a pair in
    [0, 1), every other option finite and in its range of ``_OPTION_RULES``, the message naming
    the option as PyTorch does ("Invalid learning rate: -0.1", "Invalid weight_decay value: -0.1")
    and then the argument and its range. Returns the options as an optimizer keeps them in its
    defaults (betas as a pair of floats). Options without a rule pass unchecked."""
    for name, value in options.items():
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")  # (PyTorch's check and words)
        if name == "betas":
            options[name] = _check_betas(value)
        elif name in _OPTION_RULES:
            rule = dict(_OPTION_RULES[name])
            rule.setdefault("label", f"{name} value")
            check_real(value, name, **rule)
    return options


def _zeros_like_param(param: Any) -> Tensor:
    """A state buffer for ``param``: zeros of its shape, dtype and device, outside any graph."""
    return Tensor._make(get_array_module(param._data).zeros_like(param._data), False)


def _scalar_state(value: float = 0.0, dtype: Any = None) -> Tensor:
    """A fresh ``state["step"]`` (or NAdam's ``mu_product``): a 0-d tensor on the CPU, as PyTorch
    keeps these scalars whatever the parameter's dtype and device (so a state_dict holds what
    PyTorch's holds, and an fp16 model never rounds its count). Its dtype is float32, or float64
    while the default dtype is float64 (PyTorch's ``_get_scalar_dtype``): NAdam's running product
    of momentum factors is then kept, and rounded, in float64."""
    if dtype is None:
        dtype = np.float64 if get_default_dtype() == float64 else np.float32
    return Tensor._make(np.asarray(value, dtype=dtype), False)


def _count_step(state: dict[str, Any]) -> int:
    """Add one to ``state["step"]`` in place (a 0-d tensor: a loaded plain number became one, see
    _cast_state); return the new count for the update's formulas."""
    step = state["step"]
    step._data += 1
    return int(step._data)


def _decayed_grad(
    param: Any,
    grad: Any,
    weight_decay: float,
    maximize: bool,
    decoupled: bool = False,
    lr: float = 0.0,
) -> Any:
    """The gradient an update uses: ``-grad`` when maximizing, plus ``weight_decay * param``
    (L2 in the gradient). A new array whenever it differs, so ``p.grad`` is never written.
    ``decoupled`` (AdamW's decay) instead shrinks the parameter in place,
    p <- p * (1 - lr * weight_decay), and leaves the gradient without the L2 term."""
    g = -grad if maximize else grad
    if weight_decay != 0:
        if decoupled:
            param *= 1 - lr * weight_decay
        else:
            g = g + weight_decay * param
    return g


def _fill_with_zeros(g: Tensor) -> None:
    """``zero_grad(set_to_none=False)``: the gradient ``g`` zeroed in place, cut from any graph."""
    if g.is_sparse:  # a sparse gradient: no entries left, as PyTorch's zero_()
        g.zero_()
        return
    if g.grad_fn is not None:
        g.detach_()
    else:
        g.requires_grad = False
    if getattr(g._data.flags, "writeable", True):  # CuPy arrays are always writable
        g._data.fill(0)
    else:  # a read-only broadcast view: give it its own zeroed memory
        g._data = get_array_module(g._data).zeros_like(g._data)
    g._bump_version()


def _typename(x: Any) -> str:
    return f"{type(x).__module__}.{type(x).__qualname__}"


class Optimizer(OptimizerHooks):
    """Base class of all optimizers.

    Subclasses call ``super().__init__(params, defaults)`` and implement ``init_state`` and
    ``update`` (or, for a method that is no per-parameter update, ``step``). ``params`` is an
    iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (parameter groups), as in
    PyTorch; a bare tensor, a set, or an empty iterable is refused with an error saying why.
    Hooks around ``step``, ``state_dict`` and ``load_state_dict``: see ``hooks.py``.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        on_new_optimizer_class(cls)  # (a global step hook wraps a class's own step)

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got a single {_typename(params)}: wrap it in a list, e.g. [w]"
            )
        if isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets changes between runs: use a list instead"
            )
        try:
            param_groups = list(params)
        except TypeError:
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)} (use model.parameters())"
            ) from None
        if len(param_groups) == 0:
            raise ValueError(
                "optimizer got an empty parameter list: pass model.parameters() or a non-empty "
                "list of tensors (a generator can only be consumed once)"
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        init_hook_dicts(self)
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own options) to ``param_groups``.

        Useful when fine-tuning: unfreeze a layer and give it its own learning rate.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        if "params" not in param_group:
            raise ValueError("a parameter group needs a 'params' entry")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets changes between runs: use a list instead"
            )
        else:
            params = list(params)
        tensors, names = [], []
        for p in params:
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
                names.append(p[0])
                p = p[1]
            tensors.append(p)
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with names or without; some lack one")
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}"
                )
            if not p.is_floating_point():
                raise TypeError(
                    f"optimizer can only optimize floating-point tensors, got one of dtype "
                    f"{p.dtype.name}"
                )
            if not p.is_leaf:
                raise ValueError(
                    "can't optimize a non-leaf Tensor: optimize the leaf it was computed from, or "
                    "use x.detach().requires_grad_()"
                )
        group = dict(param_group)
        group["params"] = tensors
        if names:
            group["param_names"] = names
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)
        # a group's own options get the constructor's checks (a group may set lr=inf itself),
        # but for an option a subclass gives another meaning (Adafactor's eps is a pair)
        rules = {k for k in _OPTION_RULES if k not in self._options_of_its_own} | {"betas"}
        group.update(_check_options(**{k: v for k, v in group.items() if k in rules}))
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            raise ValueError("a parameter group contains the same parameter more than once")
        taken = {id(p) for g in self.param_groups for p in g["params"]}
        if taken.intersection(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # ------------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: ``p.grad = None`` (the default, it frees memory), or
        fill it with zeros when ``set_to_none=False``."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        _fill_with_zeros(p.grad)

    @quiet_fp  # inf or NaN gradients (or state) are stepped with silently, as in PyTorch
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient, once; returns ``closure()``'s loss (a
        closure re-evaluates the model). The loop every optimizer shares: lazy state on a first
        gradient (``init_state``), the maths on the arrays in place (``update``; a sparse gradient
        made dense or refused), then the version moves on (a backward that saved it refuses)."""
        loss = None
        if closure is not None:  # re-evaluate the model, with gradients on
            with enable_grad():
                loss = closure()
        self._opt_called = True  # LRScheduler.step warns when it runs before the first step
        for group in self.param_groups:  # (a Tensor lr reaches update() as a float: _float_lr)
            options = _float_lr(group) if isinstance(group.get("lr"), Tensor) else group
            for p in group["params"]:
                if (grad := p.grad) is None:
                    continue
                state = self.state.get(p) or self.init_state(p, options)  # lazy, on a first grad
                array = self._dense_grad(grad, options) if grad.is_sparse else grad._data
                try:
                    self.update(p._data, array, state, options)
                except ValueError as err:  # checked only on failure: a loaded state's shape
                    raise _state_shape_error(type(self).__name__, p, state, err) from None
                if state:  # none kept empty (SGD without momentum), as in PyTorch
                    self.state[p] = state
                p._bump_version()
        return loss

    # An optimizer whose update with a sparse gradient (nn.Embedding(sparse=True)) equals its
    # update with the dense one (SGD, Adagrad: zero rows change nothing that would not change
    # anyway) takes it, made dense; the others refuse it, as PyTorch's do.
    accepts_sparse_grads = False
    # options a subclass checks itself, with a meaning of its own (not _OPTION_RULES' checks)
    _options_of_its_own: tuple[str, ...] = ()

    def _dense_grad(self, grad: Any, group: dict[str, Any]) -> Any:
        """A sparse gradient's array for ``update``, made dense where that is allowed."""
        name = type(self).__name__
        if not self.accepts_sparse_grads:
            raise RuntimeError(
                f"{name} does not support sparse gradients, please consider SparseAdam instead"
            )
        if group.get("weight_decay"):
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        return grad.to_dense()._data

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        """The state of parameter ``p`` before its first update (moment buffers, a step count).
        Built lazily by ``step``; none by default."""
        return {}

    def update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """The optimizer's maths: one update of the array ``param`` from its gradient ``grad``,
        in place, with ``state`` (tensors, updated in place) and the ``group``'s options."""
        raise NotImplementedError(f"{type(self).__name__} defines neither step() nor update()")

    def _params_with_grad(self, group: dict[str, Any]) -> list[Tensor]:
        return [p for p in group["params"] if p.grad is not None]

    # ------------------------------------------------------------------ state (de)serialisation
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        Parameters are replaced by their position across all groups (0, 1, 2 ...), as in PyTorch,
        so the dict can be loaded into a fresh optimizer over a fresh model. As in PyTorch, the
        state tensors are the optimizer's own (not copies): save or deep-copy the dict before
        training on if you want a snapshot. Hooks: ``register_state_dict_pre_hook``/``post_hook``.
        """
        return state_dict_with_hooks(self, self._state_dict_without_hooks)

    def _state_dict_without_hooks(self) -> dict[str, Any]:
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {
            (index[id(k)] if isinstance(k, Tensor) else k): dict(v) for k, v in self.state.items()
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a dict made by ``state_dict``: options per group, and per-parameter state cast to
        each parameter's dtype (floating state) and device. The loaded buffers are copies.
        Hooks: ``register_load_state_dict_pre_hook``/``post_hook``."""
        state_dict = load_pre_hooks(self, state_dict)
        if not isinstance(state_dict, dict) or not {"state", "param_groups"} <= state_dict.keys():
            raise ValueError(
                "optimizer state_dict must be a dict with 'state' and 'param_groups' entries "
                "(as returned by optimizer.state_dict())"
            )
        saved_groups = state_dict["param_groups"]
        _check_layout(saved_groups, state_dict["state"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                f"loaded state dict has {len(saved_groups)} parameter groups, this optimizer has "
                f"{len(self.param_groups)}"
            )
        for i, (mine, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError(
                    f"loaded state dict's parameter group {i} has {len(saved['params'])} "
                    f"parameters, this optimizer's has {len(mine['params'])}"
                )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in self.param_groups),
            )
        )
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            param = id_map.get(key)
            if param is None:  # state that belongs to no parameter is kept as it is
                state[key] = copy.deepcopy(value)
            else:
                try:
                    state[param] = {k: _cast_state(param, k, v) for k, v in value.items()}
                except _BadCount as err:
                    raise ValueError(f"loaded state dict's state[{key!r}]: {err}") from None
        new_groups = []
        for mine, saved in zip(self.param_groups, saved_groups):
            group = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
            group["params"] = mine["params"]
            if "param_names" in mine and "param_names" not in group:
                group["param_names"] = mine["param_names"]
            new_groups.append(group)
        self.__setstate__({"state": state, "param_groups": new_groups})
        load_post_hooks(self)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        init_hook_dicts(self)  # (hooks are never saved: an unpickled optimizer has none)
        for group in self.param_groups:  # groups saved by an older version lack newer options
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, default)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"


def _check_layout(groups: Any, state: Any) -> None:
    """ValueError naming the first piece of a loaded state_dict that has the wrong kind: a list
    of groups, each a dict whose "params" is a list of ids; a dict of per-parameter dicts."""
    if not isinstance(groups, (list, tuple)):
        raise ValueError(f"state_dict['param_groups'] must be a list, got {type(groups).__name__}")
    for i, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("params"), (list, tuple)):
            raise ValueError(
                f"state_dict['param_groups'][{i}] must be a dict with a 'params' list, got "
                f"{type(group).__name__}" + (f" with keys {sorted(map(str, group))}"
                                             if isinstance(group, dict) else "")
            )  # fmt: skip
    if not isinstance(state, dict):
        raise ValueError(f"state_dict['state'] must be a dict, got {type(state).__name__}")
    for key, value in state.items():
        if not isinstance(value, dict):
            raise ValueError(
                f"state_dict['state'][{key!r}] must be a dict of per-parameter state, got "
                f"{type(value).__name__}"
            )


# The 0-d scalars of the state, kept on the CPU (NAdam's product, ASGD's eta and mu, the counts)
_SCALAR_KEYS = ("step", "mu_product", "eta", "mu")


class _BadCount(ValueError):
    """A ``step`` (or other counter) in a loaded state that no optimizer could have saved."""


def _check_step(value: Any) -> None:
    """_BadCount unless ``value`` is a step count: a number or a one-element tensor, finite and
    >= 0 (a step of NaN or -5 would make every later update NaN, or fail inside NumPy)."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise _BadCount(f"'step' should be one number, got a tensor of shape "
                            f"{tuple(value.shape)}")  # fmt: skip
        number = float(value.item())
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        raise _BadCount(f"'step' should be a number or a one-element tensor, got "
                        f"{type(value).__name__}")  # fmt: skip
    if not (math.isfinite(number) and number >= 0):
        raise _BadCount(f"'step' should be a finite count >= 0, got {number:g}")


def _cast_state(param: Tensor, key: str, value: Any) -> Any:
    """A copy of one state entry on the parameter's device, floating tensors in its dtype.

    ``step`` counters (and NAdam's ``mu_product``, ASGD's ``eta`` and ``mu``) stay 0-d tensors on
    the CPU (reading them never waits for the GPU). A saved ``step`` keeps its dtype, as PyTorch
    leaves it uncast; the others take a floating parameter's dtype, as PyTorch casts every state
    tensor but ``step`` (so a float64 model's NAdam runs on in float64 after a load). A plain
    number there, from an older state_dict, becomes a fresh scalar state.
    """
    if key == "step":
        _check_step(value)
    if key in _SCALAR_KEYS and isinstance(value, (int, float)):
        return _scalar_state(float(value))
    if key in _SCALAR_KEYS and isinstance(value, Tensor):
        if value.numel() != 1:
            raise _BadCount(f"'{key}' should be one number, got a tensor of shape "
                            f"{tuple(value.shape)}")  # fmt: skip
        arr = to_device(value._data, CPU)
        dtype = arr.dtype
        if key != "step" and param._data.dtype.kind in "fV":
            dtype = param._data.dtype
        return _scalar_state(arr.item(), dtype)
    if isinstance(value, Tensor):
        arr = value._data
        dev = device_of(param._data)
        if device_of(arr) != dev:
            arr = to_device(arr, dev)
        if key not in _SCALAR_KEYS and arr.dtype.kind in "fV" and arr.dtype != param._data.dtype:
            arr = arr.astype(param._data.dtype)
        elif arr is value._data:
            arr = arr.copy()
        return Tensor._make(arr, False)
    if isinstance(value, dict):
        return {k: _cast_state(param, k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, key, v) for v in value)
    return copy.deepcopy(value)


def _float_lr(group: dict[str, Any]) -> dict[str, Any]:
    """The options ``update`` reads for a group whose lr is a Tensor (PyTorch takes one): the lr
    as a Python float, and the tensor itself under "lr_tensor" (ASGD's eta, which PyTorch keeps
    in the tensor's dtype)."""
    return {**group, "lr": float(group["lr"].item()), "lr_tensor": group["lr"]}


def lerp_(start: Any, end: Any, weight: float, out: Any = None) -> Any:
    """``start <- start + weight * (end - start)``, in place, as PyTorch's ``lerp_`` computes it:
    PyTorch switches formula at weight 0.5 (``end - (end - start) * (1 - weight)`` above it) so
    the result is exact at both ends; we do the same, so moving averages round as they do there.
    Returns the scratch array it used (``out`` if given), which the caller may reuse."""
    xp = get_array_module(start)
    if out is None:  # a real array even for a 0-d parameter (NumPy returns 0-d results as scalars)
        out = xp.empty_like(start)
    diff = xp.subtract(end, start, out=out)
    if abs(weight) < 0.5:
        diff *= weight
        start += diff
    else:
        diff *= 1.0 - weight
        xp.subtract(end, diff, out=start)
    return diff


def _state_shape_error(name: str, p: Any, state: dict[str, Any], err: ValueError) -> Exception:
    """RuntimeError (PyTorch's type) for a state tensor that does not fit its parameter's shape,
    as a ``load_state_dict`` of another model's state leaves it: names both shapes. Another
    ValueError of the update (not NumPy's failure to broadcast) is given back as it was."""
    if "broadcast" not in str(err):
        return err
    shape = tuple(p.shape)
    bad = [
        f"'{k}' of shape {tuple(v.shape)}"
        for k, v in state.items()
        if getattr(v, "ndim", 0) > 0 and tuple(v.shape) != shape
    ]
    what = ", ".join(bad) if bad else "a state tensor"
    return RuntimeError(
        f"{name}.step: the state {what} does not fit its parameter of shape {shape} "
        "(was the state loaded from another model?)"
    )
