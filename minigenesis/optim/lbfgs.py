"""L-BFGS: a quasi-Newton method that builds a curvature model from the last few steps.

Each iteration turns the gradient into a search direction with the *two-loop recursion*: the
stored pairs ``s = x_{k+1} - x_k`` and ``y = g_{k+1} - g_k`` stand for an approximate inverse
Hessian ``H`` without ever forming it. The step along that direction is either ``lr`` (no line
search) or found by a line search that satisfies the strong Wolfe conditions.

This follows PyTorch's ``torch.optim.LBFGS`` step for step (same tests, same branches, same
bookkeeping), so it reproduces PyTorch's iterates. Scalars that PyTorch keeps as 0-d tensors of the
parameters' dtype (dot products, the step ``t``) are NumPy scalars of that dtype here, so float32
problems round as they do there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import kernels
from .._checks import check_int
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..backend import Array, get_array_module, quiet_fp
from .optimizer import Optimizer, _check_options


def _cubic_interpolate(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: tuple[Any, Any] | None = None
) -> Any:
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clipped to
    ``bounds`` (default: the interval between x1 and x2); the interval's middle if the cubic has
    no minimum."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        # a host scalar of the parameters' dtype; np.sqrt is correctly rounded, as PyTorch's
        # d2_square.sqrt(), where a float32 scalar's ** 0.5 (powf) is 1 ulp off for some values
        d2 = get_array_module(d2_square).sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(
    obj_func: Callable[[Any, Array], tuple[float, Array]],
    t: Any,
    d: Array,
    f: float,
    g: Array,
    gtd: Any,
    dot: Callable[[Array, Array], Any],
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Array, Any, int]:
    """A step ``t`` along ``d`` that satisfies the strong Wolfe conditions

        f(x + t d) <= f + c1 t g.d          (sufficient decrease)
        |g(x + t d).d| <= c2 |g.d|           (the slope has flattened)

    found by bracketing (grow ``t`` by cubic extrapolation until an interval must hold such a
    point) and then zooming (shrink the interval by cubic interpolation). ``obj_func(t, d)``
    returns the loss and flat gradient at ``x + t d``. Returns (loss, gradient, t, evaluations).
    """
    d_norm = abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(t, d)
    ls_func_evals = 1
    gtd_new = dot(g_new, d)

    # bracketing phase
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        # extrapolate: somewhere between a bit further and ten times further
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(t, d)
        ls_func_evals += 1
        gtd_new = dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:  # out of evaluations: bracket [0, t]
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom phase: the bracket holds a point that satisfies the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        # a point too close to an end of the bracket makes little progress: move it in
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(t, d)
        ls_func_evals += 1
        gtd_new = dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # not enough decrease: t becomes the high end
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # the old high end is on the wrong side: the old low end replaces it
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    r"""L-BFGS as PyTorch computes it. ``step(closure)`` runs up to ``max_iter`` iterations:

    .. code-block:: text

        d = -g                                            (first iteration ever)
        d = -H g                                          (later: two-loop recursion over the
                                                           last history_size pairs (s, y) with
                                                           y.s > 1e-10; H starts as (y.s / y.y) I)
        t = min(1, 1 / sum|g|) * lr   (first iteration ever)   else   t = lr
        t <- strong Wolfe line search from t              (line_search_fn="strong_wolfe")
        x <- x + t d

    and stops early when ``max|g| <= tolerance_grad``, when ``g.d > -tolerance_change`` (not a
    descent direction), when ``max|t d|`` or the change of the loss is ``<= tolerance_change``, or
    after ``max_eval`` evaluations of the closure (default ``max_iter * 5 // 4``).

    ``closure`` clears the gradients, computes the loss, calls ``backward`` and returns the loss;
    ``step`` returns the loss of its first evaluation. There is one parameter group, and all the
    state (history, direction, counters ``func_evals`` and ``n_iter``) lives under the first
    parameter, as in PyTorch. Memory: ``2 * history_size + 2`` flat copies of the parameters.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        _check_options(lr=lr, tolerance_grad=tolerance_grad, tolerance_change=tolerance_change)
        max_iter = check_int(max_iter, "max_iter", ge=1)
        history_size = check_int(history_size, "history_size", ge=1)
        max_eval = max_iter * 5 // 4 if max_eval is None else check_int(max_eval, "max_eval", ge=1)
        # PyTorch checks line_search_fn only inside step(); refusing it here says so sooner.
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(
                f"line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}"
            )
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    # ------------------------------------------------------------------ flat views
    def _gather_flat_grad(self) -> Array:
        """Every parameter's gradient in one new flat array (zeros where a gradient is None)."""
        xp = get_array_module(self._params[0]._data)
        views = [
            xp.zeros(p._data.size, p._data.dtype) if p.grad is None else p.grad._data.reshape(-1)
            for p in self._params
        ]
        return xp.concatenate(views)

    def _add_grad(self, step_size: Any, update: Array) -> None:
        """``params <- params + step_size * update`` (``update`` flat)."""
        offset = 0
        for p in self._params:
            n = p._data.size
            _add_scaled(p._data, step_size, update[offset : offset + n].reshape(p._data.shape))
            p._bump_version()
            offset += n

    def _directional_evaluate(
        self, closure: Callable[[], Any], x: list[Array], t: Any, d: Array
    ) -> tuple[float, Array]:
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x`` after."""
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, saved in zip(self._params, x):
            p._data[...] = saved
            p._bump_version()
        return loss, flat_grad

    # ------------------------------------------------------------------ the step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation."""
        if closure is None or not callable(closure):
            raise TypeError(
                "LBFGS.step needs a closure: a function that clears the gradients, computes the "
                "loss, calls loss.backward() and returns the loss"
            )
        group = self.param_groups[0]
        with no_grad():
            return self._step(closure, group)

    # inf or NaN gradients are stepped with silently, as in PyTorch (the closure runs inside,
    # its ops are quiet anyway)
    @quiet_fp
    def _step(self, closure: Callable[[], Any], group: dict[str, Any]) -> Any:
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")

        first = self._params[0]
        xp = get_array_module(first._data)
        scalar = np.dtype(first._data.dtype).type  # PyTorch's 0-d tensors of the param dtype

        def dot(a: Array, b: Array) -> Any:
            return scalar(float(xp.dot(a, b)))

        def abs_max(a: Array) -> Any:
            return scalar(float(xp.abs(a).max()))

        state = self.state[first]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1

        flat_grad = self._gather_flat_grad()
        if abs_max(flat_grad) <= tolerance_grad:  # already optimal
            return orig_loss

        # the state carried over from the previous step (PyTorch's own state dict holds t, ro
        # and H_diag as 0-d tensors: loaded from it, they are read as numbers here)
        d = _array(state.get("d"))
        t = _number(_array(state.get("t")))
        old_dirs = [_array(a) for a in state.get("old_dirs", [])]
        old_stps = [_array(a) for a in state.get("old_stps", [])]
        ro = [_number(_array(r)) for r in state.get("ro", [])]
        H_diag = _number(_array(state.get("H_diag")))
        prev_flat_grad = _array(state.get("prev_flat_grad"))
        prev_loss = _number(_array(state.get("prev_loss")))

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the search direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = dot(y, s)
                if ys > 1e-10:  # keep the pair only if the curvature is positive
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / dot(y, y)
                # two-loop recursion: d = -H g
                num_old = len(old_dirs)
                al = state.setdefault("al", [None] * history_size)  # kept, as PyTorch keeps it
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = dot(old_stps[i], q) * ro[i]
                    _add_scaled(q, -al[i], old_dirs[i])
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = dot(old_dirs[i], r) * ro[i]
                    _add_scaled(r, al[i] - be_i, old_stps[i])

            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / scalar(float(xp.abs(flat_grad).sum()))) * lr
            else:
                t = lr
            gtd = dot(flat_grad, d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn == "strong_wolfe":
                x_init = [p._data.copy() for p in self._params]

                def obj_func(t: Any, d: Array, x_init: list[Array] = x_init) -> tuple[float, Array]:
                    return self._directional_evaluate(closure, x_init, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, t, d, loss, flat_grad, gtd, dot, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = abs_max(flat_grad) <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # re-evaluate, unless this was the last iteration
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = abs_max(flat_grad) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # stopping conditions
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if abs_max(d * t) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        # kept as tensors and Python numbers, so the state dict saves and loads like any other
        state["d"] = _tensor(d)
        state["t"] = _number(t)
        state["old_dirs"] = [_tensor(a) for a in old_dirs]
        state["old_stps"] = [_tensor(a) for a in old_stps]
        state["ro"] = [_number(r) for r in ro]
        if "al" in state:
            state["al"] = [_number(a) for a in state["al"]]
        state["H_diag"] = _number(H_diag)
        state["prev_flat_grad"] = _tensor(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss


def _add_scaled(y: Array, a: Any, x: Array) -> None:
    """y += a x, in place (PyTorch's ``y.add_(x, alpha=a)``): on the CPU one BLAS pass
    (kernels/blas.py's axpy), where NumPy would make a x in a temporary first."""
    if not kernels.blas.axpy(a, x, y):
        y += a * x


def _array(value: Any) -> Any:
    return value._data if isinstance(value, Tensor) else value


def _tensor(value: Any) -> Any:
    return None if value is None else Tensor._make(value, False)


def _number(value: Any) -> Any:
    """A Python number for the state (a NumPy scalar's value is kept exactly)."""
    if value is None or isinstance(value, int):
        return value
    return float(value)
