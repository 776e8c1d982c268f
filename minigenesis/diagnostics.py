"""Training diagnostics: gradient norms, non-finite gradients, NaN hunting and loss-curve reading.

    norms = grad_norms(model)                 # {"fc1.weight": 0.41, ...}
    total = total_grad_norm(model)            # sqrt(sum of squared per-parameter norms)
    bad = find_nonfinite_grads(model)         # ["fc2.bias: 3 NaN"], empty when all is well
    print(diagnose_training(train_losses, val_losses))

``diagnose_training`` follows the loss-curve reading of lesson 12: over
the last ``window`` epochs, train falling while validation rises is *overfitting*; both high and
close together is *underfitting*; train barely moving is *convergence*; a NaN/Inf or a rising train
loss is *divergence* (learning rate too high); a saw-tooth train loss is *oscillation*.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .backend import get_array_module

__all__ = [
    "grad_norms", "total_grad_norm", "find_nonfinite_grads", "check_finite_grads",
    "GradFlowSummary", "monitor_gradients", "find_nan_source", "Finding", "Diagnosis",
    "diagnose_training",
]  # fmt: skip


def _named(parameters: Any) -> list[tuple[str, Any]]:
    """(name, parameter) pairs from a Module, a dict, (name, p) pairs or bare parameters."""
    if hasattr(parameters, "named_parameters"):
        return list(parameters.named_parameters())
    if isinstance(parameters, dict):
        return list(parameters.items())
    items = list(parameters) if isinstance(parameters, Iterable) else [parameters]
    if items and all(isinstance(x, tuple) and len(x) == 2 for x in items):
        return items
    return [(f"param{i}", p) for i, p in enumerate(items)]


def _norm(array: Any, norm_type: float) -> float:
    """||g||_p = (sum |g_i|^p)^(1/p), in float64; p = inf gives max |g_i|."""
    xp = get_array_module(array)
    a = xp.abs(array.astype(xp.float64).ravel())
    if a.size == 0:
        return 0.0
    if math.isinf(norm_type):
        return float(a.max())
    if norm_type == 2:
        return float(xp.sqrt(xp.dot(a, a)))
    return float((a**norm_type).sum() ** (1.0 / norm_type))


def grad_norms(parameters: Any, norm_type: float = 2.0) -> dict[str, float]:
    """The ``norm_type``-norm of each parameter's gradient, by name (parameters without a
    gradient are left out). NaN/Inf in a gradient shows up as a NaN/Inf norm."""
    return {
        name: _norm(p.grad._data, float(norm_type))
        for name, p in _named(parameters)
        if p.grad is not None
    }


class GradFlowSummary:
    """What ``viz.plot_grad_flow`` draws, kept as the steps go, in a size that does not grow.

    Per layer: the number of steps it had a gradient, the sum and the max of its gradient norm,
    so that mean = sum / steps and max are those of every step added, however many there were.
    A long run (the main job saves it in its checkpoints) keeps a few numbers per layer instead
    of one dict per step, and a resumed run's plot still covers the whole run::

        summary = GradFlowSummary()
        summary.add(mg.diagnostics.grad_norms(model))     # once per step
        state = summary.state_dict()                       # plain ints, floats, dicts
        mg.viz.plot_grad_flow(GradFlowSummary(state))

    A NaN norm makes the layer's sum NaN (and its max NaN), as in ``viz.grad_flow_stats``.
    """

    def __init__(self, state: Mapping[str, Any] | None = None) -> None:
        self.steps = 0
        self.layers: dict[str, list] = {}  # name -> [steps, sum, max]
        if state is not None:
            self.steps = int(state["steps"])
            self.layers = {name: [int(n), float(total), float(top)]
                           for name, (n, total, top) in state["layers"].items()}  # fmt: skip

    def add(self, norms: Mapping[str, Any]) -> None:
        """One step's ``{parameter name: gradient norm}``."""
        self.steps += 1
        for name, value in norms.items():
            v = float(value.item() if hasattr(value, "item") else value)
            n, total, top = self.layers.get(name, (0, 0.0, -math.inf))
            top = math.nan if math.isnan(v) or math.isnan(top) else max(top, v)
            self.layers[name] = [n + 1, total + v, top]

    def stats(self) -> dict[str, tuple[float, float]]:
        """Per layer, in the order first seen: (mean, max) of its gradient norm."""
        return {name: (total / n, top) for name, (n, total, top) in self.layers.items()}

    def state_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "layers": {k: list(v) for k, v in self.layers.items()}}


def total_grad_norm(parameters: Any, norm_type: float = 2.0) -> float:
    """The norm of all gradients joined into one vector (what ``clip_grad_norm_`` returns):
    ``(sum_k ||g_k||_p^p)^(1/p)``, or the largest per-parameter max for p = inf."""
    norms = list(grad_norms(parameters, norm_type).values())
    if not norms:
        return 0.0
    p = float(norm_type)
    if math.isinf(p):
        return max(norms)
    return sum(n**p for n in norms) ** (1.0 / p)


def find_nonfinite_grads(parameters: Any) -> list[str]:
    """Every parameter whose gradient holds NaN or Inf, as ``"name: k NaN, m Inf (of n)"``."""
    found = []
    for name, p in _named(parameters):
        if p.grad is None:
            continue
        g = p.grad._data
        xp = get_array_module(g)
        nans, infs = int(xp.isnan(g).sum()), int(xp.isinf(g).sum())
        if nans or infs:
            parts = [f"{nans} NaN"] * bool(nans) + [f"{infs} Inf"] * bool(infs)
            found.append(f"{name}: {', '.join(parts)} (of {g.size})")
    return found


def check_finite_grads(parameters: Any) -> None:
    """Raise FloatingPointError naming every parameter whose gradient holds NaN or Inf."""
    bad = find_nonfinite_grads(parameters)
    if bad:
        raise FloatingPointError("non-finite gradients in " + "; ".join(bad))


def monitor_gradients(
    parameters: Any, warn_above: float | None = 10.0, verbose: bool = True
) -> float:
    """The total gradient 2-norm; with ``verbose``, prints a warning for every parameter with a
    NaN/Inf gradient and when the norm exceeds ``warn_above``."""
    total = total_grad_norm(parameters)
    if verbose:
        for line in find_nonfinite_grads(parameters):
            print(f"Warning: non-finite gradient in {line}")
        if warn_above is not None and total > warn_above:
            print(f"Warning: large gradient norm {total:.2f} (> {warn_above})")
    return total


def find_nan_source(model: Any, data: Any, target: Any, criterion: Any) -> str:
    """Run one forward/backward and say where NaN/Inf first appears: the input, the first module
    whose output is non-finite, the loss, or the gradients."""

    def nonfinite(t: Any) -> bool:
        if not hasattr(t, "_data"):
            return False
        xp = get_array_module(t._data)
        return t.dtype.is_floating_point and not bool(xp.isfinite(t._data).all())

    if nonfinite(data):
        return "the input data holds NaN/Inf"
    first_bad: list[str] = []

    def make_hook(name: str):
        def hook(module: Any, inputs: Any, output: Any) -> None:
            outs = output if isinstance(output, tuple | list) else (output,)
            if not first_bad and any(nonfinite(o) for o in outs):
                first_bad.append(f"{name or type(module).__name__} ({type(module).__name__})")

        return hook

    handles = [m.register_forward_hook(make_hook(n)) for n, m in model.named_modules()]
    try:
        output = model(data)
    finally:
        for h in handles:
            h.remove()
    if first_bad:
        return f"the output of module {first_bad[0]} holds NaN/Inf"
    loss = criterion(output, target)
    if nonfinite(loss):
        return "the loss is NaN/Inf although the model output is finite"
    loss.backward()
    bad = find_nonfinite_grads(model)
    if bad:
        return "non-finite gradients in " + "; ".join(bad)
    return "no NaN/Inf found"


# ---------------------------------------------------------------------------------------------
# Reading loss curves
# ---------------------------------------------------------------------------------------------
@dataclass
class Finding:
    kind: str  # overfitting | underfitting | converged | diverging | oscillating | too_short
    message: str
    advice: str = ""


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return [f.kind for f in self.findings]

    @property
    def healthy(self) -> bool:
        """No warning (convergence alone is not a problem)."""
        return all(k == "converged" for k in self.kinds)

    def __contains__(self, kind: str) -> bool:
        return kind in self.kinds

    def __str__(self) -> str:
        if not self.findings:
            return "No problem found: the losses look healthy."
        lines = []
        for f in self.findings:
            lines.append(f"[{f.kind}] {f.message}")
            if f.advice:
                lines.append(f"    advice: {f.advice}")
        return "\n".join(lines)


def _floats(values: Sequence[Any]) -> list[float]:
    return [float(v.item() if hasattr(v, "item") else v) for v in values]


def diagnose_training(
    train_losses: Sequence[float],
    val_losses: Sequence[float] | None = None,
    window: int = 10,
    high_loss: float = 0.5,
    gap: float = 0.1,
    converge_tol: float = 0.01,
    verbose: bool = False,
) -> Diagnosis:
    """Read the last ``window`` epochs of the loss curves.

    - diverging: a NaN/Inf loss, or the train loss ending above where the window started and
      above 1.5x its best value (learning rate too high).
    - oscillating: the train loss changes direction in most steps of the window and its swings
      exceed 10% of its mean (learning rate too high, or batch too small).
    - overfitting: train[-1] < train[0] and val[-1] > val[0] in the window.
    - underfitting: train[-1] > ``high_loss`` and |train[-1] - val[-1]| < ``gap``.
    - converged: |train[-1] - train[0]| < ``converge_tol`` over the window.
    Fewer than ``window`` epochs gives a single "too_short" finding.
    """
    train = _floats(train_losses)
    val = _floats(val_losses) if val_losses is not None else []
    diagnosis = Diagnosis()
    add = diagnosis.findings.append
    if any(not math.isfinite(x) for x in train + val):
        add(Finding("diverging", "a loss is NaN or Inf: training diverged",
                    "lower the learning rate, clip gradients, check the data for NaN"))  # fmt: skip
    elif len(train) < window:
        add(Finding("too_short", f"only {len(train)} epochs: need at least {window} to diagnose"))
    else:
        t = train[-window:]
        v = val[-window:] if len(val) >= window else []
        if t[-1] > t[0] and t[-1] > 1.5 * min(train):
            add(Finding("diverging", "the train loss is rising: training is diverging",
                        "lower the learning rate or clip gradients"))  # fmt: skip
        steps = [b - a for a, b in zip(t, t[1:])]
        turns = sum(1 for a, b in zip(steps, steps[1:]) if a * b < 0)
        mean = sum(t) / len(t)
        if turns >= 0.6 * (len(steps) - 1) and max(t) - min(t) > 0.1 * abs(mean):
            add(Finding("oscillating", "the train loss swings up and down strongly",
                        "lower the learning rate or use a larger batch"))  # fmt: skip
        if v and t[-1] < t[0] and v[-1] > v[0]:
            add(Finding("overfitting", "train loss falls while validation loss rises",
                        "add dropout or weight decay, augment the data, shrink the model, "
                        "or stop earlier"))  # fmt: skip
        if v and t[-1] > high_loss and abs(t[-1] - v[-1]) < gap:
            add(Finding("underfitting", "train and validation losses are both high and close",
                        "use a bigger model, train longer, check the data and labels"))  # fmt: skip
        if abs(t[-1] - t[0]) < converge_tol:
            message = "the train loss has stopped changing: the model has probably converged"
            add(Finding("converged", message, "try a smaller learning rate to fine-tune"))
    if verbose:
        print(diagnosis)
    return diagnosis
